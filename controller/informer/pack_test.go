package informer_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/informer/informertest"
)

// The cache holds less than the wire (issue 42): 2,000 pods of one template,
// each with its own name, uid, resourceVersion and a value of its own, cost
// the heap less per pod, store and index included, than the JSON the server
// sends for one without managedFields (2.5 KB). Kept whole, a pod cost 3.2 KB.
func TestInformer_holds_a_pod_in_less_than_its_bytes_on_the_wire(t *testing.T) {
	const n = 2000
	pod, err := os.ReadFile("../../apiclient/testdata/pod.json")
	must(t, err)
	first, err := apiclient.DecodeObject(pod)
	must(t, err)
	wire := len(first.Raw()) // without managedFields, as the decoder drops them
	inf, src, start := informertest.New(t, informer.Options{})
	start()

	base := heapAfterGC()
	list := make([]*apiclient.Object, n)
	for i := range list {
		p := bytes.Replace(pod, []byte(`"name":"load-000001"`), fmt.Appendf(nil, `"name":"load-%06d"`, i), 1)
		p = bytes.Replace(p, []byte(`111e14331b7c`), fmt.Appendf(nil, `%012d`, i), 1)
		p = bytes.Replace(p, []byte(`"resourceVersion":"571"`), fmt.Appendf(nil, `"resourceVersion":"%d"`, 1000+i), 1)
		p = bytes.Replace(p, []byte(`"value":"value-1-3"`), fmt.Appendf(nil, `"value":"value-%d-3"`, i), 1)
		if list[i], err = apiclient.DecodeObject(p); err != nil {
			t.Fatal(err)
		}
	}
	must(t, src.Sink.Replace(list, "1"))
	if !inf.WaitForCacheSync(t.Context()) {
		t.Fatal("cache did not sync")
	}
	perPod := float64(heapAfterGC()-base) / n
	runtime.KeepAlive(list)

	if got, want := inf.Len(), n; got != want {
		t.Fatalf("%d objects cached, want %d", got, want)
	}
	t.Logf("%.0f bytes a pod in the cache, %d on the wire", perPod, wire)
	if perPod >= float64(wire) {
		t.Fatalf("the cache holds %.0f bytes a pod, the wire %d: want less", perPod, wire)
	}
	// and what it holds reads back as the server's bytes
	got, err := inf.Get("bench-sample", "load-000042")
	must(t, err)
	want := bytes.Replace(pod, []byte(`"name":"load-000001"`), []byte(`"name":"load-000042"`), 1)
	want = bytes.Replace(want, []byte(`111e14331b7c`), []byte(`000000000042`), 1)
	want = bytes.Replace(want, []byte(`"resourceVersion":"571"`), []byte(`"resourceVersion":"1042"`), 1)
	want = bytes.Replace(want, []byte(`"value":"value-1-3"`), []byte(`"value":"value-42-3"`), 1)
	w, err := apiclient.DecodeObject(want)
	must(t, err)
	if !bytes.Equal(got.Raw(), w.Raw()) {
		t.Fatalf("a cached pod reads back as\n%s\nwant\n%s", got.Raw(), w.Raw())
	}
	if v, _ := got.FieldString("spec", "containers", "0", "env", "3", "value"); v != "value-42-3" {
		t.Fatalf("Field of a cached pod: %q, want value-42-3", v)
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
