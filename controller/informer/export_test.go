package informer

import "github.com/kubewire/kubewire/apiclient"

// Cached returns the cache's own object under namespace/name, not a copy: for
// tests that check what the cache holds (which objects share a map, which one a
// relist kept).
func (inf *Informer) Cached(namespace, name string) (*apiclient.Object, bool) {
	return inf.store.GetByKey(key(namespace, name))
}
