package detect

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// An Error is one problem in an input: the file, the line (0 when it concerns the
// whole file) and what is wrong.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.File == "":
		return e.Msg
	case e.Line <= 0:
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxErrors bounds how many errors one input reports: a log broken on every line
// should not print a million of them.
const maxErrors = 20

// ErrorList is every input error of a read, sorted by file and line.
type ErrorList []*Error

// add appends an error unless the list is full; the last slot says how many more
// there were.
func (l *ErrorList) add(file string, line int, format string, args ...any) {
	switch {
	case len(*l) < maxErrors:
		*l = append(*l, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	case len(*l) == maxErrors:
		*l = append(*l, &Error{File: file, Msg: "too many errors"})
	}
}

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// err sorts the list and returns it, or nil if it is empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	// The "too many errors" entry, if any, stays last.
	slices.SortStableFunc(l[:min(len(l), maxErrors)], func(a, b *Error) int {
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	return l
}
