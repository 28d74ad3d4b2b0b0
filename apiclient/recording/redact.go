package recording

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/kubewire/kubewire/apiclient/internal/jsonwire"
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
//   - a Secret's data and stringData values and its last-applied-configuration
//     annotation, wherever the Secret stands in the document (the document itself,
//     an item of a list, a watch event's object, a Table row's object) and wherever
//     its kind stands among its members: an object is a Secret when any of its
//     "kind" members says Secret, or when it is an item of a SecretList;
//   - anywhere, a string value under a key that names a credential: password,
//     passwd, passphrase, token, apiKey, credential(s), clientSecret, privateKey
//     (any case, with or without - or _);
//   - anywhere, a string that looks like a credential: a PEM private key, a JWT,
//     "Bearer …" or "Basic …".
//
// A line that is not valid JSON and mentions a Secret or a credential (in any
// string of it, escaped or not, the last one perhaps cut short) is replaced whole
// by a note saying how long it was: a recording may lose a cut line's shape, never
// a secret. The result is a fresh slice unless nothing changed, when it is line
// itself.
func Redact(line []byte) []byte {
	out, _ := redact(line, false)
	return out
}

// RedactSecrets is Redact for a body the secrets resource answered: every object
// in it, at any depth, is taken for a Secret, whatever its kind says or whether it
// says one at all, and a line that is not one valid JSON document is replaced
// whole, whatever it mentions. What was asked for decides, not what the answer
// claims to be: a server that leaves kind out, names it late or names another,
// cuts a line or splits a document over lines, must not get a Secret's data into
// a recording.
func RedactSecrets(line []byte) []byte {
	out, _ := redact(line, true)
	return out
}

// redact is Redact, or RedactSecrets with secrets set; whole says the line did
// not parse and was replaced whole.
func redact(line []byte, secrets bool) (out []byte, whole bool) {
	root, err := parseTree(line)
	if err != nil {
		switch {
		case secrets:
			return redactedLine(line, "in an answer of the secrets resource"), true
		case looksSensitive(line):
			return redactedLine(line, "and it mentions a Secret or a credential"), true
		}
		return line, false
	}
	var edits []edit
	redactTree(line, root, "", secrets, &edits)
	if len(edits) == 0 {
		return line, false
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	b.Grow(len(line))
	at := 0
	for _, e := range edits {
		if e.start < at { // nested in an edit already made
			continue
		}
		b.Write(line[at:e.start])
		b.WriteString(e.with)
		at = e.end
	}
	b.Write(line[at:])
	return b.Bytes(), false
}

// redactedLine is what stands for a line replaced whole, and why.
func redactedLine(line []byte, why string) []byte {
	return []byte(fmt.Sprintf("(%d bytes redacted: not valid JSON, %s)", len(line), why))
}

type edit struct {
	start, end int
	with       string
}

// redactTree walks every value of the document; key is the member name n was
// found under. Each object that is a Secret — its kind says so, it is an item of
// a SecretList, or secrets is set (RedactSecrets: every object is) — loses its
// secret values (redactSecret); each string under a credential key, or that
// looks like a credential, is replaced.
func redactTree(data []byte, n *node, key string, secrets bool, edits *[]edit) {
	switch n.kind {
	case '"':
		if credentialKey(key) || credentialValue(n.str(data)) {
			*edits = append(*edits, edit{n.start, n.end, `"` + Redacted + `"`})
		}
	case '{':
		if secrets || n.isKind(data, "Secret") {
			redactSecret(data, n, edits)
		}
		for _, m := range n.members {
			if m.key == "items" && n.isKind(data, "SecretList") && m.value.kind == '[' {
				for _, it := range m.value.elems {
					redactSecret(data, it, edits)
				}
			}
			redactTree(data, m.value, m.key, secrets, edits)
		}
	case '[':
		for _, e := range n.elems {
			redactTree(data, e, key, secrets, edits)
		}
	}
}

// redactSecret replaces what a Secret keeps secret: each value of its data
// (with RedactedBase64, still valid base64) and of its stringData (with
// Redacted), and its last-applied-configuration annotation. Every member of
// those names counts, not only the first: a document may repeat a key, and a
// decoder keeps the last. A data or stringData that is not an object (not a
// Secret's shape, but a server may send it) is replaced whole, unless null.
func redactSecret(data []byte, secret *node, edits *[]edit) {
	if secret == nil || secret.kind != '{' {
		return
	}
	for _, m := range secret.members {
		switch m.key {
		case "data":
			redactValues(data, m.value, RedactedBase64, edits)
		case "stringData":
			redactValues(data, m.value, Redacted, edits)
		case "metadata":
			for _, a := range m.value.all("annotations") {
				for _, v := range a.all(lastApplied) {
					*edits = append(*edits, edit{v.start, v.end, `"` + Redacted + `"`})
				}
			}
		}
	}
}

// redactValues replaces each value of the object v, or v itself when it is
// anything else but null.
func redactValues(data []byte, v *node, with string, edits *[]edit) {
	switch {
	case v.kind == '{':
		for _, kv := range v.members {
			*edits = append(*edits, edit{kv.value.start, kv.value.end, `"` + with + `"`})
		}
	case string(data[v.start:v.end]) != "null":
		*edits = append(*edits, edit{v.start, v.end, `"` + with + `"`})
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

// looksSensitive is the check for a line that does not parse (cut in the middle,
// a document split over lines, no JSON at all): it mentions a Secret or a
// credential. It looks at the raw bytes — "secret (a kind Secret or SecretList, a
// key secret…), a credential's name, "private key", "bearer ", "basic ", the start
// of a JWT — and at every
// string of the line unescaped, since a server may write "S\u0065cret": each is
// checked as Redact checks the strings of a line that parses, and the string a cut
// left unfinished also when it only starts like a credential.
func looksSensitive(line []byte) bool {
	if textSensitive(strings.ToLower(string(line)), `"secret`) {
		return true
	}
	strs, cut := stringsOf(line)
	for _, s := range strs {
		if textSensitive(strings.ToLower(s), "secret") || credentialValue(s) {
			return true
		}
	}
	return cut && len(strs) > 0 && credentialStart(strs[len(strs)-1])
}

// textSensitive reports whether lower-cased text holds secret, or the name of a
// credential.
func textSensitive(l, secret string) bool {
	if strings.Contains(l, secret) || strings.Contains(l, "private key") || strings.Contains(l, "bearer ") ||
		strings.Contains(l, "basic ") || containsJWT(l) {
		return true
	}
	l = strings.NewReplacer("-", "", "_", "").Replace(l)
	for _, w := range credentialWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// containsJWT reports whether lower-cased text holds what starts a JWT: "eyj"
// (a base64url "{"") and at least 8 more base64url characters, then a dot.
func containsJWT(l string) bool {
	for i := strings.Index(l, "eyj"); i >= 0; {
		n := 0
		j := i + 3
		for ; j < len(l) && (l[j] >= 'a' && l[j] <= 'z' || l[j] >= '0' && l[j] <= '9' || l[j] == '-' || l[j] == '_'); j++ {
			n++
		}
		if n >= 8 && j < len(l) && l[j] == '.' {
			return true
		}
		k := strings.Index(l[i+3:], "eyj")
		if k < 0 {
			return false
		}
		i += 3 + k
	}
	return false
}

// credentialStart reports whether s starts as a credential that credentialValue
// would know whole: what a cut leaves of one. (Less than the start holds nothing
// of the credential itself.)
func credentialStart(s string) bool {
	for _, p := range []string{"-----BEGIN", "Bearer ", "Basic ", "eyJ"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// stringsOf returns the JSON strings of a line that may not be whole, unescaped
// where they can be, in order; cut says the last one was not closed.
func stringsOf(line []byte) (strs []string, cut bool) {
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) { // cut: closed here (raw, if it ends in half an escape)
			lit := append(append([]byte{}, line[i:min(j, len(line))]...), '"')
			return append(strs, unquoteLoose(lit)), true
		}
		strs = append(strs, unquoteLoose(line[i:j+1]))
		i = j
	}
	return strs, false
}

// unquoteLoose unquotes a JSON string literal, or returns its bytes between
// the quotes when it is not a valid one.
func unquoteLoose(lit []byte) string {
	if s, err := jsonwire.Unquote(lit); err == nil {
		return s
	}
	return string(lit[1 : len(lit)-1])
}
