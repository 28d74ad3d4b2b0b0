package listwatch_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
	"github.com/kubewire/kubewire/listwatch"
)

// A large list split into parts at one resourceVersion reaches the Sink as the
// whole list at that version, and the watch starts there: by hash range where
// the server serves shardSelector, by namespace in all namespaces where it does
// not, and whole when the server cannot read the version (410).
func TestReflector_splits_a_large_list_at_one_resourceVersion(t *testing.T) {
	for _, tt := range []struct {
		name      string
		sharded   bool   // the server serves shardSelector
		ns        string // "" for all namespaces
		exactGone bool   // the server answers every Exact list 410 Gone
		ignores   bool   // the server ignores shardSelector in the parts
		want      string // the SPLIT step, or "" for none
		requests  string // the requests the server saw, in order (parts in any order)
	}{
		{"by hash range", true, "ns-1", false, false, "SPLIT  rv=50 into 4 parts by uid hash",
			"probe, shard probe, 4 parts at 50 by hash, watch from 50"},
		{"by namespace", false, "", false, false, "SPLIT  rv=50 into 3 parts by namespace",
			"probe, shard probe, namespaces at 50, 3 parts at 50 by namespace, watch from 50"},
		{"not in one namespace without shardSelector", false, "ns-1", false, false, "",
			"probe, shard probe, LIST, watch from 40"},
		{"a version gone: the list whole", true, "ns-1", true, false, "SPLIT  rv=50 into 4 parts by uid hash",
			"probe, shard probe, LIST, watch from 40"}, // parts too: as many as started before the first 410 cancelled the rest
		{"parts that do not add up: the list whole", true, "ns-1", false, true, "SPLIT  rv=50 into 4 parts by uid hash",
			"probe, shard probe, LIST, watch from 40"}, // parts too: the first past the list's count cancels the rest
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer listwatch.SplitFrom(2)()
			srv := newSplitServer(t, tt.sharded, tt.exactGone, tt.ignores)
			rc := srv.client.Resource(apiclient.Pods).Namespace(tt.ns)
			var steps []string
			var mu sync.Mutex
			sink := &chanSink{calls: make(chan string, 16)}
			r := listwatch.New(rc, sink, listwatch.Options{
				Split: 4, Logger: discard,
				OnStep: func(s listwatch.Step) {
					if s.Op == listwatch.OpSplit {
						mu.Lock()
						steps = append(steps, s.String())
						mu.Unlock()
					}
				},
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			var replace string
			select {
			case replace = <-sink.calls:
			case <-time.After(20 * time.Second):
				t.Fatalf("no Replace after 20 s; the server saw %q", srv.seen())
			}
			select {
			case <-srv.watching:
			case <-time.After(20 * time.Second):
				t.Fatalf("no watch after 20 s; the server saw %q", srv.seen())
			}
			cancel()
			<-done
			want := srv.state(tt.ns, tt.want != "" && !tt.exactGone && !tt.ignores)
			if replace != want {
				t.Fatalf("the sink was told\n%s\nwant\n%s", replace, want)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := strings.Join(steps, "\n"); got != tt.want {
				t.Fatalf("steps %q, want %q", got, tt.want)
			}
			got := srv.summary()
			if tt.exactGone || tt.ignores { // how many parts, and when the server sees the cancelled ones, varies
				got = regexp.MustCompile(`\d+ parts at 50 by hash, |, \d+ parts at 50 by hash$`).ReplaceAllString(got, "")
			}
			if got != tt.requests {
				t.Fatalf("requests: %s\nwant:     %s\n(%q)", got, tt.requests, srv.seen())
			}
		})
	}
}

// The parts of a split list are bound together by the client's ListLimits, as
// the list read whole would be: each part under the bound, the parts together
// over it, is a list over its limits — on any number of cores, by hash or by
// namespace, and whatever count the server claims for the list (issue 39: each
// part had a bound of its own, its objects bound overwritten by the claimed
// count; 8 cores cached 160,000 objects against --max-list-objects 5000).
func TestReflector_the_parts_of_a_split_list_share_one_bound(t *testing.T) {
	for _, tt := range []struct {
		name    string
		sharded bool
		limits  apiclient.ListLimits
		claims  int
	}{
		// 30 pods: 4 parts of 6 to 9 by hash, 3 of 10 by namespace; about 110 bytes each.
		{"objects, by hash", true, apiclient.ListLimits{Objects: 12}, 0},
		{"objects, by namespace", false, apiclient.ListLimits{Objects: 12}, 0},
		{"bytes, by hash", true, apiclient.ListLimits{Bytes: 2000}, 0},
		{"objects, the server claiming a million", true, apiclient.ListLimits{Objects: 12}, 1_000_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer listwatch.SplitFrom(2)()
			srv := newSplitServerLimits(t, tt.sharded, false, false, tt.limits)
			srv.claims = tt.claims
			sink := &chanSink{calls: make(chan string, 16)}
			errs := make(chan error, 16)
			r := listwatch.New(srv.client.Resource(apiclient.Pods), sink, listwatch.Options{
				Split: 4, Logger: discard,
				OnStep: func(s listwatch.Step) {
					if s.Op == listwatch.OpError {
						select {
						case errs <- s.Err:
						default:
						}
					}
				},
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			defer func() { cancel(); <-done }()
			select {
			case err := <-errs:
				if !errors.Is(err, apiclient.ErrListLimit) {
					t.Fatalf("the list failed with %v, want an error wrapping apiclient.ErrListLimit", err)
				}
			case call := <-sink.calls:
				t.Fatalf("the sink was told %.80s…: the parts together passed the bound %+v", call, tt.limits)
			case <-time.After(20 * time.Second):
				t.Fatalf("no error after 20 s; the server saw %q", srv.seen())
			}
			if !strings.Contains(strings.Join(srv.seen(), ","), "part at 50") {
				t.Fatalf("the list was not split: the server saw %q", srv.seen())
			}
		})
	}
}

// splitServer is an API server for splits: 30 pods in three namespaces at
// resourceVersion 50 (every Exact list and the probe read that), of which a
// plain LIST from the watch cache answers as of 40 (where it had the same pods).
type splitServer struct {
	client        *apiclient.Client
	sharded, gone bool
	ignores       bool                // says it serves shardSelector, then ignores it in the parts
	claims        int                 // when set, the remainingItemCount the probe claims
	pods          map[string][]string // namespace → names
	mu            sync.Mutex
	requests      []string
	watching      chan struct{}
	watchOnce     sync.Once
}

func newSplitServer(t *testing.T, sharded, gone, ignores bool) *splitServer {
	return newSplitServerLimits(t, sharded, gone, ignores, apiclient.ListLimits{})
}

// newSplitServerLimits is newSplitServer with a client bound by limits.
func newSplitServerLimits(t *testing.T, sharded, gone, ignores bool, limits apiclient.ListLimits) *splitServer {
	s := &splitServer{sharded: sharded, gone: gone, ignores: ignores, pods: map[string][]string{}, watching: make(chan struct{})}
	for i := range 30 {
		ns := fmt.Sprintf("ns-%d", i%3)
		s.pods[ns] = append(s.pods[ns], fmt.Sprintf("pod-%02d", i))
	}
	ts := httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(ts.Close)
	c, err := apiclient.New(&kubeconfig.Config{Server: ts.URL, Source: "test"}, apiclient.Options{Transport: ts.Client().Transport, QPS: -1, ListLimits: limits})
	if err != nil {
		t.Fatal(err)
	}
	s.client = c
	return s
}

var shardRange = regexp.MustCompile(`^shardRange\(object\.metadata\.uid, '(0x[0-9a-f]+)', '(0x[0-9a-f]+)'\)$`)

func (s *splitServer) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	ns := ""
	if m := regexp.MustCompile(`^/api/v1/namespaces/([^/]+)/pods$`).FindStringSubmatch(r.URL.Path); m != nil {
		ns = m[1]
	}
	var what string
	switch {
	case q.Get("watch") == "true":
		what = "watch from " + q.Get("resourceVersion")
		s.note(what)
		s.watchOnce.Do(func() { close(s.watching) })
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	case r.URL.Path == "/api/v1/namespaces":
		s.note("namespaces at " + q.Get("resourceVersion"))
		io.WriteString(w, `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"50"},"items":[`+
			`{"metadata":{"name":"ns-0"}},{"metadata":{"name":"ns-1"}},{"metadata":{"name":"ns-2"}}]}`)
		return
	case q.Get("limit") == "1" && q.Get("resourceVersion") == "":
		info, claim := "", len(s.names(ns, nil))-1
		if s.claims != 0 {
			claim = s.claims
		}
		if q.Get("shardSelector") == "" {
			s.note("probe")
		} else if s.note("shard probe"); s.sharded {
			info = `,"shardInfo":{"selector":` + fmt.Sprintf("%q", q.Get("shardSelector")) + `}`
		}
		names := s.names(ns, nil)
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"50","continue":"x","remainingItemCount":%d%s},"items":[%s]}`,
			claim, info, podsJSON(names[:1]))
		return
	case q.Get("resourceVersionMatch") == "Exact":
		if s.gone {
			s.note(partName(q, ns))
			w.WriteHeader(http.StatusGone)
			io.WriteString(w, gone410)
			return
		}
		var keep func(uid string) bool
		if m := shardRange.FindStringSubmatch(q.Get("shardSelector")); m != nil && s.sharded && !s.ignores {
			lo, _ := new(big.Int).SetString(m[1][2:], 16)
			hi, _ := new(big.Int).SetString(m[2][2:], 16)
			keep = func(uid string) bool {
				h := fnv.New64a()
				h.Write([]byte(uid))
				v := new(big.Int).SetUint64(h.Sum64())
				return v.Cmp(lo) >= 0 && v.Cmp(hi) < 0
			}
		}
		s.note(partName(q, ns))
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"50"},"items":[%s]}`, podsJSON(s.names(ns, keep)))
		return
	}
	s.note("LIST")
	fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"40"},"items":[%s]}`, podsJSON(s.names(ns, nil)))
}

func partName(q map[string][]string, ns string) string {
	if len(q["shardSelector"]) > 0 {
		return "part at " + q["resourceVersion"][0] + " by hash"
	}
	return "part at " + q["resourceVersion"][0] + " by namespace " + ns
}

// names is "namespace/name" of the pods in ns ("" for all) that keep keeps
// (nil: all), sorted.
func (s *splitServer) names(ns string, keep func(uid string) bool) []string {
	var out []string
	for n, names := range s.pods {
		for _, name := range names {
			if (ns == "" || ns == n) && (keep == nil || keep("uid-"+n+"-"+name)) {
				out = append(out, n+"/"+name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func podsJSON(keys []string) string {
	var items []string
	for _, k := range keys {
		ns, name, _ := strings.Cut(k, "/")
		items = append(items, fmt.Sprintf(`{"metadata":{"name":%q,"namespace":%q,"uid":"uid-%s-%s","resourceVersion":"7"}}`, name, ns, ns, name))
	}
	return strings.Join(items, ",")
}

func (s *splitServer) note(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, what)
}

func (s *splitServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// summary is the requests with the parts counted: "probe, 4 parts at 50 by
// hash, watch from 50".
func (s *splitServer) summary() string {
	var out []string
	parts, kind := 0, ""
	flush := func() {
		if parts > 0 {
			out = append(out, fmt.Sprintf("%d parts at 50 by %s", parts, kind))
			parts = 0
		}
	}
	for _, r := range s.seen() {
		if k, ok := strings.CutPrefix(r, "part at 50 by "); ok {
			parts++
			kind, _, _ = strings.Cut(k, " ")
			continue
		}
		flush()
		out = append(out, r)
	}
	flush()
	return strings.Join(out, ", ")
}

// state is the Replace the Sink should see: every pod of ns ("" for all), at 50
// when split, else at 40 (the plain LIST's version).
func (s *splitServer) state(ns string, split bool) string {
	rv := "40"
	if split {
		rv = "50"
	}
	var keys []string
	for _, k := range s.names(ns, nil) {
		keys = append(keys, k+"@7")
	}
	return fmt.Sprintf("REPLACE rv=%s %v", rv, keys)
}
