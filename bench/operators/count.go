// Command count counts the hand-written Go lines of directory trees, the measure issue 28
// compares the two StaticSite operators by.
//
// A line counts when it holds Go code: not blank and not only comment. Comments are found
// by go/scanner, the tokenizer the compiler uses, so a "//" inside a string is code and a
// line that only continues a /* */ comment is not. Files named *_test.go or zz_generated*.go
// (generated code such as controller-gen's deepcopy) are skipped, as are the directories the
// go tool skips: testdata and names that start with "." or "_".
//
// Usage, from bench/:
//
//	go run ./operators operators/controllerruntime
//
// It prints one line per file (count, then the path under DIR) and a total per DIR.
package main

import (
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fileCount is the number of code lines in one file.
type fileCount struct {
	path  string // relative to the root the tree was walked from
	lines int
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: count DIR...\ncounts the non-blank, non-comment Go lines under each DIR, skipping *_test.go and zz_generated*.go")
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, root := range flag.Args() {
		files, err := countTree(root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "count:", err)
			os.Exit(1)
		}
		total := 0
		for _, f := range files {
			fmt.Printf("%6d  %s\n", f.lines, f.path)
			total += f.lines
		}
		fmt.Printf("%6d  total: %s (%d files)\n", total, root, len(files))
	}
}

// countTree counts every hand-written Go file under root, in lexical order of path.
func countTree(root string) ([]fileCount, error) {
	var files []fileCount
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !handWritten(name) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n, err := countLines(src)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files = append(files, fileCount{path: filepath.ToSlash(rel), lines: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// handWritten reports whether a file name is a Go source file that counts.
func handWritten(name string) bool {
	return strings.HasSuffix(name, ".go") &&
		!strings.HasSuffix(name, "_test.go") &&
		!strings.HasPrefix(name, "zz_generated")
}

// countLines returns the number of lines of src that hold at least one token other than a
// comment and are not blank. A raw string spanning lines makes each of its lines code,
// except lines inside it that are blank. It fails on the first syntax error the scanner
// reports (the file would not compile, so its count would mean nothing).
func countLines(src []byte) (int, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var firstErr error
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) {
		if firstErr == nil {
			firstErr = fmt.Errorf("line %d:%d: %s", pos.Line, pos.Column, msg)
		}
	}, scanner.ScanComments)

	code := make(map[int]bool) // line numbers, from 1, that hold code
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT {
			continue
		}
		// Only a raw string spans lines. (The semicolons the scanner inserts at line ends
		// have the literal "\n" but lie on the line of the token before them.)
		first, last := file.Line(pos), file.Line(pos)
		if tok == token.STRING {
			last += strings.Count(lit, "\n")
		}
		for line := first; line <= last; line++ {
			code[line] = true
		}
	}
	if firstErr != nil {
		return 0, firstErr
	}

	lines := strings.Split(string(src), "\n")
	n := 0
	for line := range code {
		if strings.TrimSpace(lines[line-1]) != "" {
			n++
		}
	}
	return n, nil
}
