package recording

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Redacted replaces a secret string value; RedactedBase64 replaces a value of a
// Secret's data, which must stay valid base64 (it is "REDACTED" encoded), so that
// code decoding a replayed Secret still works.
const (
	Redacted       = "REDACTED"
	RedactedBase64 = "UkVEQUNURUQ="
)

// lastApplied is kubectl's copy of the object as applied: for a Secret, its data.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Redact returns one body line (a LIST, a watch event, a single object) with
// secrets replaced, and every other byte as it was:
//
//   - a Secret's data and stringData values (in a Secret, a SecretList's items, or a
//     watch event's object), and its last-applied-configuration annotation;
//   - anywhere, a string value under a key that names a credential: password,
//     passwd, passphrase, token, apiKey, credential(s), clientSecret, privateKey
//     (any case, with or without - or _);
//   - anywhere, a string that looks like a credential: a PEM private key, a JWT,
//     "Bearer …" or "Basic …".
//
// A line that is not valid JSON and mentions a Secret or a credential key is
// replaced whole by a note saying how long it was: a recording may lose a cut line's
// shape, never a secret. The result is a fresh slice unless nothing changed, when it
// is line itself.
func Redact(line []byte) []byte { return redact(line, false) }

// RedactSecrets is Redact for a body the secrets resource answered: every object
// in it — the document, a list's items, a watch event's object — is taken for a
// Secret, whatever its kind says or whether it says one at all. What was asked
// for decides, not what the answer claims to be: a server that leaves kind out
// (or names another) must not get a Secret's data into a recording.
func RedactSecrets(line []byte) []byte { return redact(line, true) }

func redact(line []byte, secrets bool) []byte {
	root, err := parseTree(line)
	if err != nil {
		if looksSensitive(line) {
			return []byte(fmt.Sprintf("(%d bytes redacted: not valid JSON, and it mentions a Secret or a credential)", len(line)))
		}
		return line
	}
	var edits []edit
	redactTree(line, root, secrets, &edits)
	if len(edits) == 0 {
		return line
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out bytes.Buffer
	out.Grow(len(line))
	at := 0
	for _, e := range edits {
		if e.start < at { // nested in an edit already made
			continue
		}
		out.Write(line[at:e.start])
		out.WriteString(e.with)
		at = e.end
	}
	out.Write(line[at:])
	return out.Bytes()
}

type edit struct {
	start, end int
	with       string
}

// redactTree finds the Secrets in a document and the credential-like values
// anywhere in it. With secrets set, every object is a Secret (RedactSecrets).
func redactTree(data []byte, root *node, secrets bool, edits *[]edit) {
	items, object := root.member("items"), root.member("object")
	switch kind := root.member("kind").str(data); {
	case kind == "Secret":
		redactSecret(data, root, edits)
	case items != nil && (kind == "SecretList" || secrets):
		for _, it := range items.elems {
			redactSecret(data, it, edits)
		}
	case root.member("type") != nil && object != nil: // a watch event
		if secrets || object.member("kind").str(data) == "Secret" {
			redactSecret(data, object, edits)
		}
	case secrets:
		redactSecret(data, root, edits)
	}
	redactCredentials(data, root, "", edits)
}

func redactSecret(data []byte, secret *node, edits *[]edit) {
	if secret == nil || secret.kind != '{' {
		return
	}
	for field, with := range map[string]string{"data": RedactedBase64, "stringData": Redacted} {
		if m := secret.member(field); m != nil && m.kind == '{' {
			for _, kv := range m.members {
				*edits = append(*edits, edit{kv.value.start, kv.value.end, `"` + with + `"`})
			}
		}
	}
	if a := secret.member("metadata").member("annotations").member(lastApplied); a != nil {
		*edits = append(*edits, edit{a.start, a.end, `"` + Redacted + `"`})
	}
}

// redactCredentials walks every value; key is the member name n was found under.
func redactCredentials(data []byte, n *node, key string, edits *[]edit) {
	switch n.kind {
	case '"':
		if credentialKey(key) || credentialValue(n.str(data)) {
			*edits = append(*edits, edit{n.start, n.end, `"` + Redacted + `"`})
		}
	case '{':
		for _, m := range n.members {
			redactCredentials(data, m.value, m.key, edits)
		}
	case '[':
		for _, e := range n.elems {
			redactCredentials(data, e, key, edits)
		}
	}
}

// credentialWords are matched against a key lower-cased with - and _ removed.
var credentialWords = []string{"password", "passwd", "passphrase", "token", "apikey", "credential", "clientsecret", "privatekey", "secretkey", "accesskey"}

func credentialKey(key string) bool {
	if key == "" {
		return false
	}
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(key))
	for _, w := range credentialWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

func credentialValue(s string) bool {
	switch {
	case strings.Contains(s, "-----BEGIN") && strings.Contains(s, "PRIVATE KEY"):
		return true
	case strings.HasPrefix(s, "Bearer ") || strings.HasPrefix(s, "Basic "):
		return true
	case strings.HasPrefix(s, "eyJ") && strings.Count(s, ".") == 2 && len(s) > 40 && !strings.ContainsAny(s, " \t"):
		return true // a JWT: base64url header.payload.signature, the header always {"…
	}
	return false
}

// looksSensitive is the check for lines that could not be parsed.
func looksSensitive(line []byte) bool {
	l := strings.ToLower(string(line))
	if strings.Contains(l, `"secret`) || strings.Contains(l, "private key") || strings.Contains(l, "bearer ") {
		return true
	}
	for _, w := range credentialWords {
		if strings.Contains(strings.NewReplacer("-", "", "_", "").Replace(l), w) {
			return true
		}
	}
	return false
}
