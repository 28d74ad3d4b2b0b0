package apiclient_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/kubeconfig"
)

// An object of any resource: metadata typed, everything else reachable.
func ExampleDecodeObject() {
	obj, err := apiclient.DecodeObject([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab",
		"metadata":{"name":"every-minute","namespace":"demo","resourceVersion":"42","labels":{"team":"a"},
		"managedFields":[{"manager":"kubectl"}]},
		"spec":{"cronSpec":"* * * * */1","replicas":2}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	cron, _ := obj.FieldString("spec", "cronSpec")
	replicas, _ := obj.Field("spec", "replicas")
	fmt.Println(obj)
	fmt.Println(obj.Metadata.Labels["team"], cron, replicas)
	fmt.Println("managedFields kept:", obj.Metadata.ManagedFields != nil)
	// Output:
	// CronTab demo/every-minute rv=42
	// a * * * * */1 2
	// managedFields kept: false
}

// A typed view of any resource: declare the fields you read, with json tags.
// Keys match exactly, so a field without a tag ("Type" for the key "type") stays
// empty.
func ExampleObject_Decode() {
	obj, err := apiclient.DecodeObject([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1"},
		"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var pod struct {
		Status struct {
			Phase      string `json:"phase"`
			Conditions []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
			} `json:"conditions"`
		} `json:"status"`
	}
	if err := obj.Decode(&pod); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pod.Status.Phase, pod.Status.Conditions[0].Type, pod.Status.Conditions[0].Status)

	var untagged struct {
		Status struct {
			Conditions []struct{ Type, Status string } `json:"conditions"`
		} `json:"status"`
	}
	_ = obj.Decode(&untagged)
	fmt.Printf("untagged: %+v\n", untagged.Status.Conditions[0])
	// Output:
	// Running Ready True
	// untagged: {Type: Status:}
}

// Your own struct for any resource; keys match exactly, as the API server reads them.
func ExampleUnmarshal() {
	var d struct {
		Spec struct {
			Replicas int64 `json:"replicas"`
		} `json:"spec"`
	}
	_ = apiclient.Unmarshal([]byte(`{"spec":{"Replicas":5,"replicas":2}}`), &d)
	fmt.Println(d.Spec.Replicas)
	// Output: 2
}

// Where each verb sends its request.
func ExampleResource_Path() {
	fmt.Println(apiclient.Pods.Path("default", "", ""))
	fmt.Println(apiclient.Deployments.Path("prod", "web", "scale"))
	fmt.Println(apiclient.Namespaces.Path("ignored", "kube-system", ""))
	// Output:
	// /api/v1/namespaces/default/pods
	// /apis/apps/v1/namespaces/prod/deployments/web/scale
	// /api/v1/namespaces/kube-system
}

// A watch, read one event at a time. The test server plays the API server's part:
// two events, then the end of the stream.
func ExampleResourceClient_Watch() {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("server got:", r.URL.RequestURI())
		io.WriteString(w, `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"11"}}}`+"\n")
		io.WriteString(w, `{"type":"DELETED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"12"}}}`+"\n")
	}))
	defer ts.Close()
	c, _ := apiclient.New(&kubeconfig.Config{Server: ts.URL}, apiclient.Options{Transport: ts.Client().Transport})

	w, err := c.Resource(apiclient.Pods).Namespace("default").Watch(context.Background(), apiclient.WatchOptions{
		ListOptions: apiclient.ListOptions{ResourceVersion: "10", AllowWatchBookmarks: true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err == io.EOF { // the server ended the stream: watch again from the last resourceVersion
			fmt.Println("end of stream")
			return
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Type, ev.Object.Key(), ev.Object.Metadata.ResourceVersion)
	}
	// Output:
	// server got: /api/v1/namespaces/default/pods?allowWatchBookmarks=true&resourceVersion=10&watch=true
	// ADDED default/web-1 11
	// DELETED default/web-1 12
	// end of stream
}

// A typed error, asked the questions a controller asks.
func ExampleIsNotFound() {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"web-9\" not found","reason":"NotFound","code":404}`)
	}))
	defer ts.Close()
	c, _ := apiclient.New(&kubeconfig.Config{Server: ts.URL}, apiclient.Options{Transport: ts.Client().Transport})

	_, err := c.Resource(apiclient.Pods).Namespace("default").Get(context.Background(), "web-9")
	fmt.Println(apiclient.IsNotFound(err), apiclient.IsConflict(err), apiclient.ReasonOf(err))
	// Output: true false NotFound
}

// A test that must know which release it talks to asks once; a vendor's "+" is
// allowed.
func ExampleServerVersion_AtLeast() {
	v := apiclient.ServerVersion{Major: "1", Minor: "32+", GitVersion: "v1.32.4-gke.1200"}
	fmt.Println(v.AtLeast(1, 32), v.AtLeast(1, 35))
	// Output: true false
}
