package apiclient_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
)

// Every body the client reads whole is bounded after decompression: a gzip body
// of a few MB that inflates to gigabytes on /api (issue 16: `get pods` passed
// 1.6 GB of RSS) stops at 64 MiB with an error, having read little more.
func TestDiscovery_refuses_a_body_that_inflates_past_its_cap(t *testing.T) {
	var served atomic.Int64 // bytes before compression
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		defer zw.Close()
		zw.Write([]byte(`{"kind":"APIVersions","versions":["v1"],"x":"`))
		zeros := make([]byte, 1<<20)
		for range 512 { // 512 MiB at most, so that the old code ends too
			if _, err := zw.Write(zeros); err != nil {
				return
			}
			served.Add(int64(len(zeros)))
		}
	})
	_, err := c.ServerResources(context.Background())
	if err == nil || !strings.Contains(err.Error(), "over 64 MiB") {
		t.Fatalf("discovery of a gzip bomb: %v, want an error saying the response is over 64 MiB", err)
	}
	if n := served.Load(); n > 256<<20 {
		t.Fatalf("the client read on: %d MiB inflated before it stopped", n>>20)
	}
}

// A Table (get's view) whose server hands back the continue token it was given
// ends with an error at the second page, not after forever.
func TestTable_refuses_a_repeated_continue_token(t *testing.T) {
	var pages atomic.Int64
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		if n > 1000 {
			http.Error(w, "enough", 500) // the old code would page on without end
			return
		}
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		fmt.Fprintf(w, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"continue":"same"},"columnDefinitions":[{"name":"Name","type":"string"}],"rows":[{"cells":["p%d"]}]}`, n)
	})
	_, _, err := c.Resource(apiclient.Pods).Namespace("default").Table(context.Background(), "", apiclient.ListOptions{Limit: 1})
	if err == nil || !strings.Contains(err.Error(), "page 2 has the continue token of page 1") {
		t.Fatalf("table: %v, want a repeated-token error", err)
	}
	if n := pages.Load(); n != 2 {
		t.Fatalf("%d pages asked for, want 2", n)
	}
}

// One object as a GET answers it is bounded like a watch event: 16 MiB.
func TestGet_refuses_an_answer_over_16_MiB(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"big","annotations":{"x":"`+strings.Repeat("x", 17<<20)+`"}}}`)
	})
	_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "big")
	if err == nil || !strings.Contains(err.Error(), "over 16 MiB") {
		t.Fatalf("get of a 17 MiB object: %v, want an error saying it is over 16 MiB", err)
	}
}

// A Status message is the server's text: an error prints it on one line and at
// most 1,000 bytes long, from an HTTP error and from a watch ERROR event alike
// (issue 16: a watch ERROR's message was printed whole, newlines included).
func TestErrors_print_a_server_message_on_one_short_line(t *testing.T) {
	message := "line one\nforged line " + strings.Repeat("m", 100<<10)
	status := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":` + strconv.Quote(message) + `,"reason":"InternalError","code":500}`
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			writeJSON(w, 200, `{"type":"ERROR","object":`+status+"}\n")
			return
		}
		writeJSON(w, 500, status)
	})
	pods := c.Resource(apiclient.Pods).Namespace("default")
	_, getErr := pods.Get(context.Background(), "x")
	w, err := pods.Watch(context.Background(), apiclient.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, watchErr := w.Next()
	for what, err := range map[string]error{"get": getErr, "watch": watchErr} {
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 1200 || !strings.Contains(msg, "line one forged line mmm") {
			t.Errorf("%s: error of %d bytes, newline %v: %.120q", what, len(msg), strings.Contains(msg, "\n"), msg)
		}
	}
}

// A LIST page is bounded in bytes after decompression like any body, by what its
// list has left (ListLimits.Bytes): a gzip page of identical small pods that
// inflates past the bound stops there with an error wrapping ErrListLimit, having
// handed on no more objects than fit (issue 29: 1.5 MB of gzip, two million pods,
// 1.74 GB).
func TestList_a_gzip_page_that_inflates_stops_at_the_list_bound(t *testing.T) {
	const pod = `{"metadata":{"name":"same","namespace":"default","resourceVersion":"1"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	c, _ := newServerWith(t, apiclient.Options{ListLimits: apiclient.ListLimits{Bytes: 4 << 20}}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		defer zw.Close()
		zw.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[` + pod))
		items := []byte(strings.Repeat(","+pod, 1000))
		for range 64 << 20 / len(items) { // 64 MiB at most, so that the old code ends too
			if _, err := zw.Write(items); err != nil {
				return
			}
		}
		zw.Write([]byte("]}"))
	})
	var n int
	_, err := c.Resource(apiclient.Pods).Namespace("default").ListEach(context.Background(), apiclient.ListOptions{}, apiclient.DecodeOptions{}, func(*apiclient.Object) error {
		n++
		return nil
	})
	if !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "over 4 MiB") {
		t.Fatalf("a page inflating to 64 MiB: %v, want an error wrapping ErrListLimit saying the list is over 4 MiB", err)
	}
	if max := 4 << 20 / len(pod); n > max {
		t.Fatalf("%d objects handed on, more than the %d that fit in 4 MiB", n, max)
	}
}

// The objects of a list are bounded too (ListLimits.Objects), per object as the
// page streams: the first one past the bound ends the page.
func TestList_an_endless_page_stops_at_the_object_bound(t *testing.T) {
	c, _ := newServerWith(t, apiclient.Options{ListLimits: apiclient.ListLimits{Objects: 100}}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`+podJSON)
		for range 10_000 {
			fmt.Fprint(w, ","+podJSON)
		}
		fmt.Fprint(w, "]}")
	})
	list, err := c.Resource(apiclient.Pods).Namespace("default").List(context.Background(), apiclient.ListOptions{})
	if !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "more than 100 objects") {
		t.Fatalf("a page of 10,001 pods: %v, want an error wrapping ErrListLimit about 100 objects", err)
	}
	if len(list.Items) != 100 {
		t.Fatalf("%d objects kept, want the 100 before the bound", len(list.Items))
	}
}

// A Table (get's view) in pages with a new continue token on every page ends at
// the list's bytes, whatever the tokens say (issue 29: get passed 570 MB).
func TestTable_an_endless_list_stops_at_the_list_bound(t *testing.T) {
	var pages atomic.Int64
	row := `{"cells":["` + strings.Repeat("x", 10<<10) + `"],"object":{"metadata":{"name":"p"}}}`
	c, _ := newServerWith(t, apiclient.Options{ListLimits: apiclient.ListLimits{Bytes: 1 << 20}}, func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		if n > 1000 {
			http.Error(w, "enough", 500) // the old code would page on without end
			return
		}
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		fmt.Fprintf(w, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"continue":"t%d"},"columnDefinitions":[{"name":"Name","type":"string"}],"rows":[%s]}`, n, strings.Repeat(row+",", 9)+row)
	})
	_, _, err := c.Resource(apiclient.Pods).Namespace("default").Table(context.Background(), "", apiclient.ListOptions{Limit: 10})
	if !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "over 1 MiB") {
		t.Fatalf("an endless table: %v, want an error wrapping ErrListLimit saying the list is over 1 MiB", err)
	}
	if n := pages.Load(); n > 11 {
		t.Fatalf("%d pages of 100 KiB asked for, want no more than the 11 that reach 1 MiB", n)
	}
}

// The zero ListLimits are the documented defaults, and a PageGuard's zero value
// has them too.
func TestListLimits_zero_means_the_defaults(t *testing.T) {
	var g apiclient.PageGuard
	if err := g.Bytes(apiclient.DefaultListBytes); err != nil {
		t.Fatalf("exactly the default bytes: %v", err)
	}
	if err := g.Bytes(1); !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "over 1024 MiB") {
		t.Fatalf("one byte past the default: %v, want the 1024 MiB bound", err)
	}
	if err := g.Items(apiclient.DefaultListObjects); err != nil {
		t.Fatalf("exactly the default objects: %v", err)
	}
	if err := g.Items(1); !errors.Is(err, apiclient.ErrListLimit) || !strings.Contains(err.Error(), "more than 500000 objects") {
		t.Fatalf("one object past the default: %v, want the 500,000 bound", err)
	}
}
