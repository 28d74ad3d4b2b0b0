package listwatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/listwatch"
)

// Every loop of the Reflector has a floor: against a server that answers the
// same way every time, whatever the answer and however little each try moves
// (one event, then the same failure), the Reflector asks at most a few times a
// second at first and ever more slowly after (issue 39: a watch that delivered
// one event and then a 410 was relisted at once, 24,922 requests in 10 s).
// Each loop runs for a minute of a fake clock (testing/synctest) against a
// server that answers from memory, and the requests are counted.
func TestReflector_every_retry_loop_has_a_floor(t *testing.T) {
	const (
		list    = podsList
		watch   = "watch"
		minute  = time.Minute
		maxRate = 5.0 // requests a second, over the minute
	)
	expired := `{"type":"ERROR","object":` + gone410 + `}`
	failure := `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"internal error","reason":"InternalError","code":500}}`
	for _, tt := range []struct {
		name string
		opts listwatch.Options
		// answer is the server: the status and body for a request, by what it is.
		answer func(kind string) (int, string)
	}{
		{"one event, then 410 Expired in the stream", listwatch.Options{}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 200, ev("ADDED", "b", "11") + "\n" + expired
		}},
		{"one event, then the watch ends", listwatch.Options{}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 200, ev("ADDED", "b", "11")
		}},
		{"one event, then an error event", listwatch.Options{}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 200, ev("ADDED", "b", "11") + "\n" + failure
		}},
		{"the watch request answered 410", listwatch.Options{}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 410, gone410
		}},
		{"every list answered 500", listwatch.Options{}, func(string) (int, string) {
			return 500, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","code":500}`
		}},
		{"a streaming list cut after one event", listwatch.Options{List: listwatch.ListStreaming}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 200, ev("ADDED", "b", "11")
		}},
		{"a streaming list, one event after it, then 410 Expired", listwatch.Options{List: listwatch.ListStreaming}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 200, ev("ADDED", "a", "5") + "\n" + initialEventsEnd("10") + "\n" + ev("ADDED", "b", "11") + "\n" + expired
		}},
		{"a split list whose parts fail", listwatch.Options{Split: 4}, func(kind string) (int, string) {
			switch kind {
			case probe:
				return 200, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"x","remainingItemCount":99999},"items":[` + podJSON("a", "5") + `]}`
			case "shard " + probe:
				return 200, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"x","shardInfo":{"selector":"x"}},"items":[` + podJSON("a", "5") + `]}`
			case list:
				return 200, podList("10", podJSON("a", "5"))
			}
			return 500, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"boom","code":500}`
		}},
		{"a list at a version the server has not seen, then the same on the watch", listwatch.Options{}, func(kind string) (int, string) {
			if kind == list {
				return 200, podList("10", podJSON("a", "5"))
			}
			return 200, ev("ADDED", "b", "11") + "\n" + `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too large resource version","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}]},"code":504}}`
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var requests []string
				ctx, cancel := context.WithCancel(context.Background())
				c, err := apiclient.New(&kubeconfig.Config{Server: "https://api.test", Source: "test"}, apiclient.Options{
					QPS: -1,
					Transport: handlerTransport(func(w http.ResponseWriter, r *http.Request) {
						kind, q := list, r.URL.Query()
						switch {
						case q.Get("watch") == "true":
							kind = watch
						case q.Get("limit") == "1" && q.Get("shardSelector") != "":
							kind = "shard " + probe
						case q.Get("limit") == "1":
							kind = probe
						case q.Get("resourceVersionMatch") == "Exact":
							kind = "part"
						}
						mu.Lock()
						if requests = append(requests, kind); len(requests) > maxRate*60 {
							cancel() // over the bound already: a loop that spins lets no fake time pass
						}
						mu.Unlock()
						code, body := tt.answer(kind)
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(code)
						io.WriteString(w, body+"\n")
					}),
				})
				if err != nil {
					t.Fatal(err)
				}
				opts := tt.opts
				opts.Logger = discard
				r := listwatch.New(c.Resource(apiclient.Pods).Namespace("demo"), newModelSink(nil), opts)
				done := make(chan error)
				go func() { done <- r.Run(ctx) }()
				select { // the bubble's clock: no real time passes
				case <-time.After(minute):
				case <-ctx.Done():
				}
				cancel()
				<-done
				mu.Lock()
				defer mu.Unlock()
				rate := float64(len(requests)) / minute.Seconds()
				t.Logf("%d requests in a minute (%.2f a second): %s", len(requests), rate, summary(requests))
				if rate > maxRate {
					t.Fatalf("%d requests in a minute of a server answering the same way (%.1f a second, want at most %v): %s",
						len(requests), rate, maxRate, summary(requests))
				}
			})
		})
	}
}

const (
	podsList = "list"
	probe    = "probe"
)

// summary is the first requests, and how many more.
func summary(requests []string) string {
	if len(requests) <= 12 {
		return strings.Join(requests, " ")
	}
	return fmt.Sprintf("%s … (%d more)", strings.Join(requests[:12], " "), len(requests)-12)
}

// handlerTransport answers every request by calling h in the caller's
// goroutine, with no network: a synctest bubble's fake clock then runs the
// whole exchange.
type handlerTransport func(http.ResponseWriter, *http.Request)

func (h handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	h(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
