package controller

import (
	"strings"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/controller/informer"
)

// ChildOf is the metadata of an object that owner's controller makes for it —
// the Deployment of a Foo, the Pods of a ReplicaSet — named name, in owner's
// namespace, with one owner reference to owner in metadata.ownerReferences:
//
//	{"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo", "name": "example",
//	 "uid": "6d1f…", "controller": true, "blockOwnerDeletion": true}
//
// Two parts of Kubernetes read that reference. The garbage collector deletes
// the child when its owner is gone (the uid must match: a new Foo of the same
// name is another owner), and blockOwnerDeletion keeps a foreground deletion of
// the owner waiting for the child. Controllers read controller=true — at most
// one reference may have it, and the API server refuses a second — to know
// which controller is responsible for the child: which owner to reconcile when
// the child changes (Builder.Owns), and which children to leave alone
// (IsControlledBy).
//
// The child is in owner's namespace because the garbage collector honours a
// namespaced owner only from its own namespace (it would take the child for an
// orphan elsewhere, and delete it); for a cluster-scoped owner the namespace is
// "", and the caller sets the child's. owner must have been read from the server
// or the cache: its uid is what the reference names, and the server refuses a
// reference without one. ChildOf changes nothing it is given; set labels and the
// rest on the metadata it returns.
//
// This is controller-runtime's SetControllerReference, made a constructor: the
// child is written whole by its controller (server-side apply), so the metadata
// is built, not edited.
func ChildOf(owner apiclient.TypedObject, name string) apiclient.ObjectMeta {
	res, meta := owner.Resource(), owner.GetObjectMeta()
	yes := true
	return apiclient.ObjectMeta{Name: name, Namespace: meta.Namespace, OwnerReferences: []apiclient.OwnerReference{{
		APIVersion: res.GroupVersion(), Kind: res.Kind, Name: meta.Name, UID: meta.UID, Controller: &yes, BlockOwnerDeletion: &yes}}}
}

// IsControlledBy reports whether child's controller owner reference points at
// owner, by uid: an object of the same name made since is another owner.
func IsControlledBy(child *apiclient.ObjectMeta, owner apiclient.TypedObject) bool {
	c := controllerOf(child)
	return c != nil && c.UID == owner.GetObjectMeta().UID
}

// toOwner maps a child's event to its controller owner's Request (Builder.Owns):
// the owner reference with controller=true, if its kind is owner's and its
// apiVersion's group is owner's (any version: a v1beta1 reference names the same
// object as a v1 one), in the child's namespace, or none for a cluster-scoped
// owner. Children controlled by something else, or by nothing, map to no Request.
// This is controller-runtime's EnqueueRequestForOwner with OnlyControllerOwner.
func toOwner(owner apiclient.Resource) func(*apiclient.Object) []Request {
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

// ToIndexed maps an object to the Requests of the objects of inf filed under
// its key ("namespace/name") in inf's index named index: for Builder.Watches of
// something the reconciled objects refer to by name. With Foos indexed by the
// Secret they name (Manager.Index, values "namespace/secret-name"),
//
//	Watches(apiclient.Secrets, controller.ToIndexed(m.Informer(Foos), "bySecret"))
//
// reconciles every Foo that names a Secret when the Secret changes, is created
// or is deleted. An index that does not exist maps to nothing.
func ToIndexed(inf *informer.Informer, index string) func(*apiclient.Object) []Request {
	return func(o *apiclient.Object) []Request {
		keys, err := inf.IndexKeys(index, o.Key())
		if err != nil {
			return nil
		}
		reqs := make([]Request, len(keys))
		for i, k := range keys {
			ns, name, _ := strings.Cut(k, "/")
			if name == "" {
				ns, name = "", ns
			}
			reqs[i] = Request{Namespace: ns, Name: name}
		}
		return reqs
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
