package jsonwire

import "sync"

// Interning: strings that repeat across cached objects — namespaces, kinds, label
// keys and values, annotation keys — are stored once and shared.
//
// Ten thousand pods in one namespace, each labelled app=nginx, would otherwise
// hold ten thousand copies of each of those strings: about 100 bytes a pod for a
// typical pod's metadata, 3% of what the cache costs. The table is deliberately
// simple: a map behind a mutex, looked up with the decoder's bytes (no allocation
// on a hit), holding at most maxInterned strings of at most maxInternLen bytes.
// Once full it stops growing and further strings are simply allocated, so hostile
// or very varied input costs at most maxInterned×maxInternLen bytes of table, never
// correctness. (The standard library's unique package would let entries die with
// their last user, but needs a string to look up, which is the allocation this
// avoids.)
//
// client-go interns nothing: each decoded object owns all its strings.
const (
	maxInterned  = 1 << 14
	maxInternLen = 64
)

var interned = struct {
	sync.Mutex
	m map[string]string
}{m: make(map[string]string)}

// Intern returns the shared copy of string(b), adding it when there is room.
func Intern(b []byte) string {
	if len(b) > maxInternLen {
		return string(b)
	}
	interned.Lock()
	defer interned.Unlock()
	if s, ok := interned.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(interned.m) < maxInterned {
		interned.m[s] = s
	}
	return s
}

// InternLiteral is Intern for a JSON string literal.
func InternLiteral(lit []byte) (string, error) {
	if isPlain(lit) {
		return Intern(lit[1 : len(lit)-1]), nil
	}
	s, err := Unquote(lit)
	if err != nil {
		return "", err
	}
	return Intern([]byte(s)), nil
}
