package cfront

import (
	"fmt"
	"strings"

	"modernc.org/cc/v4"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// maxLowered bounds the lowered program's size (nodes and expression nodes):
// inlining can multiply code exponentially, and a program past the bound is
// rejected instead of built.
const maxLowered = 1 << 20

// lowerer turns a translated C file into an ir.Program.
type lowerer struct {
	path  string
	src   []byte
	ast   *cc.AST
	abi   *cc.ABI
	lines lineMap
	cfg   Config
	model string
	prog  *ir.Program
	errs  ErrorList

	funcs   map[string]*cc.FunctionDefinition
	globals map[string]*global // by name: C's external and internal linkage, one translation unit
	statics map[*cc.Declarator]*global
	// copies are the threads' own copies of thread-local globals
	// (threadCopy), by global and thread template.
	copies map[threadGlobal]*global
	// keys counts the pthread keys created; keyTables are the threads'
	// values of them (specific.go).
	keys      *ir.Var
	keyTables map[*ir.Template]*ir.Var
	// taken holds the declarators (globals by name) whose address a program
	// takes, or whose array decays to a pointer: they become objects.
	taken      map[*cc.Declarator]bool
	takenNames map[string]bool
	layouts    map[cc.Type]*layout
	pools      map[*cc.FunctionDefinition]*poolInfo
	poolList   []*poolInfo
	strs       map[string]*ir.Var
	// results: some pthread_join takes a thread's result, so threads store
	// it when they return.
	results bool
	// inits are the global initializers that need a pointer (an object's
	// address): main runs them first, in one atomic step.
	inits []pendingInit

	budget int
	tooBig bool
}

// global is a C variable with static storage.
type global struct {
	name string
	decl *cc.Declarator // the one with the initializer, else the first
	init *cc.Initializer
	v    *ir.Var
	lay  *layout
	// copy: a thread's own copy of a thread-local global (threadCopy).
	copy bool
}

// threadGlobal names a thread's copy of a thread-local global.
type threadGlobal struct {
	g *global
	t *ir.Template
}

// poolInfo is the thread pool of one start routine and how many slots the
// code lowered so far can start.
type poolInfo struct {
	fn   *cc.FunctionDefinition
	pool *ir.Pool
	need int
}

type pendingInit struct {
	g    *global
	cell int
	expr cc.ExpressionNode
}

func newLowerer(path string, src []byte, ast *cc.AST, abi *cc.ABI, lines lineMap, cfg Config, model string) *lowerer {
	if cfg.LoopThreads <= 0 {
		cfg.LoopThreads = DefaultLoopThreads
	}
	if cfg.LoopBlocks <= 0 {
		cfg.LoopBlocks = DefaultLoopBlocks
	}
	if cfg.BlockCells <= 0 {
		cfg.BlockCells = DefaultBlockCells
	}
	return &lowerer{path: path, src: src, ast: ast, abi: abi, lines: lines, cfg: cfg, model: model,
		prog:    &ir.Program{File: path, Width: 64, NoFold: cfg.NoFold},
		funcs:   map[string]*cc.FunctionDefinition{},
		globals: map[string]*global{}, statics: map[*cc.Declarator]*global{}, copies: map[threadGlobal]*global{}, keyTables: map[*ir.Template]*ir.Var{},
		taken: map[*cc.Declarator]bool{}, takenNames: map[string]bool{},
		layouts: map[cc.Type]*layout{}, pools: map[*cc.FunctionDefinition]*poolInfo{},
		strs: map[string]*ir.Var{}, budget: maxLowered}
}

// errorf records an input error at a cc node (or at the nearest position in the
// user's file, pos, when the node lies in a header).
func (l *lowerer) errorf(n cc.Node, pos ir.Pos, format string, args ...any) {
	if n != nil {
		if p, ok := l.lines.node(n); ok {
			pos = p
		}
	}
	e := &Error{Pos: syntax.Position{Filename: l.path, Line: pos.Line, Col: pos.Col}, Msg: fmt.Sprintf(format, args...)}
	if pos.Line > 0 {
		e.Source = sourceLine(l.src, pos.Line)
	}
	for _, old := range l.errs {
		if old.Pos == e.Pos && old.Msg == e.Msg {
			return
		}
	}
	l.errs = append(l.errs, e)
}

// spend charges n units of the size budget.
func (l *lowerer) spend(n int, at cc.Node, pos ir.Pos) {
	l.budget -= n
	if l.budget < 0 && !l.tooBig {
		l.tooBig = true
		l.errorf(at, pos, "program too large: more than %d operations after inlining calls", maxLowered)
	}
}

func (l *lowerer) lower() (*ir.Program, ErrorList) {
	l.collect()
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	main := l.funcs["main"]
	if main == nil {
		l.errorf(nil, ir.Pos{}, "no function main: kbmc runs a C program from main")
		return nil, l.errs
	}
	l.scanTaken()
	l.scanAtomic()
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	mt := &ir.Template{Name: "main", Pos: l.posOf(main.Declarator)}
	l.prog.Templates = append(l.prog.Templates, mt)
	b := l.newBuilder(mt, main, nil)
	b.body(main, nil)
	// Pools grow as the code that creates their threads is lowered, the
	// threads' own code included, until every pool has the slots its creators
	// can start (or maxPool).
	for changed := true; changed && len(l.errs) == 0 && !l.tooBig; {
		changed = false
		for i := 0; i < len(l.poolList); i++ {
			pi := l.poolList[i]
			for len(pi.pool.Slots) < min(pi.need, maxPool) && !l.tooBig {
				l.slot(pi)
				changed = true
			}
		}
	}
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	l.foldSpawns(mt)
	l.initStep(mt, main)
	l.checkSize()
	return l.prog, l.errs
}

// initStep runs the initializers of globals that hold addresses (known only
// once every object exists) before main's first operation, as one atomic
// step: C initializes static storage before the program starts.
func (l *lowerer) initStep(mt *ir.Template, main *cc.FunctionDefinition) {
	if len(l.inits) == 0 {
		return
	}
	b := l.newBuilder(mt, main, nil)
	b.frame = &frame{vars: map[*cc.Declarator]*local{}}
	entry := len(mt.Nodes)
	b.open = []*int{&entry}
	b.atomic, b.cutNext = 1, true
	for i := 0; i < len(l.inits); i++ {
		in := l.inits[i]
		b.begin(in.expr, in.g.name+" = "+l.text(in.expr))
		t := in.g.lay.cells[in.cell].typ
		b.hint = in.g.decl.Type()
		x := b.convert(b.rv(in.expr), in.expr.Type(), nil, t)
		b.hint = nil
		b.assign(b.cellLV(in.g.v, constant(ir.I64, int64(in.cell)), t), x)
	}
	old := mt.Entry
	mt.Nodes[old].Cut = true
	b.patch(b.open, old)
	mt.Entry = entry
	mt.Nodes[entry].Cut = true
}

// collect finds the functions and global variables.
func (l *lowerer) collect() {
	for tu := l.ast.TranslationUnit; tu != nil; tu = tu.TranslationUnit {
		ed := tu.ExternalDeclaration
		switch ed.Case {
		case cc.ExternalDeclarationFuncDef:
			fd := ed.FunctionDefinition
			if _, ok := fd.Declarator.Type().(*cc.FunctionType); !ok {
				l.errorf(fd.Declarator, ir.Pos{}, "%s: a function definition without a function type", fd.Declarator.Name())
				continue
			}
			l.funcs[fd.Declarator.Name()] = fd
		case cc.ExternalDeclarationDecl:
			d := ed.Declaration
			if d.Case != cc.DeclarationDecl {
				continue
			}
			for list := d.InitDeclaratorList; list != nil; list = list.InitDeclaratorList {
				id := list.InitDeclarator
				dr := id.Declarator
				if dr.IsTypename() || dr.Type().Kind() == cc.Function {
					continue
				}
				g := l.globals[dr.Name()]
				if g == nil {
					g = &global{name: dr.Name(), decl: dr}
					l.globals[dr.Name()] = g
				}
				if id.Initializer != nil {
					g.decl, g.init = dr, id.Initializer
				} else if dr.IsExtern() && g.decl == dr {
					// extern int x; with no definition: a tentative one.
				}
			}
		case cc.ExternalDeclarationAsmStmt:
			l.errorf(ed, ir.Pos{}, "inline assembly is not supported")
		}
	}
}

// posOf is a cc node's position in the user's file (zero in a header).
func (l *lowerer) posOf(n cc.Node) ir.Pos {
	p, _ := l.lines.node(n)
	return p
}

// globalVar returns the global called name, creating its variable when the
// program first uses it (a header's many declarations become no state).
func (l *lowerer) globalVar(name string) *global {
	g := l.globals[name]
	if g == nil {
		return nil
	}
	if g.v == nil && g.lay == nil {
		l.makeGlobal(g, name, l.takenNames[name])
		if g.v == nil {
			g.lay = &layout{} // failed: reported once
		}
	}
	return g
}

// threadCopy is thread template t's own copy of g, a thread-local global
// (__thread, _Thread_local), made when t first uses it: every thread has its
// own, initialized as g is. A copy is a variable like any global, so a
// pointer to it may reach another thread, as C allows, and a race on it is
// a race. One variable for all threads would let one thread's store reach
// another's reads: a wrong answer either way.
func (l *lowerer) threadCopy(g *global, t *ir.Template, addressable bool) *global {
	key := threadGlobal{g, t}
	if c := l.copies[key]; c != nil {
		return c
	}
	c := &global{name: g.name + "@" + t.Name, decl: g.decl, init: g.init, copy: true}
	l.copies[key] = c
	l.makeGlobal(c, c.name, addressable)
	if c.v == nil {
		c.lay = &layout{} // failed: reported once
	}
	return c
}

// makeGlobal creates the variable of a global (or static local).
func (l *lowerer) makeGlobal(g *global, name string, addressable bool) {
	if g.decl.IsThreadLocal() && !g.copy {
		// Its threads' copies are made where they use it (threadCopy).
		g.lay = &layout{}
		return
	}
	lo, err := l.layoutOf(g.decl.Type())
	if err != nil {
		l.errorf(g.decl, ir.Pos{}, "global %s: %v", g.name, err)
		return
	}
	g.lay = lo
	v := &ir.Var{Name: name, Type: lo.cells[0].typ, Shared: true, Pos: l.posOf(g.decl), Addressable: addressable,
		CellTypes: lo.types(), CellNames: lo.names(name), AtomicCells: lo.atomics(g.decl.IsAtomic())}
	if lo.n() > 1 || lo.cells[0].name != "" {
		v.Len = lo.n()
	}
	g.v = v
	l.prog.Shared = append(l.prog.Shared, v)
	if g.init != nil {
		v.Init = make([]int64, lo.n())
		l.staticInit(g, g.init)
	}
}

// staticInit evaluates a global's initializer into its Init cells: constant
// scalars directly; an address (the pointer to an object, a string) later, in
// main's first step.
func (l *lowerer) staticInit(g *global, in *cc.Initializer) {
	if g.lay.inOpaque(in.Offset()) {
		return // a pthread object's initializer: its cell starts at zero
	}
	switch in.Case {
	case cc.InitializerExpr:
		c := g.lay.cellAt(in.Offset())
		if c < 0 {
			l.errorf(in, ir.Pos{}, "initializer of %s: no scalar at byte %d", g.name, in.Offset())
			return
		}
		if isStringInit(in, g.lay.cells[c].typ) {
			l.stringInit(g, c, in)
			return
		}
		if v, ok := constValue(in.AssignmentExpression); ok {
			g.v.Init[c] = ir.Convert(g.lay.cells[c].typ, 64, v)
			return
		}
		l.inits = append(l.inits, pendingInit{g: g, cell: c, expr: in.AssignmentExpression})
	case cc.InitializerInitList:
		for list := in.InitializerList; list != nil; list = list.InitializerList {
			if list.Initializer != nil {
				l.staticInit(g, list.Initializer)
			}
		}
	}
}

// isStringInit reports whether in is a string literal initializing a char
// array cell by cell (char s[] = "abc").
func isStringInit(in *cc.Initializer, t ir.Type) bool {
	if t == ir.Ptr {
		return false
	}
	_, ok := in.AssignmentExpression.Value().(cc.StringValue)
	return ok && in.Type().Kind() == cc.Array
}

// stringInit copies a string literal into a char array's cells, from cell c.
func (l *lowerer) stringInit(g *global, c int, in *cc.Initializer) {
	s := string(in.AssignmentExpression.Value().(cc.StringValue))
	for i := 0; i < len(s) && c+i < len(g.v.Init); i++ {
		g.v.Init[c+i] = ir.Convert(g.lay.cells[c+i].typ, 64, int64(s[i]))
	}
}

// constValue is the value of a constant integer expression.
func constValue(e cc.ExpressionNode) (int64, bool) {
	if e == nil {
		return 0, false
	}
	switch v := e.Value().(type) {
	case cc.Int64Value:
		return int64(v), true
	case cc.UInt64Value:
		return int64(v), true
	}
	return 0, false
}

// slot lowers one more thread of a pool.
func (l *lowerer) slot(pi *poolInfo) {
	i := len(pi.pool.Slots)
	name := fmt.Sprintf("%s[%d]", pi.pool.Name, i)
	start := &ir.Var{Name: name + "$start", Type: ir.Int, Len: ir.StartCells, Shared: true,
		CellTypes: []ir.Type{ir.Int, ir.Ptr, ir.Ptr},
		CellNames: []string{name + ".started", name + ".arg", name + ".result"}, Pos: l.posOf(pi.fn.Declarator)}
	l.prog.Shared = append(l.prog.Shared, start)
	t := &ir.Template{Name: name, Pos: l.posOf(pi.fn.Declarator), Start: start}
	pi.pool.Slots = append(pi.pool.Slots, t)
	l.prog.Templates = append(l.prog.Templates, t)
	b := l.newBuilder(t, pi.fn, start)
	b.body(pi.fn, start)
}

// poolOf returns the pool of start routine fn, creating it.
func (l *lowerer) poolOf(fn *cc.FunctionDefinition) *poolInfo {
	if pi := l.pools[fn]; pi != nil {
		return pi
	}
	pi := &poolInfo{fn: fn, pool: &ir.Pool{Name: fn.Declarator.Name()}}
	if l.cfg.Phantoms {
		ov := &ir.Var{Name: pi.pool.Name + "$phantoms", Type: ir.Int, Len: ir.OverflowCells, Shared: true, Pos: l.posOf(fn.Declarator)}
		l.prog.Shared = append(l.prog.Shared, ov)
		pi.pool.Overflow = ov
	}
	l.pools[fn] = pi
	l.poolList = append(l.poolList, pi)
	l.prog.Pools = append(l.prog.Pools, pi.pool)
	return pi
}

// stringObject returns the object holding a string literal (one per distinct
// string), as a char array with its terminating zero.
func (l *lowerer) stringObject(s string, pos ir.Pos) *ir.Var {
	if v := l.strs[s]; v != nil {
		return v
	}
	init := make([]int64, len(s)+1)
	for i := range len(s) {
		init[i] = int64(int8(s[i]))
	}
	v := &ir.Var{Name: fmt.Sprintf("%q", s), Type: ir.I8, Len: len(s) + 1, Shared: true, Addressable: true,
		Init: init, Pos: pos}
	l.strs[s] = v
	l.prog.Shared = append(l.prog.Shared, v)
	return v
}

// checkSize rejects a program whose state would exceed ir's limit, with an
// input error rather than Finish's internal one.
func (l *lowerer) checkSize() {
	cells := 0
	for _, v := range l.prog.Shared {
		cells += v.Cells()
	}
	for _, t := range l.prog.Templates {
		frame := 1
		for _, v := range t.Locals {
			frame += v.Cells()
		}
		cells += frame
		if cells > ir.MaxStateCells || len(l.prog.Templates) > ir.MaxThreads {
			l.errorf(nil, t.Pos, "program too large: its state needs more than %d cells or %d threads", ir.MaxStateCells, ir.MaxThreads)
			return
		}
	}
}

// funcName is the name a call's callee designates, or "" for a call through a
// pointer.
func funcName(e cc.ExpressionNode) string {
	e = stripParens(e)
	if p, ok := e.(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		return p.Token.SrcStr()
	}
	return ""
}

// stripParens removes parentheses and the casts that do not change a function
// designator or a pointer's value.
func stripParens(e cc.ExpressionNode) cc.ExpressionNode {
	for {
		switch x := e.(type) {
		case *cc.PrimaryExpression:
			if x.Case == cc.PrimaryExpressionExpr {
				e = x.ExpressionList
				continue
			}
		case *cc.ExpressionList:
			if x.ExpressionList == nil {
				e = x.AssignmentExpression
				continue
			}
		}
		return e
	}
}

// text is the source text of a cc node, one line, for traces: for a
// preprocessed .c file, the line of the user's source it comes from (its
// macros unexpanded), else the node's tokens.
func (l *lowerer) text(n cc.Node) string {
	var s string
	if p, ok := l.lines.node(n); ok && l.lines.to != nil {
		s = strings.TrimSpace(sourceLine(l.src, p.Line))
	} else {
		s = strings.Join(strings.Fields(cc.NodeSource(n)), " ")
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
