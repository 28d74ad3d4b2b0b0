package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/controller/manifests"
)

// placeholderImage is the image manifests names without --image. There is no
// published kubewire image, and a guess at a public name could pull a
// stranger's: .invalid is a domain that never resolves (RFC 2606), so a
// Deployment applied as printed fails to pull, visibly, until --image names
// the user's own.
const placeholderImage = "example.invalid/kubewire:" + "0.1.0"

// runManifests is `kubewire manifests [CONTROLLER]`: everything that runs the
// controller in a cluster, as one YAML stream on stdout — its CRD (foo), its
// ServiceAccount, the RBAC `kubewire rbac` derives for the same flags, a
// Deployment running `kubewire run CONTROLLER` with its metrics server beyond
// loopback and probes on it, and a Service in front of that server. With
// --replicas over 1 the controller runs with --leader-elect, unless --shards.
func runManifests(ctx context.Context, s *session) error {
	d, b, err := s.deploymentOf("manifests")
	if err != nil {
		return err
	}
	replicas := s.integer("replicas", 1)
	if replicas > 1 && !d.shards {
		d.leaderElect = true
	}
	perms, err := derive(ctx, d, b, s.log)
	if err != nil {
		return err
	}
	opts := manifests.Options{Name: d.account().Name, Namespace: d.namespace, Image: s.str("image"),
		Args: append([]string{"run"}, d.flags()...), Replicas: replicas, Sharded: d.shards, Permissions: perms.All()}
	if d.name == "foo" {
		opts.CRDs = [][]byte{fooCRD()}
	}
	header := []string{
		fmt.Sprintf("kubewire manifests %s: `kubewire %s` in a cluster.", strings.Join(d.flags(), " "), d.runLine()),
		fmt.Sprintf("Namespace %q must exist (kubectl create namespace %s); apply with kubectl apply --server-side -f -.", d.namespace, d.namespace),
		fmt.Sprintf("Metrics, /healthz and /readyz: %s, scraped at %s.%s.svc:8080.", opts.MetricsAddr(), opts.ServiceName(), d.namespace),
	}
	if opts.Image == "" {
		opts.Image = placeholderImage
		header = append(header, "IMAGE: "+placeholderImage+" is a placeholder that cannot be pulled: there is no published",
			"kubewire image. Build one (README: Running in a cluster) and pass --image.")
	}
	objs, err := manifests.Objects(opts)
	if err != nil {
		return err
	}
	return manifests.Write(s.env.Stdout, header, objs...)
}
