package syntax

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in a source file. The zero Pos means "no position".
type Pos struct {
	Offset int // byte offset, from 0
	Line   int // line, from 1
	Col    int // byte column, from 1
}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// Position is a printable source position: file name, line and column.
type Position struct {
	Filename string
	Line     int // 0: the error concerns the whole file
	Col      int
}

func (p Position) String() string {
	s := p.Filename
	if p.Line > 0 {
		if s != "" {
			s += ":"
		}
		s += fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return s
}

// An Error is one input error: where, what, and the source line it is on.
type Error struct {
	Pos    Position
	Msg    string
	Source string // the source line holding Pos, without its line break ("" if unknown)
}

// Error renders the error like a compiler: "file:line:col: message", then the
// source line and a caret under the column. Tabs before the column are copied into
// the caret line, so the caret stays aligned however tabs are displayed.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Pos.Line > 0 && (e.Source != "" || e.Pos.Col > 1) {
		b.WriteByte('\n')
		b.WriteString(e.Source)
		b.WriteByte('\n')
		// Columns count bytes; the caret line has one character per character
		// of the source line before the column.
		prefix := e.Source
		if len(prefix) > e.Pos.Col-1 {
			prefix = prefix[:e.Pos.Col-1]
		}
		for _, r := range prefix {
			if r == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		for range e.Pos.Col - 1 - len(prefix) {
			b.WriteByte(' ')
		}
		b.WriteByte('^')
	}
	return b.String()
}

// ErrorList is the list of all input errors of a file. Compile and Parse return it
// sorted by position; use errors.As to get at the individual errors.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(pos Position, source, msg string) {
	*l = append(*l, &Error{Pos: pos, Msg: msg, Source: source})
}

// Sort sorts the list by file, line and column; errors at the same position keep
// the order they were reported in.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		if c := cmp.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Pos.Line, b.Pos.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Pos.Col, b.Pos.Col)
	})
}

// Error renders every error, one after the other, separated by line breaks.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns the list as an error, or nil if it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
