package apiclient_test

// The decode benchmarks: BenchmarkDecodeObject (one recorded pod),
// BenchmarkDecodeList10k (a 10,000-pod LIST, item by item, and the heap the pods
// hold), BenchmarkFieldString (a field read off a decoded pod). What the decode
// path does, and the figures measured before and after it was written by hand,
// are in internal/jsonwire's package doc, "Performance".

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// testdata/pod.json is a pod as kube-apiserver 1.32 serves it (5.2 KB, half of it
// managedFields): the unit of the performance goals.
func readPod(b *testing.B) []byte {
	b.Helper()
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.TrimSpace(pod)
}

// listBody builds a LIST response of n copies of the pod, each with its own name.
func listBody(b *testing.B, n int) []byte {
	pod := readPod(b)
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1000"},"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(bytes.Replace(pod, []byte(`"name":"load-000001"`), []byte(fmt.Sprintf(`"name":"load-%06d"`, i)), 1))
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

func BenchmarkDecodeObject(b *testing.B) {
	pod := readPod(b)
	b.SetBytes(int64(len(pod)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := apiclient.DecodeObject(pod); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeList10k decodes a 10,000-pod LIST body item by item, as a
// Reflector's LIST does, and reports the heap the decoded pods hold.
func BenchmarkDecodeList10k(b *testing.B) {
	body := listBody(b, 10000)
	decode := func() []*apiclient.Object {
		kept := make([]*apiclient.Object, 0, 10000)
		var header apiclient.List
		err := apiclient.DecodeList(bytes.NewReader(body), apiclient.DecodeOptions{}, &header, func(o *apiclient.Object) error {
			kept = append(kept, o)
			return nil
		})
		if err != nil || len(kept) != 10000 {
			b.Fatalf("%d items: %v", len(kept), err)
		}
		return kept
	}
	// What the cache pays: the heap that 10,000 decoded pods keep alive.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := decode()
	runtime.GC()
	runtime.ReadMemStats(&after)
	heapPerPod := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(kept))
	runtime.KeepAlive(kept)
	kept = nil

	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		decode()
	}
	cpu = cpuTime() - cpu
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/pod")
	b.ReportMetric(heapPerPod, "heap-B/pod")
	if cpu > 0 {
		// Per core: the bytes decoded for each second of CPU spent, the garbage
		// collector's included, whatever else runs on the machine.
		b.ReportMetric(float64(len(body))*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkFieldString reads status.phase out of the recorded pod, as a controller
// does on every event: it walks the kept bytes and allocates only the string it
// returns. (Before, it wrote the metadata back first and threw it away: 41
// allocations.)
func BenchmarkFieldString(b *testing.B) {
	obj, err := apiclient.DecodeObject(readPod(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if phase, ok := obj.FieldString("status", "phase"); !ok || phase != "Pending" {
			b.Fatalf("status.phase = %q, %v", phase, ok)
		}
	}
}
