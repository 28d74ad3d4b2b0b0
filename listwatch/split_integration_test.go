package listwatch_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/realtest"
	"github.com/kubewire/kubewire/listwatch"
)

// TestIntegration_a_split_list_equals_the_servers_list: on a real server, a
// list split into parts at one resourceVersion X — by hash range where the server
// serves shardSelector (v1.37 with ShardedListAndWatch), by namespace in all
// namespaces where it does not — reaches the Sink as exactly what the server
// lists at X (a LIST with resourceVersionMatch=Exact), while ConfigMaps are
// created and deleted throughout; and the cache the watch from X keeps equals a
// fresh LIST once the writes stop. ConfigMaps, because a list in all namespaces
// lists every one of the cluster (there are few; the pods of the 10,000-pod test
// would take minutes to decode under -race). Splits start at four objects a
// part here (2,000 outside tests), four parts at most.
func TestIntegration_a_split_list_equals_the_servers_list(t *testing.T) {
	cfg, _ := realtest.Config(t)
	c := integrationClient(t, cfg)
	defer listwatch.SplitFrom(4)()
	var nss []string
	for i := range 3 {
		ns := realtest.Namespace(t, c, fmt.Sprintf("kubewire-split-%d", i))
		nss = append(nss, ns)
		for j := range 15 {
			createConfigMap(t, c.Resource(apiclient.ConfigMaps).Namespace(ns), fmt.Sprintf("cm-%02d", j))
		}
	}
	for _, tt := range []struct {
		name string
		rc   apiclient.ResourceClient
	}{
		{"one namespace", c.Resource(apiclient.ConfigMaps).Namespace(nss[0])},
		{"all namespaces", c.Resource(apiclient.ConfigMaps)},
		{"all namespaces, metadata only", c.Resource(apiclient.ConfigMaps).MetadataOnly()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// By hash where the server says it filters by shardSelector (v1.37.2
			// with ShardedListAndWatch on, but for PartialObjectMetadata: it
			// filters those lists without saying so), by namespace in all
			// namespaces otherwise.
			sharded, want := servesShardSelector(t, tt.rc), ""
			switch {
			case sharded:
				want = "uid hash"
			case tt.rc.AllNamespaces():
				want = "namespace"
			}
			// Writes all through the list: each part is read at X whenever it
			// runs, so none of them may show.
			stopWrites := churn(t, c.Resource(apiclient.ConfigMaps).Namespace(nss[0]), strings.NewReplacer(" ", "-", ",", "").Replace(tt.name))
			defer stopWrites()
			sink := &replaceSpy{modelSink: newModelSink(nil), replaced: make(chan []string, 1), changed: make(chan struct{}, 1)}
			listed := make(chan listwatch.Step, 1)
			var split string
			r := listwatch.New(tt.rc, sink, listwatch.Options{Split: 4, Logger: discard,
				OnStep: func(s listwatch.Step) {
					switch s.Op {
					case listwatch.OpSplit:
						split = s.By
					case listwatch.OpListed:
						select {
						case listed <- s:
						default:
						}
					}
				}})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			defer func() { cancel(); <-done }()
			var got []string
			var at listwatch.Step
			select {
			case at = <-listed:
				got = <-sink.replaced
			case <-time.After(2 * time.Minute):
				t.Fatalf("not listed after 2 minutes: %+v", r.Health())
			}
			if split != want {
				t.Fatalf("split by %q, want %q (the server says it serves shardSelector: %v)", split, want, sharded)
			}
			server := exactState(t, tt.rc, at.ResourceVersion)
			if diff := differ(got, server); diff != "" {
				t.Fatalf("the list at %s holds %d objects, the server's list at %s %d: %s", at.ResourceVersion, len(got), at.ResourceVersion, len(server), diff)
			}
			t.Logf("split by %q: %d objects at %s, equal to the server's list at %s", split, len(got), at.ResourceVersion, at.ResourceVersion)
			if tt.rc.AllNamespaces() {
				return // the whole cluster never stops changing on a shared server
			}
			stopWrites()
			server = serverState(t, tt.rc)
			deadline := time.After(time.Minute)
			for differ(sink.state(), server) != "" {
				select {
				case <-sink.changed:
				case <-deadline:
					t.Fatalf("a minute after the writes stopped the cache differs from the server's list: %s", differ(sink.state(), server))
				}
			}
		})
	}
}

// churn creates ConfigMaps in rc, deleting every second one, until the function
// it returns is called; that function waits for the writes to stop.
func churn(t *testing.T, rc apiclient.ResourceClient, prefix string) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() { // owned by churn's caller: stop ends it
		defer close(done)
		ctx := context.Background()
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			default:
			}
			name := fmt.Sprintf("churn-%s-%d", prefix, i)
			if _, err := rc.Create(ctx, configMap(name), apiclient.WriteOptions{}); err != nil {
				t.Errorf("churn: %v", err)
				return
			}
			if i%2 == 1 {
				if err := rc.Delete(ctx, name, apiclient.DeleteOptions{}); err != nil {
					t.Errorf("churn: %v", err)
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

func createConfigMap(t *testing.T, rc apiclient.ResourceClient, name string) {
	t.Helper()
	if _, err := rc.Create(context.Background(), configMap(name), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func configMap(name string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"k":"v"}}`, name))
}

// replaceSpy tells replaced what the first Replace held, as "namespace/name
// rv=N" lines, sorted, and changed of every change after it.
type replaceSpy struct {
	*modelSink
	replaced chan []string
	changed  chan struct{}
}

func (s *replaceSpy) Add(o *apiclient.Object) error    { defer s.tell(); return s.modelSink.Add(o) }
func (s *replaceSpy) Update(o *apiclient.Object) error { defer s.tell(); return s.modelSink.Update(o) }
func (s *replaceSpy) Delete(o *apiclient.Object) error { defer s.tell(); return s.modelSink.Delete(o) }

func (s *replaceSpy) tell() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *replaceSpy) Replace(list []*apiclient.Object, rv string) error {
	defer s.tell()
	m := newModelSink(nil)
	m.Replace(list, rv)
	select {
	case s.replaced <- m.state():
	default:
	}
	return s.modelSink.Replace(list, rv)
}

// exactState is what the server lists at rv exactly.
func exactState(t *testing.T, rc apiclient.ResourceClient, rv string) []string {
	t.Helper()
	items, _, err := listwatch.ListAll(context.Background(), rc, apiclient.ListOptions{ResourceVersion: rv, ResourceVersionMatch: "Exact", Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	sink := newModelSink(nil)
	sink.Replace(items, rv)
	return sink.state()
}

// servesShardSelector asks the server whether it filters by shardSelector: it
// echoes the selector in the list's shardInfo when it does.
func servesShardSelector(t *testing.T, rc apiclient.ResourceClient) bool {
	t.Helper()
	meta, err := rc.ListEach(context.Background(), apiclient.ListOptions{Limit: 1,
		ShardSelector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"},
		apiclient.DecodeOptions{}, func(*apiclient.Object) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return meta.ShardInfo != nil
}

// differ says how two sorted state listings differ, or "".
func differ(got, want []string) string {
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return ""
	}
	have := map[string]bool{}
	for _, s := range got {
		have[s] = true
	}
	for _, s := range want {
		if !have[s] {
			return "missing " + s
		}
		delete(have, s)
	}
	for s := range have {
		return "extra " + s
	}
	return "duplicates"
}
