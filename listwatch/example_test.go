package listwatch_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/listwatch"
)

// printSink prints what a Reflector writes into it. In the pipeline the sink is a
// FIFO of package fifo; any type with these four methods will do.
type printSink struct{ added chan string }

func (s printSink) Add(o *apiclient.Object) error {
	fmt.Println("sink: Add", o.Key())
	s.added <- o.Key()
	return nil
}
func (printSink) Update(o *apiclient.Object) error { fmt.Println("sink: Update", o.Key()); return nil }
func (printSink) Delete(o *apiclient.Object) error { fmt.Println("sink: Delete", o.Key()); return nil }
func (printSink) Replace(list []*apiclient.Object, rv string) error {
	fmt.Printf("sink: Replace with %d objects at resourceVersion %s\n", len(list), rv)
	return nil
}

// The whole move: a Reflector lists the pods of a namespace, hands them to its sink
// as one Replace, then watches and hands over each change. Here the API server is
// apitest's, in memory; against a cluster only the client differs.
func Example() {
	srv := apitest.NewServer(nil)
	srv.CreateNamespaces("demo")
	defer srv.Close()
	srv.Add(apiclient.Pods, `{"metadata":{"name":"web-1","namespace":"demo"}}`)
	client, _ := srv.Client(apiclient.Options{})

	sink := printSink{added: make(chan string)}
	listed := make(chan struct{})
	r := listwatch.New(client.Resource(apiclient.Pods).Namespace("demo"), sink, listwatch.Options{
		Rand:   rand.New(rand.NewPCG(1, 2)), // fixed watch timeouts, for the output below
		Logger: discard,
		OnStep: func(s listwatch.Step) {
			if s.Op != listwatch.OpItem { // one line per step, as --trace prints them
				fmt.Println(s)
			}
			if s.Op == listwatch.OpListed {
				close(listed)
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()

	<-listed
	srv.Add(apiclient.Pods, `{"metadata":{"name":"web-2","namespace":"demo"}}`) // a change the watch will see
	<-sink.added
	cancel()
	<-done
	fmt.Println("synced:", r.HasSynced(), "at", r.LastSyncResourceVersion())
	// Output:
	// LIST   rv=0 limit=500
	// LISTED rv=2 items=1
	// sink: Replace with 1 objects at resourceVersion 2
	// WATCH  rv=2 timeout=8m22s
	// ADD    demo/web-2 rv=3
	// sink: Add demo/web-2
	// synced: true at 3
}

// Record the pods of a namespace (the list a default informer sends: a LIST
// from v1.33, a streaming list before) and the next 100 watch events from a
// cluster into a file only its owner can read (what `kubewire record` does).
func ExampleRecord() {
	cfg, err := kubeconfig.Load(kubeconfig.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := recording.Create("pods.rec")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	sum, err := listwatch.Record(context.Background(), cfg, apiclient.Pods, f, listwatch.RecordOptions{
		Namespace: "default", Events: 100, Comments: []string{"the pods of the default namespace, for a demo"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d requests, %d pods listed, %d watch events\n", sum.Requests, sum.Listed, sum.Events)
}
