package yamlout_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/kubewire/kubewire/controller/internal/yamlout"
)

// realDocuments are the JSON documents the repository records from real API
// servers: recordings' bodies, discovery, OpenAPI (with every description
// kube-apiserver has), objects.
func realDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "fuzz" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(path, "testdata") {
			return nil
		}
		switch filepath.Ext(path) {
		case ".json":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs[path] = data
		case ".rec":
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for i := 0; sc.Scan(); i++ {
				if line := sc.Bytes(); len(line) > 0 && line[0] == '{' {
					docs[fmt.Sprintf("%s:%d", path, i+1)] = bytes.Clone(line)
				}
			}
			return sc.Err()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 40 {
		t.Fatalf("found %d documents under testdata; the walk is broken", len(docs))
	}
	return docs
}

// allStrings collects every key and string value of a JSON tree.
func allStrings(v any, out map[string]bool) {
	switch v := v.(type) {
	case string:
		out[v] = true
	case map[string]any:
		for k, x := range v {
			out[k] = true
			allStrings(x, out)
		}
	case []any:
		for _, x := range v {
			allStrings(x, out)
		}
	}
}

// On every string of the recorded documents, String writes what yaml.Marshal
// writes (cli's -o yaml) and what the Encoder writes for a value; on every
// document, Node writes what the Encoder writes (rbac.WriteYAML).
func TestReal_documents_as_yaml_v3_writes_them(t *testing.T) {
	seen := map[string]bool{}
	docs := realDocuments(t)
	for name, data := range docs {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var tree any
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		allStrings(tree, seen)
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plainStyle(&n)
		markFlow(&n)
		got, err := yamlout.Node(&n)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := encode(t, &n); got != want {
			t.Fatalf("%s: Node differs from the Encoder's (%d and %d bytes)", name, len(got), len(want))
		}
	}
	for s := range seen {
		if !strings.Contains(s, "\n") {
			out, err := yaml.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := yamlout.String(s, yamlout.Document, 0), string(out); got != want {
				t.Fatalf("String(%q, Document) = %q, want %q", s, got, want)
			}
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("k"), str(s)}}
		if got, want := "k: "+yamlout.String(s, yamlout.Block, 2), encode(t, m); got != want {
			t.Fatalf("value %q:\ngot  %q\nwant %q", s, got, want)
		}
	}
	t.Logf("%d documents, %d distinct strings", len(docs), len(seen))
}
