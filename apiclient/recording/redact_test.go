package recording_test

import (
	"encoding/json"
	"testing"

	"github.com/kubewire/kubewire/apiclient/recording"
)

func TestRedact(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"a pod stays byte for byte",
			`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","annotations":{"a":"<b>"}},"spec":{"volumes":[{"name":"s","secret":{"secretName":"db"}}]}}`,
			`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","annotations":{"a":"<b>"}},"spec":{"volumes":[{"name":"s","secret":{"secretName":"db"}}]}}`},
		{"a Secret loses its data and stringData values, keeps its keys",
			`{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db"},"data":{"user":"YWRtaW4=","pass":"aHVudGVyMg=="},"stringData":{"note":"plain"},"type":"Opaque"}`,
			`{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db"},"data":{"user":"UkVEQUNURUQ=","pass":"UkVEQUNURUQ="},"stringData":{"note":"REDACTED"},"type":"Opaque"}`},
		{"a Secret's last-applied-configuration goes too",
			`{"kind":"Secret","metadata":{"name":"db","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"pass\":\"aHVudGVyMg==\"}}","team":"a"}}}`,
			`{"kind":"Secret","metadata":{"name":"db","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"REDACTED","team":"a"}}}`},
		{"a SecretList's items, which carry no kind",
			`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"},"data":{"k":"dg=="}},{"metadata":{"name":"b"}}]}`,
			`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"},"data":{"k":"UkVEQUNURUQ="}},{"metadata":{"name":"b"}}]}`},
		{"a watch event of a Secret",
			`{"type":"MODIFIED","object":{"kind":"Secret","metadata":{"name":"a"},"data":{"k":"dg=="}}}`,
			`{"type":"MODIFIED","object":{"kind":"Secret","metadata":{"name":"a"},"data":{"k":"UkVEQUNURUQ="}}}`},
		{"credential-named keys anywhere, strings only",
			`{"kind":"ConfigMap","data":{"db_password":"hunter2","api-key":"k","Token":"t","tokenTTL":"x","replicas":"3"},"spec":{"automountServiceAccountToken":true}}`,
			`{"kind":"ConfigMap","data":{"db_password":"REDACTED","api-key":"REDACTED","Token":"REDACTED","tokenTTL":"REDACTED","replicas":"3"},"spec":{"automountServiceAccountToken":true}}`},
		{"values that look like credentials",
			`{"kind":"ConfigMap","data":{"a":"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----","b":"Bearer abc","c":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ","d":"eyJ2IjoibWV0YSJ9"}}`,
			`{"kind":"ConfigMap","data":{"a":"REDACTED","b":"REDACTED","c":"REDACTED","d":"eyJ2IjoibWV0YSJ9"}}`},
		{"a broken line that mentions a secret is dropped whole",
			`{"type":"ADDED","object":{"kind":"Secret","data":{"k":"dg`,
			`(57 bytes redacted: not valid JSON, and it mentions a Secret or a credential)`},
		{"a broken line about nothing secret stays",
			`{"type":"ADDED","object":{"kind":"Pod","metadata":{"na`,
			`{"type":"ADDED","object":{"kind":"Pod","metadata":{"na`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(recording.Redact([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("\ngot  %s\nwant %s", got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Fatalf("valid JSON became invalid: %s", got)
			}
		})
	}
}

func TestRedact_returns_the_same_slice_when_nothing_changes(t *testing.T) {
	in := []byte(`{"kind":"Pod","metadata":{"name":"a"}}`)
	if got := recording.Redact(in); &got[0] != &in[0] {
		t.Fatal("Redact copied a line it did not change")
	}
}
