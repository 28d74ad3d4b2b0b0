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
		{"a Secret in a Table row, its kind last",
			`{"kind":"Table","rows":[{"cells":["db"],"object":{"metadata":{"name":"db"},"data":{"k":"dg=="},"kind":"Secret"}}]}`,
			`{"kind":"Table","rows":[{"cells":["db"],"object":{"metadata":{"name":"db"},"data":{"k":"UkVEQUNURUQ="},"kind":"Secret"}}]}`},
		{"a Secret among the items of a List",
			`{"kind":"List","items":[{"kind":"ConfigMap","data":{"k":"v"}},{"kind":"Secret","data":{"k":"dg=="}}]}`,
			`{"kind":"List","items":[{"kind":"ConfigMap","data":{"k":"v"}},{"kind":"Secret","data":{"k":"UkVEQUNURUQ="}}]}`},
		{"every kind and every data counts, not the first (a decoder keeps the last)",
			`{"kind":"ConfigMap","data":{"k":"dg=="},"data":{"k":"dw=="},"kind":"Secret"}`,
			`{"kind":"ConfigMap","data":{"k":"UkVEQUNURUQ="},"data":{"k":"UkVEQUNURUQ="},"kind":"Secret"}`},
		{"a Secret's data that is not an object goes whole; null stays",
			`{"kind":"Secret","data":"c2VjcmV0","stringData":null}`,
			`{"kind":"Secret","data":"UkVEQUNURUQ=","stringData":null}`},
		{"a broken line that names a Secret in escapes is dropped whole",
			`{"k\u0069nd":"S\u0065cret","d`,
			`(29 bytes redacted: not valid JSON, and it mentions a Secret or a credential)`},
		{"a broken line cut in what starts a JWT is dropped whole",
			`{"kind":"ConfigMap","data":{"t":"eyJhbGciOi`,
			`(43 bytes redacted: not valid JSON, and it mentions a Secret or a credential)`},
		{"a broken line with a Basic credential is dropped whole",
			`{"kind":"ConfigMap","data":{"h":"Basic dXNlcjpw"}`,
			`(49 bytes redacted: not valid JSON, and it mentions a Secret or a credential)`},
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

// RedactSecrets, for an answer of the secrets resource: every object is a
// Secret, at any depth and whatever its kind, and a line that does not parse goes
// whole whatever it says (issue 39: a cut list that named no kind kept its data).
func TestRedactSecrets(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"a list that names no kind, cut",
			`{"apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"db"},"data":{"k":"c2VjcmV0"}},{"meta`,
			`(120 bytes redacted: not valid JSON, in an answer of the secrets resource)`},
		{"an object that names another kind",
			`{"kind":"ConfigMap","data":{"k":"c2VjcmV0"}}`,
			`{"kind":"ConfigMap","data":{"k":"UkVEQUNURUQ="}}`},
		{"a Table row's object",
			`{"kind":"Table","rows":[{"cells":["db"],"object":{"stringData":{"k":"v"}}}]}`,
			`{"kind":"Table","rows":[{"cells":["db"],"object":{"stringData":{"k":"REDACTED"}}}]}`},
		{"a line of a document split over lines",
			`    "k": "c2VjcmV0"`,
			`(19 bytes redacted: not valid JSON, in an answer of the secrets resource)`},
		{"a Status stays",
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"secrets \"db\" not found","reason":"NotFound","code":404}`,
			`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"secrets \"db\" not found","reason":"NotFound","code":404}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(recording.RedactSecrets([]byte(tt.in))); got != tt.want {
				t.Fatalf("\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
}
