package controller

import (
	"fmt"
	"strings"

	"github.com/kubewire/kubewire/apiclient"
)

// Ownership. An object a controller creates for another — the Deployment of a Foo,
// the Pods of a ReplicaSet — carries an owner reference to it in
// metadata.ownerReferences:
//
//	{"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo", "name": "example",
//	 "uid": "6d1f…", "controller": true, "blockOwnerDeletion": true}
//
// Two parts of Kubernetes read it. The garbage collector deletes the child when
// its owner is gone (the uid must match: a new Foo of the same name is another
// owner), and blockOwnerDeletion keeps a foreground deletion of the owner waiting
// for the child. Controllers read controller=true — at most one reference may
// have it — to know which controller is responsible for the child, and so which
// owner to reconcile when the child changes (ToOwner), and to leave alone a child
// that someone else controls (SetControllerReference refuses to adopt it).

// AlreadyOwnedError says a child is controlled by another owner: adopting it would
// take it from the controller responsible for it.
type AlreadyOwnedError struct {
	Child string                   // namespace/name of the child
	Owner apiclient.OwnerReference // its controller owner
}

func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("%s is already controlled by %s %s (uid %s)", e.Child, e.Owner.Kind, e.Owner.Name, e.Owner.UID)
}

// SetControllerReference makes ownerMeta, an object of resource owner, the
// controller owner of child: it adds the owner reference, or updates the one
// already pointing at the same uid, and leaves other (non-controller) references
// as they are. It refuses, changing nothing, a child that another owner controls
// (*AlreadyOwnedError), and an owner the garbage collector could not honour:
// owner and child must be in the same namespace, or the owner cluster-scoped; a
// cluster-scoped child can only have cluster-scoped owners. ownerMeta needs name
// and uid: pass the owner as read from the server or the cache.
func SetControllerReference(child *apiclient.ObjectMeta, owner apiclient.Resource, ownerMeta *apiclient.ObjectMeta) error {
	if ownerMeta.Name == "" || ownerMeta.UID == "" {
		return fmt.Errorf("owner reference to %s %q: the owner has no name or uid (was it read from the server?)", owner.Kind, ownerMeta.Name)
	}
	if owner.Namespaced && ownerMeta.Namespace != child.Namespace {
		if child.Namespace == "" {
			return fmt.Errorf("owner reference on cluster-scoped %s: owner %s %s/%s is namespaced", child.Name, owner.Kind, ownerMeta.Namespace, ownerMeta.Name)
		}
		return fmt.Errorf("owner reference on %s/%s: owner %s %s/%s is in another namespace", child.Namespace, child.Name, owner.Kind, ownerMeta.Namespace, ownerMeta.Name)
	}
	if c := controllerOf(child); c != nil && c.UID != ownerMeta.UID {
		return &AlreadyOwnedError{Child: keyOf(child), Owner: *c}
	}
	yes := true
	ref := apiclient.OwnerReference{APIVersion: owner.GroupVersion(), Kind: owner.Kind, Name: ownerMeta.Name, UID: ownerMeta.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
	for i, r := range child.OwnerReferences {
		if r.UID == ownerMeta.UID {
			child.OwnerReferences[i] = ref
			return nil
		}
	}
	child.OwnerReferences = append(child.OwnerReferences, ref)
	return nil
}

// IsControlledBy reports whether child's controller owner reference points at
// ownerMeta's uid.
func IsControlledBy(child *apiclient.ObjectMeta, ownerMeta *apiclient.ObjectMeta) bool {
	c := controllerOf(child)
	return c != nil && c.UID == ownerMeta.UID
}

// ToOwner maps a child's event to its controller owner's Request, for Watch: the
// owner reference with controller=true, if its kind is owner's and its
// apiVersion's group is owner's (any version: a v1beta1 reference names the same
// object as a v1 one), in the child's namespace, or none for a cluster-scoped
// owner. Children controlled by something else, or by nothing, map to no Request.
// This is controller-runtime's Owns(): EnqueueRequestForOwner with
// OnlyControllerOwner.
func ToOwner(owner apiclient.Resource) func(*apiclient.Object) []Request {
	return func(o *apiclient.Object) []Request {
		c := controllerOf(&o.Metadata)
		if c == nil || c.Kind != owner.Kind || groupOf(c.APIVersion) != owner.Group {
			return nil
		}
		ns := o.Metadata.Namespace
		if !owner.Namespaced {
			ns = ""
		}
		return []Request{{Namespace: ns, Name: c.Name}}
	}
}

// controllerOf is the owner reference with controller=true, or nil.
func controllerOf(m *apiclient.ObjectMeta) *apiclient.OwnerReference {
	for i, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return &m.OwnerReferences[i]
		}
	}
	return nil
}

// groupOf is the group of an apiVersion: "apps" of "apps/v1", "" of "v1".
func groupOf(apiVersion string) string {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return group
}

func keyOf(m *apiclient.ObjectMeta) string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}
