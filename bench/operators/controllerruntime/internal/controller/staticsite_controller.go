// Package controller holds the StaticSite reconciler.
package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	demov1 "github.com/kubewire/kubewire/bench/operators/controllerruntime/api/v1"
)

const (
	finalizerName        = "demo.kubewire.io/registry"
	tlsVersionAnnotation = "demo.kubewire.io/tls-version"
	registryName         = "static-sites"
	defaultImage         = "nginx:1.27"
	fieldOwner           = client.FieldOwner("staticsite-controller")

	// tlsSecretIndex is the field index that finds the StaticSites naming a Secret.
	tlsSecretIndex = ".spec.tlsSecretName"
)

// StaticSiteReconciler reconciles a StaticSite object.
type StaticSiteReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=demo.kubewire.io,resources=staticsites,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=demo.kubewire.io,resources=staticsites/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=demo.kubewire.io,resources=staticsites/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves the cluster towards the state a StaticSite asks for.
func (r *StaticSiteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	site := &demov1.StaticSite{}
	if err := r.Get(ctx, req.NamespacedName, site); err != nil {
		// Deleted since it was queued: its owned objects are garbage collected.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if !site.DeletionTimestamp.IsZero() {
		if controllerutil.ContainsFinalizer(site, finalizerName) {
			if err := r.removeFromRegistry(ctx, site); err != nil {
				return ctrl.Result{}, err
			}
			controllerutil.RemoveFinalizer(site, finalizerName)
			if err := r.Update(ctx, site); err != nil {
				return ctrl.Result{}, err
			}
			log.Info("Removed the site from the registry")
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(site, finalizerName) {
		if err := r.Update(ctx, site); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.addToRegistry(ctx, site); err != nil {
		return ctrl.Result{}, err
	}

	oldStatus := site.Status.DeepCopy()
	wasReady := meta.IsStatusConditionTrue(site.Status.Conditions, "Ready")
	site.Status.ObservedGeneration = site.Generation

	var secret *corev1.Secret
	if site.Spec.TLSSecretName != "" {
		secret = &corev1.Secret{}
		err := r.Get(ctx, client.ObjectKey{Namespace: site.Namespace, Name: site.Spec.TLSSecretName}, secret)
		if apierrors.IsNotFound(err) {
			// The Secret's creation triggers a reconcile through the Secret watch.
			msg := fmt.Sprintf("Secret %q not found", site.Spec.TLSSecretName)
			setReady(site, metav1.ConditionFalse, "SecretMissing", msg)
			r.Recorder.Eventf(site, nil, corev1.EventTypeWarning, "SecretMissing", "Reconcile", msg)
			return ctrl.Result{}, r.updateStatus(ctx, site, oldStatus)
		}
		if err != nil {
			return ctrl.Result{}, err
		}
	}

	if err := r.applyConfigMap(ctx, site); err != nil {
		return ctrl.Result{}, err
	}
	deployment, err := r.applyDeployment(ctx, site, secret)
	if err != nil {
		return ctrl.Result{}, err
	}

	site.Status.AvailableReplicas = ptr.Deref(deployment.Status.AvailableReplicas, 0)
	msg := fmt.Sprintf("%d of %d replicas available", site.Status.AvailableReplicas, site.Spec.Replicas)
	if site.Status.AvailableReplicas >= site.Spec.Replicas {
		setReady(site, metav1.ConditionTrue, "Available", msg)
	} else {
		setReady(site, metav1.ConditionFalse, "Progressing", msg)
	}
	if err := r.updateStatus(ctx, site, oldStatus); err != nil {
		return ctrl.Result{}, err
	}
	if !wasReady && meta.IsStatusConditionTrue(site.Status.Conditions, "Ready") {
		r.Recorder.Eventf(site, nil, corev1.EventTypeNormal, "Ready", "Reconcile", msg)
	}
	return ctrl.Result{}, nil
}

// addToRegistry records the site's URL in the namespace's shared registry ConfigMap.
func (r *StaticSiteReconciler) addToRegistry(ctx context.Context, site *demov1.StaticSite) error {
	registry := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: registryName, Namespace: site.Namespace}}
	_, err := controllerutil.CreateOrPatch(ctx, r.Client, registry, func() error {
		if registry.Data == nil {
			registry.Data = map[string]string{}
		}
		registry.Data[registryKey(site)] = fmt.Sprintf("http://%s.%s.svc", site.Name, site.Namespace)
		return nil
	})
	return err
}

// removeFromRegistry deletes the site's key with a merge patch; a missing registry is fine.
func (r *StaticSiteReconciler) removeFromRegistry(ctx context.Context, site *demov1.StaticSite) error {
	registry := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: registryName, Namespace: site.Namespace}}
	patch := fmt.Sprintf(`{"data":{%q:null}}`, registryKey(site))
	err := r.Patch(ctx, registry, client.RawPatch(types.MergePatchType, []byte(patch)))
	return client.IgnoreNotFound(err)
}

func registryKey(site *demov1.StaticSite) string {
	return site.Namespace + "." + site.Name
}

// applyConfigMap server-side applies the ConfigMap holding the page.
func (r *StaticSiteReconciler) applyConfigMap(ctx context.Context, site *demov1.StaticSite) error {
	configMap := corev1ac.ConfigMap(site.Name+"-content", site.Namespace).
		WithOwnerReferences(controllerReference(site)).
		WithData(map[string]string{"index.html": site.Spec.HTML})
	return r.Apply(ctx, configMap, fieldOwner, client.ForceOwnership)
}

// applyDeployment server-side applies the nginx Deployment and returns it as the server answered.
func (r *StaticSiteReconciler) applyDeployment(ctx context.Context, site *demov1.StaticSite, secret *corev1.Secret) (*appsv1ac.DeploymentApplyConfiguration, error) {
	image := site.Spec.Image
	if image == "" {
		image = defaultImage
	}
	labels := map[string]string{"app.kubernetes.io/name": site.Name}

	pod := corev1ac.PodTemplateSpec().
		WithLabels(labels).
		WithSpec(corev1ac.PodSpec().
			WithContainers(corev1ac.Container().
				WithName("web").
				WithImage(image).
				WithPorts(corev1ac.ContainerPort().WithContainerPort(80)).
				WithVolumeMounts(corev1ac.VolumeMount().WithName("content").WithMountPath("/usr/share/nginx/html"))).
			WithVolumes(corev1ac.Volume().
				WithName("content").
				WithConfigMap(corev1ac.ConfigMapVolumeSource().WithName(site.Name + "-content"))))
	if secret != nil {
		// A new resourceVersion of the Secret changes the template, which rolls the pods.
		pod.WithAnnotations(map[string]string{tlsVersionAnnotation: secret.ResourceVersion})
	}

	deployment := appsv1ac.Deployment(site.Name, site.Namespace).
		WithLabels(labels).
		WithOwnerReferences(controllerReference(site)).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(site.Spec.Replicas).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
			WithTemplate(pod))
	if err := r.Apply(ctx, deployment, fieldOwner, client.ForceOwnership); err != nil {
		return nil, err
	}
	return deployment, nil
}

// controllerReference makes the site the controller owner of an applied object.
func controllerReference(site *demov1.StaticSite) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(demov1.GroupVersion.String()).
		WithKind("StaticSite").
		WithName(site.Name).
		WithUID(site.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

func setReady(site *demov1.StaticSite, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&site.Status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: site.Generation,
	})
}

// updateStatus writes the status subresource if it differs from what was read.
func (r *StaticSiteReconciler) updateStatus(ctx context.Context, site *demov1.StaticSite, old *demov1.StaticSiteStatus) error {
	if equality.Semantic.DeepEqual(old, &site.Status) {
		return nil
	}
	return r.Status().Update(ctx, site)
}

// SetupWithManager registers the controller, its watches and the Secret index with the manager.
func (r *StaticSiteReconciler) SetupWithManager(mgr ctrl.Manager) error {
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &demov1.StaticSite{}, tlsSecretIndex,
		func(obj client.Object) []string {
			site := obj.(*demov1.StaticSite)
			if site.Spec.TLSSecretName == "" {
				return nil
			}
			return []string{site.Spec.TLSSecretName}
		})
	if err != nil {
		return err
	}

	return ctrl.NewControllerManagedBy(mgr).
		For(&demov1.StaticSite{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&corev1.ConfigMap{}).
		Owns(&appsv1.Deployment{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.sitesForSecret)).
		Named("staticsite").
		Complete(r)
}

// sitesForSecret maps a Secret to the StaticSites in its namespace that name it.
func (r *StaticSiteReconciler) sitesForSecret(ctx context.Context, secret client.Object) []reconcile.Request {
	var sites demov1.StaticSiteList
	err := r.List(ctx, &sites, client.InNamespace(secret.GetNamespace()),
		client.MatchingFields{tlsSecretIndex: secret.GetName()})
	if err != nil {
		logf.FromContext(ctx).Error(err, "Unable to list the StaticSites of a Secret", "secret", secret.GetName())
		return nil
	}
	requests := make([]reconcile.Request, 0, len(sites.Items))
	for _, site := range sites.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&site)})
	}
	return requests
}
