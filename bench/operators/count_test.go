package main

import (
	"strings"
	"testing"
)

func TestCountLines(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"package clause only", "package p\n", 1},
		{"blank lines", "package p\n\n\t\n\nvar x = 1\n", 2},
		{"line comments", "// Package p.\npackage p\n// x is one.\nvar x = 1 // trailing\n", 2},
		{"build constraint", "//go:build linux\n\npackage p\n", 1},
		{"block comment over lines", "package p\n/*\nvar y = 2\n*/\nvar x = 1\n", 2},
		{"code before a block comment", "package p\nvar x = 1 /* starts here\nends here */\n", 2},
		{"code after a block comment", "package p\n/* one\ntwo */ var x = 1\n", 2},
		{"comment markers in strings", "package p\nvar s = \"// not a comment\"\nvar t = \"/* nor this\"\n", 3},
		{"raw string over lines", "package p\nvar s = `a\n\n// b\nc`\n", 4},
		{"closing braces", "package p\nfunc f() {\n\tif true {\n\t}\n}\n", 5},
		{"no final newline", "package p\nvar x = 1", 2},
		{"CRLF line ends", "package p\r\n\r\nvar x = 1\r\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := countLines([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("countLines(%q) = %d, want %d", tt.src, got, tt.want)
			}
		})
	}
}

func TestCountLinesSyntaxError(t *testing.T) {
	_, err := countLines([]byte("package p\nvar s = \"unterminated\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2:") {
		t.Fatalf("err = %v, want a scanner error that names line 2", err)
	}
}

// TestCountTree walks testdata/tree, where only pkg/a.go and b.go count: the other files
// are tests, generated, or in directories the go tool skips.
func TestCountTree(t *testing.T) {
	files, err := countTree("testdata/tree")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.path+"="+strings.Repeat("|", f.lines))
	}
	if got, want := strings.Join(got, " "), "b.go=|| pkg/a.go=||||"; got != want {
		t.Errorf("countTree = %s, want %s", got, want)
	}
}

func TestCountTreeMissingDir(t *testing.T) {
	if _, err := countTree("testdata/no-such-dir"); err == nil || !strings.Contains(err.Error(), "no-such-dir") {
		t.Fatalf("err = %v, want one that names the directory", err)
	}
}

// FuzzCountLines checks that any input gives a count or an error, never a panic, and that
// the count never exceeds the number of lines.
func FuzzCountLines(f *testing.F) {
	f.Add("package p\n/* a\n*/ var x = `\n\n`\n")
	f.Add("package p\nvar s = \"// x\" // y\n")
	f.Fuzz(func(t *testing.T, src string) {
		n, err := countLines([]byte(src))
		if err != nil {
			return
		}
		if lines := strings.Count(src, "\n") + 1; n < 0 || n > lines {
			t.Fatalf("countLines = %d for %d lines", n, lines)
		}
	})
}
