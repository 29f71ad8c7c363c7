package gofront

import (
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// Config says which entry point to check and how large the model's pools are.
type Config struct {
	// Entry names the function the first goroutine runs: "main", a test
	// "TestXxx", or any function without parameters (or with one
	// *testing.T). Empty: main if the package has one, else its only test.
	Entry string
	// NoFold makes every instruction a step of its own.
	NoFold bool
	// LoopGoroutines is how many goroutines a go statement inside a loop may
	// start, and LoopBlocks how many variables, channels or slices code inside
	// a loop may make (0: the defaults).
	LoopGoroutines, LoopBlocks int
}

// DefaultDepth is the depth bound kbmc check uses for a Go program when none
// is given: a Go statement takes a step per memory access, so a program's
// executions are several times longer than a .kb program's of the same
// logic (GoBench's blocking kernels: 49 found at depth 100, 55 at 400 — see
// docs/gobench.md).
const DefaultDepth = 400

// The defaults of Config's bounds. A pool that runs out makes the goroutine
// that wants one wait at a bound of the model: the execution is cut, and the
// verdict says so.
const (
	DefaultLoopGoroutines = 3
	DefaultLoopBlocks     = 3
)

// Error and ErrorList are positioned input errors, as lang's and cfront's.
type (
	Error     = syntax.Error
	ErrorList = syntax.ErrorList
)

// IsGo reports whether path names Go input: a .go file, or a directory
// holding one.
func IsGo(path string) bool {
	if strings.HasSuffix(path, ".go") {
		return true
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	files, _ := filepath.Glob(filepath.Join(path, "*.go"))
	return len(files) > 0
}

// A Result is a compiled Go program: the program and the file its positions
// are in.
type Result struct {
	Program *ir.Program
	File    string // the Go file, which Program.File names too
	Entry   string // the entry function checked
	Entries []string
}

// Compile loads the Go package of path (a .go file, or a directory of one Go
// file), builds it to SSA and lowers the chosen entry point. Input errors
// (the package does not type-check, a construct is not supported) come back
// as an ErrorList.
func Compile(path string, cfg Config) (*Result, error) {
	if cfg.LoopGoroutines <= 0 {
		cfg.LoopGoroutines = DefaultLoopGoroutines
	}
	if cfg.LoopBlocks <= 0 {
		cfg.LoopBlocks = DefaultLoopBlocks
	}
	file, err := goFile(path)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pkg, fset, err := load(file, src)
	if err != nil {
		return nil, err
	}
	entries := entryPoints(pkg)
	fn, err := chooseEntry(pkg, entries, cfg.Entry, file)
	if err != nil {
		return nil, err
	}
	l := newLowerer(file, src, fset, pkg, cfg)
	p, errs := l.lowerGuarded(fn)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	if err := p.Finish(); err != nil {
		return nil, fmt.Errorf("gofront: internal error: %s: %w", file, err)
	}
	if p.DropUnreadLocals() {
		if err := p.Finish(); err != nil {
			return nil, fmt.Errorf("gofront: internal error: %s: %w", file, err)
		}
	}
	return &Result{Program: p, File: file, Entry: fn.Name(), Entries: entries}, nil
}

// Entries lists the entry points of the Go file (or directory) at path: main
// and the tests, in source order.
func Entries(path string) ([]string, error) {
	file, err := goFile(path)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pkg, _, err := load(file, src)
	if err != nil {
		return nil, err
	}
	return entryPoints(pkg), nil
}

// goFile is the one Go file of path: kbmc reads a package of one file, so
// that every position of a trace is a line of it.
func goFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return path, nil
	}
	files, _ := filepath.Glob(filepath.Join(path, "*.go"))
	switch len(files) {
	case 0:
		return "", fmt.Errorf("%s: no Go files", path)
	case 1:
		return files[0], nil
	}
	return "", fmt.Errorf("%s: %d Go files; kbmc reads a Go package of one file (name the file to check)", path, len(files))
}

// load type-checks the file as a package of its own (with its tests), and
// builds its SSA form. Only the file's own functions get bodies: calls into
// other packages are modelled by name or refused.
func load(file string, src []byte) (*ssa.Package, *token.FileSet, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	cfg := &packages.Config{Mode: packages.LoadSyntax, Tests: true, Dir: filepath.Dir(abs), Fset: fset,
		Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")}
	// The file alone is the package (go list's command-line-arguments):
	// kbmc checks one file, whose lines every position of a trace names.
	pkgs, err := packages.Load(cfg, abs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: loading the Go package: %w", file, err)
	}
	// The test variant holds the _test.go file; a plain file is in the
	// package itself.
	var pkg *packages.Package
	for _, p := range pkgs {
		if strings.HasSuffix(p.ID, ".test") || !holds(p, abs) {
			continue
		}
		if pkg == nil || len(p.Syntax) > 0 && strings.Contains(p.ID, "[") {
			pkg = p
		}
	}
	if pkg == nil {
		return nil, nil, fmt.Errorf("%s: the go tool found no package holding this file", file)
	}
	var errs ErrorList
	for _, e := range pkg.Errors {
		errs = append(errs, packageError(e, file, src))
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	if len(pkg.CompiledGoFiles) > 1 {
		return nil, nil, fmt.Errorf("%s: its package has %d Go files; kbmc reads a Go package of one file", file, len(pkg.CompiledGoFiles))
	}
	prog, spkgs := ssautil.Packages([]*packages.Package{pkg}, ssa.InstantiateGenerics)
	if spkgs[0] == nil {
		return nil, nil, fmt.Errorf("%s: no SSA form was built for the package", file)
	}
	prog.Build()
	return spkgs[0], fset, nil
}

func holds(p *packages.Package, abs string) bool {
	for _, f := range p.CompiledGoFiles {
		if f == abs {
			return true
		}
	}
	return false
}

// packageError turns a go/packages error ("file:line:col: msg") into a
// positioned Error.
func packageError(e packages.Error, file string, src []byte) *Error {
	pos := syntax.Position{Filename: file}
	parts := strings.SplitN(e.Pos, ":", 4)
	if len(parts) >= 3 {
		fmt.Sscan(parts[len(parts)-2], &pos.Line)
		fmt.Sscan(parts[len(parts)-1], &pos.Col)
		if len(parts) == 4 {
			fmt.Sscan(parts[1], &pos.Line)
			fmt.Sscan(parts[2], &pos.Col)
		}
	}
	return &Error{Pos: pos, Msg: e.Msg, Source: sourceLine(src, pos.Line)}
}

func sourceLine(src []byte, line int) string {
	if line < 1 {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if line > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[line-1], "\r")
}

// entryPoints lists the functions that may be checked: main and the tests,
// in source order.
func entryPoints(pkg *ssa.Package) []string {
	type named struct {
		name string
		pos  token.Pos
	}
	var list []named
	for name, m := range pkg.Members {
		fn, ok := m.(*ssa.Function)
		if !ok {
			continue
		}
		if name == "main" && fn.Signature.Params().Len() == 0 || isTest(fn) {
			list = append(list, named{name, fn.Pos()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].pos < list[j].pos })
	names := make([]string, len(list))
	for i, n := range list {
		names[i] = n.name
	}
	return names
}

// isTest reports whether fn is a test: TestXxx(t *testing.T).
func isTest(fn *ssa.Function) bool {
	if !strings.HasPrefix(fn.Name(), "Test") || fn.Signature.Params().Len() != 1 || fn.Signature.Results().Len() != 0 {
		return false
	}
	return isTestingT(fn.Signature.Params().At(0).Type())
}

func isTestingT(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "testing" && n.Obj().Name() == "T"
}

// chooseEntry picks the entry function: the one named, main, or the only
// test.
func chooseEntry(pkg *ssa.Package, entries []string, want, file string) (*ssa.Function, error) {
	if want == "" {
		switch {
		case len(entries) == 0:
			return nil, fmt.Errorf("%s: no entry point: kbmc runs main, a TestXxx(t *testing.T), or the function --entry names", file)
		case len(entries) == 1 || entries[0] == "main" && pkg.Func("main") != nil && !hasTests(entries):
			want = entries[0]
		default:
			return nil, fmt.Errorf("%s: %d entry points (%s): choose one with --entry", file, len(entries), strings.Join(entries, ", "))
		}
	}
	fn := pkg.Func(want)
	if fn == nil {
		return nil, fmt.Errorf("%s: no function %s (entry points: %s)", file, want, strings.Join(entries, ", "))
	}
	sig := fn.Signature
	if sig.Results().Len() != 0 || sig.Params().Len() > 1 || sig.Params().Len() == 1 && !isTestingT(sig.Params().At(0).Type()) {
		return nil, errors.New(file + ": the entry " + want + " must have no results and no parameters but a *testing.T")
	}
	return fn, nil
}

func hasTests(entries []string) bool {
	for _, e := range entries {
		if e != "main" {
			return true
		}
	}
	return false
}

// lowerGuarded is lower, with a lowering that fails on an input it does not
// expect turned into an error: after an input error was reported (lowering
// goes on to report more, on values that may be incomplete), that error;
// otherwise an internal error naming the entry.
func (l *lowerer) lowerGuarded(fn *ssa.Function) (p *ir.Program, errs ErrorList) {
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("KBMC_GOFRONT_PANIC") != "" {
				panic(r)
			}
			if len(l.errs) == 0 {
				l.errorf(l.pos(fn.Pos()), "internal error: lowering %s failed: %v", fn.Name(), r)
			}
			p, errs = nil, l.errs
		}
	}()
	return l.lower(fn)
}
