package builtin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/builtin"
	"github.com/kubewire/kubewire/apiclient/realtest"
)

// Every kind, with most of its fields set, is accepted by a real server's
// server-side apply with fieldValidation=Strict (an unknown or duplicate
// field is a 400) and draws no warning; what comes back, decoded into the
// same type, holds every value sent; and the same apply again changes
// nothing (the server's defaults do not fight the value).
func TestIntegration_apply(t *testing.T) {
	var mu sync.Mutex
	var warnings []string
	c, _ := realtest.Client(t, apiclient.Options{OnWarning: func(text string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, text)
	}})
	ns := realtest.Namespace(t, c, "kubewire-builtin")
	ctx := context.Background()
	opts := apiclient.WriteOptions{FieldManager: "kubewire-builtin-test", FieldValidation: "Strict"}

	for _, obj := range samples(ns, realtest.Name("kubewire-builtin")) {
		r := obj.Resource()
		t.Run(r.Kind, func(t *testing.T) {
			meta := obj.GetObjectMeta()
			rc := c.Resource(r)
			if r.Namespaced {
				rc = rc.Namespace(ns)
			} else {
				t.Cleanup(func() { _ = rc.Delete(context.Background(), meta.Name, apiclient.DeleteOptions{}) })
			}
			// What Typed[T].Apply sends: the value, with apiVersion and kind.
			reflect.ValueOf(obj).Elem().FieldByName("TypeMeta").Set(reflect.ValueOf(apiclient.TypeMeta{Kind: r.Kind, APIVersion: r.GroupVersion()}))
			sent, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			first, err := rc.Apply(ctx, sent, opts)
			if err != nil {
				t.Fatalf("apply %s: %v\n%s", r.Kind, err, sent)
			}
			// Decode into the same Go type, as Typed[T] would, and encode again:
			// every value sent must be there.
			back := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
			if err := first.Decode(back); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range missing("", decodeJSON(t, sent), decodeJSON(t, got)) {
				t.Errorf("sent %s, got it back without it", p)
			}
			again, err := rc.Apply(ctx, sent, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := again.Metadata.ResourceVersion, first.Metadata.ResourceVersion; got != want {
				t.Errorf("the same apply again moved resourceVersion %s to %s", want, got)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, w := range warnings {
		t.Errorf("the server warned: %s", w)
	}
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// missing lists the paths of want whose values got does not hold: every
// member of an object, every item of a list at the same place.
func missing(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s (got %v)", path, got)}
		}
		var out []string
		for k, v := range w {
			out = append(out, missing(path+"."+k, v, g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s (got %v)", path, got)}
		}
		var out []string
		for i := range w {
			out = append(out, missing(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if want != got {
			return []string{fmt.Sprintf("%s=%v (got %v)", path, want, got)}
		}
		return nil
	}
}

// samples is one object of every kind, in namespace ns, the cluster-scoped
// ones named unique.
func samples(ns, unique string) []apiclient.TypedObject {
	labels := map[string]string{"app": "web"}
	selector := &builtin.LabelSelector{MatchLabels: labels,
		MatchExpressions: []builtin.LabelSelectorRequirement{{Key: "tier", Operator: "NotIn", Values: []string{"db"}}}}
	template := builtin.PodTemplateSpec{Metadata: apiclient.ObjectMeta{Labels: labels, Annotations: map[string]string{"a": "b"}}, Spec: podSpec()}
	meta := func(name string) apiclient.ObjectMeta {
		return apiclient.ObjectMeta{Name: name, Labels: labels}
	}
	var out []apiclient.TypedObject

	d := &builtin.Deployment{ObjectMeta: meta("web")}
	d.Spec = builtin.DeploymentSpec{Replicas: builtin.Ptr[int32](0), Selector: selector, Template: template,
		Strategy: builtin.DeploymentStrategy{Type: "RollingUpdate",
			RollingUpdate: &builtin.RollingUpdateDeployment{MaxUnavailable: builtin.Int(0), MaxSurge: builtin.String("50%")}},
		MinReadySeconds: 5, RevisionHistoryLimit: builtin.Ptr[int32](0), ProgressDeadlineSeconds: builtin.Ptr[int32](120), Paused: true}
	out = append(out, d)

	sts := &builtin.StatefulSet{ObjectMeta: meta("db")}
	sts.Spec = builtin.StatefulSetSpec{Replicas: builtin.Ptr[int32](2), Selector: selector, Template: template, ServiceName: "db",
		PodManagementPolicy: "Parallel", MinReadySeconds: 1, RevisionHistoryLimit: builtin.Ptr[int32](3),
		UpdateStrategy: builtin.StatefulSetUpdateStrategy{Type: "RollingUpdate",
			RollingUpdate: &builtin.RollingUpdateStatefulSetStrategy{Partition: builtin.Ptr[int32](0)}},
		VolumeClaimTemplates: []builtin.PersistentVolumeClaim{{Metadata: apiclient.ObjectMeta{Name: "data"},
			Spec: builtin.PersistentVolumeClaimSpec{AccessModes: []string{"ReadWriteOnce"}, StorageClassName: builtin.Ptr(""),
				VolumeMode: "Filesystem", Resources: builtin.VolumeResourceRequirements{Requests: builtin.ResourceList{"storage": "1Gi"}}}}}}
	out = append(out, sts)

	ds := &builtin.DaemonSet{ObjectMeta: meta("agent")}
	ds.Spec = builtin.DaemonSetSpec{Selector: selector, Template: template, MinReadySeconds: 2, RevisionHistoryLimit: builtin.Ptr[int32](4),
		UpdateStrategy: builtin.DaemonSetUpdateStrategy{Type: "RollingUpdate",
			RollingUpdate: &builtin.RollingUpdateDaemonSet{MaxUnavailable: builtin.Int(0), MaxSurge: builtin.Int(1)}}}
	out = append(out, ds)

	jobSpec := builtin.JobSpec{Template: builtin.PodTemplateSpec{Metadata: template.Metadata, Spec: podSpec()},
		Parallelism: builtin.Ptr[int32](0), Completions: builtin.Ptr[int32](3), BackoffLimit: builtin.Ptr[int32](0),
		ActiveDeadlineSeconds: builtin.Ptr[int64](600), TTLSecondsAfterFinished: builtin.Ptr[int32](0),
		CompletionMode: "Indexed", Suspend: builtin.Ptr(true)}
	jobSpec.Template.Spec.RestartPolicy = "Never"
	job := &builtin.Job{ObjectMeta: meta("once"), Spec: jobSpec}
	out = append(out, job)

	cron := &builtin.CronJob{ObjectMeta: meta("nightly")}
	cron.Spec = builtin.CronJobSpec{Schedule: "0 3 * * *", TimeZone: builtin.Ptr("Etc/UTC"), ConcurrencyPolicy: "Forbid",
		Suspend: builtin.Ptr(false), StartingDeadlineSeconds: builtin.Ptr[int64](60),
		SuccessfulJobsHistoryLimit: builtin.Ptr[int32](0), FailedJobsHistoryLimit: builtin.Ptr[int32](1),
		JobTemplate: builtin.JobTemplateSpec{Metadata: apiclient.ObjectMeta{Labels: labels}, Spec: jobSpec}}
	out = append(out, cron)

	svc := &builtin.Service{ObjectMeta: meta("web")}
	svc.Spec = builtin.ServiceSpec{Type: "NodePort", Selector: labels, ExternalTrafficPolicy: "Local", SessionAffinity: "ClientIP",
		PublishNotReadyAddresses: true, Ports: []builtin.ServicePort{
			{Name: "http", Protocol: "TCP", AppProtocol: builtin.Ptr("http"), Port: 80, TargetPort: builtin.String("http")},
			{Name: "metrics", Port: 9090, TargetPort: builtin.Int(9090)}}}
	headless := &builtin.Service{ObjectMeta: meta("db")}
	headless.Spec = builtin.ServiceSpec{ClusterIP: "None", Selector: labels, Ports: []builtin.ServicePort{{Port: 5432}}}
	external := &builtin.Service{ObjectMeta: meta("upstream")}
	external.Spec = builtin.ServiceSpec{Type: "ExternalName", ExternalName: "example.com"}
	out = append(out, svc, headless, external)

	ing := &builtin.Ingress{ObjectMeta: meta("web")}
	backend := builtin.IngressBackend{Service: &builtin.IngressServiceBackend{Name: "web", Port: builtin.ServiceBackendPort{Name: "http"}}}
	ing.Spec = builtin.IngressSpec{IngressClassName: builtin.Ptr("nginx"), DefaultBackend: &backend,
		TLS: []builtin.IngressTLS{{Hosts: []string{"web.example.com"}, SecretName: "web-tls"}},
		Rules: []builtin.IngressRule{{Host: "web.example.com", HTTP: &builtin.HTTPIngressRuleValue{Paths: []builtin.HTTPIngressPath{
			{Path: "/", PathType: "Prefix", Backend: backend},
			{Path: "/metrics", PathType: "Exact", Backend: builtin.IngressBackend{Service: &builtin.IngressServiceBackend{
				Name: "web", Port: builtin.ServiceBackendPort{Number: 9090}}}}}}}}}
	out = append(out, ing)

	out = append(out,
		&builtin.ConfigMap{ObjectMeta: meta("settings"), Data: map[string]string{"mode": "fast"},
			BinaryData: map[string][]byte{"blob": {0, 1, 2}}, Immutable: builtin.Ptr(false)},
		&builtin.Secret{ObjectMeta: meta("web-tls"), Type: "Opaque", Data: map[string][]byte{"key": []byte("s3cr3t")},
			Immutable: builtin.Ptr(false)},
		&builtin.ServiceAccount{ObjectMeta: meta("web"), AutomountServiceAccountToken: builtin.Ptr(false),
			ImagePullSecrets: []builtin.LocalObjectReference{{Name: "registry"}}})

	rules := []builtin.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments", "deployments/status"},
		Verbs: []string{"get", "list", "watch"}, ResourceNames: []string{"web"}}}
	subjects := []builtin.Subject{{Kind: "ServiceAccount", Name: "web", Namespace: ns},
		{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "jane"}}
	out = append(out,
		&builtin.Role{ObjectMeta: meta("reader"), Rules: rules},
		&builtin.RoleBinding{ObjectMeta: meta("reader"), Subjects: subjects,
			RoleRef: builtin.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "reader"}},
		&builtin.ClusterRole{ObjectMeta: meta(unique), Rules: append(rules[:1:1],
			builtin.PolicyRule{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}})},
		&builtin.ClusterRoleBinding{ObjectMeta: meta(unique), Subjects: subjects,
			RoleRef: builtin.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: unique}})

	pdb := &builtin.PodDisruptionBudget{ObjectMeta: meta("web")}
	pdb.Spec = builtin.PodDisruptionBudgetSpec{Selector: selector, MaxUnavailable: builtin.Int(0), UnhealthyPodEvictionPolicy: "AlwaysAllow"}
	pdb2 := &builtin.PodDisruptionBudget{ObjectMeta: meta("db")}
	pdb2.Spec = builtin.PodDisruptionBudgetSpec{Selector: selector, MinAvailable: builtin.String("50%")}
	out = append(out, pdb, pdb2)
	return out
}

// podSpec sets every field PodSpec and Container have.
func podSpec() builtin.PodSpec {
	probe := func(p builtin.Probe) *builtin.Probe {
		p.InitialDelaySeconds, p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold = 1, 2, 3, 1, 4
		return &p
	}
	web := builtin.Container{Name: "web", Image: "nginx:1.27", ImagePullPolicy: "IfNotPresent",
		Command: []string{"nginx"}, Args: []string{"-g", "daemon off;"}, WorkingDir: "/srv",
		Ports: []builtin.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}, {Name: "metrics", ContainerPort: 9090}},
		Env: []builtin.EnvVar{
			{Name: "MODE", Value: "fast"},
			{Name: "FROM_CM", ValueFrom: &builtin.EnvVarSource{ConfigMapKeyRef: &builtin.KeySelector{Name: "settings", Key: "mode", Optional: builtin.Ptr(true)}}},
			{Name: "FROM_SECRET", ValueFrom: &builtin.EnvVarSource{SecretKeyRef: &builtin.KeySelector{Name: "web-tls", Key: "key"}}},
			{Name: "POD", ValueFrom: &builtin.EnvVarSource{FieldRef: &builtin.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		EnvFrom: []builtin.EnvFromSource{{Prefix: "CM_", ConfigMapRef: &builtin.EnvSourceRef{Name: "settings", Optional: builtin.Ptr(false)}},
			{SecretRef: &builtin.EnvSourceRef{Name: "web-tls"}}},
		Resources: builtin.ResourceRequirements{Requests: builtin.ResourceList{"cpu": "100m", "memory": "64Mi"},
			Limits: builtin.ResourceList{"cpu": "1", "memory": "128Mi"}},
		VolumeMounts: []builtin.VolumeMount{{Name: "content", MountPath: "/srv/html", ReadOnly: true},
			{Name: "tls", MountPath: "/srv/tls"}, {Name: "scratch", MountPath: "/tmp", SubPath: "web"}, {Name: "data", MountPath: "/data"}},
		LivenessProbe:  probe(builtin.Probe{HTTPGet: &builtin.HTTPGetAction{Path: "/healthz", Port: builtin.String("http"), Host: "127.0.0.1", Scheme: "HTTP"}}),
		ReadinessProbe: probe(builtin.Probe{TCPSocket: &builtin.TCPSocketAction{Port: builtin.Int(8080)}}),
		StartupProbe:   probe(builtin.Probe{Exec: &builtin.ExecAction{Command: []string{"true"}}}),
		SecurityContext: &builtin.SecurityContext{RunAsUser: builtin.Ptr[int64](1000), RunAsGroup: builtin.Ptr[int64](1000),
			RunAsNonRoot: builtin.Ptr(true), ReadOnlyRootFilesystem: builtin.Ptr(true), AllowPrivilegeEscalation: builtin.Ptr(false),
			Privileged: builtin.Ptr(false), Capabilities: &builtin.Capabilities{Add: []string{"NET_BIND_SERVICE"}, Drop: []string{"ALL"}},
			SeccompProfile: &builtin.SeccompProfile{Type: "RuntimeDefault"}}}
	return builtin.PodSpec{
		InitContainers: []builtin.Container{{Name: "init", Image: "busybox:1.36", Command: []string{"true"}}},
		Containers:     []builtin.Container{web},
		Volumes: []builtin.Volume{
			{Name: "content", ConfigMap: &builtin.ConfigMapVolumeSource{Name: "settings", DefaultMode: builtin.Ptr[int32](0o440),
				Optional: builtin.Ptr(true), Items: []builtin.KeyToPath{{Key: "mode", Path: "mode.txt", Mode: builtin.Ptr[int32](0o400)}}}},
			{Name: "tls", Secret: &builtin.SecretVolumeSource{SecretName: "web-tls", DefaultMode: builtin.Ptr[int32](0o400)}},
			{Name: "scratch", EmptyDir: &builtin.EmptyDirVolumeSource{Medium: "Memory", SizeLimit: "64Mi"}},
			{Name: "data", PersistentVolumeClaim: &builtin.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}}},
		RestartPolicy: "Always", TerminationGracePeriodSeconds: builtin.Ptr[int64](0), ServiceAccountName: "web",
		AutomountServiceAccountToken: builtin.Ptr(false), EnableServiceLinks: builtin.Ptr(false),
		ImagePullSecrets: []builtin.LocalObjectReference{{Name: "registry"}},
		SecurityContext: &builtin.PodSecurityContext{RunAsUser: builtin.Ptr[int64](0), RunAsGroup: builtin.Ptr[int64](1000),
			RunAsNonRoot: builtin.Ptr(false), FSGroup: builtin.Ptr[int64](2000), SeccompProfile: &builtin.SeccompProfile{Type: "RuntimeDefault"}},
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		Tolerations: []builtin.Toleration{{Key: "dedicated", Operator: "Equal", Value: "web", Effect: "NoExecute", TolerationSeconds: builtin.Ptr[int64](30)},
			{Operator: "Exists"}},
		DNSPolicy: "ClusterFirst",
	}
}
