package cli

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// columns aligns tab-separated cells into columns, as text/tabwriter does with
// the settings kubectl uses (minimum width 6, padding 3, spaces, no flags): it
// holds everything written until Flush, then writes each cell padded with
// spaces to its column's width. A cell is text ended by a tab; the text after
// a line's last tab is not a cell and is written as it is. A column's width is
// that of its widest cell plus 3, at least 6, counted in runes, and holds over
// a block of consecutive lines that have a cell in that column — so a line
// with fewer cells ends the blocks of the columns it lacks, as with tabwriter.
//
// It is written here instead of using text/tabwriter, which brought 0.014e6
// bytes into the command's binary for the two tables it prints (issue 42);
// columns_internal_test.go holds its output to tabwriter's.
//
// Not safe for concurrent use; the zero value is not usable (newTabWriter).
type columns struct {
	w   io.Writer
	buf bytes.Buffer
}

const (
	columnMinWidth = 6
	columnPadding  = 3
)

// newTabWriter aligns columns as kubectl does: at least 6 wide, 3 spaces apart.
func newTabWriter(w io.Writer) *columns {
	return &columns{w: w}
}

// Write holds p until Flush. It never fails.
func (c *columns) Write(p []byte) (int, error) {
	return c.buf.Write(p)
}

// Flush writes what was written since the last Flush, aligned, and forgets it.
func (c *columns) Flush() error {
	text := c.buf.String()
	c.buf.Reset()
	if text == "" {
		return nil
	}
	var lines [][]string
	for _, l := range strings.Split(text, "\n") {
		lines = append(lines, strings.Split(l, "\t"))
	}
	// Text after the last newline is a line of its own, but when it ends with
	// a tab, tabwriter has no cell after it: the line ends there.
	if last := lines[len(lines)-1]; len(last) > 1 && last[len(last)-1] == "" {
		lines[len(lines)-1] = last[:len(last)-1]
	}
	widths := make([][]int, len(lines))
	alignColumns(lines, nil, widths)
	var out bytes.Buffer
	for i, fields := range lines {
		if i > 0 {
			out.WriteByte('\n')
		}
		for j, f := range fields {
			out.WriteString(f)
			if j < len(widths[i]) {
				out.WriteString(strings.Repeat(" ", widths[i][j]-utf8.RuneCountInString(f)))
			}
		}
	}
	_, err := c.w.Write(out.Bytes())
	return err
}

// alignColumns sets widths[i] to the widths of the columns line i's cells are
// padded to (a cell is any field but a line's last). lines have their first
// len(known) columns' widths known; the next column's is found block by block,
// a block being a run of lines with a cell in that column.
func alignColumns(lines [][]string, known []int, widths [][]int) {
	column := len(known)
	for i := 0; i < len(lines); {
		if column >= len(lines[i])-1 {
			widths[i] = known
			i++
			continue
		}
		start := i
		width := columnMinWidth
		for ; i < len(lines) && column < len(lines[i])-1; i++ {
			if w := utf8.RuneCountInString(lines[i][column]) + columnPadding; w > width {
				width = w
			}
		}
		alignColumns(lines[start:i], append(known[:column:column], width), widths[start:i])
	}
}
