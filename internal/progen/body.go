package progen

import (
	"fmt"
	"strings"
)

// A local is a variable of a thread or function body.
type local struct {
	name  string
	typ   typ
	max   int64 // largest value of a local known to be in [0, max]; -1 if unknown
	fixed bool  // a loop counter: never assigned, so that loops stay bounded
}

// A body generates the statements of one thread or function. Every statement generator
// emits its text and returns its cost: the most transitions it can execute on one path
// (docs/language.md §10: one per visible operation and per loop-head evaluation; with
// NoFold one per statement and condition).
type body struct {
	g      *gen
	t      *template // nil in a function
	fn     *function // nil in a thread
	w      strings.Builder
	depth  int
	scopes [][]*local
	nlocal int

	loops  int       // enclosing loops: break and continue are allowed
	atomic bool      // inside an atomic block
	held   []lockRef // locks held by enclosing sections
	first  bool      // nothing emitted yet at a thread's top level
	mult   float64   // how often the current statement can run (loop iterations)
	combos float64   // nondet combinations of the body
	stmts  int       // statements emitted, to keep blocks short

	lockedDecls []int // mutex declarations the body locks (for functions)
}

func newBody(g *gen, t *template, f *function) *body {
	return &body{g: g, t: t, fn: f, scopes: [][]*local{nil}, mult: 1, combos: 1}
}

func (b *body) line(format string, args ...any) {
	b.w.WriteString(strings.Repeat("    ", b.depth))
	fmt.Fprintf(&b.w, format, args...)
	b.w.WriteByte('\n')
	b.stmts++
}

func (b *body) open(format string, args ...any) {
	b.line(format, args...)
	b.depth++
	b.scopes = append(b.scopes, nil)
}

func (b *body) close(text string) {
	b.scopes = b.scopes[:len(b.scopes)-1]
	b.depth--
	b.line("%s", text)
}

func (b *body) declare(l *local) { b.scopes[len(b.scopes)-1] = append(b.scopes[len(b.scopes)-1], l) }

func (b *body) visible(name string) bool {
	for _, sc := range b.scopes {
		for _, l := range sc {
			if l.name == name {
				return true
			}
		}
	}
	return false
}

// locals returns the visible locals of type t; assignable drops loop counters.
func (b *body) locals(t typ, assignable bool) []*local {
	var out []*local
	for _, sc := range b.scopes {
		for _, l := range sc {
			if l.typ == t && !(assignable && l.fixed) {
				out = append(out, l)
			}
		}
	}
	return out
}

func (b *body) fresh(t typ) string {
	b.nlocal++
	if t == tBool {
		return fmt.Sprintf("ok%d", b.nlocal)
	}
	return fmt.Sprintf("l%d", b.nlocal)
}

// begin marks the start of a statement. The first statement of a thread that does
// not start with a visible operation runs in a transition of its own (the thread's
// start is a cut point), so it costs one.
func (b *body) begin(visible bool) int {
	if !b.first {
		return 0
	}
	b.first = false
	if visible || b.g.cfg.NoFold {
		return 0 // with NoFold every statement is counted anyway
	}
	return 1
}

// localCost is the cost of a statement without a visible operation.
func (b *body) localCost() int {
	c := b.begin(false)
	if b.g.cfg.NoFold {
		c++
	}
	return c
}

// visibleCost is the cost of a statement that starts with a visible operation.
func (b *body) visibleCost() int {
	b.begin(true)
	return 1
}

// A kind is one sort of statement that fits the budget: its weight and its
// generator, which should not exceed the budget it is given.
type kind struct {
	weight int
	gen    func(budget int) int
}

// block emits statements until the budget is spent or it decides to stop; at most
// maxStmts of them. It returns the cost.
func (b *body) block(budget, maxStmts int) int {
	g := b.g
	cost := 0
	for n := 0; n < maxStmts; n++ {
		left := budget - cost
		if left <= 0 {
			// Only statements without a visible operation still fit, and only when
			// they fold into the transition before them; add one now and then.
			if b.first || g.cfg.NoFold || !g.chance(0.25) {
				break
			}
		} else if n > 0 && g.chance(0.05) {
			break
		}
		cost += b.stmt(max(left, 0))
	}
	return cost
}

// stmt emits one statement of cost at most budget.
func (b *body) stmt(budget int) int {
	g := b.g
	inThread := b.t != nil
	var ks []kind
	add := func(ok bool, weight, need int, gen func(int) int) {
		if ok && need <= budget {
			ks = append(ks, kind{weight, gen})
		}
	}
	if g.has(Faults) && !b.atomic && budget >= 1 && g.chance(g.cfg.FaultRate/4) {
		return b.faultStmt(budget)
	}
	lc := 0
	if b.first || g.cfg.NoFold {
		lc = 1
	}
	add(true, 14, 1, func(int) int { return b.write() })
	add(b.t != nil && !b.atomic, 16, 2, b.idiom)
	add(true, 9, 1, func(int) int { return b.readLocal() })
	add(true, 1, lc, func(int) int { return b.localCompute() })
	add(g.has(Nondet), 1, lc, func(int) int { return b.nondetLocal() })
	add(g.has(Branches), 4, 1, b.sharedBranch)
	add(g.has(Branches), 1, lc+1, b.localBranch)
	add(g.has(Branches) && inThread && b.loops == 0 && len(b.held) == 0 && !b.atomic, 1, 1, func(int) int { return b.earlyReturn() })
	add(g.has(Mutexes) && len(g.mutexes) > 0 && !b.atomic, 9, 2, b.lockSection)
	add(g.has(Mutexes) && g.distinctLocks() != nil && !b.atomic, 1, 4, b.canonicalNested)
	add(g.has(Cas), 3, 1, func(int) int { return b.casStmt() })
	add(g.has(Cas) && g.has(Branches), 2, 1, b.casBranch)
	add(g.has(Await) && !b.atomic, 3, 1, func(int) int { return b.await() })
	add(g.has(Assume) && !b.atomic, 2, 1, func(int) int { return b.assume() })
	add(g.has(Loops) && !b.atomic && b.fn == nil && b.loops == 0, 4, 3, b.loop)
	add(g.has(Atomic) && !b.atomic, 5, 1, func(int) int { return b.atomicBlock() })
	add(g.has(Join) && inThread && !b.atomic && len(b.t.joinable) > 0, 1, 1, func(int) int { return b.join() })
	add(g.has(Yield) && !b.atomic, 1, 1, func(int) int { return b.yield() })
	add(g.has(Asserts), 6, 1, func(int) int { return b.sharedAssert() })
	add(g.has(Asserts), 2, lc, func(int) int { return b.localAssert() })
	add(g.has(Funcs) && inThread && !b.atomic && b.callable(budget), 2, 1, b.call)
	add(g.has(SpinLoops) && inThread && !b.atomic && b.loops == 0, 6, 2, func(int) int { return b.spin() })
	add(g.has(Channels) && g.has(Branches) && len(g.chans) > 0 && !b.atomic, 2, 2, func(int) int { return b.unplanned(true) })
	add(g.has(ChannelKinds) && g.has(Channels) && g.has(Branches) && len(g.chans) > 0 && !b.atomic, 40, 2, func(int) int { return b.unplannedSelect() })
	add(g.has(Close) && g.has(Channels) && len(g.chans) > 0 && !b.atomic, 16, 1, func(int) int { return b.closeStmt() })
	if len(ks) == 0 {
		return b.localCompute()
	}
	total := 0
	for _, k := range ks {
		total += k.weight
	}
	x := g.pick(total)
	for _, k := range ks {
		if x < k.weight {
			return k.gen(budget)
		}
		x -= k.weight
	}
	panic("unreachable")
}

// write assigns to shared state.
func (b *body) write() int {
	g := b.g
	if len(g.bools) > 0 && g.chance(0.15) {
		v := g.bools[g.pick(len(g.bools))]
		e := b.boolExpr(1)
		if g.chance(0.3) {
			e = expr{"!" + v.name, true}
		}
		b.line("%s = %s;", v.name, e.text)
		return b.visibleCost()
	}
	lv := b.sharedIntLV()
	cost := b.visibleCost()
	switch g.pick(7) {
	case 0:
		b.line("%s++;", lv)
	case 1:
		b.line("%s--;", lv)
	case 2:
		b.line("%s += %s;", lv, b.intExpr(1).text)
	case 3:
		b.line("%s -= %s;", lv, b.smallLit())
	case 4:
		if g.has(Nondet) && b.t != nil && g.chance(0.5) {
			b.line("%s = %s;", lv, b.nondet())
			return cost
		}
		fallthrough
	case 5:
		v := b.smallLitNonzero()
		g.written = append(g.written, v)
		b.line("%s = %s;", lv, v)
	default:
		b.line("%s = %s;", lv, b.intExpr(2).text)
	}
	return cost
}

// sharedIntLV is an assignable shared int: a scalar or an array element. The first
// scalar is the hot one, so that threads race on it.
func (b *body) sharedIntLV() string {
	g := b.g
	if arr := g.intArray(); arr != nil && g.chance(0.3) {
		return fmt.Sprintf("%s[%s]", arr.name, b.index(arr.n))
	}
	return g.hotInt()
}

// hotInt names a shared int scalar, the first one more often than the others.
func (g *gen) hotInt() string {
	if g.chance(0.65) {
		return g.ints[0].name
	}
	return g.ints[g.pick(len(g.ints))].name
}

func (g *gen) intArray() *sharedVar {
	for _, a := range g.arrays {
		if a.typ == tInt {
			return a
		}
	}
	return nil
}

func (g *gen) boolArray() *sharedVar {
	for _, a := range g.arrays {
		if a.typ == tBool {
			return a
		}
	}
	return nil
}

// readLocal copies shared state into a new local: the C-style racy read.
func (b *body) readLocal() int {
	g := b.g
	cost := b.visibleCost()
	if g.chance(0.2) {
		name := b.fresh(tBool)
		b.line("bool %s = %s;", name, b.sharedCond().text)
		b.declare(&local{name: name, typ: tBool, max: -1})
		return cost
	}
	name := b.fresh(tInt)
	b.line("int %s = %s;", name, b.sharedInt().text)
	b.declare(&local{name: name, typ: tInt, max: -1})
	return cost
}

// localCompute declares or updates a local from locals, tid and constants.
func (b *body) localCompute() int {
	g := b.g
	cost := b.localCost()
	ints := b.locals(tInt, true)
	if len(ints) > 0 && g.chance(0.4) {
		l := ints[g.pick(len(ints))]
		l.max = -1
		switch g.pick(4) {
		case 0:
			b.line("%s++;", l.name)
		case 1:
			b.line("%s += %s;", l.name, b.localInt(1).text)
		default:
			b.line("%s = %s;", l.name, b.localInt(2).text)
		}
		return cost
	}
	if g.chance(0.2) {
		name := b.fresh(tBool)
		b.line("bool %s = %s;", name, b.localBool(1).text)
		b.declare(&local{name: name, typ: tBool, max: -1})
		return cost
	}
	name := b.fresh(tInt)
	if g.chance(0.15) {
		// An uninitialised declaration: zero, and control flow rather than an
		// operation, so even with NoFold it is no transition of its own.
		b.line("int %s;", name)
		b.declare(&local{name: name, typ: tInt, max: 0})
		if g.cfg.NoFold {
			cost--
		}
		return cost
	}
	b.line("int %s = %s;", name, b.localInt(2).text)
	b.declare(&local{name: name, typ: tInt, max: -1})
	return cost
}

// nondetLocal draws a small nondeterministic value into a new local.
func (b *body) nondetLocal() int {
	cost := b.localCost()
	name := b.fresh(tInt)
	lo, hi, text := b.nondetRange()
	if b.g.chance(0.2) && b.tid() {
		text += " + tid"
		b.line("int %s = %s;", name, text)
		b.declare(&local{name: name, typ: tInt, max: -1})
		return cost
	}
	b.line("int %s = %s;", name, text)
	m := hi
	if lo < 0 {
		m = -1
	}
	b.declare(&local{name: name, typ: tInt, max: m})
	return cost
}

// nondet returns a nondet expression and accounts for its values.
func (b *body) nondet() string {
	_, _, text := b.nondetRange()
	return text
}

func (b *body) nondetRange() (lo, hi int64, text string) {
	g := b.g
	lo, hi = 0, int64(1+g.pick(2))
	switch g.pick(6) {
	case 0:
		lo, hi = -1, 1
	case 1:
		lo, hi = 1, 1 // a range of one value is still a draw
	}
	text = fmt.Sprintf("nondet(%d, %d)", lo, hi)
	if lo == 0 {
		if c, ok := g.constWith(hi); ok && g.chance(0.5) {
			text = fmt.Sprintf("nondet(0, %s)", c)
		}
	}
	for range int(b.mult) {
		b.combos *= float64(hi - lo + 1)
	}
	return lo, hi, text
}

// sharedBranch branches on shared data.
func (b *body) sharedBranch(budget int) int {
	g := b.g
	cond := b.sharedCond()
	cost := b.visibleCost()
	return cost + b.ifElse(cond.text, budget-cost, g.chance(0.4))
}

func (b *body) localBranch(budget int) int {
	cost := b.localCost()
	return cost + b.ifElse(b.localBool(2).text, budget-cost, b.g.chance(0.4))
}

// ifElse emits the branches of an if statement whose condition is already costed.
func (b *body) ifElse(cond string, budget int, withElse bool) int {
	b.open("if (%s) {", cond)
	c1 := b.block(budget, 3)
	if !withElse {
		b.close("}")
		return c1
	}
	b.scopes = b.scopes[:len(b.scopes)-1]
	b.depth--
	b.open("} else {")
	c2 := b.block(budget, 3)
	b.close("}")
	return max(c1, c2)
}

// earlyReturn ends the thread on some shared condition.
func (b *body) earlyReturn() int {
	cost := b.visibleCost()
	b.open("if (%s) {", b.sharedCond().text)
	b.line("return;")
	b.close("}")
	return cost
}

// pickLock picks a lock declared after every lock held, so that nested sections
// agree on the order (no accidental lock-order inversion, and no relock).
func (b *body) pickLock() (lockRef, bool) {
	g := b.g
	floor := -1
	for _, h := range b.held {
		floor = max(floor, h.decl.index)
	}
	var cands []*mutexDecl
	for _, m := range g.mutexes {
		if m.index > floor {
			cands = append(cands, m)
		}
	}
	if len(cands) == 0 {
		return lockRef{}, false
	}
	m := cands[g.pick(len(cands))]
	if m.n == 0 {
		return lockRef{m, m.name}, true
	}
	if g.has(SharedIndices) && g.chance(0.25) {
		return lockRef{m, fmt.Sprintf("%s[%s]", m.name, b.sharedIndex(m.n))}, true
	}
	return lockRef{m, fmt.Sprintf("%s[%s]", m.name, b.index(m.n))}, true
}

func (b *body) noteLock(m *mutexDecl) {
	for _, i := range b.lockedDecls {
		if i == m.index {
			return
		}
	}
	b.lockedDecls = append(b.lockedDecls, m.index)
}

// lockSection is lock; body; unlock. A fault leaves out the unlock (the thread may end
// holding the lock, and whoever waits for it deadlocks).
func (b *body) lockSection(budget int) int {
	l, ok := b.pickLock()
	if !ok {
		return b.write()
	}
	b.noteLock(l.decl)
	cost := b.visibleCost()
	b.line("lock(%s);", l.text)
	// The section is no C block: locals declared in it stay in scope after it.
	b.held = append(b.held, l)
	inner := b.block(budget-2, 3)
	b.held = b.held[:len(b.held)-1]
	if b.g.fault() && b.loops == 0 {
		return cost + inner
	}
	b.line("unlock(%s);", l.text)
	return cost + inner + 1
}

// canonicalNested takes two locks in declaration order, or, as a fault, in the
// opposite order.
func (b *body) canonicalNested(budget int) int {
	if len(b.held) > 0 {
		return b.write()
	}
	ls := b.g.distinctLocks()
	if b.g.fault() {
		ls[0], ls[1] = ls[1], ls[0]
	}
	return b.nestedSection(ls[0], ls[1])
}

// nestedSection is lock(a); lock(c); [one statement]; unlock(c); unlock(a).
func (b *body) nestedSection(a, c lockRef) int {
	b.noteLock(a.decl)
	b.noteLock(c.decl)
	cost := b.visibleCost() + 3
	b.line("lock(%s);", a.text)
	b.line("lock(%s);", c.text)
	b.held = append(b.held, a, c)
	if b.g.chance(0.6) {
		cost += b.write()
	}
	b.held = b.held[:len(b.held)-2]
	b.line("unlock(%s);", c.text)
	b.line("unlock(%s);", a.text)
	return cost
}

// plantedSection is lock(l); [inner, or a write]; unlock(l), for planted scenarios.
func (b *body) plantedSection(l lockRef, inner func(b *body) int) int {
	b.noteLock(l.decl)
	cost := b.visibleCost() + 1
	b.line("lock(%s);", l.text)
	b.held = append(b.held, l)
	if inner != nil {
		cost += inner(b)
	} else {
		cost += b.write()
	}
	b.held = b.held[:len(b.held)-1]
	b.line("unlock(%s);", l.text)
	return cost
}

// casStmt is cas as a statement, or its result kept in a bool local.
func (b *body) casStmt() int {
	g := b.g
	cost := b.visibleCost()
	c := b.casExpr()
	if g.chance(0.35) {
		if bs := b.locals(tBool, true); len(bs) > 0 && g.chance(0.3) {
			b.line("%s = %s;", bs[g.pick(len(bs))].name, c)
			return cost
		}
		name := b.fresh(tBool)
		b.line("bool %s = %s;", name, c)
		b.declare(&local{name: name, typ: tBool, max: -1})
		return cost
	}
	b.line("%s;", c)
	return cost
}

// casExpr is a cas on shared state (now and then on a local).
func (b *body) casExpr() string {
	g := b.g
	if len(g.bools) > 0 && g.chance(0.2) {
		v := g.bools[g.pick(len(g.bools))]
		old := g.chance(0.5)
		return fmt.Sprintf("cas(%s, %v, %v)", v.name, old, !old)
	}
	if ls := b.locals(tInt, true); len(ls) > 0 && g.chance(0.08) {
		l := ls[g.pick(len(ls))]
		l.max = -1
		return fmt.Sprintf("cas(%s, %s, %s)", l.name, b.smallLit(), b.smallLit())
	}
	return fmt.Sprintf("cas(%s, %s, %s)", b.sharedIntLV(), b.casOperand(), b.casOperand())
}

func (b *body) casOperand() string {
	if b.g.chance(0.7) {
		return b.smallLit()
	}
	return b.localInt(1).text
}

// casBranch branches on the outcome of a cas.
func (b *body) casBranch(budget int) int {
	cost := b.visibleCost()
	c := b.casExpr()
	if b.g.chance(0.3) {
		c = "!" + c
	}
	return cost + b.ifElse(c, budget-cost, b.g.chance(0.3))
}

func (b *body) await() int {
	cost := b.visibleCost()
	b.line("await(%s);", b.guard().text)
	return cost
}

func (b *body) assume() int {
	cost := b.visibleCost()
	if ls := b.locals(tInt, false); len(ls) > 0 && b.g.chance(0.3) {
		// An assume over a local: it filters nondet values or values read earlier.
		b.line("assume(%s != %s);", ls[b.g.pick(len(ls))].name, b.smallLit())
		return cost
	}
	b.line("assume(%s);", b.guard().text)
	return cost
}

// guard is a condition over shared state for await and assume: it may well be false
// for ever, which is how deadlocks and cut executions arise. Often it waits for a
// variable to change from its initial value, which happens when some thread writes.
func (b *body) guard() expr {
	g := b.g
	if g.has(Channels) && len(g.chans) > 0 && g.chance(0.25) {
		return b.lenGuard()
	}
	if g.chance(0.4) {
		v := g.ints[0]
		if g.chance(0.3) {
			v = g.ints[g.pick(len(g.ints))]
		}
		return expr{fmt.Sprintf("%s != %d", v.name, v.init), true}
	}
	if len(g.bools) > 0 && g.chance(0.3) {
		v := g.bools[g.pick(len(g.bools))].name
		if g.chance(0.4) {
			v = "!" + v
		}
		return expr{v, true}
	}
	x := b.sharedIntAtom()
	if arr := g.intArray(); arr != nil && g.has(SharedIndices) && g.chance(0.3) {
		x = expr{fmt.Sprintf("%s[%s]", arr.name, b.sharedIndex(arr.n)), true}
	}
	ops := []string{"==", "!=", ">", ">=", "<", "<="}
	op := ops[g.pick(len(ops))]
	rhs := b.smallLit()
	if b.tid() && g.chance(0.2) {
		rhs = "tid"
	}
	return expr{fmt.Sprintf("%s %s %s", x.text, op, rhs), true}
}

// loop is a bounded for loop (or a while loop over a local counter) of one or two
// iterations, with now and then a break or continue on shared data.
func (b *body) loop(budget int) int {
	g := b.g
	n := 2
	if g.chance(0.3) {
		n = 1
	}
	// Cost: the init (local), n+1 head evaluations, n bodies (and n steps with NoFold).
	lc := 0
	if b.first || g.cfg.NoFold {
		lc = 1
	}
	b.begin(false)
	fixedCost := func(n int) int {
		if g.cfg.NoFold {
			return 2*n + 1 + lc
		}
		return n + 1 + lc
	}
	if budget-fixedCost(n) < n {
		n = 1 // two iterations would leave the body nothing to do
	}
	fixed := fixedCost(n)
	inner := max(budget-fixed, 0) / n
	name := "i"
	for _, c := range []string{"i", "j", "k"} {
		if !b.visible(c) {
			name = c
			break
		}
	}
	if b.visible(name) {
		name = b.fresh(tInt)
	}
	bound := fmt.Sprint(n)
	if c, ok := g.constWith(int64(n)); ok && g.chance(0.5) {
		bound = c
	}
	b.loops++
	saved := b.mult
	b.mult *= float64(n)
	var body int
	if g.chance(0.75) {
		b.open("for (int %s = 0; %s < %s; %s++) {", name, name, bound, name)
		b.declare(&local{name: name, typ: tInt, max: int64(n - 1), fixed: true})
		body = b.loopBody(inner)
		b.close("}")
	} else {
		// The counter is declared outside the loop and stepped at the end of the body;
		// the body must not skip the step, so it has no continue.
		b.line("int %s = 0;", name)
		b.declare(&local{name: name, typ: tInt, max: int64(n), fixed: true})
		b.open("while (%s < %s) {", name, bound)
		body = b.block(inner, 3)
		b.line("%s++;", name)
		b.close("}")
	}
	b.mult = saved
	b.loops--
	return fixed + n*body
}

func (b *body) loopBody(budget int) int {
	g := b.g
	cost := 0
	if g.has(Branches) && g.chance(0.25) && budget >= 1 {
		kw := "break"
		if g.chance(0.5) {
			kw = "continue"
		}
		cond := b.sharedCond()
		cost += b.visibleCost()
		b.open("if (%s) {", cond.text)
		b.line("%s;", kw)
		b.close("}")
	}
	return cost + b.block(budget-cost, 2)
}

// atomicBlock is an atomic block, now and then guarded by an await or an assume.
func (b *body) atomicBlock() int {
	g := b.g
	cost := b.visibleCost()
	b.open("atomic {")
	b.atomic = true
	switch {
	case g.has(Await) && g.chance(0.5):
		b.line("await(%s);", b.guard().text)
	case g.has(Assume) && g.chance(0.1):
		b.line("assume(%s);", b.guard().text)
	}
	saved := b.stmts
	for b.stmts-saved < 1 || (b.stmts-saved < 3 && g.chance(0.5)) {
		b.atomicStmt()
	}
	b.atomic = false
	b.close("}")
	return cost
}

// atomicStmt is a statement allowed inside atomic: no loop, lock, join, yield or
// statement-function call. Its cost is part of the block's one transition.
func (b *body) atomicStmt() {
	g := b.g
	switch g.pick(8) {
	case 0:
		b.readLocal()
	case 1:
		if g.has(Cas) {
			b.casStmt()
			return
		}
		b.write()
	case 2:
		if g.has(Asserts) {
			b.sharedAssert()
			return
		}
		b.write()
	case 3:
		if g.has(Branches) {
			b.open("if (%s) {", b.sharedCond().text)
			b.write()
			b.close("}")
			return
		}
		b.write()
	default:
		b.write()
	}
}

// join waits for an earlier template, or one of its instances.
func (b *body) join() int {
	g := b.g
	t := b.t.joinable[g.pick(len(b.t.joinable))]
	cost := b.visibleCost()
	if t.count > 0 && g.chance(0.4) {
		idx := fmt.Sprint(g.pick(t.count))
		switch {
		case g.has(SharedIndices) && g.chance(0.3):
			idx = b.sharedIndex(t.count)
		case g.chance(0.3):
			idx = b.index(t.count)
		}
		b.line("join(%s[%s]);", t.name, idx)
		return cost
	}
	b.line("join(%s);", t.name)
	return cost
}

func (b *body) yield() int {
	cost := b.visibleCost()
	b.line("yield;")
	return cost
}

// sharedAssert asserts a property of shared state that holds initially and is
// broken by some interleavings of many programs: small values that writes reach.
func (b *body) sharedAssert() int {
	g := b.g
	cost := b.visibleCost()
	k := []int{1, 2, 2, 3, 3, 4}[g.pick(6)]
	var cond string
	switch x := g.pick(20); {
	case x < 4 && len(g.written) > 0:
		// A value some thread writes: the assertion fails if it can be seen here.
		cond = fmt.Sprintf("%s != %s", g.hotInt(), g.written[g.pick(len(g.written))])
	case x < 9:
		cond = fmt.Sprintf("%s != %d", b.sharedIntAtom().text, k)
	case x < 13:
		op := []string{"<", "<="}[g.pick(2)]
		cond = fmt.Sprintf("%s %s %d", b.sharedIntAtom().text, op, k+1)
	case x < 15 && len(g.ints) > 1:
		cond = fmt.Sprintf("%s + %s != %d", g.ints[0].name, g.ints[1].name, k+1)
	case x < 17:
		if ls := b.locals(tInt, false); len(ls) > 0 {
			// A value read earlier still equals the shared one, unless someone wrote.
			cond = fmt.Sprintf("%s == %s || %s", ls[g.pick(len(ls))].name, b.sharedIntAtom().text,
				paren(b.sharedCond().text))
			break
		}
		fallthrough
	case x < 18:
		cond = fmt.Sprintf("%s >= %d", b.sharedIntAtom().text, -k)
	default:
		cond = b.sharedCond().text
	}
	if g.chance(0.3) {
		b.line("assert(%s, \"%s\");", cond, message(g))
		return cost
	}
	b.line("assert(%s);", cond)
	return cost
}

var messages = []string{
	"lost update", "value out of range", "unexpected state", "invariant broken",
	"two threads in the critical section",
}

func message(g *gen) string { return messages[g.pick(len(messages))] }

// localAssert checks a value read into a local earlier, which is as interesting as
// asserting on shared state; without such a local it asserts on shared state.
func (b *body) localAssert() int {
	g := b.g
	ls := b.locals(tInt, false)
	if len(ls) == 0 {
		return b.sharedAssert()
	}
	cost := b.localCost()
	b.line("assert(%s != %d);", ls[g.pick(len(ls))].name, 2+g.pick(3))
	return cost
}

// callable reports whether some statement function fits the budget and takes no lock
// this body holds.
func (b *body) callable(budget int) bool {
	for _, f := range b.g.funcs {
		if b.canCall(f, budget) {
			return true
		}
	}
	return false
}

func (b *body) canCall(f *function, budget int) bool {
	if f.expr || f.cost > budget || f.cost == 0 && budget < 1 {
		return false
	}
	return len(f.locks) == 0 || len(b.held) == 0
}

// call calls a statement function, as a statement or as an initialiser.
func (b *body) call(budget int) int {
	g := b.g
	var fs []*function
	for _, f := range g.funcs {
		if b.canCall(f, budget) {
			fs = append(fs, f)
		}
	}
	f := fs[g.pick(len(fs))]
	var args []string
	for _, p := range f.params {
		args = append(args, b.exprOf(p, 1).text)
	}
	c := fmt.Sprintf("%s(%s)", f.name, strings.Join(args, ", "))
	// Arguments bind to parameters as local assignments, so a call at the thread's
	// start begins with local code.
	cost := f.cost + b.localCost()
	if f.void {
		b.line("%s;", c)
		return cost
	}
	if ls := b.locals(tInt, true); len(ls) > 0 && g.chance(0.3) {
		l := ls[g.pick(len(ls))]
		l.max = -1
		b.line("%s = %s;", l.name, c)
		return cost
	}
	name := b.fresh(tInt)
	b.line("int %s = %s;", name, c)
	b.declare(&local{name: name, typ: tInt, max: -1})
	return cost
}

// spin waits for shared state by spinning: executions need not end, so the search
// is cut by its depth bound.
func (b *body) spin() int {
	g := b.g
	cost := b.visibleCost()
	switch {
	case g.has(Cas) && g.chance(0.4):
		b.open("while (!%s) {", b.casExpr())
	default:
		b.open("while (%s) {", b.guard().text)
	}
	if g.chance(0.8) {
		b.line("yield;")
	}
	b.close("}")
	return cost + 1
}

// faultStmt makes a deliberate mistake: lock misuse, a divisor, index or shift
// amount that may be out of range.
func (b *body) faultStmt(budget int) int {
	g := b.g
	if g.has(Channels) && len(g.chans) > 0 && g.chance(0.3) {
		// A send or receive outside every flow: it may wait for ever.
		return b.unplanned(false)
	}
	switch g.pick(6) {
	case 0, 1:
		// Relock or a double unlock, on a lock nobody else holds here.
		if l, ok := b.pickLock(); ok && budget >= 3 {
			b.noteLock(l.decl)
			cost := b.visibleCost() + 2
			b.line("lock(%s);", l.text)
			if g.chance(0.5) {
				b.line("lock(%s);", l.text)
			} else {
				b.line("unlock(%s);", l.text)
				b.line("unlock(%s);", l.text)
				cost++
			}
			return cost
		}
		if l, ok := b.pickLock(); ok {
			// Unlock of a lock the thread does not hold (or holds by chance).
			b.line("unlock(%s);", l.text)
			return b.visibleCost()
		}
	case 2, 3:
		// Division or modulo by something that may be zero.
		cost := b.localCost()
		d := b.localInt(1)
		if g.chance(0.6) {
			d = b.sharedIntAtom()
			cost = b.visibleCost()
		}
		op := "/"
		if g.chance(0.5) {
			op = "%"
		}
		name := b.fresh(tInt)
		b.line("int %s = %s %s (%s - 1);", name, b.smallLit(), op, d.text)
		b.declare(&local{name: name, typ: tInt, max: -1})
		return cost
	case 4:
		// An index that may be out of bounds.
		if arr := g.intArray(); arr != nil {
			i := b.sharedIntAtom()
			b.line("%s[%s + 1] = %s;", arr.name, i.text, b.smallLit())
			return b.visibleCost()
		}
	case 5:
		// A shift by an amount that may be negative.
		x := b.sharedIntAtom()
		name := b.fresh(tInt)
		b.line("int %s = 1 << (%s - 1);", name, x.text)
		b.declare(&local{name: name, typ: tInt, max: -1})
		return b.visibleCost()
	}
	return b.write()
}

// mainBody joins the other templates and checks the final state.
func (b *body) mainBody(budget int) int {
	g := b.g
	cost := 0
	for _, t := range b.t.joinable {
		if cost >= budget-1 && g.chance(0.7) {
			break
		}
		cost += b.visibleCost()
		if t.count > 0 && g.chance(0.2) {
			for i := range t.count {
				b.line("join(%s[%d]);", t.name, i)
			}
			cost += t.count - 1
			continue
		}
		b.line("join(%s);", t.name)
	}
	if g.has(Asserts) {
		cost += b.sharedAssert()
	} else {
		cost += b.write()
	}
	if cost < budget {
		cost += b.block(budget-cost, 2)
	}
	return cost
}

// tid reports whether tid may be used: in a thread body, when templates are on.
func (b *body) tid() bool { return b.t != nil && b.g.has(Templates) }

// idiom emits one of the small patterns concurrent code is made of, on the hot
// variable: a racy read-modify-write, check-then-act, an optimistic cas update, a
// locked update, two reads that should agree. They are what makes the outcome of a
// program depend on the interleaving.
func (b *body) idiom(budget int) int {
	g := b.g
	h := g.hotInt()
	cost := b.visibleCost()
	switch x := g.pick(10); {
	case x < 3:
		// int t = x; x = t + 1;
		l := b.fresh(tInt)
		b.line("int %s = %s;", l, h)
		b.declare(&local{name: l, typ: tInt, max: -1})
		op := []string{"+", "+", "-", "*"}[g.pick(4)]
		rhs := fmt.Sprintf("%s %s %s", l, op, b.smallLitNonzero())
		b.line("%s = %s;", h, rhs)
		if g.has(Asserts) && g.chance(0.4) && budget >= 3 {
			// Nobody wrote in between: fails when the update was not atomic.
			b.line("assert(%s == %s);", h, rhs)
			return cost + 2
		}
		return cost + 1
	case x < 5 && g.has(Branches):
		// if (x == v) { x = w; }
		b.open("if (%s == %s) {", h, b.smallLit())
		b.line("%s = %s;", h, b.intE(1, false).text)
		b.close("}")
		return cost + 1
	case x < 7 && g.has(Cas):
		// int t = x; cas(x, t, t + 1);
		l := b.fresh(tInt)
		b.line("int %s = %s;", l, h)
		b.declare(&local{name: l, typ: tInt, max: -1})
		if g.chance(0.5) {
			b.line("cas(%s, %s, %s + %s);", h, l, l, b.smallLitNonzero())
			return cost + 1
		}
		r := b.fresh(tBool)
		inc := b.smallLitNonzero()
		if b.tid() {
			inc = "tid"
		}
		b.line("bool %s = cas(%s, %s, %s + %s);", r, h, l, l, inc)
		b.declare(&local{name: r, typ: tBool, max: -1})
		return cost + 1
	case x < 8 && g.has(Mutexes) && len(g.mutexes) > 0 && budget >= 4 && len(b.held) == 0:
		// lock(m); int t = x; x = t + 1; unlock(m);
		l, _ := b.pickLock()
		b.noteLock(l.decl)
		t := b.fresh(tInt)
		b.line("lock(%s);", l.text)
		b.line("int %s = %s;", t, h)
		b.declare(&local{name: t, typ: tInt, max: -1})
		b.line("%s = %s + 1;", h, t)
		b.line("unlock(%s);", l.text)
		return cost + 3
	default:
		// int t = x; int u = x; (did anyone write in between?)
		l1, l2 := b.fresh(tInt), b.fresh(tInt)
		b.line("int %s = %s;", l1, h)
		b.line("int %s = %s;", l2, h)
		b.declare(&local{name: l1, typ: tInt, max: -1})
		b.declare(&local{name: l2, typ: tInt, max: -1})
		if g.has(Asserts) && g.chance(0.5) {
			b.line("assert(%s == %s);", l1, l2)
		}
		return cost + 1
	}
}

// smallLitNonzero is a small literal other than zero.
func (b *body) smallLitNonzero() string {
	return []string{"1", "1", "2", "3"}[b.g.pick(4)]
}
