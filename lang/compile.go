package lang

import (
	"fmt"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// Config holds the settings of one compilation.
type Config struct {
	Width   int              // W in bits, 8..64 (32 if 0)
	Defines map[string]int64 // -D NAME=VALUE: overrides of const declarations
	NoFold  bool             // --no-fold: every statement and condition is its own cut point
	// KeepPrivate keeps every access to process memory a step of its own, even
	// where one thread alone accesses it (which Compile otherwise folds like a
	// local): a predicate over several processes' memory, as kbmc detect
	// decides on a recorded run, sees every value the memory takes.
	KeepPrivate bool
}

// DefaultWidth is the integer width when Config.Width is 0.
const DefaultWidth = 32

// Error is one input error with its position; ErrorList is the list of all input
// errors of a file, sorted by position. Compile returns an ErrorList for every
// problem with the input, so errors.As(err, &list) tells input errors apart from
// invalid settings and internal errors.
type (
	Error     = syntax.Error
	ErrorList = syntax.ErrorList
)

// Compile parses, checks and lowers one source file. On input errors it returns
// an ErrorList with every error of the file: all syntax errors or, if there are
// none, all errors of the static checks.
func Compile(filename string, src []byte, cfg Config) (*ir.Program, error) {
	width := cfg.Width
	if width == 0 {
		width = DefaultWidth
	}
	if width < 8 || width > 64 {
		return nil, fmt.Errorf("lang: width %d out of range (8..64)", width)
	}
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	c := newChecker(f, width, cfg.Defines)
	c.check()
	if len(c.errs) > 0 {
		return nil, dedup(c.errs)
	}
	p, errs := lower(c, width, cfg.NoFold, nil)
	if len(errs) > 0 {
		return nil, dedup(errs)
	}
	if !cfg.NoFold && !cfg.KeepPrivate {
		// Memory one thread alone accesses (a single-threaded process's, say)
		// is folded like a local: lower again with it marked private, so
		// that statements touching only it are no steps of their own.
		// (--no-fold keeps every statement a step.)
		if priv := p.PrivateVars(); len(priv) > 0 {
			names := map[string]bool{}
			for v := range priv {
				names[v.Name] = true
			}
			if p, errs = lower(c, width, false, names); len(errs) > 0 {
				return nil, dedup(errs)
			}
		}
	}
	if err := p.Finish(); err != nil {
		return nil, fmt.Errorf("lang: internal error: %s: %w", filename, err)
	}
	return p, nil
}

// dedup sorts the list and drops repeated identical errors.
func dedup(l ErrorList) ErrorList {
	l.Sort()
	out := l[:0]
	for i, e := range l {
		if i > 0 && *e == *l[i-1] {
			continue
		}
		out = append(out, e)
	}
	return out
}
