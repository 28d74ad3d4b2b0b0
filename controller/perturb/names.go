package perturb

import (
	"fmt"
	"strings"
)

// names maps what a run makes up to what stays the same from run to run: a
// uid to the object it was given to ("foos default/example#1", the first
// object of that name), and a name made from generateName to the prefix and
// its rank ("web-#2").
type names map[string]string

func identities(hist []change) names {
	n := names{}
	seen := map[string]int{}
	for _, c := range hist {
		if c.typ != "ADDED" {
			continue
		}
		m := metadata(c.obj)
		name := c.name
		if gen, _ := m["generateName"].(string); gen != "" && strings.HasPrefix(c.name, gen) {
			seen["generated "+gen]++
			name = fmt.Sprintf("%s#%d", gen, seen["generated "+gen])
			n[c.name] = name
		}
		who := c.coll + " " + objectKey(c.ns, name)
		seen[who]++
		if uid, _ := m["uid"].(string); uid != "" {
			n[uid] = fmt.Sprintf("%s#%d", who, seen[who])
		}
	}
	return n
}

// replacer replaces every made-up name or uid in a text.
func (n names) replacer() *strings.Replacer {
	var pairs []string
	for _, k := range sortedKeys(n) {
		pairs = append(pairs, k, n[k])
	}
	return strings.NewReplacer(pairs...)
}

func (n names) rename(s string) string {
	if r, ok := n[s]; ok {
		return r
	}
	return s
}
