package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/kubewire/kubewire/apiclient"
)

// viaTabwriter is what text/tabwriter writes for text with kubectl's settings,
// the ones cli used before it had columns.
func viaTabwriter(text string) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 6, 4, 3, ' ', 0)
	tw.Write([]byte(text))
	tw.Flush()
	return b.String()
}

// viaColumns is what newTabWriter writes for text.
func viaColumns(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	tw := newTabWriter(&b)
	if _, err := tw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// columns writes what text/tabwriter writes, byte for byte: on ragged lines
// (a line with fewer cells ends a column's block), empty cells, wide runes,
// text with no final newline, and on thousands of tables drawn at random.
func TestColumns_write_what_tabwriter_writes(t *testing.T) {
	check := func(text string) {
		t.Helper()
		if got, want := viaColumns(t, text), viaTabwriter(text); got != want {
			t.Fatalf("for %q:\ngot  %q\nwant %q", text, got, want)
		}
	}
	for _, text := range []string{
		"",
		"\n",
		"\n\n",
		"a",
		"a\tb",
		"a\tb\n",
		"NAME\tREADY\tSTATUS\nweb-1\t1/1\tRunning\n",
		"a\tb\tc\nlonger cell\tx\n\ny\tz\tw\n",
		"a\tb\nc\n\td\te\n\t\t\n",
		"ünïcødé\tx\n日本語\ty\n",
		"a\tb\tc\td\nlong long long\tb\nshort\tlong long long long\tc\td\n",
		"trailing\t",
		"\t\t\t\n",
	} {
		check(text)
	}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"", "a", "bb", "pod-name-12345", "日本", "\t", "\t", "\t", "\n", "\n", " "}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
}

// The two tables the command prints (get's, from a server-side Table, and
// api-resources') come out as tabwriter wrote them.
func TestColumns_the_commands_tables_as_tabwriter_wrote_them(t *testing.T) {
	var table apiclient.Table
	err := json.Unmarshal([]byte(`{"columnDefinitions":[
		{"name":"Name","type":"string","priority":0},{"name":"Ready","type":"string","priority":0},
		{"name":"Status","type":"string","priority":0},{"name":"Restarts","type":"string","priority":0},
		{"name":"Age","type":"string","priority":0},{"name":"IP","type":"string","priority":1},
		{"name":"Nominated Node","type":"string","priority":1}],
	"rows":[
		{"cells":["web-1","1/1","Running","0","5m","10.0.0.1",null],"object":{"metadata":{"name":"web-1","namespace":"default"}}},
		{"cells":["db-statefulset-0","0/1","Pending","3 (2m ago)","12d","<none>",["a","b"]],"object":{"metadata":{"name":"db-statefulset-0","namespace":"kube-system"}}},
		{"cells":["x","2/2","Running",7,"1s","fe80::1",null],"object":{"metadata":{"name":"x","namespace":"a-very-long-namespace-name"}}}]}`), &table)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []bool{false, true} {
		for _, wide := range []bool{false, true} {
			var raw strings.Builder
			tableCells(&raw, &table, ns, wide)
			var got bytes.Buffer
			if err := writeTable(&got, &table, ns, wide); err != nil {
				t.Fatal(err)
			}
			if want := viaTabwriter(raw.String()); got.String() != want {
				t.Fatalf("get (namespace %v, wide %v):\ngot\n%s\nwant\n%s", ns, wide, got.String(), want)
			}
		}
	}
	resources := []apiclient.Resource{
		apiclient.Pods, apiclient.ConfigMaps, apiclient.Deployments, apiclient.CRDs,
		{Group: "stable.example.com", Version: "v1", Name: "crontabs", Kind: "CronTab", ShortNames: []string{"ct", "cts"}, Namespaced: true},
	}
	var raw strings.Builder
	resourceCells(&raw, resources)
	if got, want := viaColumns(t, raw.String()), viaTabwriter(raw.String()); got != want {
		t.Fatalf("api-resources:\ngot\n%s\nwant\n%s", got, want)
	}
}
