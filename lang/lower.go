package lang

import (
	"fmt"
	"slices"
	"strings"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// maxLowered bounds the size of the lowered program (operations plus expression
// nodes). Inlining can multiply code exponentially (f calls g twice, g calls h
// twice, …); past this bound the program is rejected instead of built.
const maxLowered = 1 << 18

// lowerer turns a checked file into an ir.Program.
type lowerer struct {
	c      *checker
	fx     *effectScan
	file   *syntax.File
	noFold bool
	prog   *ir.Program

	// What a declaration stands for in each process instance (pid 0 outside
	// processes): processes are instantiated, so that each instance has its own
	// variables, mutexes and thread templates.
	shared  map[instance[*varObj]]*ir.Var
	mutexes map[instance[*mutexObj]]*ir.Mutex
	tmpls   map[instance[*threadObj]]*ir.Template
	chans   map[*chanObj]*ir.Channel
	decl    map[*ir.Template]*threadObj

	budget int
	tooBig bool
	errs   syntax.ErrorList

	private map[string]bool // shared variables to mark Private, by ir name
}

// instance is a declaration in one process instance.
type instance[T any] struct {
	obj T
	pid int
}

func (l *lowerer) errorf(pos syntax.Pos, format string, args ...any) {
	l.errs = append(l.errs, l.file.NewError(pos, fmt.Sprintf(format, args...)))
}

func irPos(p syntax.Pos) ir.Pos { return ir.Pos{Line: p.Line, Col: p.Col} }

// lower builds the program. It is only called on a file without errors.
// private names the shared variables (by their ir names) to mark Private.
func lower(c *checker, width int, noFold bool, private map[string]bool) (*ir.Program, syntax.ErrorList) {
	l := &lowerer{
		c:       c,
		private: private,
		fx:      newEffectScan(c),
		file:    c.file,
		noFold:  noFold,
		prog:    &ir.Program{File: c.file.Name, Width: width, NoFold: noFold},
		shared:  map[instance[*varObj]]*ir.Var{},
		mutexes: map[instance[*mutexObj]]*ir.Mutex{},
		tmpls:   map[instance[*threadObj]]*ir.Template{},
		chans:   map[*chanObj]*ir.Channel{},
		decl:    map[*ir.Template]*threadObj{},
		budget:  maxLowered,
	}
	for _, ch := range c.chans {
		ic := &ir.Channel{Name: ch.id.Name, Len: ch.size, Cap: ch.capacity, Pos: irPos(ch.id.Pos()),
			Lossy: ch.decl.Lossy.IsValid(), Unordered: ch.decl.Unordered.IsValid()}
		for _, f := range ch.fields {
			ic.Fields = append(ic.Fields, f.ir())
		}
		l.chans[ch] = ic
		l.prog.Channels = append(l.prog.Channels, ic)
	}
	// Declarations outside processes, then each process instance in turn: its
	// memory, mutexes and threads, named after the instance ("node[1].leader").
	l.instantiate(nil, 0, nil)
	for _, p := range c.procs {
		for pid := range p.instances() {
			ip := &ir.Process{Name: p.name(pid), Template: p.id.Name, Pid: pid,
				Index: len(l.prog.Processes), Pos: irPos(p.id.Pos())}
			l.prog.Processes = append(l.prog.Processes, ip)
			l.instantiate(p, pid, ip)
		}
	}
	for _, t := range c.threads {
		for pid := range procInstances(t.proc) {
			l.thread(t, pid)
			if l.tooBig {
				break
			}
		}
	}
	l.lowerInvariants()
	if len(l.errs) == 0 {
		l.checkSize()
	}
	l.errs.Sort()
	return l.prog, l.errs
}

// procInstances is the number of instances of p, 1 for no process.
func procInstances(p *processObj) int {
	if p == nil {
		return 1
	}
	return p.instances()
}

// instantiate creates the variables, mutexes and thread templates of process
// instance pid of p (p nil: the declarations outside processes).
func (l *lowerer) instantiate(p *processObj, pid int, ip *ir.Process) {
	prefix := ""
	if p != nil {
		prefix = p.name(pid) + "."
	}
	for _, v := range l.c.shared {
		if v.proc == p {
			iv := &ir.Var{Name: prefix + v.id.Name, Type: v.typ.ir(), Len: v.size, Shared: true, Init: v.init,
				Pos: irPos(v.id.Pos()), Process: ip, Private: l.private[prefix+v.id.Name]}
			l.shared[instance[*varObj]{v, pid}] = iv
			l.prog.Shared = append(l.prog.Shared, iv)
		}
	}
	for _, m := range l.c.mutexes {
		if m.proc == p {
			im := &ir.Mutex{Name: prefix + m.id.Name, Len: m.size, Pos: irPos(m.id.Pos()), Process: ip}
			l.mutexes[instance[*mutexObj]{m, pid}] = im
			l.prog.Mutexes = append(l.prog.Mutexes, im)
		}
	}
	for _, t := range l.c.threads {
		if t.proc == p {
			it := &ir.Template{Name: prefix + t.id.Name, Count: t.count, Pos: irPos(t.decl.Pos()), Process: ip}
			l.tmpls[instance[*threadObj]{t, pid}] = it
			l.decl[it] = t
			l.prog.Templates = append(l.prog.Templates, it)
		}
	}
}

// checkSize rejects a program whose state vector would exceed ir's limit, with
// an input error rather than Finish's internal one.
func (l *lowerer) checkSize() {
	cells := 0
	for _, v := range l.prog.Shared {
		cells += v.Cells()
	}
	for _, m := range l.prog.Mutexes {
		cells += m.Count()
	}
	for _, c := range l.prog.Channels {
		cells += c.Count() * c.Stride()
	}
	for _, t := range l.prog.Templates {
		frame := 1
		for _, v := range t.Locals {
			frame += v.Cells()
		}
		cells += t.Instances() * frame
		if cells > ir.MaxStateCells {
			l.errorf(l.decl[t].decl.Pos(), "program too large: its state needs more than %d cells (thread %s has %d instances of %d cells each)",
				ir.MaxStateCells, t.Name, t.Instances(), frame)
			return
		}
	}
}

// spend charges n units of the size budget.
func (l *lowerer) spend(n int, pos syntax.Pos) {
	l.budget -= n
	if l.budget < 0 && !l.tooBig {
		l.tooBig = true
		l.errorf(pos, "program too large: more than %d operations and expression nodes after inlining calls", maxLowered)
	}
}

// builder lowers one thread template.
type builder struct {
	l *lowerer
	t *ir.Template

	// open holds the successor fields (Next or Else of emitted nodes) that must
	// point at whatever node comes next. Empty means the current point is
	// unreachable.
	open []*int

	pid    int // the process instance being lowered (0 outside processes)
	frame  *frame
	atomic bool // inside an atomic block
	inLoop bool // code may run more than once: declarations re-initialise
	cur    stmtInfo
	names  map[string]int
}

// stmtInfo is the source statement whose nodes are being emitted.
type stmtInfo struct {
	pos  syntax.Pos
	text string
}

// frame is the thread body or one inlined call.
type frame struct {
	fn      *funcObj // nil for the thread body
	vars    map[*varObj]*ir.Var
	subst   map[*varObj]*ir.Expr // expression-function parameters replaced by their argument
	result  *ir.Var
	returns []*int
	loop    *loop
}

// loop is the innermost loop of a frame.
type loop struct {
	head      int // continue target; -1 for a for loop, whose continue runs the step
	breaks    []*int
	continues []*int
}

func join(a, b []*int) []*int {
	out := make([]*int, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

func (l *lowerer) thread(t *threadObj, pid int) {
	tm := l.tmpls[instance[*threadObj]{t, pid}]
	b := &builder{
		l:     l,
		t:     tm,
		pid:   pid,
		frame: &frame{vars: map[*varObj]*ir.Var{}},
		names: map[string]int{},
	}
	b.open = []*int{&tm.Entry}
	b.stmts(t.decl.Body.List)
	b.patch(b.open, ir.Exit)
	if tm.Entry == ir.Exit {
		tm.Nodes = append(tm.Nodes, &ir.Node{
			Op: ir.OpNop, Next: ir.Exit, Pos: irPos(t.decl.Pos()), Text: "thread " + t.id.Name,
		})
		tm.Entry = len(tm.Nodes) - 1
	}
	tm.Nodes[tm.Entry].Cut = true
}

func (b *builder) patch(edges []*int, target int) {
	for _, e := range edges {
		*e = target
	}
}

func (b *builder) reachable() bool { return len(b.open) > 0 }

// emit appends a node at the current point and makes it the new current point.
func (b *builder) emit(n *ir.Node) *ir.Node {
	idx := len(b.t.Nodes)
	b.patch(b.open, idx)
	n.Atomic = b.atomic
	n.Pos, n.Text = irPos(b.cur.pos), b.cur.text
	n.Next, n.Else = ir.Exit, ir.Exit
	b.t.Nodes = append(b.t.Nodes, n)
	b.open = []*int{&n.Next}
	b.l.spend(1, b.cur.pos)
	return n
}

func (b *builder) emitAssign(lv *ir.LValue, x *ir.Expr) {
	b.emit(&ir.Node{Op: ir.OpAssign, LHS: lv, X: x})
}

// begin starts the nodes of one statement (or condition) and returns the index
// its first node will have.
func (b *builder) begin(pos syntax.Pos, text string) int {
	b.cur = stmtInfo{pos: pos, text: text}
	return len(b.t.Nodes)
}

func (b *builder) stmtText(s syntax.Node) string { return b.l.file.Text(s.Pos(), s.End()) }

// headerText is "if (c)", "while (c)" or "for (…; …; …)".
func (b *builder) headerText(from, rparen syntax.Pos) string {
	return b.l.file.Text(from, syntax.Pos{Offset: rparen.Offset + 1, Line: rparen.Line, Col: rparen.Col + 1})
}

// end makes the first node of a statement a cut point if the statement is
// visible (docs/language.md §10), or always with --no-fold; never inside atomic, whose
// block is one transition.
func (b *builder) end(start int) {
	if start >= len(b.t.Nodes) || b.atomic {
		return
	}
	if b.l.noFold || slices.ContainsFunc(b.t.Nodes[start:], (*ir.Node).Visible) {
		b.t.Nodes[start].Cut = true
	}
}

// newVar adds a local variable to the template, with a name unique within it.
func (b *builder) newVar(name string, t typ, size int, pos syntax.Pos) *ir.Var {
	b.names[name]++
	if n := b.names[name]; n > 1 {
		name = fmt.Sprintf("%s#%d", name, n)
	}
	v := &ir.Var{Name: name, Type: t.ir(), Len: size, Pos: irPos(pos)}
	b.t.Locals = append(b.t.Locals, v)
	b.l.spend(1, pos)
	return v
}

// local creates the variable of a local declaration in the current frame.
func (b *builder) local(o *varObj) *ir.Var {
	name := o.id.Name
	if b.frame.fn != nil {
		name = b.frame.fn.id.Name + "::" + name
	}
	v := b.newVar(name, o.typ, o.size, o.id.Pos())
	b.frame.vars[o] = v
	return v
}

func (b *builder) temp(t typ, role string) *ir.Var {
	return b.newVar("$"+role, t, 0, b.cur.pos)
}

// variable returns the variable a name denotes in the current frame.
func (b *builder) variable(o *varObj, pos syntax.Pos) *ir.Var {
	if o.shared {
		return b.l.shared[instance[*varObj]{o, b.pidOf(o.proc)}]
	}
	if v := b.frame.vars[o]; v != nil {
		return v
	}
	b.internal(pos, "no variable for "+o.id.Name)
	return b.temp(o.typ, "missing")
}

// pidOf is the instance a declaration of process p stands for in the code being
// lowered: the thread's own instance, or 0 for a declaration outside processes.
func (b *builder) pidOf(p *processObj) int {
	if p == nil {
		return 0
	}
	return b.pid
}

func (b *builder) internal(pos syntax.Pos, msg string) {
	b.l.errorf(pos, "internal error: %s", msg)
}

func (b *builder) stmts(list []syntax.Stmt) {
	for _, s := range list {
		b.stmt(s)
	}
}

func (b *builder) stmt(s syntax.Stmt) {
	if !b.reachable() || b.l.tooBig {
		return // dead code after break, continue or return: nothing to lower
	}
	switch s := s.(type) {
	case *syntax.BadStmt, *syntax.EmptyStmt:
	case *syntax.BlockStmt:
		b.stmts(s.List)
	case *syntax.VarDecl:
		b.localDecl(s)
	case *syntax.AssignStmt:
		b.assign(s)
	case *syntax.IncDecStmt:
		start := b.begin(s.Pos(), b.stmtText(s))
		lv := b.lvalue(s.X, false, true)
		op := ir.EAdd
		if s.Tok == syntax.DEC {
			op = ir.ESub
		}
		one := b.constant(intType, 1, s.TokPos)
		b.emitAssign(lv, b.mk(ir.Expr{Op: op, Type: ir.Int, X: b.read(lv), Y: one, Pos: irPos(s.TokPos)}))
		b.end(start)
	case *syntax.ExprStmt:
		b.exprStmt(s)
	case *syntax.IfStmt:
		b.ifStmt(s)
	case *syntax.WhileStmt:
		b.whileStmt(s)
	case *syntax.ForStmt:
		b.forStmt(s)
	case *syntax.BranchStmt:
		lp := b.frame.loop
		if lp == nil {
			b.internal(s.Pos(), s.Tok.String()+" outside loop")
			return
		}
		switch {
		case s.Tok == syntax.BREAK:
			lp.breaks = join(lp.breaks, b.open)
		case lp.head >= 0:
			b.patch(b.open, lp.head)
		default:
			lp.continues = join(lp.continues, b.open)
		}
		b.open = nil
	case *syntax.ReturnStmt:
		b.returnStmt(s)
	case *syntax.AssertStmt:
		start := b.begin(s.Pos(), b.stmtText(s))
		x := b.expr(s.Cond)
		n := &ir.Node{Op: ir.OpAssert, X: x}
		if s.Msg != nil {
			n.Msg = s.Msg.Value
		}
		b.emit(n)
		b.end(start)
	case *syntax.GuardStmt:
		start := b.begin(s.Pos(), b.stmtText(s))
		op := ir.OpAwait
		if s.Tok == syntax.ASSUME {
			op = ir.OpAssume
		}
		b.emit(&ir.Node{Op: op, X: b.guard(s.Cond)})
		b.end(start)
	case *syntax.LockStmt:
		b.lockStmt(s)
	case *syntax.JoinStmt:
		b.joinStmt(s)
	case *syntax.ChanStmt:
		b.chanStmt(s)
	case *syntax.SelectStmt:
		b.selectStmt(s)
	case *syntax.YieldStmt:
		start := b.begin(s.Pos(), b.stmtText(s))
		b.emit(&ir.Node{Op: ir.OpYield})
		b.end(start)
	case *syntax.AtomicStmt:
		b.atomicStmt(s)
	case *syntax.EndStmt:
		// Every node of the statement is marked: a thread waiting at it,
		// whichever node its location starts at, ends validly (ir.Node.End).
		from := len(b.t.Nodes)
		b.stmt(s.Stmt)
		for _, n := range b.t.Nodes[from:] {
			n.End = true
			if n.Op == ir.OpSelect {
				break // a select's clauses are statements of their own
			}
		}
	default:
		b.internal(s.Pos(), fmt.Sprintf("unexpected statement %T", s))
	}
}

func (b *builder) localDecl(d *syntax.VarDecl) {
	o, _ := b.l.c.defs[d.Name].(*varObj)
	if o == nil {
		b.internal(d.Pos(), "undeclared local "+d.Name.Name)
		return
	}
	v := b.local(o)
	text := b.stmtText(d)
	if call := b.stmtCall(d.Init); call != nil {
		b.callStmt(d.Pos(), text, call, func() *ir.LValue { return &ir.LValue{Var: v, Pos: irPos(d.Name.Pos())} }, syntax.ASSIGN)
		return
	}
	start := b.begin(d.Pos(), text)
	elem := func(i int) *ir.LValue {
		lv := &ir.LValue{Var: v, Pos: irPos(d.Name.Pos())}
		if o.size > 0 {
			lv.Index = b.constant(intType, int64(i), d.Name.Pos())
		}
		return lv
	}
	given := 0
	switch init := d.Init.(type) {
	case nil:
	case *syntax.InitList:
		for i, e := range init.Elems {
			b.emitAssign(elem(i), b.expr(e))
		}
		given = len(init.Elems)
	default:
		b.emitAssign(elem(0), b.expr(init))
		given = 1
	}
	// Every variable starts at zero unless initialised; a declaration that runs
	// again (in a loop) must re-establish that.
	if b.inLoop {
		for i := given; i < max(o.size, 1); i++ {
			if b.l.tooBig {
				break
			}
			b.emitAssign(elem(i), b.constant(o.typ, 0, d.Name.Pos()))
		}
	}
	b.end(start)
}

// stmtCall returns x as a call of a statement function, or nil.
func (b *builder) stmtCall(x syntax.Expr) *syntax.CallExpr {
	if x == nil {
		return nil
	}
	call, ok := syntax.Unparen(x).(*syntax.CallExpr)
	if !ok {
		return nil
	}
	if f := b.l.c.funcOf[call]; f == nil || f.exprBody != nil {
		return nil
	}
	return call
}

func (b *builder) assign(s *syntax.AssignStmt) {
	text := b.stmtText(s)
	if call := b.stmtCall(s.RHS); call != nil {
		b.callStmt(s.Pos(), text, call, func() *ir.LValue { return b.lvalue(s.LHS, false, s.Tok != syntax.ASSIGN) }, s.Tok)
		return
	}
	start := b.begin(s.Pos(), text)
	lv := b.lvalue(s.LHS, b.l.fx.needsSteps(s.RHS), s.Tok != syntax.ASSIGN)
	x := b.expr(s.RHS)
	b.emitAssign(lv, b.compound(lv, s.Tok, x, s.TokPos))
	b.end(start)
}

// compound returns the value to store for "lv tok x".
func (b *builder) compound(lv *ir.LValue, tok syntax.Token, x *ir.Expr, pos syntax.Pos) *ir.Expr {
	switch tok {
	case syntax.ADD_ASSIGN:
		return b.mk(ir.Expr{Op: ir.EAdd, Type: ir.Int, X: b.read(lv), Y: x, Pos: irPos(pos)})
	case syntax.SUB_ASSIGN:
		return b.mk(ir.Expr{Op: ir.ESub, Type: ir.Int, X: b.read(lv), Y: x, Pos: irPos(pos)})
	}
	return x
}

func (b *builder) exprStmt(s *syntax.ExprStmt) {
	text := b.stmtText(s)
	if call := b.stmtCall(s.X); call != nil {
		b.callStmt(s.Pos(), text, call, nil, syntax.ASSIGN)
		return
	}
	start := b.begin(s.Pos(), text)
	if cas, ok := syntax.Unparen(s.X).(*syntax.CasExpr); ok {
		b.cas(cas, false)
	} else {
		// A call of an expression function: its value is unused, but a cas in
		// it still happens.
		b.expr(s.X)
	}
	b.end(start)
}

// callStmt inlines a call of a statement function: the arguments are assigned
// to fresh parameter variables, the body follows, and its returns continue
// after it, where target (if any) receives the result.
func (b *builder) callStmt(pos syntax.Pos, text string, call *syntax.CallExpr, target func() *ir.LValue, tok syntax.Token) {
	f := b.l.c.funcOf[call]
	b.l.spend(1, pos)
	start := b.begin(pos, text)
	args := b.exprList(call.Args)
	fr := &frame{fn: f, vars: map[*varObj]*ir.Var{}}
	for i, p := range f.params {
		v := b.newVar(f.id.Name+"::"+p.id.Name, p.typ, 0, p.id.Pos())
		fr.vars[p] = v
		if i < len(args) {
			b.emitAssign(&ir.LValue{Var: v, Pos: irPos(call.Args[i].Pos())}, args[i])
		}
	}
	if f.result != voidType {
		fr.result = b.newVar(f.id.Name+"::result", f.result, 0, f.id.Pos())
	}
	b.end(start)

	outer := b.frame
	b.frame = fr
	b.stmts(f.decl.Body.List)
	b.open = join(b.open, fr.returns)
	b.frame = outer

	if target == nil || fr.result == nil || !b.reachable() {
		return
	}
	start = b.begin(pos, text)
	lv := target()
	x := b.mk(ir.Expr{Op: ir.EVar, Type: fr.result.Type, Var: fr.result, Pos: irPos(call.Pos())})
	b.emitAssign(lv, b.compound(lv, tok, x, pos))
	b.end(start)
}

func (b *builder) returnStmt(s *syntax.ReturnStmt) {
	fr := b.frame
	if fr.fn == nil { // "return;" in a thread ends it
		b.patch(b.open, ir.Exit)
		b.open = nil
		return
	}
	if s.Result != nil && fr.result != nil {
		start := b.begin(s.Pos(), b.stmtText(s))
		x := b.expr(s.Result)
		b.emitAssign(&ir.LValue{Var: fr.result, Pos: irPos(s.Pos())}, x)
		b.end(start)
	}
	fr.returns = join(fr.returns, b.open)
	b.open = nil
}

func (b *builder) ifStmt(s *syntax.IfStmt) {
	start := b.begin(s.Pos(), b.headerText(s.If, s.Rparen))
	x := b.expr(s.Cond)
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: x})
	b.end(start)
	b.open = []*int{&br.Next}
	b.stmt(s.Then)
	then := b.open
	b.open = []*int{&br.Else}
	if s.Else != nil {
		b.stmt(s.Else)
	}
	b.open = join(b.open, then)
}

func (b *builder) enterLoop(lp *loop) (restore func()) {
	outerLoop, outerInLoop := b.frame.loop, b.inLoop
	fr := b.frame
	fr.loop, b.inLoop = lp, true
	return func() { fr.loop, b.inLoop = outerLoop, outerInLoop }
}

func (b *builder) whileStmt(s *syntax.WhileStmt) {
	head := b.begin(s.Pos(), b.headerText(s.While, s.Rparen))
	x := b.expr(s.Cond)
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: x})
	b.t.Nodes[head].Cut = true // every loop head is a cut point
	lp := &loop{head: head}
	restore := b.enterLoop(lp)
	b.open = []*int{&br.Next}
	b.stmt(s.Body)
	b.patch(b.open, head)
	restore()
	b.open = join([]*int{&br.Else}, lp.breaks)
}

func (b *builder) forStmt(s *syntax.ForStmt) {
	text := b.headerText(s.For, s.Rparen)
	if s.Init != nil {
		b.stmt(s.Init)
	}
	head := b.begin(s.Pos(), text)
	var exits []*int
	if s.Cond != nil {
		x := b.expr(s.Cond)
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: x})
		b.open = []*int{&br.Next}
		exits = []*int{&br.Else}
	} else {
		b.emit(&ir.Node{Op: ir.OpNop})
	}
	b.t.Nodes[head].Cut = true
	lp := &loop{head: -1}
	restore := b.enterLoop(lp)
	b.stmt(s.Body)
	b.open = join(b.open, lp.continues)
	if s.Post != nil {
		b.stmt(s.Post)
	}
	b.patch(b.open, head)
	restore()
	b.open = join(exits, lp.breaks)
}

func (b *builder) lockStmt(s *syntax.LockStmt) {
	start := b.begin(s.Pos(), b.stmtText(s))
	n := &ir.Node{Op: ir.OpLock}
	if s.Tok == syntax.UNLOCK {
		n.Op = ir.OpUnlock
	}
	switch e := syntax.Unparen(s.Mutex).(type) {
	case *syntax.Ident:
		if m, ok := b.l.c.uses[e].(*mutexObj); ok {
			n.Mutex = b.l.mutexes[instance[*mutexObj]{m, b.pidOf(m.proc)}]
		}
	case *syntax.IndexExpr:
		if m, ok := b.l.c.uses[e.X].(*mutexObj); ok {
			n.Mutex = b.l.mutexes[instance[*mutexObj]{m, b.pidOf(m.proc)}]
			n.MIndex = b.guard(e.Index)
		}
	}
	if n.Mutex == nil {
		b.internal(s.Pos(), "lock operand without mutex")
		return
	}
	b.emit(n)
	b.end(start)
}

func (b *builder) joinStmt(s *syntax.JoinStmt) {
	start := b.begin(s.Pos(), b.stmtText(s))
	n := &ir.Node{Op: ir.OpJoin}
	switch e := syntax.Unparen(s.Thread).(type) {
	case *syntax.Ident:
		if t, ok := b.l.c.uses[e].(*threadObj); ok {
			n.Join = b.l.tmpls[instance[*threadObj]{t, b.pidOf(t.proc)}]
		}
	case *syntax.IndexExpr:
		if t, ok := b.l.c.uses[e.X].(*threadObj); ok {
			n.Join = b.l.tmpls[instance[*threadObj]{t, b.pidOf(t.proc)}]
			n.JIndex = b.guard(e.Index)
		}
	}
	if n.Join == nil {
		b.internal(s.Pos(), "join operand without thread")
		return
	}
	b.emit(n)
	b.end(start)
}

// chanStmt lowers send(c, e…) and recv(c, lv…) (chanOp).
func (b *builder) chanStmt(s *syntax.ChanStmt) {
	start := b.begin(s.Pos(), b.stmtText(s))
	if n := b.chanOp(s); n != nil {
		b.emit(n)
		b.end(start)
	}
}

// chanOp lowers the channel operation of send(c, e…) or recv(c, lv…) into a
// node of its own (a statement, or a select's case): the fields of a message
// to send are evaluated left to right before it (operations they need, a cas,
// first), the destinations of a received message when it is taken.
func (b *builder) chanOp(s *syntax.ChanStmt) *ir.Node {
	n := &ir.Node{Op: ir.OpSend, Pos: irPos(s.Pos()), Text: b.stmtText(s), Next: ir.Exit, Else: ir.Exit}
	switch s.Tok {
	case syntax.RECV:
		n.Op = ir.OpRecv
	case syntax.CLOSE:
		n.Op = ir.OpClose
	}
	fields := s.Args[1:]
	if n.Op == ir.OpSend {
		n.Args = b.exprList(fields)
	}
	n.Chan, n.CIndex = b.channel(s.Args[0])
	if n.Chan == nil {
		b.internal(s.Pos(), s.Tok.String()+" operand without channel")
		return nil
	}
	if n.Op == ir.OpRecv {
		for _, x := range fields {
			n.Dsts = append(n.Dsts, b.lvalue(x, false, false))
		}
		if s.OK != nil {
			n.OK = b.lvalue(s.OK, false, false)
		}
	}
	if n.Op == ir.OpClose {
		n.Chan.Closable = true // its state's closed flag (ir.Program.Finish sets it too; checkSize counts it)
	}
	return n
}

// selectStmt lowers a select into one OpSelect node, which performs a ready
// case and stores its index into a temporary, then a branch per clause on
// that index. The messages of its send cases are evaluated before it.
func (b *builder) selectStmt(s *syntax.SelectStmt) {
	var cases, comms []string // the trace's text: select { recv(a, x) | send(b, 1) | default }
	for _, cl := range s.Clauses {
		if cl.Comm == nil {
			cases = append(cases, "default")
		} else {
			cases = append(cases, b.stmtText(cl.Comm))
			comms = append(comms, b.stmtText(cl.Comm))
		}
	}
	start := b.begin(s.Pos(), "select { "+strings.Join(cases, " | ")+" }")
	n := &ir.Node{Op: ir.OpSelect}
	var bodies []*syntax.BlockStmt
	var deflt *syntax.BlockStmt
	for _, cl := range s.Clauses {
		if cl.Comm == nil {
			n.Default, deflt = true, cl.Body
			continue
		}
		c := b.chanOp(cl.Comm)
		if c == nil {
			return
		}
		if cl.When != nil {
			c.When = b.guard(cl.When)
		}
		n.Cases = append(n.Cases, c)
		bodies = append(bodies, cl.Body)
	}
	sel := b.temp(intType, "select")
	n.LHS = &ir.LValue{Var: sel, Pos: irPos(s.Pos())}
	b.emit(n)
	b.end(start)
	// The clauses: if (sel == 0) {…} else if (sel == 1) {…} … else default.
	var after []*int
	for i, body := range bodies {
		if i == len(bodies)-1 && deflt == nil {
			b.stmt(body)
			break
		}
		b.begin(s.Pos(), "case "+comms[i]) // the case taken shows as → true
		is := b.mk(ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.varExpr(sel, irPos(s.Pos())),
			Y: b.constant(intType, int64(i), s.Pos()), Pos: irPos(s.Pos())})
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: is})
		b.open = []*int{&br.Next}
		b.stmt(body)
		after = join(after, b.open)
		b.open = []*int{&br.Else}
	}
	if deflt != nil {
		b.stmt(deflt)
	}
	b.open = join(b.open, after)
}

// channel lowers a channel operand: the channel and its index (nil for a single
// channel).
func (b *builder) channel(x syntax.Expr) (*ir.Channel, *ir.Expr) {
	switch e := syntax.Unparen(x).(type) {
	case *syntax.Ident:
		if ch, ok := b.l.c.uses[e].(*chanObj); ok {
			return b.l.chans[ch], nil
		}
	case *syntax.IndexExpr:
		if ch, ok := b.l.c.uses[e.X].(*chanObj); ok {
			return b.l.chans[ch], b.guard(e.Index)
		}
	}
	return nil, nil
}

// atomicStmt lowers an atomic block: all its nodes are one transition, so only
// its first node is a cut point.
func (b *builder) atomicStmt(s *syntax.AtomicStmt) {
	outer := b.atomic
	start := len(b.t.Nodes)
	b.atomic = true
	b.stmts(s.Body.List)
	if len(b.t.Nodes) == start && b.reachable() {
		b.begin(s.Pos(), b.stmtText(s))
		b.emit(&ir.Node{Op: ir.OpNop})
	}
	b.atomic = outer
	if !outer && len(b.t.Nodes) > start {
		b.t.Nodes[start].Cut = true
	}
}
