package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// The floor: what one plain LIST of the namespace's pods costs the API server —
// GET /api/v1/namespaces/NS/pods, JSON, no limit, no resourceVersion (a
// consistent read, as a sync's first list is), through Go's HTTP/2 client with
// its default gzip, nothing else. A JSON client cannot ask the server for less
// to learn what the namespace holds, so the sync's server CPU is read against
// it (issue 42: at most 1.05×).
//
// It runs as a child like the two programs (`sidebyside floor -kubeconfig K -n
// NS`), so that the server is measured around it the same way, and prints the
// same "synced" line; its heap is not measured (0).

// floorArgs is the floor's command line for the cluster at kubeconfig.
func floorArgs(self, kubeconfig, ns string) []string {
	return []string{self, "floor", "-kubeconfig", kubeconfig, "-n", ns}
}

// runFloor is `sidebyside floor`: one LIST, then the synced line.
func runFloor(args []string) error {
	var path, ns string
	for i := 0; i+1 < len(args); i += 2 {
		switch args[i] {
		case "-kubeconfig":
			path = args[i+1]
		case "-n":
			ns = args[i+1]
		default:
			return fmt.Errorf("floor: unknown flag %s", args[i])
		}
	}
	kc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return err
	}
	rt, err := kc.Transport()
	if err != nil {
		return err
	}
	start := time.Now()
	req, err := http.NewRequestWithContext(context.Background(), "GET", kc.Server+"/api/v1/namespaces/"+url.PathEscape(ns)+"/pods", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("floor: GET %s: %s", req.URL.Path, resp.Status)
	}
	if resp.ProtoMajor != 2 {
		return fmt.Errorf("floor: GET %s over %s, not HTTP/2", req.URL.Path, resp.Proto)
	}
	// The body is read, not decoded: the floor is the server's cost, and a
	// decoder here would only compete with the server for the cores. Every
	// object has one resourceVersion in its metadata, and the list one more.
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("floor: GET %s: %w", req.URL.Path, err)
	}
	n := bytes.Count(body, []byte(`"resourceVersion":"`)) - 1
	fmt.Fprintf(os.Stderr, "synced %d objects in %v; heap after GC 0 MiB\n", n, time.Since(start))
	return nil
}
