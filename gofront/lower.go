package gofront

import (
	"fmt"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// maxLowered bounds the lowered program's size: inlining can multiply code
// exponentially, and a program past the bound is refused instead of built.
const maxLowered = 1 << 20

// maxPool bounds a pool of goroutines or blocks however many the code asks.
const maxPool = 16

// lowerer turns an SSA package into an ir.Program for one entry point.
type lowerer struct {
	src  *sources
	fset *token.FileSet
	pkg  *ssa.Package
	cfg  Config
	prog *ir.Program
	errs ErrorList

	layouts typeutil.Map // types.Type -> *layout
	globals map[*ssa.Global]*ir.Var
	pools   map[*ssa.Function]*poolInfo
	// poolList holds the pools in creation order (the worklist of lower).
	poolList []*poolInfo
	// chans are the channel make sites, each a channel array of ir; byElem
	// lists them by element type, which is how an operation on a channel
	// value finds the arrays it may name.
	chans    map[ssa.Instruction]*chanSite
	siteList []*chanSite
	byElem   typeutil.Map // types.Type -> []*chanSite
	// funcVals numbers the functions used as values (funcs.go).
	funcVals map[*ssa.Function]*funcValue
	funcList []*funcValue
	libPools map[string]*poolInfo
	// timerPools: the pool of the goroutine of each call that made a timer
	// (a Reset starts another).
	timerPools map[ssa.Value]*poolInfo
	// typeObjects lists, per type, the objects made to hold a value of it
	// (iface.go).
	typeObjects typeutil.Map
	bg          *ir.Var    // context.Background's object
	errType     types.Type // errorType
	// strings numbers string constants: a string is a token.
	strings map[string]int64
	// finals run once every site's size is known (channel numbers).
	finals []func()

	budget int
	tooBig bool
	// recovers: 1 if a function of the package calls recover, -1 if none
	// does, 0 before anyRecover looked.
	recovers int
	// lockers are the kinds of value the package makes sync.Lockers of
	// (lockerKinds; nil before it looked).
	lockers []string
}

// poolInfo is the goroutine pool of one function a go statement starts, and
// how many slots the code lowered so far can start.
type poolInfo struct {
	fn   *ssa.Function
	pool *ir.Pool
	need int
	// args are the cells a goroutine receives: its parameters, then its
	// closure's free variables. One arg cell travels in the slot's start
	// cell; more go through each slot's args variable.
	args  *layout
	slots []*ir.Var // per slot: its args variable (nil with at most one cell)
	// body, for a goroutine of the library (a timer), lowers its code from
	// its start cells; nil for a function of the program.
	body func(b *builder, cells []*ir.Expr)
}

func newLowerer(src *sources, fset *token.FileSet, pkg *ssa.Package, cfg Config) *lowerer {
	return &lowerer{src: src, fset: fset, pkg: pkg, cfg: cfg,
		prog:    &ir.Program{File: src.main, Width: 64, NoFold: cfg.NoFold},
		globals: map[*ssa.Global]*ir.Var{}, pools: map[*ssa.Function]*poolInfo{},
		chans: map[ssa.Instruction]*chanSite{}, funcVals: map[*ssa.Function]*funcValue{}, libPools: map[string]*poolInfo{}, timerPools: map[ssa.Value]*poolInfo{}, strings: map[string]int64{}, budget: maxLowered}
}

// pos converts a token position: the program's own file (the entry's) is
// ir.Pos's empty File, another file of the package is named.
func (l *lowerer) pos(p token.Pos) ir.Pos {
	if !p.IsValid() {
		return ir.Pos{}
	}
	pp := l.fset.Position(p)
	pos := ir.Pos{Line: pp.Line, Col: pp.Column}
	if name := l.src.name(pp.Filename); name != l.src.main {
		pos.File = name
	}
	return pos
}

// site is pos in the name of something the code makes there (a channel, an
// object): line:col, with the file's base name when it is not the
// program's own file.
func site(pos ir.Pos) string {
	if pos.File != "" {
		return fmt.Sprintf("%s:%d:%d", filepath.Base(pos.File), pos.Line, pos.Col)
	}
	return pos.String()
}

// errorf records an input error at pos.
func (l *lowerer) errorf(pos ir.Pos, format string, args ...any) {
	file := l.src.fileOf(pos)
	e := &Error{Pos: syntax.Position{Filename: file, Line: pos.Line, Col: pos.Col}, Msg: fmt.Sprintf(format, args...),
		Source: sourceLine(l.src.text[file], pos.Line)}
	for _, old := range l.errs {
		if old.Pos == e.Pos && old.Msg == e.Msg {
			return
		}
	}
	l.errs = append(l.errs, e)
}

func (l *lowerer) spend(n int, pos ir.Pos) {
	l.budget -= n
	if l.budget < 0 && !l.tooBig {
		l.tooBig = true
		l.errorf(pos, "program too large: more than %d operations after inlining calls", maxLowered)
	}
}

func (l *lowerer) lower(entry *ssa.Function) (*ir.Program, ErrorList) {
	fns := l.sortedFuncs()
	l.scanChannels(fns)
	l.scanFuncValues(fns)
	mt := &ir.Template{Name: "main", Pos: l.pos(entry.Pos())}
	if entry.Name() != "main" {
		mt.Name = entry.Name()
	}
	l.prog.Templates = append(l.prog.Templates, mt)
	l.prog.Entry = mt // goroutines blocked after it returns have leaked
	b := l.newBuilder(mt, nil)
	b.entry(entry)
	// Pools grow as the code that starts their goroutines is lowered, the
	// goroutines' own code included, until every pool has the slots its
	// starters can start (or maxPool).
	for changed := true; changed && len(l.errs) == 0 && !l.tooBig; {
		changed = false
		for i := 0; i < len(l.poolList); i++ {
			pi := l.poolList[i]
			for len(pi.pool.Slots) < min(pi.need, maxPool) && !l.tooBig && len(l.errs) == 0 {
				l.slot(pi)
				changed = true
			}
		}
	}
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	l.finishChannels()
	for _, f := range l.finals {
		f()
	}
	return l.prog, l.errs
}

// poolOf returns the pool of goroutines running fn, creating it.
func (l *lowerer) poolOf(fn *ssa.Function, pos ir.Pos) *poolInfo {
	if pi := l.pools[fn]; pi != nil {
		return pi
	}
	pi := &poolInfo{fn: fn, pool: &ir.Pool{Name: goroutineName(fn)}, args: &layout{}}
	add := func(name string, t types.Type) {
		lo, err := l.layoutOf(t)
		if err != nil {
			l.errorf(pos, "go %s: %s: %v", fn.Name(), name, err)
			lo = scalar(ir.I64)
		}
		for _, c := range lo.cells {
			pi.args.cells = append(pi.args.cells, c.renamed("."+name+c.name))
		}
	}
	for _, p := range fn.Params {
		add(p.Name(), p.Type())
	}
	for _, fv := range fn.FreeVars {
		add(fv.Name(), fv.Type())
	}
	l.pools[fn] = pi
	l.poolList = append(l.poolList, pi)
	l.prog.Pools = append(l.prog.Pools, pi.pool)
	return pi
}

// site records a go statement that starts the pool's goroutines.
func (pi *poolInfo) site(pos ir.Pos) {
	if !slices.Contains(pi.pool.Sites, pos) {
		pi.pool.Sites = append(pi.pool.Sites, pos)
	}
}

// goroutineName names a goroutine's function as a trace shows it: "worker",
// "TestFoo.func1".
func goroutineName(fn *ssa.Function) string {
	name := fn.Name()
	if recv := fn.Signature.Recv(); recv != nil {
		// A method: its type's name too, as Go's traces print (*raft).run.
		t := recv.Type()
		ptr := ""
		if p, ok := t.(*types.Pointer); ok {
			t, ptr = p.Elem(), "*"
		}
		if n, ok := t.(*types.Named); ok {
			return fmt.Sprintf("(%s%s).%s", ptr, n.Obj().Name(), name)
		}
	}
	if fn.Parent() != nil {
		// go/ssa names closures "Parent$1"; Go's runtime says "Parent.func1".
		name = fn.Parent().Name() + ".func" + name[len(fn.Parent().Name())+1:]
	}
	return name
}

// slot adds one goroutine slot to a pool: a template of its own, which starts
// by receiving its arguments.
func (l *lowerer) slot(pi *poolInfo) {
	i := len(pi.pool.Slots)
	name := fmt.Sprintf("%s[%d]", pi.pool.Name, i)
	var pos ir.Pos
	if pi.fn != nil {
		pos = l.pos(pi.fn.Pos())
	}
	// The start cell's argument is the goroutine's one argument cell, when
	// it has one (else its args variable holds them).
	argType, argName := ir.Type(ir.I64), name+".arg"
	if pi.args.n() == 1 {
		argType, argName = pi.args.cells[0].typ, name+pi.args.cells[0].name
	}
	start := &ir.Var{Name: name + "$start", Type: ir.I64, Len: ir.StartCells, Shared: true,
		CellTypes: []ir.Type{ir.I64, argType, ir.I64},
		CellNames: []string{name + ".started", argName, name + ".returned"}, Pos: pos}
	if pi.args.n() == 1 && pi.args.cells[0].chanVal {
		start.ChanCells = []bool{false, true, false}
	}
	l.prog.Shared = append(l.prog.Shared, start)
	var args *ir.Var
	if pi.args.n() > 1 {
		args = &ir.Var{Name: name + "$args", Type: pi.args.cells[0].typ, Len: pi.args.n(), Shared: true,
			CellTypes: pi.args.types(), ChanCells: pi.args.chanCells(), Pos: pos}
		for _, c := range pi.args.cells {
			args.CellNames = append(args.CellNames, name+c.name)
		}
		l.prog.Shared = append(l.prog.Shared, args)
	}
	pi.slots = append(pi.slots, args)
	t := &ir.Template{Name: name, Pos: pos, Start: start}
	pi.pool.Slots = append(pi.pool.Slots, t)
	l.prog.Templates = append(l.prog.Templates, t)
	b := l.newBuilder(t, start)
	b.goroutine(pi, args)
}

// global returns the object of a package-level variable.
func (l *lowerer) global(g *ssa.Global) *ir.Var {
	if v := l.globals[g]; v != nil {
		return v
	}
	elem := g.Type().(*types.Pointer).Elem()
	lo, err := l.layoutOf(elem)
	if err != nil {
		l.errorf(l.pos(g.Pos()), "variable %s: %v", g.Name(), err)
		lo = scalar(ir.I64)
	}
	v := l.objectVar(g.Name(), lo, l.pos(g.Pos()))
	l.registerObject(elem, v)
	if g.Pkg != nil && g.Pkg.Pkg.Path() == "context" && (g.Name() == "Canceled" || g.Name() == "DeadlineExceeded") {
		v.Init = []int64{l.ctxError(g.Name())}
	}
	l.globals[g] = v
	return v
}

// objectVar is a fresh object of the given layout.
func (l *lowerer) objectVar(name string, lo *layout, pos ir.Pos) *ir.Var {
	v := &ir.Var{Name: name, Type: lo.cells[0].typ, Shared: true, Addressable: true, Pos: pos, ChanCells: lo.chanCells()}
	if lo.n() > 1 || lo.cells[0].name != "" {
		v.Len = lo.n()
		v.CellTypes = lo.types()
		for _, c := range lo.cells {
			v.CellNames = append(v.CellNames, name+c.name)
		}
	}
	l.prog.Shared = append(l.prog.Shared, v)
	return v
}

// errorType is the type kbmc's errors (errors.New's, fmt.Errorf's) are
// objects of: a type of no package, which no program names.
func (l *lowerer) errorType() types.Type {
	if l.errType == nil {
		l.errType = types.NewNamed(types.NewTypeName(0, nil, "errorString", nil), types.NewStruct(nil, nil), nil)
	}
	return l.errType
}

// token is a value that stands for something kbmc does not model (an error
// errors.New made, an interface holding a struct): negative, so that it is
// no pointer to an object and differs from nil and from every other token
// of another name.
func (l *lowerer) token(name string) int64 {
	return -1 - l.stringToken("\x00"+name)
}

// stringToken is the value of a string constant, given as its quoted text
// (constant.Value's ExactString): equal strings, equal tokens, and "" is 0,
// a string variable's zero value.
func (l *lowerer) stringToken(s string) int64 {
	if s == `""` {
		return 0
	}
	if v, ok := l.strings[s]; ok {
		return v
	}
	v := int64(len(l.strings) + 1)
	l.strings[s] = v
	return v
}

// stringLength sets x to the length of the string whose token is tok, once
// every constant of the program has its token (a finals step): a choice
// over the constants' tokens.
func (l *lowerer) stringLength(x, tok *ir.Expr) {
	l.finals = append(l.finals, func() {
		type constant struct {
			tok int64
			n   int
		}
		var list []constant
		for quoted, t := range l.strings {
			if text, err := strconv.Unquote(quoted); err == nil { // not a token's name (token)
				list = append(list, constant{t, len(text)})
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].tok < list[j].tok })
		y := &ir.Expr{Op: ir.EConst, Type: ir.I64, Val: 0, Pos: x.Pos} // "", and tokens no constant has
		for _, c := range list {
			y = &ir.Expr{Op: ir.ECond, Type: ir.I64, Pos: x.Pos,
				X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: tok, Y: &ir.Expr{Op: ir.EConst, Type: ir.I64, Val: c.tok, Pos: x.Pos}, Pos: x.Pos},
				Y: &ir.Expr{Op: ir.EConst, Type: ir.I64, Val: int64(c.n), Pos: x.Pos}, Z: y}
		}
		*x = *y
	})
}

// sortedFuncs lists the package's functions with bodies, anonymous ones
// included, each once, in source order.
func (l *lowerer) sortedFuncs() []*ssa.Function {
	var fns []*ssa.Function
	seen := map[*ssa.Function]bool{}
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		if seen[f] {
			return
		}
		seen[f] = true
		fns = append(fns, f)
		for _, a := range f.AnonFuncs {
			add(a)
		}
	}
	for _, m := range l.pkg.Members {
		switch m := m.(type) {
		case *ssa.Function:
			add(m)
		case *ssa.Type:
			mset := l.pkg.Prog.MethodSets.MethodSet(types.NewPointer(m.Type()))
			for i := range mset.Len() {
				if f := l.pkg.Prog.MethodValue(mset.At(i)); f != nil && f.Pkg == l.pkg {
					add(f)
				}
			}
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Pos() < fns[j].Pos() })
	return fns
}
