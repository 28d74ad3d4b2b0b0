package builtin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/apiclient/clock"
)

// A controller applies a ConfigMap and a Deployment that mounts it. The
// bodies name only the fields it set — no zero minReadySeconds, no empty
// strategy, no status —, so the server records it as the owner of those
// fields and of no others; Replicas is a pointer, so zero replicas is sent.
func Example() {
	srv := apitest.NewServer(clock.NewFake())
	srv.CreateNamespaces("demo")
	defer srv.Close()
	client, _ := srv.Client(apiclient.Options{Transport: showApply{srv.Transport()}})
	ctx := context.Background()
	opts := apiclient.WriteOptions{FieldManager: "web-operator", Force: true}

	content := &builtin.ConfigMap{ObjectMeta: apiclient.ObjectMeta{Name: "web-content"},
		Data: map[string]string{"index.html": "hello"}}
	_, err := apiclient.NewTyped[builtin.ConfigMap](client).Namespace("demo").Apply(ctx, content, opts)
	if err != nil {
		fmt.Println(err)
	}

	labels := map[string]string{"app": "web"}
	d := &builtin.Deployment{ObjectMeta: apiclient.ObjectMeta{Name: "web", Labels: labels}}
	d.Spec.Replicas = builtin.Ptr[int32](0)
	d.Spec.Selector = &builtin.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Metadata.Labels = labels
	d.Spec.Template.Spec.Containers = []builtin.Container{{
		Name: "web", Image: "nginx:1.27",
		Ports:          []builtin.ContainerPort{{ContainerPort: 80}},
		VolumeMounts:   []builtin.VolumeMount{{Name: "content", MountPath: "/usr/share/nginx/html"}},
		ReadinessProbe: &builtin.Probe{HTTPGet: &builtin.HTTPGetAction{Path: "/", Port: builtin.Int(80)}},
	}}
	d.Spec.Template.Spec.Volumes = []builtin.Volume{{Name: "content",
		ConfigMap: &builtin.ConfigMapVolumeSource{Name: "web-content"}}}
	applied, err := apiclient.NewTyped[builtin.Deployment](client).Namespace("demo").Apply(ctx, d, opts)
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println("replicas:", *applied.Spec.Replicas)
	// Output:
	// PATCH /api/v1/namespaces/demo/configmaps/web-content
	// {
	//   "apiVersion": "v1",
	//   "data": {
	//     "index.html": "hello"
	//   },
	//   "kind": "ConfigMap",
	//   "metadata": {
	//     "name": "web-content"
	//   }
	// }
	// PATCH /apis/apps/v1/namespaces/demo/deployments/web
	// {
	//   "apiVersion": "apps/v1",
	//   "kind": "Deployment",
	//   "metadata": {
	//     "name": "web",
	//     "labels": {
	//       "app": "web"
	//     }
	//   },
	//   "spec": {
	//     "replicas": 0,
	//     "selector": {
	//       "matchLabels": {
	//         "app": "web"
	//       }
	//     },
	//     "template": {
	//       "metadata": {
	//         "labels": {
	//           "app": "web"
	//         }
	//       },
	//       "spec": {
	//         "containers": [
	//           {
	//             "name": "web",
	//             "image": "nginx:1.27",
	//             "ports": [
	//               {
	//                 "containerPort": 80
	//               }
	//             ],
	//             "volumeMounts": [
	//               {
	//                 "name": "content",
	//                 "mountPath": "/usr/share/nginx/html"
	//               }
	//             ],
	//             "readinessProbe": {
	//               "httpGet": {
	//                 "path": "/",
	//                 "port": 80
	//               }
	//             }
	//           }
	//         ],
	//         "volumes": [
	//           {
	//             "name": "content",
	//             "configMap": {
	//               "name": "web-content"
	//             }
	//           }
	//         ]
	//       }
	//     }
	//   }
	// }
	// replicas: 0
}

// showApply prints the path and body of each server-side apply it carries.
type showApply struct{ next http.RoundTripper }

func (s showApply) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Content-Type") == string(apiclient.ApplyPatch) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var out bytes.Buffer
		_ = json.Indent(&out, body, "", "  ")
		fmt.Printf("%s %s\n%s\n", req.Method, req.URL.Path, out.String())
	}
	return s.next.RoundTrip(req)
}
