package selector

// The lexer of label selectors. It splits the way apimachinery's labels.Lexer does
// (selector.go there), so that a selector means here what it means to the API
// server:
//   - whitespace (space, tab, CR, LF) separates tokens and is otherwise ignored;
//   - the symbols are = == != ! ( ) , > < (the longest wins: "!=" is one token);
//   - everything else up to the next symbol or whitespace is an identifier: a key,
//     a value, or, where an operator is expected, the words in and notin.
//
// One difference: apimachinery's lexer treats a NUL byte as the end of the
// selector and ignores what follows it; here a NUL is an ordinary byte, and so
// part of an identifier that fails validation.

type tokenKind int

const (
	tEnd   tokenKind = iota // end of the selector
	tIdent                  // a key, a value, in, notin
	tOpen                   // (
	tClose                  // )
	tComma                  // ,
	tNot                    // !
	tEq                     // =
	tEqEq                   // ==
	tNotEq                  // !=
	tGt                     // >
	tLt                     // <
)

// token is one lexeme and the byte offset where it starts, for error messages.
type token struct {
	kind tokenKind
	text string
	pos  int
}

// lex splits s into tokens, the last of which is tEnd. It cannot fail: any byte is
// whitespace, a symbol or part of an identifier. Cost: O(len(s)).
func lex(s string) []token {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case isSymbol(c):
			n := 1
			if i+1 < len(s) && s[i+1] == '=' && (c == '=' || c == '!') {
				n = 2
			}
			toks = append(toks, token{symbolKind(s[i : i+n]), s[i : i+n], i})
			i += n
		default:
			j := i
			for j < len(s) && !isSpace(s[j]) && !isSymbol(s[j]) {
				j++
			}
			toks = append(toks, token{tIdent, s[i:j], i})
			i = j
		}
	}
	return append(toks, token{tEnd, "", len(s)})
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

func symbolKind(s string) tokenKind {
	switch s {
	case "(":
		return tOpen
	case ")":
		return tClose
	case ",":
		return tComma
	case "!":
		return tNot
	case "=":
		return tEq
	case "==":
		return tEqEq
	case "!=":
		return tNotEq
	case ">":
		return tGt
	}
	return tLt
}

// describe names a token for an error message.
func (t token) describe() string {
	if t.kind == tEnd {
		return "end of selector"
	}
	return "'" + t.text + "'"
}
