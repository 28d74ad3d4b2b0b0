package selector

import (
	"fmt"
	"strconv"
	"strings"
)

// The validity rules the API server applies to label keys and values
// (apimachinery/pkg/util/validation: IsQualifiedName, IsValidLabelValue,
// IsDNS1123Subdomain), written out by hand instead of as regular expressions.

// checkKey returns why key is not a valid label key, or "". A key is a name of at
// most 63 characters (alphanumerics, '-', '_', '.', starting and ending with an
// alphanumeric), optionally preceded by a prefix and '/': a lowercase DNS subdomain
// of at most 253 characters.
func checkKey(key string) string {
	name := key
	if prefix, rest, hasPrefix := strings.Cut(key, "/"); hasPrefix {
		name = rest
		if prefix == "" {
			return "the prefix before '/' is empty"
		}
		if msg := checkSubdomain(prefix); msg != "" {
			return "prefix " + strconv.Quote(prefix) + ": " + msg
		}
		if strings.Contains(name, "/") {
			return "a key has at most one '/'"
		}
	}
	switch {
	case name == "":
		return "the name part is empty"
	case len(name) > 63:
		return fmt.Sprintf("the name part is %d characters long, at most 63 are allowed", len(name))
	case !isQualifiedName(name):
		return "the name part must be alphanumerics, '-', '_' or '.', and start and end with an alphanumeric"
	}
	return ""
}

// checkValue returns why v is not a valid label value, or "". A value is empty, or
// at most 63 characters following the rule of a key's name part.
func checkValue(v string) string {
	switch {
	case v == "":
		return ""
	case len(v) > 63:
		return fmt.Sprintf("%d characters long, at most 63 are allowed", len(v))
	case !isQualifiedName(v):
		return "a value must be empty, or alphanumerics, '-', '_' or '.' starting and ending with an alphanumeric"
	}
	return ""
}

// checkSubdomain: at most 253 characters, dot-separated labels of lowercase
// alphanumerics and '-', each starting and ending with an alphanumeric.
func checkSubdomain(s string) string {
	if len(s) > 253 {
		return fmt.Sprintf("%d characters long, a DNS subdomain has at most 253", len(s))
	}
	for start := 0; start <= len(s); {
		end := start
		for end < len(s) && s[end] != '.' {
			end++
		}
		label := s[start:end]
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return "must be a lowercase DNS subdomain (labels of a-z, 0-9 and '-' separated by '.', each starting and ending with a-z or 0-9)"
		}
		for i := 0; i < len(label); i++ {
			if !isLowerAlnum(label[i]) && label[i] != '-' {
				return "must be a lowercase DNS subdomain (labels of a-z, 0-9 and '-' separated by '.', each starting and ending with a-z or 0-9)"
			}
		}
		start = end + 1
	}
	return ""
}

// isQualifiedName: non-empty, [A-Za-z0-9][-A-Za-z0-9_.]* ending in [A-Za-z0-9].
func isQualifiedName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return isLowerAlnum(c) || 'A' <= c && c <= 'Z'
}

func isLowerAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}
