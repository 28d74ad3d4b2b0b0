package apiclient

import (
	"net/url"
	"strconv"
)

// ListOptions are the query parameters of list and watch requests. The zero value
// lists everything, consistently, from etcd.
type ListOptions struct {
	LabelSelector string // "app=nginx,tier!=db"
	FieldSelector string // "spec.nodeName=node-1"
	// ShardSelector asks for one hash range of the collection:
	// "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	// (KEP-5866, alpha in Kubernetes 1.36 behind the ShardedListAndWatch feature
	// gate). A server that serves it says so in the list's ShardInfo; one that
	// does not ignores it and sends everything (controller/sharding detects which).
	ShardSelector string
	// Limit asks for at most this many items per page; the response's Continue
	// token fetches the next page.
	Limit    int64
	Continue string
	// ResourceVersion "" reads the latest state (a consistent read); "0" lets
	// the API server answer with any state it has, from its watch cache (cheap,
	// and behind etcd by an amount nothing bounds); a version V with
	// ResourceVersionMatch "NotOlderThan" asks for V or later, with "Exact" for
	// V itself. listwatch's doc ("resourceVersion in five minutes") tables the
	// four, and which of kubewire's requests uses each. For a watch it is where
	// the stream starts.
	ResourceVersion      string
	ResourceVersionMatch string // "NotOlderThan" or "Exact"
	TimeoutSeconds       int64  // the server ends a watch after this long
	AllowWatchBookmarks  bool
	// SendInitialEvents makes a watch start with ADDED events for every existing
	// object and a BOOKMARK marking the end of them (a streaming list).
	SendInitialEvents bool
}

func (o ListOptions) values() url.Values {
	q := url.Values{}
	set(q, "labelSelector", o.LabelSelector)
	set(q, "fieldSelector", o.FieldSelector)
	set(q, "shardSelector", o.ShardSelector)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	set(q, "continue", o.Continue)
	set(q, "resourceVersion", o.ResourceVersion)
	set(q, "resourceVersionMatch", o.ResourceVersionMatch)
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents {
		q.Set("sendInitialEvents", "true")
	}
	return q
}

// WriteOptions are the query parameters of create, update and patch.
type WriteOptions struct {
	DryRun       bool   // validate and admit, but do not persist
	FieldManager string // who owns the fields written (server-side apply, managedFields)
	// Force takes ownership of conflicting fields in a server-side apply.
	Force bool
	// FieldValidation says what the server does with fields the schema does not
	// know and with duplicate fields: "Strict" refuses the write (400, naming each
	// field), "Warn" drops them with a warning (Options.OnWarning), "Ignore" drops
	// them silently. "" sends nothing, which servers since 1.27 read as "Warn".
	FieldValidation string
}

func (o WriteOptions) values() url.Values {
	q := url.Values{}
	if o.DryRun {
		q.Set("dryRun", "All")
	}
	set(q, "fieldManager", o.FieldManager)
	if o.Force {
		q.Set("force", "true")
	}
	set(q, "fieldValidation", o.FieldValidation)
	return q
}

// Propagation says what happens to an object's dependents when it is deleted.
type Propagation string

const (
	// Foreground: the object stays, with a deletionTimestamp and the
	// foregroundDeletion finalizer, until the garbage collector has deleted every
	// dependent that blocks it; then it goes.
	Foreground Propagation = "Foreground"
	// Background: the object goes at once; the garbage collector deletes the
	// dependents afterwards. The default for most resources.
	Background Propagation = "Background"
	// Orphan: the dependents stay, their ownerReferences to it removed.
	Orphan Propagation = "Orphan"
)

// DeleteOptions go in the body of a delete (meta.k8s.io/v1 DeleteOptions).
type DeleteOptions struct {
	Propagation Propagation `json:"propagationPolicy,omitempty"`
	// GracePeriodSeconds overrides the object's grace period; 0 means now.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// Preconditions make the delete fail with Conflict unless the object still
	// has this UID and/or resourceVersion.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
	DryRun        bool           `json:"-"`
}

// Preconditions of a delete.
type Preconditions struct {
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// PatchType says how the API server reads a patch body; it is the Content-Type.
type PatchType string

const (
	// JSONPatch (RFC 6902): a list of operations, [{"op":"replace","path":"/spec/replicas","value":3}].
	JSONPatch PatchType = "application/json-patch+json"
	// MergePatch (RFC 7386): a partial object; null deletes; lists are replaced whole.
	MergePatch PatchType = "application/merge-patch+json"
	// StrategicMergePatch: a merge patch that merges lists by key (containers by
	// name…) as the built-in types declare. Not for custom resources.
	StrategicMergePatch PatchType = "application/strategic-merge-patch+json"
	// ApplyPatch: server-side apply of a whole intended object; needs a FieldManager.
	ApplyPatch PatchType = "application/apply-patch+yaml"
)

func set(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}
