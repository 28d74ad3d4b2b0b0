// Package builtin holds Go types for the built-in kinds operators create most —
// Deployment, StatefulSet, DaemonSet, Job, CronJob, Service, Ingress,
// ConfigMap, Secret, ServiceAccount, Role, ClusterRole, RoleBinding,
// ClusterRoleBinding, PodDisruptionBudget — written for server-side apply: a
// value names only the fields its controller set, so the controller owns
// those fields and no others.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (apiclient/builtin: values for Typed[T], listers and the builder)
//
// It imports apiclient alone (ObjectMeta, Time, the Resource values) and
// nothing of the pipeline, so that any stage, a controller or a test may use
// it; it is not apiclient itself, which is the wire, and ninety types would
// bury it. The name says what it holds: the kinds built into kube-apiserver,
// as against custom resources, whose types their authors write.
//
// # The whole move
//
//	d := &builtin.Deployment{ObjectMeta: controller.ChildOf(site, site.Name)}
//	d.Spec.Replicas = builtin.Ptr(site.Spec.Replicas)
//	d.Spec.Selector = &builtin.LabelSelector{MatchLabels: labels}
//	d.Spec.Template.Metadata.Labels = labels
//	d.Spec.Template.Spec.Containers = []builtin.Container{{Name: "web", Image: "nginx:1.27"}}
//	applied, err := apiclient.NewTyped[builtin.Deployment](client).Apply(ctx, d, opts)
//	ready := applied.Status.AvailableReplicas
//
// example_test.go prints the bodies such applies send.
//
// # The files
//
//	apps.go     Deployment, StatefulSet, DaemonSet
//	batch.go    Job, CronJob
//	network.go  Service, Ingress
//	config.go   ConfigMap, Secret
//	rbac.go     ServiceAccount, Role, ClusterRole, RoleBinding, ClusterRoleBinding
//	policy.go   PodDisruptionBudget
//	pod.go      PodTemplateSpec, PodSpec, Container and what a container holds
//	volume.go   Volume, its sources, VolumeMount, a StatefulSet's claim templates
//	values.go   Ptr, IntOrString, ResourceList, LabelSelector, Condition
//
// # Guarantees
//   - Each kind is an apiclient.TypedObject whose Resource is apiclient's value
//     (apiclient.Deployments, apiclient.Jobs, …): Typed[T], the controller's
//     listers and builder take it as it is.
//   - A zero value of any type here encodes to {} (a kind to its empty
//     metadata): every field is omitempty, or omitzero for a struct, so an
//     apply sends only what was set (TestKinds_a_zero_value_sends_nothing).
//   - Where zero is a choice the API tells apart from unset, the field is a
//     pointer and Ptr sets it: replicas, parallelism, backoffLimit and the
//     other counts that default to something else; bools that default to true
//     or that a controller may want to own as false (automountServiceAccountToken,
//     enableServiceLinks, suspend, optional); user and group ids (0 is root).
//     An IntOrString field (ports, maxUnavailable, minAvailable) sends Int(0)
//     and leaves its zero value out. A one-of member (a volume's source, a
//     probe's action, an env var's ValueFrom) is a pointer, as an empty one
//     may be the choice: EmptyDir: &EmptyDirVolumeSource{} sends "emptyDir": {}.
//   - Every JSON name and type agrees with the schema kube-apiserver v1.32 and
//     v1.37 publish (OpenAPI v3): TestIntegration_schema walks each type by
//     reflection against the server's, TestSchema_recorded against those
//     recorded in testdata/openapi; TestIntegration_apply applies each kind
//     with fieldValidation=Strict and gets no warning.
//   - Status types are for reading what the kind's controller wrote; the main
//     resource ignores status in an apply.
//   - Partial by design: a field not declared cannot be set, and decoding
//     drops it — so an Update (PUT) of a value read into one of these types
//     clears on the server every field the type lacks; apply or patch instead.
//     Left out: affinity and topology spread, most volume sources, ephemeral
//     and sidecar specifics, the rarer probe and lifecycle knobs. An operator
//     that needs one declares a type of its own (any TypedObject works with
//     Typed[T]) or writes that field by patch.
//   - Values are plain data whose zero value is ready to fill (IntOrString's
//     is unset); not safe for concurrent writes.
//
// # Compared with client-go
//
// k8s.io/api has a generated struct for every kind and every field, each
// field of the API present; most fields are omitempty, but struct-valued ones
// (a Deployment's strategy, a container's resources) and some scalars are not,
// so a value built from scratch encodes members the caller never set, with
// zero values. That suits Create and Update, which send a whole object, and
// not server-side apply, where every member sent is a field claimed. For
// apply client-go has k8s.io/client-go/applyconfigurations: a second
// generated tree in which every field is a pointer, built with chained
// With… calls (apps.Deployment(name, ns).WithSpec(apps.DeploymentSpec()
// .WithReplicas(3))). This package is one hand-written tree for both uses:
// the fields operators set, plain values where zero means "not set" and
// pointers only where the API tells zero from unset, so a literal reads like
// the YAML; the cost is the fields it leaves out (above) and no deep-copy
// methods.
package builtin
