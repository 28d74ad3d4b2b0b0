package main

import (
	"context"
	"fmt"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/controller"
	"github.com/kubewire/kubewire/controller/events"
	"github.com/kubewire/kubewire/controller/finalizer"
	"github.com/kubewire/kubewire/controller/informer"
	"github.com/kubewire/kubewire/controller/status"
)

const (
	finalizerName = "demo.kubewire.io/registry"
	registryName  = "static-sites"
	bySecret      = "tlsSecret"
)

var apply = apiclient.WriteOptions{FieldManager: "staticsite-controller", Force: true}

type reconciler struct {
	client  *apiclient.Client
	clock   controller.Clock
	sites   *informer.Lister[StaticSite]
	secrets *informer.Lister[builtin.Secret]
	events  *events.Recorder
}

// setup describes the controller on m: StaticSites, the ConfigMaps and
// Deployments they own, and the Secrets they name, found through an index.
func setup(m *controller.Manager) error {
	b := controller.New(m, "staticsite", controller.Options{}).
		For(StaticSites, controller.WithPredicates(controller.GenerationChanged)).
		Owns(apiclient.ConfigMaps).
		Owns(apiclient.Deployments).
		Watches(apiclient.Secrets, controller.ToIndexed(m.Informer(StaticSites), bySecret))
	err := m.Index(StaticSites, bySecret, func(o *apiclient.Object) ([]string, error) {
		if name, _ := o.FieldString("spec", "tlsSecretName"); name != "" {
			return []string{o.Metadata.Namespace + "/" + name}, nil
		}
		return nil, nil
	})
	if err != nil {
		return err
	}
	_, err = b.Complete(&reconciler{client: m.Client(), clock: m.Clock(), sites: controller.Lister[StaticSite](m),
		secrets: controller.Lister[builtin.Secret](m), events: m.Recorder("demo.kubewire.io/staticsite")})
	return err
}

func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	site, err := r.sites.Get(req.Namespace, req.Name)
	if err != nil {
		return controller.Result{}, apiclient.IgnoreNotFound(err)
	}
	return finalizer.Reconcile(ctx, r.client, site, finalizerName,
		func(ctx context.Context) (controller.Result, error) { return controller.Result{}, r.apply(ctx, site) },
		func(ctx context.Context) error { return r.register(ctx, site, nil) })
}

func (r *reconciler) apply(ctx context.Context, site *StaticSite) error {
	if err := r.register(ctx, site, fmt.Sprintf("http://%s.%s.svc", site.Name, site.Namespace)); err != nil {
		return err
	}
	st := SiteStatus{ObservedGeneration: site.Generation, Conditions: site.Status.Conditions}
	tlsVersion := ""
	if name := site.Spec.TLSSecretName; name != "" {
		secret, err := r.secrets.Get(site.Namespace, name)
		if apiclient.IsNotFound(err) {
			msg := fmt.Sprintf("Secret %q not found", name)
			r.setReady(site, &st, "False", "SecretMissing", msg)
			r.events.Eventf(site, events.Warning, "SecretMissing", "Reconcile", msg)
			_, err = status.Update(ctx, r.client, site, st)
			return err
		}
		if err != nil {
			return err
		}
		tlsVersion = secret.ResourceVersion
	}
	content := &builtin.ConfigMap{ObjectMeta: controller.ChildOf(site, site.Name+"-content"), Data: map[string]string{"index.html": site.Spec.HTML}}
	if _, err := apiclient.NewTyped[builtin.ConfigMap](r.client).Apply(ctx, content, apply); err != nil {
		return err
	}
	d, err := apiclient.NewTyped[builtin.Deployment](r.client).Apply(ctx, deployment(site, tlsVersion), apply)
	if err != nil {
		return err
	}
	st.AvailableReplicas = d.Status.AvailableReplicas
	msg := fmt.Sprintf("%d of %d replicas available", st.AvailableReplicas, site.Spec.Replicas)
	if st.AvailableReplicas >= site.Spec.Replicas {
		r.setReady(site, &st, "True", "Available", msg)
	} else {
		r.setReady(site, &st, "False", "Progressing", msg)
	}
	if _, err := status.Update(ctx, r.client, site, st); err != nil {
		return err
	}
	if !status.IsTrue(site.Status.Conditions, "Ready") && status.IsTrue(st.Conditions, "Ready") {
		r.events.Eventf(site, events.Normal, "Ready", "Reconcile", msg)
	}
	return nil
}

func (r *reconciler) setReady(site *StaticSite, st *SiteStatus, value, reason, msg string) {
	status.SetCondition(&st.Conditions, status.Condition{Type: "Ready", Status: value, Reason: reason, Message: msg,
		ObservedGeneration: site.Generation}, r.clock.Now())
}

// register sets the site's key in the namespace's registry ConfigMap to url,
// or, with nil, removes it.
func (r *reconciler) register(ctx context.Context, site *StaticSite, url any) error {
	registry := apiclient.NewTyped[builtin.ConfigMap](r.client).Namespace(site.Namespace)
	patch := fmt.Appendf(nil, `{"data":{%q:%q}}`, site.Namespace+"."+site.Name, url)
	if url == nil {
		patch = fmt.Appendf(nil, `{"data":{%q:null}}`, site.Namespace+"."+site.Name)
	}
	_, err := registry.Patch(ctx, registryName, apiclient.MergePatch, patch, apiclient.WriteOptions{})
	if apiclient.IsNotFound(err) && url != nil {
		_, err = registry.Create(ctx, &builtin.ConfigMap{ObjectMeta: apiclient.ObjectMeta{Name: registryName}, Data: map[string]string{}}, apiclient.WriteOptions{})
		if err == nil || apiclient.IsAlreadyExists(err) {
			return r.register(ctx, site, url)
		}
	}
	return apiclient.IgnoreNotFound(err)
}

// deployment is the nginx Deployment a site asks for.
func deployment(site *StaticSite, tlsVersion string) *builtin.Deployment {
	labels := map[string]string{"app.kubernetes.io/name": site.Name}
	image := site.Spec.Image
	if image == "" {
		image = "nginx:1.27"
	}
	d := &builtin.Deployment{ObjectMeta: controller.ChildOf(site, site.Name)}
	d.Labels, d.Spec.Template.Metadata.Labels = labels, labels
	d.Spec.Replicas, d.Spec.Selector = builtin.Ptr(site.Spec.Replicas), &builtin.LabelSelector{MatchLabels: labels}
	if tlsVersion != "" {
		d.Spec.Template.Metadata.Annotations = map[string]string{"demo.kubewire.io/tls-version": tlsVersion}
	}
	d.Spec.Template.Spec.Containers = []builtin.Container{{Name: "web", Image: image, Ports: []builtin.ContainerPort{{ContainerPort: 80}},
		VolumeMounts: []builtin.VolumeMount{{Name: "content", MountPath: "/usr/share/nginx/html"}}}}
	d.Spec.Template.Spec.Volumes = []builtin.Volume{{Name: "content", ConfigMap: &builtin.ConfigMapVolumeSource{Name: site.Name + "-content"}}}
	return d
}
