package live_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/kubewire/kubewire/controller/live"
)

// Follow a pod through the pipeline: the Hub is given the trace lines the
// stages write (ManagerOptions.Trace), and tells a page the path of one object,
// each hop with the file that does it. These lines are a part of `kubewire
// demo`'s trace: pod demo/web-2 becomes Running, which makes the podrestart
// controller restart deployment demo/tools.
func Example() {
	hub := live.New(live.Options{Command: "demo"})
	defer hub.Close()
	for _, line := range []string{
		"listwatch UPDATE demo/web-2 rv=7",
		"fifo pop Updated demo/web-2 rv=7",
		"store update demo/web-2 rv=7 size=2",
		"handler update demo/web-2 to=podrestart backlog=1",
		"listwatch UPDATE demo/web-1 rv=8", // another pod: not on the path
		"queue add demo/tools depth=1 from=demo/web-2",
		"controller reconcile demo/tools start",
		"apiclient PATCH deployments demo/tools 200 1ms",
		"controller reconcile demo/tools ok 1ms",
	} {
		hub.Trace(line)
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
	// 9 controller demo/tools controller/controller.go
}
