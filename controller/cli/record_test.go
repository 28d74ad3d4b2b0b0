package cli_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/recording"
	"github.com/kubewire/kubewire/controller/cli"
)

func TestRecord_usage_errors_exit_2(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"without_a_file", []string{"record", "configmaps"}},
		{"with_zero_events", []string{"record", "configmaps", "-o", "x.rec", "--events", "0"}},
		{"with_a_negative_duration", []string{"record", "configmaps", "-o", "x.rec", "--duration", "-1s"}},
		{"events_on_another_command", []string{"get", "configmaps", "--events", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, tt.args...)
			if got, want := code, 2; got != want {
				t.Fatalf("exit %d, want %d; stderr %q", got, want, stderr)
			}
		})
	}
}

// recordServer is an API server for `kubewire record` without a cluster (apiServer,
// security_test.go) with a kubeconfig that trusts it. It returns the kubeconfig's
// path and a client of the apitest server behind it.
func recordServer(t *testing.T) (string, *apiclient.Client) {
	t.Helper()
	server, _, srv := apiServer(t)
	path := trustingKubeconfig(t, server)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return path, c
}

// trustingKubeconfig writes a kubeconfig for the server at url that trusts its
// certificate unchecked, with no credential and no namespace (so "default"),
// and returns its path.
func trustingKubeconfig(t *testing.T, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + url + "\n    insecure-skip-tls-verify: true\n" +
		"users:\n- name: u\n  user: {}\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u}\ncurrent-context: ctx\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// olderRecordServer is recordServer standing in for a kube-apiserver of
// v1.32: a TLS server in front of it answers GET /version as that release does
// and hands every other request on. It returns the kubeconfig's path and a
// client of the apitest server behind it.
func olderRecordServer(t *testing.T) (string, *apiclient.Client) {
	t.Helper()
	server, _, srv := apiServer(t)
	target, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	// apiServer's certificate is its own: trusted here as the kubeconfig
	// below trusts this front (insecure-skip-tls-verify).
	base := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	t.Cleanup(base.CloseIdleConnections)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, Transport: base, FlushInterval: -1}
	front := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"major":"1","minor":"32","gitVersion":"v1.32.4"}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	path := trustingKubeconfig(t, front.URL)
	c, err := srv.Client(apiclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return path, c
}

// recordWhile runs `kubewire record` with args and --trace, calls change once
// the first list is complete (the "record synced" line: a change made from then
// on is a watch event in the file, on every release), and returns the exit
// code, stdout and stderr.
func recordWhile(t *testing.T, env map[string]string, args []string, change func()) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errw := &signalWriter{want: "record synced: ", seen: make(chan struct{})}
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, append(args, "--trace"), cli.Env{Stdout: &out, Stderr: errw, Getenv: func(k string) string { return env[k] }})
	}()
	select {
	case <-errw.seen:
	case code := <-done:
		t.Fatalf("record ended before its first list was complete: exit %d\n%s", code, errw)
	}
	change()
	code = <-done
	return code, out.String(), errw.String()
}

// checkRecording fails unless the file at path is only its owner's, parses, and
// holds a list of the wantListed objects followed by a watch with the wantEvents
// event types in order (bookmarks aside). The list is a LIST, or on a server
// before v1.33 a streaming list, whose ADDED events up to the
// initial-events-end bookmark are the objects, and whose stream goes on as the
// watch.
func checkRecording(t *testing.T, path string, wantListed int, wantEvents []string) *recording.Recording {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode().Perm(), os.FileMode(0o600); got != want {
		t.Fatalf("mode %v, want %v", got, want)
	}
	rec, err := recording.Open(path)
	if err != nil {
		t.Fatalf("the recording does not parse: %v", err)
	}
	exchanges := rec.Exchanges
	if len(exchanges) > 0 && exchanges[0].Target == "/version" {
		// Where the server answers it, Record asks what a default informer
		// asks first (listwatch.Record); the list follows.
		exchanges = exchanges[1:]
	}
	if len(exchanges) < 1 {
		t.Fatalf("%d exchanges, want a list and a watch", len(rec.Exchanges))
	}
	list := exchanges[0]
	if list.Status != 200 {
		t.Fatalf("first exchange %s %s: %d, want 200", list.Method, list.Target, list.Status)
	}
	var listed int
	var watched [][]byte // the watch's lines
	if strings.Contains(list.Target, "sendInitialEvents=true") {
		end := -1
		for i, l := range list.Lines {
			var ev struct {
				Type   string
				Object struct{ Metadata apiclient.ObjectMeta }
			}
			if err := json.Unmarshal(l, &ev); err != nil {
				t.Fatalf("streaming list line %q: %v", l, err)
			}
			if ev.Type == "BOOKMARK" && ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true" {
				end = i
				break
			}
			if ev.Type == "ADDED" {
				listed++
			}
		}
		if end < 0 {
			t.Fatalf("the streaming list %s has no initial-events-end bookmark", list.Target)
		}
		watched = list.Lines[end+1:]
	} else {
		if strings.Contains(list.Target, "watch=true") || len(list.Lines) != 1 {
			t.Fatalf("first exchange %s %s: %d lines; want a LIST or a streaming list", list.Method, list.Target, len(list.Lines))
		}
		var items struct{ Items []json.RawMessage }
		if err := json.Unmarshal(list.Lines[0], &items); err != nil {
			t.Fatal(err)
		}
		listed = len(items.Items)
	}
	if got, want := listed, wantListed; got != want {
		t.Fatalf("list of %d objects, want %d", got, want)
	}
	for _, ex := range exchanges[1:] {
		if !strings.Contains(ex.Target, "watch=true") {
			t.Fatalf("exchange %s %s after the list, want a watch", ex.Method, ex.Target)
		}
		watched = append(watched, ex.Lines...)
	}
	var got []string
	for _, l := range watched {
		var ev struct{ Type string }
		if err := json.Unmarshal(l, &ev); err != nil {
			t.Fatalf("watch line %q: %v", l, err)
		}
		if ev.Type != "BOOKMARK" {
			got = append(got, ev.Type)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(wantEvents) {
		t.Fatalf("watch events %v, want %v", got, wantEvents)
	}
	return rec
}

func TestRecord_writes_the_list_and_the_events_made_after_the_watch_started(t *testing.T) {
	kc, c := recordServer(t)
	out, stderr, _ := recordBeforeAndAfter(t, kc, c)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if got, want := lines[len(lines)-1], fmt.Sprintf(`recorded configmaps in "rec" to %s: 2 requests, 1 objects listed, 2 watch events, `, out); !strings.HasPrefix(got, want) {
		t.Fatalf("summary %q, want it to begin %q", got, want)
	}
}

// From a server before v1.33 record lists as a default informer lists there,
// with a streaming list, after the server's GET /version: the file holds the
// version, the objects as the stream's initial events up to the
// initial-events-end bookmark, and then, on the same stream, the changes made
// once the "record synced" line was out — two watch events for --events 2, not
// the initial events nor the bookmark. (It recorded no /version and a LIST at
// "0" before, which a default informer does not replay.)
func TestRecord_from_a_v1_32_server_streams_the_list_after_its_version(t *testing.T) {
	kc, c := olderRecordServer(t)
	out, stderr, rec := recordBeforeAndAfter(t, kc, c)
	var requests []string
	for _, ex := range rec.Exchanges {
		requests = append(requests, ex.Method+" "+ex.Target)
	}
	const stream = "GET /api/v1/namespaces/rec/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds="
	if len(requests) != 2 || requests[0] != "GET /version" || !strings.HasPrefix(requests[1], stream) {
		t.Fatalf("recorded\n%s\nwant GET /version, then %s…", strings.Join(requests, "\n"), stream)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if !slices.Contains(lines, "record synced: 1 objects listed") {
		t.Fatalf("no line says the list was complete:\n%s", stderr)
	}
	if got, want := lines[len(lines)-1], fmt.Sprintf(`recorded configmaps in "rec" to %s: 2 requests, 1 objects listed, 2 watch events, `, out); !strings.HasPrefix(got, want) {
		t.Fatalf("summary %q, want it to begin %q", got, want)
	}
}

// -o - writes the recording to standard output, and the summary still counts
// what it holds (counted as written: standard output cannot be read back).
func TestRecord_to_standard_output(t *testing.T) {
	kc, c := recordServer(t)
	cms := c.Resource(apiclient.ConfigMaps).Namespace("rec")
	if _, err := cms.Create(context.Background(), []byte(`{"metadata":{"name":"before"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := recordWhile(t, map[string]string{"KUBECONFIG": kc}, []string{"record", "cm", "-n", "rec", "-o", "-", "--events", "1"}, func() {
		if _, err := cms.Create(context.Background(), []byte(`{"metadata":{"name":"after"}}`), apiclient.WriteOptions{}); err != nil {
			t.Error(err)
		}
	})
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, stderr)
	}
	rec, err := recording.Parse(strings.NewReader(stdout))
	if err != nil {
		t.Fatalf("standard output is not a recording: %v", err)
	}
	if got, want := len(rec.Exchanges), 2; got != want {
		t.Fatalf("%d exchanges on standard output, want %d (the LIST and the watch)", got, want)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if got, want := lines[len(lines)-1], `recorded configmaps in "rec" to standard output: 2 requests, 1 objects listed, 1 watch events, `; !strings.HasPrefix(got, want) {
		t.Fatalf("summary %q, want it to begin %q", got, want)
	}
}

func TestRecord_redacts_secrets(t *testing.T) {
	kc, c := recordServer(t)
	secrets := c.Resource(apiclient.Secrets).Namespace("rec")
	// "hunter2-plaintext" and its base64 must both stay out of the file.
	if _, err := secrets.Create(context.Background(), []byte(`{"metadata":{"name":"db"},"data":{"password":"aHVudGVyMi1wbGFpbnRleHQ="},"stringData":{"token":"hunter2-plaintext"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "secrets.rec")
	code, _, stderr := recordWhile(t, map[string]string{"KUBECONFIG": kc}, []string{"record", "secrets", "-n", "rec", "-o", out, "--events", "1"}, func() {
		if _, err := secrets.Create(context.Background(), []byte(`{"metadata":{"name":"api"},"data":{"key":"aHVudGVyMi1wbGFpbnRleHQ="}}`), apiclient.WriteOptions{}); err != nil {
			t.Error(err)
		}
	})
	if got, want := code, 0; got != want {
		t.Fatalf("exit %d, want %d:\n%s", got, want, stderr)
	}
	checkRecording(t, out, 1, []string{"ADDED"})
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(body, []byte("aHVudGVyMi1wbGFpbnRleHQ=")) || bytes.Contains(body, []byte("hunter2-plaintext")) {
		t.Fatalf("a secret value is in the recording:\n%s", body)
	}
	// The server folds stringData into data (as kube-apiserver does), so
	// every value is redacted in data, as base64.
	if redacted := base64.StdEncoding.EncodeToString([]byte(recording.Redacted)); !bytes.Contains(body, []byte(redacted)) {
		t.Fatalf("no %q (%s in base64) in the recording:\n%s", redacted, recording.Redacted, body)
	}
}

// On the real server: record configmaps of a fresh namespace with --events 2
// while the test makes two changes, once the first list is complete: a LIST
// from v1.33, a streaming list before (checkRecording reads either).
func TestIntegration_record_configmaps_with_two_events(t *testing.T) {
	c, path, ns := realCluster(t, "kubewire-record")
	ctx := context.Background()
	cms := c.Resource(apiclient.ConfigMaps).Namespace(ns)
	// Only the test's configmaps, by label: a fresh namespace of a full cluster
	// also gets kube-root-ca.crt, created and updated by the controller manager
	// whenever it gets to it, which would make the events a race.
	if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"cm-1","labels":{"kubewire-test":"record"}}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cm.rec")
	code, _, stderr := recordWhile(t, map[string]string{"KUBECONFIG": path}, []string{"record", "configmaps", "-n", ns, "-l", "kubewire-test=record", "-o", out, "--events", "2"}, func() {
		if _, err := cms.Patch(ctx, "cm-1", apiclient.MergePatch, []byte(`{"data":{"a":"b"}}`), apiclient.WriteOptions{}); err != nil {
			t.Error(err)
		}
		if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"cm-2","labels":{"kubewire-test":"record"}}}`), apiclient.WriteOptions{}); err != nil {
			t.Error(err)
		}
	})
	if got, want := code, 0; got != want {
		t.Fatalf("exit %d, want %d:\n%s", got, want, stderr)
	}
	rec := checkRecording(t, out, 1, []string{"MODIFIED", "ADDED"})
	for _, ex := range rec.Exchanges {
		if ex.Target != "/version" && !strings.Contains(ex.Target, "labelSelector=kubewire-test%3Drecord") {
			t.Fatalf("the request %q does not carry the label selector", ex.Target)
		}
	}
}

// A server that renders no Tables (the in-memory one) still gets kubectl's answers:
// a NAME column, and "No resources found" for an empty list.
func TestGet_without_server_side_tables(t *testing.T) {
	cfg, c := recordServer(t)
	pods := c.Resource(apiclient.Pods).Namespace("tables")
	if _, err := pods.Create(context.Background(), []byte(`{"metadata":{"name":"web-1"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, nil, "get", "pods", "-n", "tables", "--kubeconfig", cfg)
	if code != 0 || out != "NAME\nweb-1\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = run(t, nil, "get", "pods", "-n", "empty", "--kubeconfig", cfg)
	if code != 0 || out != "" || errOut != "No resources found in empty namespace.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Nothing found: the table says so on stderr; -o name prints nothing, and
// -o json|yaml an empty List — as kubectl does (issue 16: they printed "No
// resources found" and no document a script could parse).
func TestGet_an_empty_list_in_every_format(t *testing.T) {
	cfg, _ := recordServer(t)
	for _, tc := range []struct{ format, stdout, stderr string }{
		{"table", "", "No resources found in empty namespace.\n"},
		{"name", "", ""},
		{"json", "{\n    \"apiVersion\": \"v1\",\n    \"items\": [],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n", ""},
		{"yaml", "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", ""},
	} {
		code, out, errOut := run(t, nil, "get", "pods", "-n", "empty", "-o", tc.format, "--kubeconfig", cfg)
		if code != 0 || out != tc.stdout || errOut != tc.stderr {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q; want stdout %q, stderr %q", tc.format, code, out, errOut, tc.stdout, tc.stderr)
		}
	}
}

// A name with a newline in it (a hostile server's) is printed quoted, on its
// own line, so it cannot forge a line of output for whoever reads it (issue 16:
// it was printed as it came). The same for the dump and the table. apitest,
// as kube-apiserver, refuses such a name, so the hostile server is apitest
// behind a handler that swaps it in for a valid one on the way out.
func TestOutput_quotes_what_would_forge_a_line(t *testing.T) {
	h, stop := apitest.NewHandlerWith(apitest.HandlerOptions{Namespaces: []string{"demo"}})
	defer stop()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(swapWriter{w}, r)
	}))
	defer ts.Close()
	cfg := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(cfg, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "+ts.URL+
		"\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: ctx\n  context: {cluster: c, user: u}\ncurrent-context: ctx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/namespaces/demo/configmaps", strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"evil-forged"}}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", resp, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "configmaps", "-n", "demo", "-o", "name"}, `"configmap/evil\nconfigmap/forged"`},
		{[]string{"sync", "configmaps", "-n", "demo", "--dump"}, `"demo/evil\nconfigmap/forged"`},
	} {
		code, out, errOut := run(t, nil, append(tc.args, "--kubeconfig", cfg)...)
		if code != 0 || !strings.Contains(out, tc.want) || strings.Contains(out, "\nconfigmap/forged") {
			t.Errorf("%v: exit %d, stdout %q (stderr %q), want the name quoted: %s", tc.args, code, out, errOut, tc.want)
		}
	}
}

// swapWriter writes what the server answers with the name "evil-forged"
// made one that forges a line, as a hostile server would send it.
type swapWriter struct{ http.ResponseWriter }

func (w swapWriter) Write(b []byte) (int, error) {
	_, err := w.ResponseWriter.Write(bytes.ReplaceAll(b, []byte("evil-forged"), []byte(`evil\nconfigmap/forged`)))
	return len(b), err
}

func (w swapWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// recordBeforeAndAfter records the ConfigMaps of "rec" with --events 2 on the
// server of kc (c its client): one made before, and, once the list is
// complete, one made and the first changed. It checks the exit code and that
// the file holds the one listed and the two events, and answers the file's
// path, the command's stderr and the recording.
func recordBeforeAndAfter(t *testing.T, kc string, c *apiclient.Client) (string, string, *recording.Recording) {
	t.Helper()
	cms := c.Resource(apiclient.ConfigMaps).Namespace("rec")
	if _, err := cms.Create(context.Background(), []byte(`{"metadata":{"name":"before"}}`), apiclient.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cm.rec")
	code, _, stderr := recordWhile(t, map[string]string{"KUBECONFIG": kc}, []string{"record", "cm", "-n", "rec", "-o", out, "--events", "2"}, func() {
		ctx := context.Background()
		if _, err := cms.Create(ctx, []byte(`{"metadata":{"name":"after"}}`), apiclient.WriteOptions{}); err != nil {
			t.Error(err)
		}
		if _, err := cms.Patch(ctx, "before", apiclient.MergePatch, []byte(`{"data":{"a":"b"}}`), apiclient.WriteOptions{}); err != nil {
			t.Error(err)
		}
	})
	if got, want := code, 0; got != want {
		t.Fatalf("exit %d, want %d:\n%s", got, want, stderr)
	}
	return out, stderr, checkRecording(t, out, 1, []string{"ADDED", "MODIFIED"})
}
