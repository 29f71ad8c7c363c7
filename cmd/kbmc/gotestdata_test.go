package main

import (
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kbmc/internal/annotation"
)

// goViolationKinds are the violation kinds a Go program of testdata/go may
// expect (docs/gobench.md).
var goViolationKinds = []string{"leak", "deadlock", "panic", "assertion"}

// TestGoTestdata keeps the Go programs of testdata/go what docs/gobench.md
// says they are, before any engine runs them: each NAME-bug.go expects unsafe
// with a Go violation kind and has a NAME-fixed.go that expects safe or
// bounded-safe; each says why in a comment under its annotations; each is a
// package main whose entry (main, or the TestXxx its --entry names, taking a
// *testing.T) exists; and each type-checks on its own.
func TestGoTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "go", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("%d Go programs in testdata/go, want at least 40", len(files))
	}
	fset := token.NewFileSet()
	imports := importer.ForCompiler(fset, "source", nil)
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ann, err := annotation.Parse(src)
			if err != nil && !(ann.Expect == "unsafe" && slices.Contains(goViolationKinds, ann.Violation)) {
				// Until the Go front end adds them, leak and panic are not
				// kinds the annotations know; no other error is allowed.
				t.Fatalf("annotations: %v", err)
			}
			base, bug := strings.CutSuffix(strings.TrimSuffix(name, ".go"), "-bug")
			switch {
			case bug:
				if ann.Expect != "unsafe" || !slices.Contains(goViolationKinds, ann.Violation) {
					t.Errorf("expect %q, violation %q: a -bug program expects unsafe with one of %v", ann.Expect, ann.Violation, goViolationKinds)
				}
				if _, err := os.Stat(filepath.Join(filepath.Dir(file), base+"-fixed.go")); err != nil {
					t.Errorf("no fixed version: %v", err)
				}
			case strings.HasSuffix(base, "-fixed"):
				if ann.Expect != "safe" && ann.Expect != "bounded-safe" {
					t.Errorf("expect %q: a -fixed program expects safe or bounded-safe", ann.Expect)
				}
			default:
				t.Errorf("the name ends neither in -bug.go nor in -fixed.go")
			}
			if !hasReason(string(src)) {
				t.Errorf("no comment under the annotations saying why the program is %s", ann.Expect)
			}
			f, err := parser.ParseFile(fset, file, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if f.Name.Name != "main" {
				t.Errorf("package %s, want main", f.Name.Name)
			}
			entry := "main"
			if i := slices.Index(ann.Args, "--entry"); i >= 0 && i+1 < len(ann.Args) {
				entry = ann.Args[i+1]
			}
			conf := types.Config{Importer: imports}
			pkg, err := conf.Check("main", fset, []*ast.File{f}, nil)
			if err != nil {
				var te types.Error
				if errors.As(err, &te) {
					t.Fatalf("%s", te.Error())
				}
				t.Fatal(err)
			}
			fn, ok := pkg.Scope().Lookup(entry).(*types.Func)
			if !ok {
				t.Fatalf("no function %s, the entry", entry)
			}
			params := fn.Type().(*types.Signature).Params()
			switch {
			case entry == "main" && params.Len() != 0:
				t.Errorf("main takes parameters")
			case entry != "main" && (!strings.HasPrefix(entry, "Test") || params.Len() != 1 || params.At(0).Type().String() != "*testing.T"):
				t.Errorf("entry %s: want TestXxx(t *testing.T), got %s", entry, fn.Type())
			}
		})
	}
}

// hasReason reports whether a plain comment follows the //@ lines at the top
// of src.
func hasReason(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		switch {
		case strings.HasPrefix(line, "//@"):
			continue
		case strings.HasPrefix(line, "// ") && len(line) > 10:
			return true
		default:
			return false
		}
	}
	return false
}
