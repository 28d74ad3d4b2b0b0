// Package webhook serves admission and conversion webhooks for an operator's
// Go types: the API server asks, before it stores a write, whether to allow
// it (validating), what to fill in (mutating), and, for a CRD of several
// versions, how to turn an object of one version into another (conversion).
//
//	hooks := webhook.New(mgr, webhook.Options{Service: &webhook.Service{Namespace: "ops", Name: "site-webhooks"}})
//	webhook.Validate(hooks, webhook.Hook{}, validateSite)   // func(ctx, *webhook.Review[Site]) error
//	webhook.Default(hooks, webhook.Hook{}, defaultSite)     // changes r.Object; the answer is a JSON patch
//	webhook.Convert(hooks, siteCRD, webhook.Spoke(siteV1ToV2, siteV2ToV1))
//	mgr.Run(ctx)                                            // serves them, on every replica
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	                                                    ^^^^^^^^^^ (beside it: the API server calls in)
//
// Everything else in kubewire calls the API server; here the API server
// calls the operator. The Manager runs the Server as one of its runners
// (Manager.AddRunner), which run on every replica whether it leads or not,
// and under sharding too: the API server sends a review to any replica
// behind the Service, and each must answer. Its readiness is part of the
// Manager's /readyz (Manager.AddReadyCheck).
//
// # A review, step by step
//
//  1. The body is read, at most Options.MaxBodyBytes (3 MiB), once a slot
//     among Options.MaxReviews is free (else 429 at once); the connection
//     is bounded by metrics.Limits, the rule of every kubewire server
//     (headers, body, answer, idle time, connections).
//  2. It must be the review the path serves (an admission.k8s.io/v1
//     AdmissionReview or an apiextensions.k8s.io/v1 ConversionReview) with
//     a uid; anything else is a 400 that says what was expected: there is
//     no review to answer.
//  3. request.object and request.oldObject are decoded into the Go type
//     (apiclient.Unmarshal, as the typed client decodes); an object that
//     does not decode is refused, 400, in a review.
//  4. The user's function runs with a context that ends at the hook's
//     TimeoutSeconds (or the API server's ?timeout=, when shorter). Past it,
//     the answer is a refusal, 504; a panic is a refusal, 500, and a log
//     line with the stack.
//  5. The answer: allowed, or refused with the error's message and code
//     (403, or a Refusal's); the warnings Review.Warn collected; for a
//     mutating hook, the JSON patch of what Default changed (jsonpatch.go).
//
// # Certificates
//
// The API server calls webhooks over TLS only and trusts the caBundle the
// configurations carry. By default the first replica makes a CA and a
// serving certificate (ECDSA P-256) and keeps them in a Secret, which every
// other replica reads: create-or-read, so replicas starting together end
// with one CA (certs.go). Or the certificate comes from files
// (Options.CertFile, KeyFile, CAFile: cert-manager's, a mounted Secret),
// read again when they change.
//
// # Configurations
//
// Run applies, by forced server-side apply, a ValidatingWebhookConfiguration
// and a MutatingWebhookConfiguration named Options.Name, one webhook per
// Validate or Default: its rule is the type's resource (group, version,
// plural, every scope) for the hook's operations; failurePolicy, timeout and
// the namespace and object selectors are the Hook's; sideEffects None,
// matchPolicy Equivalent (a write of another version of the resource is
// converted and sent too), admissionReviewVersions v1, reinvocationPolicy
// Never. It sets each converted CRD's spec.conversion (strategy Webhook,
// conversionReviewVersions v1) by a merge patch. The client config names
// Options.Service, or the URL. Manifests returns the same objects and a new
// certificate's Secret for kubectl (kubewire manifests); Uninstall deletes
// them.
//
// # Guarantees
//
//   - A mutating webhook's patch changes only what Default changed:
//     members the Go type does not declare, and zero values the type would
//     write where the object has none, are left as sent
//     (TestDefault_patch_applies_to_the_object_sent_for_random_changes).
//   - A conversion keeps metadata as sent but for labels and annotations
//     (the API server refuses any other change), and a v1 → v2 → v1 round
//     trip through user functions that lose nothing loses nothing
//     (TestConvert_round_trip_loses_nothing).
//   - No request makes the server panic, hang past its bounds, or run more
//     than MaxReviews user functions at once, even those that ignore their
//     context (FuzzConversionReview, FuzzAdmissionReview,
//     TestServer_refuses_what_is_not_a_review_clearly).
//   - Against kube-apiserver v1.32 and v1.37 (integration_test.go): a create
//     refused with the validator's message, a default filled in, a v1
//     object read as v2 and written back as v1, and failurePolicy Fail and
//     Ignore honoured while the webhook is down.
//   - apitest calls the same webhooks as kube-apiserver (admission on
//     create, update, patch and delete; conversion on reads and writes of
//     another version), so a unit test on apitest sees those refusals,
//     defaults and conversions, with the real server's codes and messages
//     (apitest_test.go); apitest's Divergences item 9 says what differs.
//
// # Compared with controller-runtime
//
// controller-runtime's webhook package (pkg/webhook, pkg/webhook/admission,
// pkg/webhook/conversion) has the same parts: a webhook server the manager
// runs on every replica, CustomValidator and CustomDefaulter interfaces
// (ValidateCreate, ValidateUpdate, ValidateDelete; Default), a Hub and
// Convertible (ConvertTo, ConvertFrom) per version, and a patch made by
// diffing JSON. What differs:
//
//   - Here a validator and a defaulter are each one function of a Review,
//     which names the operation; there three methods, on a type of their own,
//     registered by SetupWebhookWithManager.
//   - Its defaulter's patch is the difference between the request's raw
//     object and the Go value's JSON after Default, so a field the Go type
//     lacks is removed from the object (it offers
//     WithRemoveUnknownOrOmitableFields to choose); here the patch is the
//     difference between the Go value before and after Default, applied
//     where the object has it, and nothing the type does not know is lost.
//   - Its configurations are written by controller-gen from
//     +kubebuilder:webhook markers, and its certificates come from
//     cert-manager or files (CertDir); here the configurations are made from
//     the registered hooks and applied at start, and the CA is made at start
//     and kept in a Secret, or read from files.
//   - Conversion: controller-runtime asks every spoke type for ConvertTo and
//     ConvertFrom methods and the hub for a Hub method; here a Spoke is two
//     functions, so the API types need no methods.
//
// kube-rs's admission module gives the AdmissionReview types and a
// json-patch to build by hand, and leaves serving and certificates to the
// user (warp or axum, and cert-manager).
package webhook
