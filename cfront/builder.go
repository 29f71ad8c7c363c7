package cfront

import (
	"fmt"

	"modernc.org/cc/v4"

	"kbmc/ir"
)

// builder lowers the code of one thread: its start routine and, inlined, every
// function it calls.
type builder struct {
	l *lowerer
	t *ir.Template

	// open holds the successor fields (Next or Else of emitted nodes) that must
	// point at whatever node comes next. Empty means the current point is
	// unreachable.
	open []*int

	// atomic is the nesting of atomic sections; cutNext says that the next
	// node begins one (a cut point, where its transition starts).
	atomic  int
	cutNext bool
	// loopExit is a stack of the exit edges of the loop heads being lowered.
	loopExit []*int
	// foldStart: the created thread's start has been emitted, and no branch
	// or cut point since (see emit).
	foldStart bool
	// loopCuts are the nodes made cut points because they head a loop (see
	// foldLoopHeads).
	loopCuts []int
	// uninits are the scalar locals declared without a value (see uninit).
	uninits []uninitDecl
	// hint is the type the value being lowered is wanted as (an assignment's
	// target, say): a malloc takes its element type from it.
	hint cc.Type

	frame *frame
	cur   stmtInfo
	// trip is how many times the code being lowered may run in one thread:
	// the trip counts of the loops around it multiplied (a loop cfront cannot
	// count stands for the configured bound). Pools are sized from it.
	trip  int
	names map[string]int
	temps map[*ir.Var]bool // temporaries: each assigned once
	start *ir.Var          // the created thread's start cells; nil for main
}

// stmtInfo is the source statement whose nodes are being emitted.
type stmtInfo struct {
	pos  ir.Pos
	text string
	node cc.Node
}

// frame is one inlined function (the thread's start routine at the bottom).
type frame struct {
	fn      *cc.FunctionDefinition
	parent  *frame
	vars    map[*cc.Declarator]*local
	result  *ir.Var // the returned value; nil for void
	resultT cc.Type
	// elemHint is what a malloc in a function returning void * allocates:
	// the pointer type its caller wants the call's value as ((T *)
	// safe_malloc(n)), which the function's own void *p = malloc(n) cannot
	// say (see alloc). Nil when the caller wants no typed pointer.
	elemHint cc.Type
	returns  []*int
	loop     *loopCtx
	labels   map[string]int
	gotos    map[string][]*int
	gotoAt   map[string]cc.Node
	// top: returning from this frame ends the thread.
	top    bool
	atomic int // the builder's atomic nesting when the frame began
}

// loopCtx is the innermost loop or switch of a frame: where break and
// continue go.
type loopCtx struct {
	parent    *loopCtx
	breaks    []*int
	continues []*int
	isSwitch  bool
}

// local is a C local variable: a frame variable, or an object (a shared
// variable) when its address is taken.
type local struct {
	v   *ir.Var
	lay *layout
	typ cc.Type
}

func (l *lowerer) newBuilder(t *ir.Template, fn *cc.FunctionDefinition, start *ir.Var) *builder {
	return &builder{l: l, t: t, trip: 1, names: map[string]int{}, temps: map[*ir.Var]bool{}, start: start,
		cur: stmtInfo{pos: l.posOf(fn.Declarator), text: fn.Declarator.Name(), node: fn.Declarator}}
}

// errorf records an input error at a cc node, or at the current statement.
func (b *builder) errorf(n cc.Node, format string, args ...any) {
	b.l.errorf(n, b.cur.pos, format, args...)
}

func (b *builder) patch(edges []*int, target int) {
	for _, e := range edges {
		*e = target
	}
}

func (b *builder) reachable() bool { return len(b.open) > 0 }

// emit appends a node at the current point and makes it the new current point.
// A node that touches memory other threads may reach, or may block, begins a
// transition of its own (DESIGN: a C statement is not atomic), unless it is
// inside an atomic section; the first node of an atomic section always does.
func (b *builder) emit(n *ir.Node) *ir.Node {
	idx := len(b.t.Nodes)
	b.patch(b.open, idx)
	n.Atomic = b.atomic > 0
	if n.Pos == (ir.Pos{}) {
		n.Pos = b.cur.pos
	}
	n.Text = b.cur.text
	n.Next, n.Else = ir.Exit, ir.Exit
	if b.cutNext || b.atomic == 0 && n.Visible() {
		n.Cut = true
	}
	if b.foldStart {
		// The first step of a created thread after its start: the start
		// waits only for the cells its pthread_create set for good, so once
		// it is enabled it is independent of every other thread's step, and
		// joins the step after it (if that step cannot block, which would
		// leave the thread stuck in the middle of a transition).
		switch {
		case n.Cut && !b.cutNext && b.atomic == 0 && !n.Op.Props().Blocks && n.Op != ir.OpStart:
			n.Cut = false
			b.foldStart = false
		case n.Cut && n.Op != ir.OpStart, n.Op == ir.OpBranch:
			b.foldStart = false
		}
	}
	b.cutNext = false
	b.t.Nodes = append(b.t.Nodes, n)
	b.open = []*int{&n.Next}
	b.l.spend(1, b.cur.node, b.cur.pos)
	return n
}

// begin starts the nodes of one statement (or condition); end makes its first
// node a cut point under --no-fold.
func (b *builder) begin(n cc.Node, text string) int {
	pos, ok := b.l.lines.node(n)
	if !ok {
		pos = b.cur.pos // a header's code, inlined: the call's position
	}
	b.cur = stmtInfo{pos: pos, text: text, node: n}
	return len(b.t.Nodes)
}

func (b *builder) end(start int) {
	if b.l.cfg.NoFold && b.atomic == 0 && start < len(b.t.Nodes) {
		b.t.Nodes[start].Cut = true
	}
}

// newVar adds a frame variable to the template, named uniquely within it.
func (b *builder) newVar(name string, lo *layout) *ir.Var {
	b.names[name]++
	if n := b.names[name]; n > 1 {
		name = fmt.Sprintf("%s#%d", name, n)
	}
	v := &ir.Var{Name: name, Type: lo.cells[0].typ, CellTypes: lo.types(), CellNames: lo.names(name), Pos: b.cur.pos}
	if lo.n() > 1 || lo.cells[0].name != "" {
		v.Len = lo.n()
	}
	b.t.Locals = append(b.t.Locals, v)
	return v
}

// temp is a fresh frame variable of a scalar type.
func (b *builder) temp(t ir.Type) *ir.Var {
	v := b.newVar("$t", &layout{cells: []cellInfo{{typ: t}}})
	b.temps[v] = true
	return v
}

// object is a fresh shared variable for a local whose address is taken: one
// per thread, since each thread has code of its own.
func (b *builder) object(name string, lo *layout) *ir.Var {
	name = b.t.Name + "::" + name
	b.names[name]++
	if n := b.names[name]; n > 1 {
		name = fmt.Sprintf("%s#%d", name, n)
	}
	v := &ir.Var{Name: name, Type: lo.cells[0].typ, Shared: true, Addressable: true,
		CellTypes: lo.types(), CellNames: lo.names(name), AtomicCells: lo.atomics(false), Pos: b.cur.pos}
	if lo.n() > 1 || lo.cells[0].name != "" {
		v.Len = lo.n()
	}
	b.l.prog.Shared = append(b.l.prog.Shared, v)
	return v
}

// declare creates the variable of a local declarator in the current frame.
func (b *builder) declare(d *cc.Declarator) *local {
	lo, err := b.l.layoutOf(d.Type())
	if err != nil {
		b.errorf(d, "local %s: %v", d.Name(), err)
		lo = &layout{cells: []cellInfo{{typ: ir.I32}}}
	}
	name := d.Name()
	if !b.frame.top && b.frame.fn != nil {
		name = b.frame.fn.Declarator.Name() + "::" + name // inlined
	}
	loc := &local{lay: lo, typ: d.Type()}
	if b.l.taken[d] {
		loc.v = b.object(name, lo)
		loc.v.AtomicCells = lo.atomics(d.IsAtomic())
	} else {
		loc.v = b.newVar(name, lo)
	}
	b.frame.vars[d] = loc
	return loc
}

// constant is an integer constant of type t.
func constant(t ir.Type, v int64) *ir.Expr {
	return &ir.Expr{Op: ir.EConst, Type: t, Val: ir.Convert(t, 64, v)}
}

func (b *builder) assign(lv *ir.LValue, x *ir.Expr) {
	b.emit(&ir.Node{Op: ir.OpAssign, LHS: lv, X: x})
}

// varExpr reads cell index (nil: the first) of variable v as type t.
func varExpr(v *ir.Var, index *ir.Expr, t ir.Type, pos ir.Pos) *ir.Expr {
	if v.Len == 0 {
		return &ir.Expr{Op: ir.EVar, Type: t, Var: v, Pos: pos}
	}
	if index == nil {
		index = constant(ir.I64, 0)
	}
	return &ir.Expr{Op: ir.EIndex, Type: t, Var: v, X: index, Pos: pos}
}

// hoist makes a read of memory other threads may reach an operation of its own
// (outside atomic sections), and returns the temporary that holds the value.
func (b *builder) hoist(x *ir.Expr) *ir.Expr {
	if b.atomic > 0 || !x.ReadsShared() {
		return x
	}
	t := b.temp(x.Type)
	b.assign(&ir.LValue{Var: t, Pos: x.Pos}, x)
	return &ir.Expr{Op: ir.EVar, Type: x.Type, Var: t, Pos: x.Pos}
}

// stable returns x, or a temporary holding its value when x might change
// before it is used (it reads a variable an assignment may write).
func (b *builder) stable(x *ir.Expr) *ir.Expr {
	if x.Op == ir.EConst || x.Op == ir.EVar && b.temps[x.Var] {
		return x
	}
	t := b.temp(x.Type)
	b.assign(&ir.LValue{Var: t, Pos: x.Pos}, x)
	return &ir.Expr{Op: ir.EVar, Type: x.Type, Var: t, Pos: x.Pos}
}

// foldLoopHeads lets a loop's head fold into the transition before it when
// every cycle through the head passes a cut point anyway (a pthread_create or
// a shared access in every iteration): a transition still never runs a loop,
// and a loop that starts threads or joins them, as main's loops do, no longer
// adds a step of its own per iteration to every interleaving. Under --no-fold
// every statement stays a step.
func (b *builder) foldLoopHeads() {
	if b.l.cfg.NoFold {
		return
	}
	nodes := b.t.Nodes
	seen := make([]bool, len(nodes))
	for _, h := range b.loopCuts {
		n := nodes[h]
		if !n.Cut || n.Visible() || n.Atomic || h == b.t.Entry {
			continue
		}
		n.Cut = false
		if cutFreeCycle(nodes, h, seen) {
			n.Cut = true
		}
	}
}

// cutFreeCycle reports whether a path from node h back to h crosses no cut
// point. seen is scratch, one entry per node.
func cutFreeCycle(nodes []*ir.Node, h int, seen []bool) bool {
	clear(seen)
	stack := []int{h}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := nodes[i]
		succ := [2]int{n.Next, ir.Exit}
		if n.Op == ir.OpBranch {
			succ[1] = n.Else
		}
		for _, m := range succ {
			if m == ir.Exit {
				continue
			}
			if m == h {
				return true
			}
			if !seen[m] && !nodes[m].Cut {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return false
}
