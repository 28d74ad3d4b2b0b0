// Package crd builds a custom resource's CustomResourceDefinition from its Go
// type, at run time, and installs it: what controller-gen generates from
// comments, read here from the type itself by reflection, with no generated
// files to keep in step.
//
//	site, err := crd.New(crd.Options{}, new(StaticSite)) // a TypedObject: its Resource names it
//	err = crd.Install(ctx, client, site, crd.InstallOptions{})
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ (beside it: what an operator installs before its controller runs)
//
// It is under controller because only operators need it, and it needs only
// apiclient: the TypedObject and Resource that name a type's group, version,
// kind and plural, and the client that applies the CRD. Nothing in the
// pipeline imports it.
//
// # From Go to schema
//
// SchemaOf walks the type as encoding/json would write it: json tags name the
// members ("-" drops one), embedded structs without a name are flattened into
// their parent, unexported fields are skipped. Then:
//
//	string, bool                      string, boolean
//	int8..int32, int, int64           integer, format int32 / int64 (unsigned: minimum 0)
//	float32, float64                  number
//	struct                            object with properties
//	map[string]V                      object with additionalProperties V
//	[]T, [N]T                         array of T
//	[]byte                            string, format byte (base64, as encoding/json writes it)
//	time.Time, apiclient.Time         string, format date-time
//	any, json.RawMessage              any value: x-kubernetes-preserve-unknown-fields
//	OpenAPISchemaFormat() "int-or-string" or "quantity" (k8s.io's IntOrString, Quantity)
//	                                  x-kubernetes-int-or-string
//	*T                                T
//
// At the top level the embedded ObjectMeta is {"type":"object"} (the server
// checks metadata itself and allows no more) and TypeMeta adds nothing.
//
// A member is required when its Go field always writes it: no omitempty, no
// omitzero, and not a pointer, slice, map or interface — these write null
// when nil, and the server drops a null the schema does not call nullable
// before it validates, so requiring them would refuse what Go sends for nil.
// The top-level status is never required: with the status subresource the
// server drops the status of an object created, and would then refuse it.
// A struct field's omitempty changes nothing in encoding/json and is the way
// to say a struct member is optional (`json:"spec,omitempty"`).
//
// # The kubewire tag
//
// One struct tag says what a Go type cannot (ExampleNew shows it):
//
//	enum=a|b|c          allowed values, typed by the field: enum=1|2 on an int
//	min=N, max=N        minimum and maximum of a number
//	minLength=N, maxLength=N, pattern=RE   of a string
//	format=F            a string format (date-time, email, …)
//	minItems=N, maxItems=N                 of a list
//	listType=atomic|set|map, listMapKeys=k|k   how server-side apply merges a list
//	default=V           a string field takes V as it is; others JSON: default=3, default='{"a":1}'
//	description=TEXT    the field's description (kubectl explain shows it)
//	nullable            null is kept, not dropped
//	preserve-unknown-fields   members the type does not declare are kept
//	int-or-string       an integer or a string (on an any or json.RawMessage field)
//	optional, required  override the rule above
//
// Options are separated by commas; a value with a comma in it is quoted in
// single quotes, a quote inside written twice: pattern='^[a-z]{1,3}$'. Value
// rules on a list or a map apply to its items or values. A rule that does not
// fit the field's type (a pattern on an integer, an enum value that is not a
// number on an int) is an error from New, as is a recursive type.
//
// # Guarantees
//
//   - New is deterministic: the same types give the same JSON, byte for byte
//     (properties and required sorted).
//   - What New returns is a structural schema the server accepts as it is, or an
//     error that names the type, the field and the rule; the integration tests
//     prove acceptance, pruning, defaulting and the 422s on v1.32 and v1.37.
//   - A list-type map's keys are required or defaulted, as the server demands;
//     a protected group (*.k8s.io, *.kubernetes.io) needs Options.APIApproved.
//   - Install is one call: a forced server-side apply, then a bounded wait until
//     the conditions are True and a LIST of every served version is answered;
//     its error is one line that names the CRD and what it lacked.
//
// # Compared with controller-gen and kube-rs
//
// controller-gen (sigs.k8s.io/controller-tools) parses the Go source and its
// // +kubebuilder: marker comments and writes the CRD as YAML files, which
// are applied by kubectl or a Makefile, so the files drift unless it is
// re-run. Here the type is read by reflection when the program runs: no
// source, no files, no step to forget; the price is that comments cannot be
// read (descriptions come from the tag) and that a rule is a tag option
// rather than a marker. The schema follows controller-gen's where both
// decide — formats int32/int64, metadata as a bare object, list types and
// map keys, int-or-string with anyOf — with two differences: a pointer,
// slice or map without omitempty is optional here (controller-gen makes it
// required unless marked +optional), and apiVersion and kind are left to the
// server. CEL rules (x-kubernetes-validations) and embedded resources
// are not offered. A CRD of several versions converts through a webhook of
// package controller/webhook, which sets Spec.Conversion.
//
// kube-rs derives the same thing at compile time: #[derive(CustomResource)]
// with #[kube(group, version, kind, status, scale, printcolumn, shortname)]
// and schemars for the schema, then CustomResourceExt::crd() returns it, and
// an await_condition(crds, name, conditions::is_crd_established()) waits.
// New plays crd() and Install the apply and the wait, which here also waits
// for a LIST to be answered: Established comes a moment before the handler
// serves. kube-rs makes one CRD per Rust type, and several versions are
// merged with merge_crds; New takes the versions' types in one call.
package crd
