package kubeconfig

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// entry is one named cluster, user or context, as it stood in its file. Its body is
// decoded only if the chosen context needs it (resolve.go), so a broken entry that
// nobody uses does not stop you from using the others. A value; never changed once
// stored in a set.
type entry struct {
	source string     // the file it came from: errors name it, relative paths start from its directory
	body   *yaml.Node // the mapping under "cluster:", "user:" or "context:"; nil if absent
}

// set is one kubeconfig, or several merged: the first pass over the YAML, which reads
// names and keeps bodies. Files are added in KUBECONFIG order and the first one to
// define a name wins the whole entry (fields are never mixed from two files).
//
// The zero value is an empty set ready for add. Not safe for concurrent use.
type set struct {
	currentContext string // the first non-empty current-context
	currentSource  string // the file it came from
	sources        []string
	clusters       map[string]entry
	users          map[string]entry
	contexts       map[string]entry
}

// Parse reads one kubeconfig document and resolves its current-context. source names
// the document in errors and its directory anchors relative paths (certificate files,
// tokenFile, exec commands), as if the document had been loaded from that path.
//
// Use Load to follow --kubeconfig, KUBECONFIG and ~/.kube/config; Parse is for
// kubeconfigs that are not files (tests, a Secret's data). It reads the files the
// document refers to but never runs an exec plugin (Transport's requests do).
func Parse(data []byte, source string) (*Config, error) {
	var s set
	if err := s.add(data, source); err != nil {
		return nil, err
	}
	return s.resolve("")
}

// add parses one file and keeps the entries whose names are not taken yet.
//
// Cost: one YAML parse of data; entry bodies are kept as nodes, not decoded.
func (s *set) add(data []byte, source string) error {
	s.sources = append(s.sources, source)
	fileErr := func(err error) error { return &Error{Source: source, Err: err} }

	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fileErr(errors.New(quietYAML(err)))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // an empty file is an empty kubeconfig, as for kubectl
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fileErr(fmt.Errorf("not a kubeconfig: the top level is %s, want a mapping", kindName(root)))
	}

	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i].Value, deref(root.Content[i+1])
		var err error
		switch key {
		case "current-context":
			var name string
			if name, err = scalar(value); err == nil && name != "" && s.currentContext == "" {
				s.currentContext, s.currentSource = name, source
			}
		case "clusters":
			err = addEntries(&s.clusters, value, "cluster", source)
		case "users":
			err = addEntries(&s.users, value, "user", source)
		case "contexts":
			err = addEntries(&s.contexts, value, "context", source)
		}
		if err != nil {
			return &Error{Source: source, Field: key, Err: err}
		}
	}
	return nil
}

// addEntries reads a list of {name: ..., <kind>: {...}} items. Within one file the
// first item of a name wins too, so "first wins" needs no second rule.
func addEntries(into *map[string]entry, list *yaml.Node, kind, source string) error {
	if isNull(list) {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return fmt.Errorf("want a list, found %s", kindName(list))
	}
	if *into == nil {
		*into = make(map[string]entry)
	}
	for i, item := range list.Content {
		item = deref(item)
		if item.Kind != yaml.MappingNode {
			return fmt.Errorf("item %d: want a mapping with name and %s, found %s", i, kind, kindName(item))
		}
		name, body := "", (*yaml.Node)(nil)
		for j := 0; j+1 < len(item.Content); j += 2 {
			switch item.Content[j].Value {
			case "name":
				var err error
				if name, err = scalar(deref(item.Content[j+1])); err != nil {
					return fmt.Errorf("item %d: name: %w", i, err)
				}
			case kind:
				body = deref(item.Content[j+1])
			}
		}
		if name == "" {
			return fmt.Errorf("item %d: name: missing", i)
		}
		if body != nil && !isNull(body) && body.Kind != yaml.MappingNode {
			return fmt.Errorf("%s %q: want a mapping, found %s", kind, name, kindName(body))
		}
		if _, taken := (*into)[name]; !taken {
			(*into)[name] = entry{source: source, body: body}
		}
	}
	return nil
}

// quietYAML turns a yaml.v3 error into one line without any quoted value.
func quietYAML(err error) string {
	msg := withoutBackquoted(err.Error())
	return oneLine(strings.TrimPrefix(msg, "yaml: "))
}

// withoutBackquoted replaces each `value` yaml.v3 quotes in type errors (it
// could be a secret) with "(value)": from a backquote to the next, left to
// right; a backquote with none after it stays. This is what the regular
// expression `[^`]*` replaces, written out: compiling and running one cost
// the command's binary 7,000 bytes (issue 42; regexp itself stays, yaml.v3
// uses it).
func withoutBackquoted(s string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '`')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open+1:], '`')
		if end < 0 {
			break
		}
		b.WriteString(s[:open])
		b.WriteString("(value)")
		s = s[open+1+end+1:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}
