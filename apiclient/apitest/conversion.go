package apitest

import (
	cryptorand "crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Conversion: a custom resource whose stored CRD says spec.conversion
// strategy Webhook is kept at the CRD's storage version, and every other
// version is made by its webhook, as kube-apiserver makes it:
//
//   - a read (GET, LIST, WATCH events) at another served version sends the
//     stored objects to the webhook in a ConversionReview
//     (apiextensions.k8s.io/v1) whose desiredAPIVersion is the one read;
//   - a create or update at another version converts the object sent to
//     the storage version before anything else (admission included: the
//     webhooks see it at the storage version), and the answer back;
//   - a patch or apply at another version applies to the stored object
//     converted to that version, and converts the result back.
//
// Without a webhook (strategy None, or no CRD stored) there is one copy,
// served under every version as it was last written (doc.go, Divergences).

// converter is a custom resource's conversion webhook.
type converter struct {
	storage  string // the storage version's apiVersion: "group/v1"
	url      string // "" for a service clientConfig, which no call reaches
	caBundle []byte
	kind     string // for messages: "group/v1, Kind=Site"
	// review is call, set by converterFor: reached through it, the sending
	// is linked only where a server calls webhooks (webhooks.go).
	review func(o object, apiVersion string) (object, error)
}

// converterFor is t's converter, nil where its objects are not converted by
// a webhook. Called with l.mu held.
func (l *liveState) converterFor(t target) *converter {
	if isBuiltinGroup(t.group) || t.group == "" {
		return nil
	}
	crd, ok := l.objects["customresourcedefinitions.apiextensions.k8s.io"][t.resource+"."+t.group]
	if !ok {
		return nil
	}
	var c struct {
		Spec struct {
			Names struct {
				Kind string `json:"kind"`
			} `json:"names"`
			Versions []struct {
				Name    string `json:"name"`
				Storage bool   `json:"storage"`
			} `json:"versions"`
			Conversion *struct {
				Strategy string `json:"strategy"`
				Webhook  *struct {
					ClientConfig struct {
						URL      *string `json:"url"`
						CABundle []byte  `json:"caBundle"`
					} `json:"clientConfig"`
				} `json:"webhook"`
			} `json:"conversion"`
		} `json:"spec"`
	}
	if json.Unmarshal(marshal(crd), &c) != nil || c.Spec.Conversion == nil || c.Spec.Conversion.Strategy != "Webhook" || c.Spec.Conversion.Webhook == nil {
		return nil
	}
	conv := &converter{caBundle: c.Spec.Conversion.Webhook.ClientConfig.CABundle}
	if u := c.Spec.Conversion.Webhook.ClientConfig.URL; u != nil {
		conv.url = *u
	}
	for _, v := range c.Spec.Versions {
		if v.Storage {
			conv.storage = t.group + "/" + v.Name
		}
	}
	if conv.storage == "" {
		return nil
	}
	conv.kind = conv.storage + ", Kind=" + c.Spec.Names.Kind
	conv.review = conv.call
	return conv
}

// storageVersion is the version part of the storage apiVersion.
func (c *converter) storageVersion() string {
	_, v, _ := strings.Cut(c.storage, "/")
	return v
}

// convert returns o at apiVersion: o itself when it is there already,
// else the webhook's conversion of it. A failure is kube-apiserver's 500.
func (c *converter) convert(o object, apiVersion string) (object, error) {
	if o["apiVersion"] == apiVersion {
		return o, nil
	}
	out, err := c.review(o, apiVersion)
	if err != nil {
		return nil, internalError("conversion webhook for %s failed: %v", c.kind, err)
	}
	return out, nil
}

// call sends one ConversionReview, within 30 seconds (kube-apiserver's
// limit for conversion), over TLS verified by the caBundle.
func (c *converter) call(o object, apiVersion string) (object, error) {
	if c.url == "" {
		return nil, fmt.Errorf("apitest cannot reach a Service (clientConfig.service); give the conversion webhook a url")
	}
	uid := randomUID(cryptorand.Reader) // a review's own uid: nothing drawn from the server's Rand (perturb's seed)
	body := marshal(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
		"request": map[string]any{"uid": uid, "desiredAPIVersion": apiVersion, "objects": []any{o}}})
	data, err := postReview(c.url, c.caBundle, 30*time.Second, body)
	if err != nil {
		return nil, err
	}
	var review struct {
		Response *struct {
			UID              string            `json:"uid"`
			ConvertedObjects []json.RawMessage `json:"convertedObjects"`
			Result           struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("unmarshal response: %v", err)
	}
	r := review.Response
	switch {
	case r == nil:
		return nil, fmt.Errorf("no response provided")
	case r.UID != uid:
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	case r.Result.Status != "Success":
		return nil, fmt.Errorf("conversion request failed: %s", r.Result.Message)
	case len(r.ConvertedObjects) != 1:
		return nil, fmt.Errorf("expected 1 converted objects, got %d", len(r.ConvertedObjects))
	}
	var out object
	if err := decodeJSON(r.ConvertedObjects[0], &out); err != nil {
		return nil, fmt.Errorf("converted object: %v", err)
	}
	if out["apiVersion"] != apiVersion {
		return nil, fmt.Errorf("invalid converted object: apiVersion %v, want %s", out["apiVersion"], apiVersion)
	}
	return out, nil
}

// answerAt is out, a verb's answer (an object or a list of them) for a
// request at apiVersion, with every object in it converted there.
func (c *converter) answerAt(out []byte, apiVersion string) ([]byte, error) {
	var doc object
	if err := decodeJSON(out, &doc); err != nil {
		return out, nil
	}
	kind, _ := doc["kind"].(string)
	switch {
	case kind == "Status" || kind == "PartialObjectMetadata" || kind == "PartialObjectMetadataList":
		return out, nil
	case strings.HasSuffix(kind, "List"):
		items, _ := doc["items"].([]any)
		for i, it := range items {
			o, _ := it.(map[string]any)
			conv, err := c.convert(object(o), apiVersion)
			if err != nil {
				return nil, err
			}
			items[i] = map[string]any(conv)
		}
		doc["apiVersion"] = apiVersion
		return marshal(doc), nil
	}
	conv, err := c.convert(doc, apiVersion)
	if err != nil {
		return nil, err
	}
	return marshal(conv), nil
}
