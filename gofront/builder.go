package gofront

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// builder lowers the code of one goroutine: its function and, inlined, every
// function it calls.
type builder struct {
	l *lowerer
	t *ir.Template

	// open holds the successor fields (Next or Else of emitted nodes) that
	// must point at whatever node comes next. Empty means the current point
	// is unreachable.
	open []*int
	// atomic is the nesting of atomic sections (a modelled operation made of
	// several nodes); cutNext says that the next node begins one.
	atomic  int
	cutNext bool

	frame *frame
	start *ir.Var // the goroutine's start cells; nil for the entry goroutine
	names map[string]int
	pos   ir.Pos
	text  string
	// resultFunc is the function value the last inlined call returned,
	// when it is one kbmc follows.
	resultFunc *closure
	curBlock   *ssa.BasicBlock // the block being lowered
	curInstr   ssa.Instruction // the instruction being lowered
	// speculative counts the dispatch branches being lowered (a call of a
	// function value or through an interface may be of several functions).
	speculative int
}

// frame is one inlined function.
type frame struct {
	fn     *ssa.Function
	parent *frame
	vals   map[ssa.Value][]*ir.Expr
	funcs  map[ssa.Value]*closure
	phis   map[*ssa.Phi][]*ir.Var
	entry  map[*ssa.BasicBlock]int
	edges  []pendingEdge
	// results are the cells of the returned values; returns the edges of
	// the return statements lowered so far.
	results []*ir.Var
	returns []*int
	// resultFunc: every return so far returned this followed function
	// value; conflict: returns differ.
	resultFunc *closure
	conflict   bool
	// loopy: the frame's code may run more than once in its goroutine
	// (it is inlined inside a loop); cyclic the blocks on a cycle of the
	// function's own control flow.
	loopy  bool
	cyclic map[*ssa.BasicBlock]bool
	defers []*deferSite
	// protected: a function of the frame or of a frame it is inlined into
	// defers a call that recovers, so a panic here may be stopped
	// (ir.Node.Recoverable).
	protected bool
}

type pendingEdge struct {
	at *int
	to *ssa.BasicBlock
}

// closure is a function value kbmc follows statically: the function and the
// values of its free variables.
type closure struct {
	fn       *ssa.Function
	bindings [][]*ir.Expr
	funcs    []*closure // the free variables that are function values kbmc follows
	// builtin names a modelled function value (fn is nil): context's
	// cancel functions.
	builtin string
	// parts, for a call's tuple, are the function values of its results.
	parts []*closure
}

// deferSite is a defer statement of a frame: a flag set when it runs, and
// its call's values, taken when it runs.
type deferSite struct {
	call *ssa.CallCommon
	flag *ir.Var
	args [][]*ir.Expr
	fn   *closure
	lib  string // a modelled library call
	pos  ir.Pos
	text string
}

func (l *lowerer) newBuilder(t *ir.Template, start *ir.Var) *builder {
	return &builder{l: l, t: t, start: start, names: map[string]int{}}
}

func (b *builder) errorf(format string, args ...any) { b.l.errorf(b.pos, format, args...) }

func (b *builder) patch(edges []*int, target int) {
	for _, e := range edges {
		*e = target
	}
}

func (b *builder) reachable() bool { return len(b.open) > 0 }

// emit appends a node at the current point and makes it the new current
// point. A node that touches memory other goroutines may reach, or may
// block, begins a step of its own unless it is inside an atomic section; the
// first node of an atomic section always does.
func (b *builder) emit(n *ir.Node) *ir.Node {
	idx := len(b.t.Nodes)
	b.patch(b.open, idx)
	n.Atomic = b.atomic > 0
	n.Recoverable = b.frame != nil && b.frame.protected
	if n.Pos == (ir.Pos{}) {
		n.Pos = b.pos
	}
	if n.Text == "" {
		n.Text = b.text
	}
	n.Next, n.Else = ir.Exit, ir.Exit
	if b.cutNext || b.atomic == 0 && (n.Visible() || b.l.cfg.NoFold) {
		n.Cut = true
	}
	b.cutNext = false
	b.t.Nodes = append(b.t.Nodes, n)
	b.open = []*int{&n.Next}
	b.l.spend(1, b.pos)
	return n
}

// beginAtomic starts an atomic section: the nodes up to endAtomic are one
// step, which begins at the first of them.
func (b *builder) beginAtomic() {
	if b.atomic == 0 {
		b.cutNext = true
	}
	b.atomic++
}

func (b *builder) endAtomic() { b.atomic-- }

// at makes instr the statement whose nodes are being emitted.
func (b *builder) at(p ir.Pos) {
	if p == (ir.Pos{}) {
		return
	}
	b.pos = p
	b.text = strings.TrimSpace(sourceLine(b.l.src.text[b.l.src.fileOf(p)], p.Line))
	if i := strings.Index(b.text, "//"); i > 0 {
		b.text = strings.TrimSpace(b.text[:i])
	}
}

// newLocal adds a goroutine-local variable, named uniquely within the
// template.
func (b *builder) newLocal(name string, t ir.Type) *ir.Var {
	b.names[name]++
	if n := b.names[name]; n > 1 {
		name = fmt.Sprintf("%s#%d", name, n)
	}
	v := &ir.Var{Name: name, Type: t, Pos: b.pos}
	b.t.Locals = append(b.t.Locals, v)
	return v
}

func (b *builder) temp(t ir.Type) *ir.Var { return b.newLocal("$t", t) }

// cellLocal adds a local for a cell of a layout, marked when it holds a
// channel value (ir.Var.ChanCells).
func (b *builder) cellLocal(name string, c cellInfo) *ir.Var {
	v := b.newLocal(name, c.typ)
	if c.chanVal {
		v.ChanCells = []bool{true}
	}
	return v
}

func constant(t ir.Type, v int64) *ir.Expr {
	return &ir.Expr{Op: ir.EConst, Type: t, Val: ir.Convert(t, 64, v)}
}

func varRef(v *ir.Var) *ir.Expr { return &ir.Expr{Op: ir.EVar, Type: v.Type, Var: v, Pos: v.Pos} }

func (b *builder) assign(v *ir.Var, x *ir.Expr) {
	b.emit(&ir.Node{Op: ir.OpAssign, LHS: &ir.LValue{Var: v, Type: v.Type, Pos: b.pos}, X: x})
}

// hold returns x, or a local holding its value when x is more than a
// constant or a local: every SSA value is computed once, where it is
// defined.
func (b *builder) hold(x *ir.Expr) *ir.Expr {
	if x.Op == ir.EConst || x.Op == ir.EVar && !x.Var.Shared {
		return x
	}
	t := b.temp(x.Type)
	b.assign(t, x)
	return varRef(t)
}

// define binds an instruction's value to its cells.
func (b *builder) define(v ssa.Value, cells []*ir.Expr) {
	for i, c := range cells {
		cells[i] = b.hold(c)
	}
	b.frame.vals[v] = cells
}

// layout is the layout of t; an unsupported type is an error at the current
// position.
func (b *builder) layout(t types.Type) *layout {
	lo, err := b.l.layoutOf(t)
	if err != nil {
		b.errorf("%v", err)
		return scalar(ir.I64)
	}
	return lo
}

// zero is the zero value of t, cell by cell.
func (b *builder) zero(t types.Type) []*ir.Expr {
	if t == nil {
		return nil
	}
	lo := b.layout(t)
	cells := make([]*ir.Expr, lo.n())
	for i, c := range lo.cells {
		cells[i] = constant(c.typ, 0)
	}
	return cells
}

// entry lowers the entry goroutine: the package's initialization, then the
// entry function.
func (b *builder) entry(fn *ssa.Function) {
	b.at(b.l.pos(fn.Pos()))
	b.t.Entry = 0
	// Go initializes a package before main runs, in one goroutine: one
	// step with the entry's first.
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	if init := b.l.pkg.Func("init"); init != nil && len(init.Blocks) > 0 {
		b.inline(init, nil, nil, nil, false)
	}
	b.endAtomic()
	var args [][]*ir.Expr
	if fn.Signature.Params().Len() == 1 {
		args = [][]*ir.Expr{{constant(ir.I64, 1)}} // t *testing.T: not nil
	}
	b.at(b.l.pos(fn.Pos()))
	b.inline(fn, args, nil, nil, false)
	b.patch(b.open, ir.Exit)
	b.open = nil
}

// goroutine lowers one slot of a pool: it starts, receives its arguments and
// runs the pool's function.
func (b *builder) goroutine(pi *poolInfo, args *ir.Var) {
	fn := pi.fn
	if fn != nil {
		b.at(b.l.pos(fn.Pos()))
	}
	b.t.Entry = 0
	cells := make([]*ir.Expr, pi.args.n())
	b.beginAtomic()
	st := &ir.Node{Op: ir.OpStart}
	if args == nil && len(cells) == 1 {
		v := b.newLocal("$arg", pi.args.cells[0].typ)
		st.LHS = &ir.LValue{Var: v, Type: v.Type, Pos: b.pos}
		cells[0] = varRef(v)
	}
	b.emit(st)
	if args != nil {
		for i, c := range pi.args.cells {
			v := b.newLocal("$arg"+c.name, c.typ)
			b.assign(v, &ir.Expr{Op: ir.EIndex, Type: c.typ, Var: args, X: constant(ir.I64, int64(i)), Pos: b.pos})
			cells[i] = varRef(v)
		}
	}
	b.endAtomic()
	if pi.body != nil {
		pi.body(b, cells)
		b.patch(b.open, ir.Exit)
		b.open = nil
		return
	}
	// The cells are the parameters, then the free variables.
	var params, bindings [][]*ir.Expr
	k := 0
	take := func(t types.Type) []*ir.Expr {
		n := b.layout(t).n()
		c := cells[k : k+n]
		k += n
		return c
	}
	for _, p := range fn.Params {
		params = append(params, take(p.Type()))
	}
	for _, fv := range fn.FreeVars {
		bindings = append(bindings, take(fv.Type()))
	}
	b.inline(fn, params, nil, &closure{fn: fn, bindings: bindings}, false)
	b.patch(b.open, ir.Exit)
	b.open = nil
}

// inline lowers a call of one of the program's functions at the current
// point: its blocks, with its parameters bound to args and its free
// variables to the closure's bindings. It returns the result's cells.
func (b *builder) inline(fn *ssa.Function, args [][]*ir.Expr, fargs []*closure, cl *closure, loopy bool) []*ir.Expr {
	if b.onStack(fn) {
		if b.speculative > 0 {
			// A branch of a dispatch over function values or types, which
			// may never run: the run stops as unsupported if it does.
			b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
				Msg: "a recursive call of " + fn.Name() + ": not supported (calls are inlined)"})
			return b.zero(resultType(fn))
		}
		b.errorf("recursive call of %s: not supported (calls are inlined)", fn.Name())
		return b.zero(resultType(fn))
	}
	if len(fn.Blocks) == 0 {
		b.errorf("call of %s: not supported (no Go source for it; docs/go.md lists the library calls kbmc models)", fn)
		return b.zero(resultType(fn))
	}
	f := &frame{fn: fn, parent: b.frame, vals: map[ssa.Value][]*ir.Expr{}, funcs: map[ssa.Value]*closure{},
		phis: map[*ssa.Phi][]*ir.Var{}, entry: map[*ssa.BasicBlock]int{}, cyclic: cyclicBlocks(fn)}
	f.loopy = loopy || b.frame != nil && b.frame.loopy
	f.protected = b.frame != nil && b.frame.protected || b.l.defersRecover(fn)
	for i, p := range fn.Params {
		if i < len(args) {
			f.vals[p] = args[i]
		}
	}
	if cl != nil {
		for i, fv := range fn.FreeVars {
			if i < len(cl.bindings) {
				f.vals[fv] = cl.bindings[i]
			}
		}
	}
	// Function values passed in are followed into the callee.
	for i, p := range fn.Params {
		if i < len(fargs) && fargs[i] != nil {
			f.funcs[p] = fargs[i]
		}
	}
	if cl != nil {
		for i, fv := range fn.FreeVars {
			if i < len(cl.funcs) && cl.funcs[i] != nil {
				f.funcs[fv] = cl.funcs[i]
			}
		}
	}
	rt := resultType(fn)
	if rt != nil {
		for i, c := range b.layout(rt).cells {
			f.results = append(f.results, b.cellLocal(fmt.Sprintf("%s$r%d", fn.Name(), i), c))
		}
	}
	saved := b.frame
	b.frame = f
	enter := b.open
	for _, bb := range fn.DomPreorder() {
		b.open = nil
		if bb == fn.Blocks[0] {
			b.open = enter // the call continues into the entry block
		}
		b.block(bb)
		if b.l.tooBig {
			break
		}
	}
	for _, e := range f.edges {
		idx, ok := f.entry[e.to]
		if !ok {
			b.errorf("internal error: block %d of %s not lowered", e.to.Index, fn.Name())
			continue
		}
		*e.at = idx
	}
	b.frame = saved
	b.open = f.returns
	b.resultFunc = nil
	if !f.conflict {
		b.resultFunc = f.resultFunc
	}
	res := make([]*ir.Expr, len(f.results))
	for i, v := range f.results {
		res[i] = varRef(v)
	}
	return res
}

// resultType is the type of fn's result: nil, its one result, or a tuple.
func resultType(fn *ssa.Function) types.Type {
	r := fn.Signature.Results()
	switch r.Len() {
	case 0:
		return nil
	case 1:
		return r.At(0).Type()
	}
	return r
}

// cyclicBlocks returns the blocks of fn that lie on a cycle: code that may
// run more than once per call.
func cyclicBlocks(fn *ssa.Function) map[*ssa.BasicBlock]bool {
	cyc := map[*ssa.BasicBlock]bool{}
	for _, bb := range fn.Blocks {
		seen := map[*ssa.BasicBlock]bool{}
		stack := append([]*ssa.BasicBlock(nil), bb.Succs...)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x == bb {
				cyc[bb] = true
				break
			}
			if !seen[x] {
				seen[x] = true
				stack = append(stack, x.Succs...)
			}
		}
	}
	return cyc
}

// loopHeader reports whether bb is the target of a back edge: its first node
// must begin a step, so that no step runs a loop.
func loopHeader(bb *ssa.BasicBlock) bool {
	for _, p := range bb.Preds {
		if bb.Dominates(p) {
			return true
		}
	}
	return false
}

// runsOnce reports whether the instructions of block bb run at most once per
// goroutine: neither the block nor the calls that inlined it are in a loop.
func (b *builder) runsOnce(bb *ssa.BasicBlock) bool {
	return !b.frame.loopy && !b.frame.cyclic[bb]
}

// block lowers one basic block.
func (b *builder) block(bb *ssa.BasicBlock) {
	b.curBlock = bb
	n := b.emit(&ir.Node{Op: ir.OpNop})
	b.frame.entry[bb] = len(b.t.Nodes) - 1
	if loopHeader(bb) {
		n.Cut = true
	}
	for _, in := range bb.Instrs {
		if p := b.l.pos(in.Pos()); p != (ir.Pos{}) {
			b.at(p)
		}
		b.curInstr = in
		b.instr(in)
		if !b.reachable() || b.l.tooBig {
			return
		}
	}
}

// edge leaves the current block for succ: the phis of succ take their values
// for this edge (all at once), then control goes to succ.
func (b *builder) edge(from, succ *ssa.BasicBlock) {
	k := -1
	for i, p := range succ.Preds {
		if p == from {
			k = i
			break
		}
	}
	var phis []*ssa.Phi
	for _, in := range succ.Instrs {
		phi, ok := in.(*ssa.Phi)
		if !ok {
			break
		}
		phis = append(phis, phi)
	}
	if len(phis) > 0 && k >= 0 {
		dsts := make([][]*ir.Var, len(phis))
		srcs := make([][]*ir.Expr, len(phis))
		written := map[*ir.Var]bool{}
		for i, phi := range phis {
			dsts[i] = b.phiVars(phi)
			srcs[i] = b.value(phi.Edges[k])
			for _, v := range dsts[i] {
				written[v] = true
			}
		}
		// A source that reads a phi of the same block must see its old
		// value: then every source goes through a temporary first.
		clash := false
		for _, s := range srcs {
			for _, x := range s {
				if ir.Any(x, func(e *ir.Expr) bool { return e.Op == ir.EVar && written[e.Var] }) {
					clash = true
				}
			}
		}
		if clash {
			for i := range srcs {
				for j, x := range srcs[i] {
					if x.Op != ir.EConst {
						t := b.temp(x.Type)
						b.assign(t, x)
						srcs[i][j] = varRef(t)
					}
				}
			}
		}
		for i := range phis {
			for j, v := range dsts[i] {
				if x := srcs[i][j]; !(x.Op == ir.EVar && x.Var == v) {
					b.assign(v, x)
				}
			}
		}
	}
	for _, e := range b.open {
		b.frame.edges = append(b.frame.edges, pendingEdge{at: e, to: succ})
	}
	b.open = nil
}

// phiVars are the locals of a phi's cells.
func (b *builder) phiVars(phi *ssa.Phi) []*ir.Var {
	if vs, ok := b.frame.phis[phi]; ok {
		return vs
	}
	lo := b.layout(phi.Type())
	name := phi.Comment
	if name == "" {
		name = phi.Name()
	} else {
		name = strings.TrimPrefix(name, "#")
	}
	vs := make([]*ir.Var, lo.n())
	for i, c := range lo.cells {
		vs[i] = b.cellLocal(name+c.name, c)
	}
	b.frame.phis[phi] = vs
	return vs
}

// value returns the cells of an SSA value.
func (b *builder) value(v ssa.Value) []*ir.Expr {
	switch v := v.(type) {
	case *ssa.Const:
		return b.constValue(v)
	case *ssa.Global:
		return []*ir.Expr{{Op: ir.EAddr, Type: ir.Ptr, Var: b.l.global(v), Pos: b.pos}}
	case *ssa.Function:
		return []*ir.Expr{b.l.funcObject(v)}
	case *ssa.Phi:
		vs := b.phiVars(v)
		cells := make([]*ir.Expr, len(vs))
		for i, x := range vs {
			cells[i] = varRef(x)
		}
		return cells
	}
	if cells, ok := b.frame.vals[v]; ok {
		return cells
	}
	b.errorf("internal error: value %s (%T) used before it is defined", v.Name(), v)
	return b.zero(v.Type())
}

// scalarValue is the one cell of a scalar value.
func (b *builder) scalarValue(v ssa.Value) *ir.Expr { return b.value(v)[0] }

// constValue is the cells of a constant.
func (b *builder) constValue(c *ssa.Const) []*ir.Expr {
	if c.Value == nil {
		return b.zero(c.Type())
	}
	lo := b.layout(c.Type())
	t := lo.cells[0].typ
	switch bt := c.Type().Underlying().(type) {
	case *types.Basic:
		switch {
		case bt.Info()&types.IsBoolean != 0:
			if c.Value.String() == "true" {
				return []*ir.Expr{constant(ir.Bool, 1)}
			}
			return []*ir.Expr{constant(ir.Bool, 0)}
		case bt.Info()&types.IsInteger != 0:
			if t == ir.U64 {
				return []*ir.Expr{constant(t, int64(c.Uint64()))}
			}
			return []*ir.Expr{constant(t, c.Int64())}
		case bt.Info()&types.IsString != 0:
			return []*ir.Expr{constant(ir.I64, b.l.stringToken(c.Value.ExactString()))}
		}
	}
	b.errorf("constant %s of type %s is not supported", c.Value, c.Type())
	return b.zero(c.Type())
}
