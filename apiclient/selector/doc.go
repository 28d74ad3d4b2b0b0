// Package selector parses label and field selectors the way the API server does,
// so that a mistake is caught, with its offset, before any request is sent; and
// matches them against labels and fields, for fakes and caches that filter
// locally.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^
//	(apiclient/selector: the labelSelector and fieldSelector parameters of a LIST or watch)
//
// The kubewire command checks -l and --field-selector here before it connects; the
// in-memory API server (apiclient/apitest) filters with Matches. apiclient itself
// still sends selectors as the caller wrote them: the server is the authority.
//
// # The whole move
//
//	sel, err := selector.Parse("app=web, tier in (fe, be), !legacy")
//	sel.Matches(map[string]string{"app": "web", "tier": "fe"}) // true
//	sel.String()                                               // "app=web,!legacy,tier in (be,fe)"
//
//	f, err := selector.ParseFields(`metadata.name=web-0,spec.note!=a\,b`)
//	f.Matches(map[string]string{"metadata.name": "web-0"})      // true
//
// example_test.go runs both.
//
// # Guarantees
//   - Parse accepts what the API server's label selector parser accepts and refuses
//     what it refuses, with one exception: a NUL byte (see lex.go);
//     integration_test.go holds real kube-apiservers to that. The grammar is
//     that of Kubernetes 1.35 and later; servers before 1.35 also refuse some runs
//     of commas in a set, "(,,)" among them (see valueSet in labelparse.go). Keys and values
//     are validated by the server's rules: a key is a name of at most 63
//     characters (alphanumerics, '-', '_', '.', alphanumeric at both ends) with an
//     optional lowercase DNS-subdomain prefix of at most 253 and '/'; a value is
//     empty or follows the name rule.
//   - ParseFields splits and unescapes as the server does; it is stricter only
//     about field names (see ParseFields).
//   - Every error is an *Error: one line naming the selector, the byte offset and
//     what is wrong there. Nothing panics, whatever the input (FuzzParseLabelSelector,
//     FuzzParseFieldSelector).
//   - String is canonical and round-trips: Parse(s.String()) is equal to s and
//     matches the same label sets.
//   - Labels and Fields are immutable values, safe for concurrent use; their zero
//     values select everything.
//
// # Compared with client-go
//
// The counterparts are k8s.io/apimachinery/pkg/labels (selector.go: Lexer, Parser,
// Requirement, internalSelector) and pkg/fields (selector.go: hasTerm, notHasTerm,
// andTerm, EscapeValue). The grammar, the validation and the matching rules are
// the same — an absent label satisfies != and notin; an absent field has the value
// "". What differs, and why:
//   - Two concrete types with a slice of terms, instead of the Selector interfaces
//     with their Add, Transform, DeepCopy and RequiresExactMatch: kubewire has
//     no field-label conversions or indexers to feed.
//   - String is canonical: "==" is written "=", and terms on the same key are
//     ordered by their text (apimachinery keeps "==", and orders by key only).
//   - Errors carry the byte offset; apimachinery's name the token ("found ',',
//     expected: identifier").
//   - A field name must look like one (letters, digits, '.', '-', '_'): the server
//     accepts any text there and then refuses unknown fields with a 400, which is
//     later and says less.
package selector
