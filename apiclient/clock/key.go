package clock

// ObjectKey is the module's one namespace/name key: "namespace/name", or the
// name alone for a cluster-scoped object (namespace ""). It is what store files
// an object under (store.MetaKey), what a workqueue Request prints as, and what
// the trace, the caches and apitest name an object by; store.SplitKey takes it
// apart. It lives in this floor, beside the clock, because every layer from
// apiclient to controller builds it and this is the one package they all may
// import. It allocates once for a namespaced object and not at all otherwise.
func ObjectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
