package main

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/url"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/recording"
)

// list-watch: LIST, then a watch that sees an add, an update and a delete, ended by
// the server at its timeout.
func (m *maker) listWatch(s *session) {
	s.pods("web-1", "web-2", "web-3")
	s.list(reflectorList)
	must(s.watch(5, func() {
		pause()
		s.pods("web-4")
		pause()
		s.touch("web-1", "once")
		pause()
		s.remove("web-2")
	}))
}

// rewatch: two watches, each ended by the server; the second starts where the first
// left off.
func (m *maker) rewatch(s *session) {
	s.pods("web-1", "web-2")
	s.list(reflectorList)
	must(s.watch(3, func() { pause(); s.touch("web-1", "first") }))
	must(s.watch(3, func() { pause(); s.touch("web-2", "second") }))
}

// paged-list: a LIST read in pages of 2, then a watch.
func (m *maker) pagedList(s *session) {
	s.pods("web-1", "web-2", "web-3", "web-4", "web-5")
	s.list(apiclient.ListOptions{Limit: 2})
	must(s.watch(3, func() { pause(); s.touch("web-3", "paged") }))
	s.fix(firstPageAsReflector)
}

// firstPageAsReflector puts resourceVersion=0 on the first page's request line: the
// reflector asks for it, and a kube-apiserver with its watch cache (1.32) answers
// resourceVersion=0 from the cache, ignoring limit, so real pages had to be asked
// for without it (read from etcd, as a server without the watch cache does).
func firstPageAsReflector(rec *recording.Recording) {
	q := url.Values{"limit": {"2"}, "resourceVersion": {"0"}}
	retarget(rec, 0, withQuery(rec.Exchanges[0].Target, q), "the watch cache of kube-apiserver 1.32 ignores limit at resourceVersion=0, so the pages were read from etcd; the request line is the reflector's (PageSize 2)")
}

// bookmarks: a quiet watch of 65 s: the server sends a bookmark after about a
// minute and another just before its timeout. Pods created in another namespace
// meanwhile move the server's resourceVersion on, so the bookmarks carry versions
// newer than any event this watch saw.
func (m *maker) bookmarks(s *session) {
	s.pods("web-1")
	s.list(reflectorList)
	elsewhere := m.side.Resource(apiclient.Pods).Namespace(m.namespace("bookmarks-elsewhere"))
	must(s.watch(65, func() {
		pause()
		s.touch("web-1", "before-the-bookmarks")
		for i := 0; i < 3; i++ {
			time.Sleep(15 * time.Second)
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"other-%d"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`, i)
			if _, err := elsewhere.Create(s.ctx, []byte(body), apiclient.WriteOptions{}); err != nil {
				log.Fatal(err)
			}
		}
	}))
}

// streaming-list: a watch with sendInitialEvents lists through the stream, ends
// the list with the initial-events-end bookmark, then goes on as a watch.
func (m *maker) streamingList(s *session) {
	s.pods("web-1", "web-2", "web-3")
	must(s.watch(5, func() { pause(); s.touch("web-2", "after-the-list") }, streaming))
	must(s.watch(3, func() { pause(); s.touch("web-3", "plain-watch") }))
}

func streaming(o *apiclient.ListOptions) {
	o.ResourceVersion, o.SendInitialEvents, o.ResourceVersionMatch = "", true, "NotOlderThan"
}

// streaming-refused: the server answers a streaming list with 422 (here: one sent
// without resourceVersionMatch, which is what a real refusal looks like); the
// reflector falls back to LIST.
func (m *maker) streamingRefused(s *session) {
	s.pods("web-1", "web-2")
	err := s.watch(5, nil, func(o *apiclient.ListOptions) { o.SendInitialEvents = true })
	if apiclient.CodeOf(err) != 422 {
		log.Fatalf("streaming-refused: got %v, want a 422", err)
	}
	s.list(reflectorList)
	must(s.watch(3, func() { pause(); s.touch("web-1", "after-fallback") }))
	s.fix(func(rec *recording.Recording) {
		q := url.Values{"allowWatchBookmarks": {"true"}, "resourceVersionMatch": {"NotOlderThan"}, "sendInitialEvents": {"true"}, "timeoutSeconds": {"5"}, "watch": {"true"}}
		retarget(rec, 0, withQuery(rec.Exchanges[0].Target, q), "the reflector always sends resourceVersionMatch=NotOlderThan, which this server accepts, so the refusal was provoked without it")
	})
}

// relist-410: LIST, a watch, then (unwatched) a pod deleted and one created and the
// kube-apiserver restarted, so its watch cache starts after our resourceVersion: the
// next watch gets 410, and the relist at that resourceVersion lists the pods as
// they are now.
func (m *maker) relist410(s *session) {
	s.pods("web-1", "web-2", "web-3")
	s.list(reflectorList)
	must(s.watch(3, func() { pause(); s.touch("web-1", "before-the-restart") }))
	s.remove("web-2")
	s.pods("web-4")
	m.restartAPIServer()
	err := s.watch(3, nil)
	if !apiclient.IsGone(err) {
		log.Fatalf("relist-410: the watch after the restart ended with %v, want 410", err)
	}
	s.list(apiclient.ListOptions{ResourceVersion: s.rv})
	must(s.watch(3, func() { pause(); s.touch("web-3", "after-the-relist") }))
}

// continue-410: the first page of a paged LIST, then a wait until etcd has compacted
// its snapshot away (the apiserver compacts every 5 minutes), so that the continue
// token has expired: 410, and the reflector lists everything at once.
func (m *maker) continue410(s *session) {
	s.pods("web-1", "web-2", "web-3", "web-4", "web-5")
	meta, err := s.rc.ListEach(s.ctx, apiclient.ListOptions{Limit: 2}, apiclient.DecodeOptions{}, func(*apiclient.Object) error { return nil })
	if err != nil || meta.Continue == "" {
		log.Fatalf("continue-410: first page: %v, continue %q", err, meta.Continue)
	}
	deadline := time.Now().Add(12 * time.Minute)
	for {
		_, err := s.sc.ListEach(s.ctx, apiclient.ListOptions{Limit: 2, Continue: meta.Continue}, apiclient.DecodeOptions{}, func(*apiclient.Object) error { return nil })
		if apiclient.IsGone(err) {
			break
		}
		if time.Now().After(deadline) {
			log.Fatal("continue-410: the token did not expire in 12 minutes")
		}
		log.Printf("continue-410: token still valid (%v); waiting for a compaction", err)
		time.Sleep(20 * time.Second)
	}
	_, err = s.rc.ListEach(s.ctx, apiclient.ListOptions{Limit: 2, Continue: meta.Continue}, apiclient.DecodeOptions{}, func(*apiclient.Object) error { return nil })
	if !apiclient.IsGone(err) {
		log.Fatalf("continue-410: %v, want 410", err)
	}
	s.list(apiclient.ListOptions{ResourceVersion: "0"})
	must(s.watch(3, func() { pause(); s.touch("web-1", "after-the-full-list") }))
	s.fix(firstPageAsReflector)
}

// fix edits the recording being written before it is saved.
func (s *session) fix(f func(*recording.Recording)) { s.fixes = append(s.fixes, f) }

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// clientgoPods records the pods that `clientgo load` makes (realistic pods of about
// 5.2 KB with managedFields): the LIST, and a watch with one MODIFIED event. The
// benchmarks build their 10,000-object LIST and 10,000-event stream from these bytes.
func (m *maker) clientgoPods(ns string) {
	var buf bytes.Buffer
	w := recording.NewWriter(&buf,
		fmt.Sprintf("the pods of `clientgo load -n %s -count 3` (../shared/bench/clientgo), recorded from kube-apiserver %s (.ci/cluster/up.sh) on %s", ns, m.version, time.Now().UTC().Format("2006-01-02")),
		fmt.Sprintf("by: go run ./listwatch/internal/recordscenarios -kubeconfig DIR/kubeconfig -clientgo-pods %s -out testdata/recordings", ns),
		"LIST at resourceVersion 0, then a watch in which load-000001 gets a label (MODIFIED). Bodies verbatim.")
	c, err := apiclient.New(m.cfg, apiclient.Options{QPS: -1, Transport: &recording.Transport{Base: m.base, W: w}})
	if err != nil {
		log.Fatal(err)
	}
	s := &session{m: m, ctx: context.Background(), ns: ns, rc: c.Resource(apiclient.Pods).Namespace(ns), sc: m.side.Resource(apiclient.Pods).Namespace(ns), w: w}
	s.list(reflectorList)
	must(s.watch(2, func() { pause(); s.touch("load-000001", "benchmark") }))
	w.Flush()
	m.save("clientgo-pods", buf.Bytes())
}
