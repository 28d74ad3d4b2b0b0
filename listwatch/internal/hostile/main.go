// Command hostile is a fake API server that misbehaves in one chosen way, for
// measuring what a hostile server costs the kubewire command (issue 29): it serves
// discovery for pods and then answers pod LISTs and watches as -mode says.
//
//	go run ./listwatch/internal/hostile -mode endless -kubeconfig /tmp/hostile.kubeconfig &
//	/usr/bin/time -v kubewire sync pods --kubeconfig /tmp/hostile.kubeconfig
//
// Modes:
//
//	endless      every LIST page holds 500 pods and a fresh continue token; a
//	             streaming list is refused (400), so the client lists with LIST
//	endless-stream  a streaming list sends ADDED pods for ever, never its end bookmark
//	alternate    continue tokens A, B, A, B, … (500 pods a page)
//	inflate      one LIST page: 2,000,000 identical small pods, gzip (about 1.5 MB)
//	short-watch  a LIST of one pod, then every watch sends one MODIFIED with a
//	             new resourceVersion and ends; it counts the watch requests
//	expire       a LIST of one pod, then every watch sends one MODIFIED and an
//	             ERROR 410 Expired (issue 39: relisted at once, for ever)
//	split        says it is v1.36 and serves shardSelector; the probe claims
//	             8 × -part pods, and every part of a split list sends -part of
//	             them (issue 39: each part had a bound of its own; 3,000 pods
//	             are 15.6 MB, under --max-list-mib 16 and --max-list-objects 5000)
//
// The pods are apiclient/testdata/pod.json (5.2 KB) with a new name and
// resourceVersion, except in inflate. Plain HTTP on loopback, no authentication.
// Nothing here runs in CI; the tests of the bounds use small in-process servers.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

var (
	mode       = flag.String("mode", "endless", "endless, endless-stream, alternate, inflate, short-watch, expire or split")
	kubeconfig = flag.String("kubeconfig", "hostile.kubeconfig", "where to write the kubeconfig of this server")
	podFile    = flag.String("pod", "apiclient/testdata/pod.json", "the pod to send, JSON on one line")
	partPods   = flag.Int("part", 3000, "split: the pods in each part (the probe claims 8 parts' worth)")
)

func main() {
	flag.Parse()
	pod, err := os.ReadFile(*podFile)
	if err != nil {
		log.Fatal(err)
	}
	pod = bytes.TrimSpace(pod)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	kc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: h\n  cluster:\n    server: %s\ncontexts:\n- name: h\n  context:\n    cluster: h\n    user: h\n    namespace: default\ncurrent-context: h\nusers:\n- name: h\n  user: {}\n", url)
	if err := os.WriteFile(*kubeconfig, []byte(kc), 0o600); err != nil {
		log.Fatal(err)
	}
	s := &server{pod: pod}
	if *mode == "inflate" {
		s.bomb = inflatePage()
		log.Printf("inflate: one page of %d bytes gzip", len(s.bomb))
	}
	log.Printf("%s: serving %s, kubeconfig %s", *mode, url, *kubeconfig)
	go func() {
		for range time.Tick(10 * time.Second) {
			log.Printf("%d lists, %d watches", s.lists.Load(), s.watches.Load())
		}
	}()
	log.Fatal(http.Serve(l, s))
}

type server struct {
	pod            []byte
	bomb           []byte
	lists, watches atomic.Int64
	rv             atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/version":
		fmt.Fprint(w, `{"major":"1","minor":"36","gitVersion":"v1.36.0"}`)
	case r.URL.Path == "/api":
		fmt.Fprint(w, `{"kind":"APIVersions","versions":["v1"]}`)
	case r.URL.Path == "/apis":
		fmt.Fprint(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
	case r.URL.Path == "/api/v1":
		fmt.Fprint(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list","watch"],"shortNames":["po"]}]}`)
	case strings.HasSuffix(r.URL.Path, "/pods") && r.URL.Query().Get("watch") == "true":
		s.watches.Add(1)
		s.watch(w, r)
	case strings.HasSuffix(r.URL.Path, "/pods"):
		s.lists.Add(1)
		s.list(w, r)
	default:
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, 404)
	}
}

// item is the pod with name and resourceVersion replaced.
func (s *server) item(name string, rv int64) []byte {
	p := bytes.Replace(s.pod, []byte(`"name":"load-000001"`), []byte(`"name":"`+name+`"`), 1)
	return bytes.Replace(p, []byte(`"resourceVersion":"571"`), []byte(`"resourceVersion":"`+strconv.FormatInt(rv, 10)+`"`), 1)
}

func (s *server) list(w http.ResponseWriter, r *http.Request) {
	if *mode == "inflate" {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(s.bomb)
		return
	}
	if *mode == "split" && r.URL.Query().Get("limit") == "1" {
		info := ""
		if sel := r.URL.Query().Get("shardSelector"); sel != "" {
			info = fmt.Sprintf(`,"shardInfo":{"selector":%q}`, sel)
		}
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1","continue":"x","remainingItemCount":%d%s},"items":[%s]}`, 8*(*partPods)-1, info, s.item("probe", 1))
		return
	}
	if *mode == "split" {
		part := s.lists.Load()
		w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`))
		for i := range *partPods {
			if i > 0 {
				w.Write([]byte{','})
			}
			w.Write(s.item(fmt.Sprintf("part%d-%d", part, i), 1))
		}
		w.Write([]byte("]}"))
		return
	}
	if *mode == "short-watch" || *mode == "expire" {
		fmt.Fprintf(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[%s]}`, s.item("quiet", 1))
		return
	}
	page, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("continue"), "p"))
	next := "p" + strconv.Itoa(page+1)
	if *mode == "alternate" {
		page = int(s.lists.Load())
		next = []string{"A", "B"}[page%2]
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1","continue":%q},"items":[`, next)
	for i := range 500 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(s.item(fmt.Sprintf("p%d-%d", page, i), 1))
	}
	b.WriteString("]}")
	w.Write(b.Bytes())
}

func (s *server) watch(w http.ResponseWriter, r *http.Request) {
	initial := r.URL.Query().Get("sendInitialEvents") == "true"
	switch {
	case initial && *mode != "endless-stream":
		w.WriteHeader(400)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","message":"no streaming lists here","code":400}`)
	case initial:
		f := w.(http.Flusher)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", s.item("s"+strconv.Itoa(i), 1)); err != nil {
				return
			}
			if i%500 == 0 {
				f.Flush()
			}
		}
	case *mode == "expire":
		rv := s.rv.Add(1) + 1
		fmt.Fprintf(w, `{"type":"MODIFIED","object":%s}`+"\n", s.item("quiet", rv))
		fmt.Fprint(w, `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version","reason":"Expired","code":410}}`+"\n")
	case *mode == "short-watch":
		rv := s.rv.Add(1) + 1
		fmt.Fprintf(w, `{"type":"MODIFIED","object":%s}`+"\n", s.item("quiet", rv))
	default:
		<-r.Context().Done()
	}
}

// inflatePage is a PodList of 2,000,000 identical small pods, gzipped.
func inflatePage() []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`))
	item := []byte(`{"metadata":{"name":"same","namespace":"default","resourceVersion":"1","labels":{"app":"nginx"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}},`)
	for range 2_000_000 - 1 {
		zw.Write(item)
	}
	zw.Write(item[:len(item)-1])
	zw.Write([]byte("]}"))
	zw.Close()
	return b.Bytes()
}
