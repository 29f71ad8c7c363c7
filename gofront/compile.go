package gofront

import (
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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
// logic (GoBench's blocking kernels: 53 found at depth 100, 59 at 400 — see
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
// holding one (a package).
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

// A Result is a compiled Go program: the program and the files its
// positions are in.
type Result struct {
	Program *ir.Program
	// File is the file of the entry function, which Program.File names too:
	// the positions of the program with an empty ir.Pos.File are in it.
	File string
	// Files are the package's files, File among them, named as the input
	// names them (the file, or the directory joined with each file's name).
	Files   []string
	Entry   string // the entry function checked
	Entries []string
}

// Compile loads the Go package of path (a .go file, which go run's way is a
// package of its own, or a directory: its package with its tests, as go test
// loads it), builds it to SSA and lowers the chosen entry point. Input errors
// (the package does not type-check, a construct is not supported) come back
// as an ErrorList.
func Compile(path string, cfg Config) (*Result, error) {
	if cfg.LoopGoroutines <= 0 {
		cfg.LoopGoroutines = DefaultLoopGoroutines
	}
	if cfg.LoopBlocks <= 0 {
		cfg.LoopBlocks = DefaultLoopBlocks
	}
	pkg, fset, src, err := load(path)
	if err != nil {
		return nil, err
	}
	entries := entryPoints(pkg)
	fn, err := chooseEntry(pkg, entries, cfg.Entry, path)
	if err != nil {
		return nil, err
	}
	src.main = src.name(fset.Position(fn.Pos()).Filename)
	l := newLowerer(src, fset, pkg, cfg)
	p, errs := l.lowerGuarded(fn)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	if err := p.Finish(); err != nil {
		return nil, fmt.Errorf("gofront: internal error: %s: %w", path, err)
	}
	if p.DropUnreadLocals() {
		if err := p.Finish(); err != nil {
			return nil, fmt.Errorf("gofront: internal error: %s: %w", path, err)
		}
	}
	return &Result{Program: p, File: src.main, Files: src.files, Entry: fn.Name(), Entries: entries}, nil
}

// Entries lists the entry points of the Go file or package at path: main
// and the tests, in source order.
func Entries(path string) ([]string, error) {
	pkg, _, _, err := load(path)
	if err != nil {
		return nil, err
	}
	return entryPoints(pkg), nil
}

// sources are the files of the loaded package, named as the input names
// them, with their text.
type sources struct {
	// main is the file whose positions are ir.Pos's empty File: the entry
	// function's (for errors before an entry is chosen, the first file).
	main  string
	files []string
	text  map[string][]byte
	// names maps the go tool's name of each file (absolute) to its name here.
	names map[string]string
}

// name is the name of the file the go tool calls goName.
func (s *sources) name(goName string) string {
	if n, ok := s.names[goName]; ok {
		return n
	}
	return goName
}

// fileOf is the file pos is in.
func (s *sources) fileOf(pos ir.Pos) string {
	if pos.File != "" {
		return pos.File
	}
	return s.main
}

// load type-checks the package of path and builds its SSA form. A .go file
// is a package of its own (go list's command-line-arguments, as go run
// reads one), so that a directory of example programs can be checked file
// by file; a directory is its package, with the _test.go files of the
// package itself. Only the package's own functions get bodies: calls into
// other packages are modelled by name or refused.
func load(path string) (*ssa.Package, *token.FileSet, *sources, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, nil, err
	}
	dir, pattern := filepath.Dir(abs), abs
	if fi.IsDir() {
		dir, pattern = abs, "."
	}
	fset := token.NewFileSet()
	cfg := &packages.Config{Mode: packages.LoadSyntax, Tests: true, Dir: dir, Fset: fset,
		Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: loading the Go package: %w", path, err)
	}
	holding := abs
	if fi.IsDir() && len(pkgs) == 0 {
		// Outside a module the go tool names no package for a directory;
		// its files named one by one are one (as go vet *.go reads them).
		files, _ := filepath.Glob(filepath.Join(abs, "*.go"))
		if len(files) == 0 {
			return nil, nil, nil, fmt.Errorf("%s: no Go files", path)
		}
		if pkgs, err = packages.Load(cfg, files...); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: loading the Go package: %w", path, err)
		}
		holding = files[0]
	}
	pkg, err := choosePackage(pkgs, path, holding, fi.IsDir() && holding == abs)
	if err != nil {
		return nil, nil, nil, err
	}
	src := &sources{text: map[string][]byte{}, names: map[string]string{}}
	for _, f := range pkg.CompiledGoFiles {
		name := path
		if fi.IsDir() {
			if filepath.Dir(f) != abs {
				return nil, nil, nil, fmt.Errorf("%s: the package uses cgo (the go tool generated %s), which kbmc does not model", path, filepath.Base(f))
			}
			name = filepath.Join(path, filepath.Base(f))
		}
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, nil, err
		}
		src.files = append(src.files, name)
		src.text[name], src.names[f] = text, name
	}
	if len(src.files) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no Go files", path)
	}
	src.main = src.files[0]
	var errs ErrorList
	undefined := false
	for _, e := range pkg.Errors {
		if e.Pos == "" && strings.HasPrefix(e.Msg, "# ") && len(pkg.Errors) > 1 {
			continue // the go tool's compiler output, which repeats the type errors
		}
		errs = append(errs, packageError(e, src))
		undefined = undefined || strings.Contains(e.Msg, "undefined: ")
	}
	if undefined && !fi.IsDir() {
		// The name may be declared in another file of the package, which
		// a file read alone does not see.
		if siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(abs), "*.go")); len(siblings) > 1 {
			errs = append(errs, &Error{Pos: syntax.Position{Filename: path},
				Msg: "note: kbmc reads a .go file as a package of its own, as go run does; to check it with the other files of its package, name its directory"})
		}
	}
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	if !fi.IsDir() && len(pkg.CompiledGoFiles) > 1 {
		return nil, nil, nil, fmt.Errorf("%s: its package has %d Go files; name the package's directory to check the whole package", path, len(pkg.CompiledGoFiles))
	}
	prog, spkgs := ssautil.Packages([]*packages.Package{pkg}, ssa.InstantiateGenerics)
	if spkgs[0] == nil {
		return nil, nil, nil, fmt.Errorf("%s: no SSA form was built for the package", path)
	}
	prog.Build()
	return spkgs[0], fset, src, nil
}

// choosePackage picks, among the packages go/packages loaded for path (a
// directory's package when isDir, else the package holding the file abs), the
// one kbmc checks: the test variant that holds the package's own _test.go
// files if there is one (its tests are entry points), else the package. A
// directory's external test package (package x_test) is refused: its tests
// would need the package's functions from another SSA package, and checking
// the package without them would skip them silently.
func choosePackage(pkgs []*packages.Package, path, abs string, isDir bool) (*packages.Package, error) {
	var pkg *packages.Package
	for _, p := range pkgs {
		if strings.HasSuffix(p.ID, ".test") || !isDir && !holds(p, abs) {
			continue
		}
		if isDir && strings.HasSuffix(p.PkgPath, "_test") && len(p.CompiledGoFiles) > 0 && hasPackageFiles(pkgs, p) {
			return nil, fmt.Errorf("%s: %s is an external test package (package %s), which kbmc does not read: move its tests into package %s",
				path, filepath.Base(p.CompiledGoFiles[0]), p.Name, strings.TrimSuffix(p.Name, "_test"))
		}
		if pkg == nil || len(p.Syntax) > 0 && strings.Contains(p.ID, "[") {
			pkg = p
		}
	}
	if pkg == nil {
		return nil, fmt.Errorf("%s: the go tool found no package holding this file", path)
	}
	return pkg, nil
}

// hasPackageFiles reports whether the package an external test package ext
// tests has Go files of its own. A directory of _test.go files of package
// x_test alone is a package of its own for kbmc: nothing else is lowered.
func hasPackageFiles(pkgs []*packages.Package, ext *packages.Package) bool {
	for _, p := range pkgs {
		if p != ext && !strings.HasSuffix(p.PkgPath, "_test") && !strings.HasSuffix(p.ID, ".test") && len(p.CompiledGoFiles) > 0 {
			return true
		}
	}
	return false
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
func packageError(e packages.Error, src *sources) *Error {
	pos := syntax.Position{Filename: src.main}
	// The position is file:line:col or file:line; the file's name may hold
	// colons itself, so it is read from the end.
	parts := strings.Split(e.Pos, ":")
	nums := 0
	for i := len(parts) - 1; i >= 1 && nums < 2; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			break
		}
		nums++
	}
	if nums > 0 {
		pos.Filename = src.name(strings.Join(parts[:len(parts)-nums], ":"))
		pos.Line, _ = strconv.Atoi(parts[len(parts)-nums])
		if nums == 2 {
			pos.Col, _ = strconv.Atoi(parts[len(parts)-1])
		}
	}
	return &Error{Pos: pos, Msg: e.Msg, Source: sourceLine(src.text[pos.Filename], pos.Line)}
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
