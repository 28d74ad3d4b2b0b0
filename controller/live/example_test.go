package live_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/kubewire/kubewire/controller/live"
	"github.com/kubewire/kubewire/controller/trace"
	"github.com/kubewire/kubewire/listwatch"
)

// Follow a pod through the pipeline: the Hub is given the hops the stages emit
// (ManagerOptions.Trace: hub.Trace), and tells a page the path of one object,
// each hop with the file that does it. These hops are a part of `kubewire
// demo`'s: pod demo/web-2 becomes Running, which makes the podrestart
// controller restart deployment demo/tools.
func Example() {
	hub := live.New(live.Options{Command: "demo"})
	defer hub.Close()
	for _, e := range []trace.Event{
		{Stage: trace.Reflector, Verb: "UPDATE", Key: "demo/web-2", Step: listwatch.Step{Op: listwatch.OpUpdate, Key: "demo/web-2", ResourceVersion: "7"}},
		{Stage: trace.FIFO, Verb: "pop", Delta: "Updated", Key: "demo/web-2", ResourceVersion: "7"},
		{Stage: trace.Store, Verb: "update", Key: "demo/web-2", ResourceVersion: "7", Size: 2},
		{Stage: trace.Handler, Verb: "update", Key: "demo/web-2", To: "podrestart", Size: 1},
		{Stage: trace.Reflector, Verb: "UPDATE", Key: "demo/web-1", Step: listwatch.Step{Op: listwatch.OpUpdate, Key: "demo/web-1", ResourceVersion: "8"}}, // another pod: not on the path
		{Stage: trace.Queue, Verb: "add", Key: "demo/tools", Size: 1, From: "demo/web-2"},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "start"},
		{Stage: trace.Client, Verb: "PATCH", Resource: "deployments", Key: "demo/tools", Outcome: "sent"},
		{Stage: trace.Client, Verb: "PATCH", Resource: "deployments", Key: "demo/tools", Outcome: "answered", Code: 200, Took: time.Millisecond},
		{Stage: trace.Controller, Verb: "reconcile", Key: "demo/tools", Outcome: "ok", Took: time.Millisecond},
	} {
		hub.Trace(e)
	}

	page := httptest.NewRecorder() // what GET /api/follow answers a page
	hub.Handler().ServeHTTP(page, httptest.NewRequest("GET", "/api/follow?key=demo/web-2", nil))
	var path struct{ Hops []live.Hop }
	if err := json.Unmarshal(page.Body.Bytes(), &path); err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range path.Hops {
		fmt.Printf("%d %-10s %-10s %s\n", h.Seq, h.Stage, h.Key, h.File)
	}
	// Output:
	// 1 listwatch  demo/web-2 listwatch/watch.go
	// 2 fifo       demo/web-2 fifo/inorder.go
	// 3 store      demo/web-2 controller/informer/informer.go
	// 4 handler    demo/web-2 controller/informer/listener.go
	// 6 queue      demo/tools controller/watch.go
	// 7 controller demo/tools controller/controller.go
	// 8 apiclient  demo/tools apiclient/request.go
	// 9 apiclient  demo/tools apiclient/request.go
	// 10 controller demo/tools controller/controller.go
}
