package yamlout

import (
	"strconv"
	"strings"
	"time"
)

// resolves says which tag a plain scalar of value s reads back as, by yaml.v3's
// resolver: "null", "bool", "int", "float", "timestamp" or "str".
func resolves(s string) string {
	if s == "" {
		return "null"
	}
	switch s {
	case "~", "null", "Null", "NULL":
		return "null"
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "bool"
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "float"
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return "float"
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if isTimestamp(s) {
			return "timestamp"
		}
		plain := strings.ReplaceAll(s, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return "int"
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return "int"
		}
		if isYAMLFloat(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return "float"
			}
		}
		for _, p := range []struct {
			prefix string
			base   int
		}{{"0b", 2}, {"0o", 8}} {
			if digits, ok := strings.CutPrefix(plain, p.prefix); ok {
				if _, err := strconv.ParseInt(digits, p.base, 64); err == nil {
					return "int"
				}
				if _, err := strconv.ParseUint(digits, p.base, 64); err == nil {
					return "int"
				}
			} else if digits, ok := strings.CutPrefix(plain, "-"+p.prefix); ok {
				if _, err := strconv.ParseInt("-"+digits, p.base, 64); err == nil {
					return "int"
				}
			}
		}
	}
	return "str"
}

// isTimestamp is yaml.v3's test: four digits and a dash, then one of the
// layouts it parses.
func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// isYAMLFloat is [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, whole.
func isYAMLFloat(s string) bool {
	s = trimSign(s)
	n := digits(s)
	s = s[n:]
	if strings.HasPrefix(s, ".") {
		m := digits(s[1:])
		if n == 0 && m == 0 {
			return false
		}
		s = s[1+m:]
	} else if n == 0 {
		return false
	}
	if s == "" {
		return true
	}
	if s[0] != 'e' && s[0] != 'E' {
		return false
	}
	s = trimSign(s[1:])
	return s != "" && digits(s) == len(s)
}

// isBase60Float is [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?, whole: YAML
// 1.1's sexagesimal numbers, which yaml.Marshal quotes.
func isBase60Float(s string) bool {
	s = trimSign(s)
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	i := 1
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
		i++
	}
	groups := 0
	for i < len(s) && s[i] == ':' {
		n := digits(s[i+1:])
		if n == 0 || n > 2 || n == 2 && s[i+1] > '5' {
			return false
		}
		i += 1 + n
		groups++
	}
	if groups == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
			i++
		}
	}
	return i == len(s)
}

// isOldBool is YAML 1.1's booleans that YAML 1.2 reads as strings, which
// yaml.Marshal quotes.
func isOldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// digits counts the decimal digits s begins with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
