package encode

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"kbmc/ir"
	"kbmc/solver"
)

// Symbolic execution of one transition (ir/exec.go, Program.Step, term for term).
//
// A transition's nodes form a DAG in topological order (Transition.Nodes). Each
// node is executed once with a guard g (the absolute condition under which control
// reaches it with no failure so far: it starts as act = "step i is taken by this
// thread at this location") and a store (the values of the cells the path has
// written so far). At a join point the incoming stores are merged by choosing on
// the incoming edges' guards, which are mutually exclusive. Every run-time check
// splits the guard: g ∧ fail is recorded as a check, execution continues under
// g ∧ ¬fail, so that — as in ir, where a failed step stops — nothing after a
// failure draws values, touches locations or fails again.

// Store keys (ir.StoreKey): the shared cells' and locks' (ir.Program.CellKey,
// LockKey), then from ir.Program.FirstFreeKey the channels' cells
// (channel.go), then every thread's frame (localKey), then every thread's
// control location (pcKey). A step may move two threads — a send on a
// rendezvous runs the receiver's transition inside the sender's
// (rendezvous.go) — so a store names whose local or control location it
// holds: the receiver's are written as its stores, and undone with them.
type store map[ir.StoreKey]val

func (s store) clone() store {
	n := make(store, len(s))
	for k, v := range s {
		n[k] = v
	}
	return n
}

// A check is a run-time check that fails on the executed path when guard holds.
type check struct {
	guard *solver.Term
	kind  ir.ViolationKind
	pos   ir.Pos
	msg   string
	// other, when set, names thread in the violation instead of the
	// moving one: a thread the data-race check could not probe (race.go),
	// or a rendezvous receiver whose transition runs inside the sender's
	// step (ir's machine.moveReceiver keeps the receiver's).
	other  bool
	thread int
}

// A draw is one evaluation of nondet, or a channel operation's draw: it happens
// when guard holds and draws value, read back as a w-bit signed number (0:
// the encoding's width).
type draw struct {
	guard, value *solver.Term
	w            int
}

// move is the encoding of one thread's transition from one location at one step.
type move struct {
	thread, loc int
	act         *solver.Term // the step is taken by thread at loc
	checks      []check      // in evaluation order
	draws       []draw       // in evaluation order
	final       store        // the cells the transition may write, their values after it
	next        val          // the control location after it
	// logging: the transition has an inner guard (ir.Transition.InnerGuard),
	// whose failure undoes its writes; they are recorded in pending and
	// enter the footprint once it is known that the step did not get stuck.
	logging bool
	pending []pendingWrite
	// msgs: the sends and receives of numbered channels (channel.go).
	msgs []*msgOp
	// undone: the step got stuck on an inner guard, its writes undone.
	undone *solver.Term
	// race, when set, makes the move a probe of the thread's enabled
	// accesses for the data-race check rather than a step (race.go).
	race *raceProbe
}

// pendingWrite is a write access of a transition with an inner guard: to
// location loc, or (key set) to channel cell index key − chanKey0.
type pendingWrite struct {
	loc, key int
	g        *solver.Term
}

// accesses collects the guarded accesses of one step, per location, and the
// guarded writes of each channel cell (the partial-order encoding's writes of
// a channel are per cell, its footprint per channel).
type accesses struct {
	read, write [][]*solver.Term
	keyWrite    [][]*solver.Term // per channel cell: store key − chanKey0
}

func (u *Unrolling) newAccesses() *accesses {
	n := u.numLocs
	return &accesses{read: make([][]*solver.Term, n), write: make([][]*solver.Term, n),
		keyWrite: make([][]*solver.Term, int(u.keyLocal0-u.chanKey0))}
}

func (a *accesses) footprint(b *solver.Builder) Footprint {
	fp := Footprint{Read: make([]*solver.Term, len(a.read)), Write: make([]*solver.Term, len(a.write))}
	for c := range a.read {
		fp.Read[c] = b.Or(a.read[c]...)
		fp.Write[c] = b.Or(a.write[c]...)
	}
	return fp
}

// frame is the symbolic machine of one thread on one path prefix.
type frame struct {
	u   *Unrolling
	b   *solver.Builder
	th  *ir.Thread
	pre *state
	st  store
	g   *solver.Term

	// Set when executing a step (mv != nil); nil when evaluating a guard for
	// enabledness, which records no accesses and collects failures in guardFail.
	mv        *move
	acc       *accesses
	as        *[]*solver.Term // assertions (nondet ranges)
	stepIndex int
	slot      *int
	guardFail []*solver.Term

	// inner: the node is not its transition's first; an inner guard that
	// is false there leaves the thread stuck (ir's machine.blocked), under
	// the conditions collected in stuck.
	tr    *ir.Transition
	inner bool
	stuck []*solver.Term
	// halts: the conditions under which a failing assertion stops the
	// thread for good (halt).
	halts []*solver.Term

	// ho: the message a sender hands the entry node over (rendezvous.go).
	// probe: the frame evaluates what a waiting receiver's select case
	// names, for a sender: a failure there is no violation (ir's
	// machine.receivers), so it goes into guardFail, but the reads count.
	// err: a construct found unencodable while executing a node.
	ho    *handoff
	probe bool
	err   error
}

type edge struct {
	cond  *solver.Term
	st    store
	stuck bool // the path got stuck on an inner guard: its writes are undone
}

// exec encodes thread th's transition tr at step i from state s, active under act.
func (u *Unrolling) exec(i int, s *state, th *ir.Thread, tr *ir.Transition, act *solver.Term,
	acc *accesses, as *[]*solver.Term) (*move, error) {
	b := u.b
	mv := &move{thread: th.ID, loc: tr.Index, act: act, logging: tr.InnerGuard, race: u.probe}
	if th.Template.Receives {
		// A sender's step may have moved the thread (rendezvous.go): its
		// steps read its port, which that step writes.
		acc.read[u.p.PortLocation(th.ID)] = append(acc.read[u.p.PortLocation(th.ID)], act)
	}
	slot := 0
	r := run{u: u, i: i, s: s, mv: mv, acc: acc, as: as, slot: &slot}
	exits, exitLocs, err := r.transition(th, tr, act, store{}, nil)
	if err != nil {
		return nil, err
	}
	var conds, stuck []*solver.Term
	for _, e := range exits {
		conds = append(conds, e.cond)
		if e.stuck {
			stuck = append(stuck, e.cond)
		}
	}
	// The writes of a step that got stuck were undone: they count only
	// when it did not.
	mv.undone = b.Or(stuck...)
	notStuck := b.Not(mv.undone)
	for _, op := range mv.msgs {
		op.guard = b.And(op.guard, notStuck)
	}
	for _, w := range mv.pending {
		g := b.And(w.g, notStuck)
		if w.key >= 0 {
			acc.keyWrite[w.key] = append(acc.keyWrite[w.key], g)
		} else {
			acc.write[w.loc] = append(acc.write[w.loc], g)
		}
	}
	if len(exits) == 0 {
		// Every path fails: the location does not matter.
		mv.final = store{}
		mv.next = u.constVal(uint64(tr.Index), u.locWidth[th.ID])
		return mv, nil
	}
	_, mv.final = u.join(s, th, exits)
	mv.next = u.choose(conds, exitLocs)
	return mv, nil
}

// run is what the transitions one step executes share: the step, its
// pre-state, the move that collects checks, draws and accesses, and the
// draw slots. A step runs one transition, or two: a send on a rendezvous
// runs the receiver's inside the sender's (rendezvous.go).
type run struct {
	u    *Unrolling
	i    int
	s    *state
	mv   *move
	acc  *accesses
	as   *[]*solver.Term
	slot *int
}

// transition encodes thread th's transition tr from the path condition g
// with store st (the writes of the step so far), and returns its exits: the
// edges that leave it, each with its store, and the location each ends at.
// ho, when not nil, is the message a sender hands th's entry node over
// (rendezvous.go).
func (r run) transition(th *ir.Thread, tr *ir.Transition, g *solver.Term, st store, ho *handoff) ([]edge, []val, error) {
	u, b := r.u, r.u.b
	tm := th.Template
	in := make(map[int][]edge)
	var exits []edge
	var exitLocs []val
	for idx, n := range tr.Nodes {
		node := tm.Nodes[n]
		var f *frame
		if idx == 0 {
			f = &frame{g: g, st: st, ho: ho}
		} else {
			es := in[n]
			delete(in, n)
			if len(es) == 0 {
				continue
			}
			g, st := u.join(r.s, th, es)
			f = &frame{g: g, st: st}
		}
		f.u, f.b, f.th, f.pre = u, b, th, r.s
		f.mv, f.acc, f.as, f.stepIndex, f.slot = r.mv, r.acc, r.as, r.i, r.slot
		f.tr, f.inner = tr, idx > 0
		if f.inner && node.Op.Props().Blocks && !innerAllowed(tr, node) {
			// Enabledness is decided by the entry node only (Program.Status);
			// Supported rejects the blocking operations ir does not run
			// inside a transition.
			return nil, nil, fmt.Errorf("encode: %s: %s inside a transition", node.Pos, node.Op)
		}
		var succ []edge
		var targets []int
		switch node.Op {
		case ir.OpBranch:
			c := u.toBool(f.eval(node.X))
			succ = []edge{{cond: b.And(f.g, c), st: f.st}, {cond: b.And(f.g, b.Not(c)), st: f.st}}
			targets = []int{node.Next, node.Else}
		case ir.OpSelect:
			// One path per alternative, all to the next node (select.go).
			succ = f.selectCase(node)
			for range succ {
				targets = append(targets, node.Next)
			}
		default:
			f.node(node)
			if f.err != nil {
				return nil, nil, f.err
			}
			succ = []edge{{cond: f.g, st: f.st}}
			targets = []int{node.Next}
			for _, g := range f.stuck {
				// The thread sits at Stuck() for ever, the step's writes
				// undone (ir's Program.Step): an exit with an empty store.
				exits = append(exits, edge{cond: g, st: store{}, stuck: true})
				exitLocs = append(exitLocs, u.constVal(uint64(tm.Stuck()), u.locWidth[th.ID]))
			}
			for _, g := range f.halts {
				// A failing assertion stopped the thread for good, the
				// step's writes kept (race.go).
				exits = append(exits, edge{cond: g, st: f.st})
				exitLocs = append(exitLocs, u.constVal(uint64(tm.Stuck()), u.locWidth[th.ID]))
			}
		}
		if r.mv.race != nil {
			r.mv.race.visited(tr, node, succ)
		}
		for j, e := range succ {
			if e.cond.IsFalse() {
				continue
			}
			t := targets[j]
			if t == ir.Exit || tm.Nodes[t].Cut {
				exits = append(exits, e)
				exitLocs = append(exitLocs, u.constVal(uint64(tm.Loc(t)), u.locWidth[th.ID]))
				if t == ir.Exit {
					// A terminating step writes the thread's termination status,
					// which join reads (docs/symbolic.md, "Footprints").
					loc := u.p.ThreadLocation(th.ID)
					r.acc.write[loc] = append(r.acc.write[loc], e.cond)
				} else if to := tm.Transitions[tm.Loc(t)]; to.Receives {
					// The thread now waits to receive there (rendezvous.go).
					r.waitAt(to, e.cond)
				}
				continue
			}
			in[t] = append(in[t], e)
		}
	}
	return exits, exitLocs, nil
}

// join merges the stores of mutually exclusive incoming edges.
func (u *Unrolling) join(s *state, th *ir.Thread, es []edge) (*solver.Term, store) {
	conds := make([]*solver.Term, len(es))
	for j, e := range es {
		conds[j] = e.cond
	}
	g := u.b.Or(conds...)
	if len(es) == 1 {
		return g, es[0].st.clone()
	}
	st := store{}
	vs := make([]val, len(es))
	for _, e := range es {
		for k := range e.st {
			if _, done := st[k]; done {
				continue
			}
			base := u.base(s, th, k)
			for j, e := range es {
				v, ok := e.st[k]
				switch {
				case ok:
				case e.stuck && s.lazy != nil && k < u.keyLocal0:
					// The partial-order encoding counts a shared write
					// only where the step did not get stuck: the value
					// there is not observed, and needs no read.
					v = u.zeroOf(k)
				default:
					v = base
				}
				vs[j] = v
			}
			st[k] = u.choose(conds, vs)
		}
	}
	return g, st
}

// base is the value of store key k in the pre-state.
func (u *Unrolling) base(s *state, th *ir.Thread, k ir.StoreKey) val {
	switch {
	case k >= u.pcKey0:
		return s.loc[k-u.pcKey0]
	case k >= u.keyLocal0:
		t, c := u.localOf(k)
		return s.local[t][c]
	case k < u.keyLocal0 && s.lazy != nil:
		return s.lazy(k)
	case k < u.chanKey0:
		kind, i := u.p.LocateKey(k)
		if kind == ir.LocLock {
			return s.owner[i]
		}
		return s.shared[i]
	}
	return s.chans[k-u.chanKey0]
}

// localKey is the store key of frame cell c of thread t.
func (u *Unrolling) localKey(t, c int) ir.StoreKey {
	return u.keyLocal0 + ir.StoreKey(u.localBase[t]+c)
}

// localOf returns the thread and frame cell of a local's store key.
func (u *Unrolling) localOf(k ir.StoreKey) (t, c int) {
	i := int(k - u.keyLocal0)
	t = sort.Search(len(u.localBase), func(t int) bool { return u.localBase[t] > i }) - 1
	return t, i - u.localBase[t]
}

// pcKey is the store key of thread t's control location: written by a step
// that moves t as a rendezvous's receiver (the moving thread's own goes
// into move.next).
func (u *Unrolling) pcKey(t int) ir.StoreKey { return u.pcKey0 + ir.StoreKey(t) }

func (f *frame) get(k ir.StoreKey) val {
	if v, ok := f.st[k]; ok {
		return v
	}
	return f.u.base(f.pre, f.th, k)
}

// check records a run-time check failing when fail holds, and continues on the
// path where it does not.
func (f *frame) check(fail *solver.Term, kind ir.ViolationKind, pos ir.Pos, msg string) {
	b := f.b
	g := b.And(f.g, fail)
	if !g.IsFalse() {
		if f.mv != nil && !f.probe {
			f.mv.checks = append(f.mv.checks, check{guard: g, kind: kind, pos: pos, msg: msg,
				other: f.th.ID != f.mv.thread, thread: f.th.ID})
		} else {
			f.guardFail = append(f.guardFail, g)
		}
	}
	f.g = b.And(f.g, b.Not(fail))
}

func (f *frame) access(loc int, write bool, cond *solver.Term) {
	if f.mv == nil {
		return
	}
	g := f.b.And(f.g, cond)
	if g.IsFalse() {
		return
	}
	if f.mv.race != nil {
		f.mv.race.saw(loc, write, g)
	}
	if write && f.mv.logging {
		f.mv.pending = append(f.mv.pending, pendingWrite{loc: loc, key: -1, g: g})
		return
	}
	if write {
		f.acc.write[loc] = append(f.acc.write[loc], g)
	} else {
		f.acc.read[loc] = append(f.acc.read[loc], g)
	}
}

func (f *frame) int(v int64) val { return f.u.constVal(uint64(v), f.u.w) }

// conv converts a value to the representation of type t: a Bool as a
// Boolean term (as an int with raw Bools, unchanged, as ir stores it), an
// int at the encoding's width.
func (f *frame) conv(t ir.Type, v val) val {
	if t == ir.Bool && !f.u.raw {
		return termVal(f.u.toBool(v))
	}
	return f.u.toInt(v, f.u.w)
}

// where is the proposition "v is a constant with property p"; sym is the same
// for a term.
func (u *Unrolling) where(v val, p func(c int64) bool, sym func(t *solver.Term) *solver.Term) *solver.Term {
	if v.set == nil {
		return sym(v.t)
	}
	var or []*solver.Term
	for _, x := range v.set {
		if p(solver.Signed(x.c, v.w)) {
			or = append(or, x.g)
		}
	}
	return u.b.Or(or...)
}

// cells returns, for an index value and an array of n elements, the condition
// under which the index names each element, and the condition "idx < 0 || idx >=
// n" on W-bit signed values.
func (u *Unrolling) cells(idx val, n int) (conds []*solver.Term, oob *solver.Term) {
	b := u.b
	idx = u.toInt(idx, u.w)
	conds = make([]*solver.Term, n)
	for c := range conds {
		conds[c] = u.is(idx, uint64(c))
	}
	oob = u.where(idx, func(c int64) bool { return c < 0 || c >= int64(n) }, func(t *solver.Term) *solver.Term {
		neg := b.Slt(t, b.BV(0, u.w))
		if int64(n) > u.p.MaxInt() {
			return neg
		}
		return b.Or(neg, b.Sge(t, b.BV(uint64(n), u.w)))
	})
	return conds, oob
}

// key is the store key of cell c of variable v (c counts from v's first cell).
func (f *frame) key(v *ir.Var, c int) ir.StoreKey {
	if v.Shared {
		return f.u.p.CellKey(v.Offset + c)
	}
	return f.u.localKey(f.th.ID, v.Offset+c)
}

// index evaluates an array index and checks its bounds, as machine.cell does, and
// returns the condition under which it names each element. pos is where ir
// reports the error: the indexing expression for a read, the index for an
// assignment's target.
func (f *frame) index(v *ir.Var, e *ir.Expr, pos ir.Pos) []*solver.Term {
	conds, oob := f.u.cells(f.eval(e), v.Len)
	f.check(oob, ir.Bounds, pos, fmt.Sprintf("index out of bounds for %s[%d]", v.Name, v.Len))
	return conds
}

// value reads v (conds nil) or the element of v that conds selects.
func (f *frame) value(v *ir.Var, conds []*solver.Term) val {
	if conds == nil {
		return f.get(f.key(v, 0))
	}
	vs := make([]val, v.Len)
	for c := range vs {
		if conds[c].IsFalse() {
			// A cell the index cannot name: never chosen, so not read.
			vs[c] = f.u.value(v.CellType(c), 0)
			continue
		}
		vs[c] = f.get(f.key(v, c))
	}
	return f.u.choose(conds, vs)
}

// load is value, recording the shared read.
func (f *frame) load(v *ir.Var, conds []*solver.Term) val {
	if v.Shared {
		if conds == nil {
			f.access(v.Offset, false, f.b.True())
		}
		for c, at := range conds {
			f.access(v.Offset+c, false, at)
		}
	}
	return f.value(v, conds)
}

// put writes x to v (conds nil) or to the element conds selects, when cond
// holds, recording shared writes.
func (f *frame) put(v *ir.Var, conds []*solver.Term, x val, cond *solver.Term) {
	b, u := f.b, f.u
	if conds == nil {
		conds = []*solver.Term{b.True()}
	}
	for c, at := range conds {
		at = b.And(cond, at)
		if at.IsFalse() {
			continue
		}
		k := f.key(v, c)
		x := f.conv(v.CellType(c), x)
		if at.IsTrue() {
			f.st[k] = x // the old value is not looked at
		} else {
			f.st[k] = u.ite(at, x, f.get(k))
		}
		if v.Shared {
			f.access(v.Offset+c, true, at)
		}
	}
}

// store is machine.store: the index (or the pointer) is evaluated after the
// value.
func (f *frame) store(lv *ir.LValue, x val) {
	if lv.Ptr != nil {
		f.storePtr(lv, x)
		return
	}
	var conds []*solver.Term
	if lv.Index != nil {
		conds = f.index(lv.Var, lv.Index, lv.Index.Pos)
	}
	f.put(lv.Var, conds, x, f.b.True())
}

// lockCells is machine.lockIndex: for each lock of the mutex declaration, the
// condition under which the operation names it, bounds-checked.
func (f *frame) lockCells(n *ir.Node) []*solver.Term {
	if n.MIndex == nil {
		return []*solver.Term{f.b.True()}
	}
	conds, oob := f.u.cells(f.eval(n.MIndex), n.Mutex.Count())
	f.check(oob, ir.Bounds, n.MIndex.Pos, fmt.Sprintf("index out of bounds for %s[%d]", n.Mutex.Name, n.Mutex.Len))
	return conds
}

// owner is the owner of the lock conds selects.
func (f *frame) owner(m *ir.Mutex, conds []*solver.Term) val {
	vs := make([]val, len(conds))
	for j := range vs {
		if conds[j].IsFalse() {
			vs[j] = f.u.constVal(0, f.u.ownWidth) // a lock the index cannot name
			continue
		}
		vs[j] = f.get(f.u.p.LockKey(m.Offset + j))
	}
	return f.u.choose(conds, vs)
}

// setOwner writes the owner of the lock conds selects, recording the lock's
// location as written (docs/symbolic.md, "Footprints": lock and unlock write
// the mutex).
func (f *frame) setOwner(m *ir.Mutex, conds []*solver.Term, x val) {
	u, p := f.u, f.u.p
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		k := p.LockKey(m.Offset + j)
		if at.IsTrue() {
			f.st[k] = x
		} else {
			f.st[k] = u.ite(at, x, f.get(k))
		}
		f.access(p.LockLocation(m.Offset+j), true, at)
	}
}

// me is the owner value of the moving thread.
func (f *frame) me() uint64 { return uint64(f.th.ID + 1) }

// joinTargets returns, for each thread join waits for, the condition under which
// it does (machine.joinRange).
func (f *frame) joinTargets(n *ir.Node) (threads []int, conds []*solver.Term) {
	t := n.Join
	for j := 0; j < t.Instances(); j++ {
		threads = append(threads, t.First+j)
	}
	if n.JIndex == nil {
		for range threads {
			conds = append(conds, f.b.True())
		}
		return threads, conds
	}
	conds, oob := f.u.cells(f.eval(n.JIndex), t.Instances())
	f.check(oob, ir.Bounds, n.JIndex.Pos, fmt.Sprintf("index out of bounds for thread %s[%d]", t.Name, t.Instances()))
	return threads, conds
}

// node executes one non-branch node (machine.exec).
func (f *frame) node(n *ir.Node) {
	b, u := f.b, f.u
	switch n.Op {
	case ir.OpNop, ir.OpYield:
	case ir.OpAssign:
		x := f.eval(n.X)
		f.store(n.LHS, x)
	case ir.OpAssert:
		c := u.toBool(f.eval(n.X))
		msg := n.Msg
		if msg == "" {
			msg = "assertion " + n.Text + " failed"
		}
		kind := n.Kind
		if kind == ir.NoViolation {
			kind = ir.Assertion
		}
		if u.p.AbortsOnAssert() && kind != ir.Unsupported && !n.Recoverable {
			f.halt(b.Not(c)) // ir's machine.halted
			break
		}
		f.check(b.Not(c), kind, n.Pos, msg)
	case ir.OpAssume, ir.OpAwait:
		// At a transition's start the condition holds whenever the step is
		// taken (the thread is enabled); evaluating it records its reads and
		// its run-time errors. Inside, a false condition leaves the thread
		// stuck.
		x := f.eval(n.X)
		if f.inner {
			f.blocked(b.Not(u.toBool(x)))
		}
	case ir.OpLock:
		if n.Addr != nil {
			f.lockAt(n)
			break
		}
		conds := f.lockCells(n)
		own := f.owner(n.Mutex, conds)
		if !n.AnyOwner {
			// Go's Lock of a mutex its thread holds waits instead (guard).
			f.check(u.is(own, f.me()), ir.Relock, n.Pos, "lock of a mutex the thread already holds")
		}
		if f.inner {
			// Taken by another thread (or, for Go's Lock, by any): the
			// thread is stuck (ir reads the lock there).
			held := b.Not(u.is(own, 0))
			for j, at := range conds {
				f.access(u.p.LockLocation(n.Mutex.Offset+j), false, b.And(at, held))
			}
			f.blocked(held)
		}
		// Enabledness (inside: the guard above) guarantees that the lock is
		// free here.
		f.setOwner(n.Mutex, conds, u.constVal(f.me(), u.ownWidth))
	case ir.OpUnlock:
		if n.Addr != nil {
			f.unlockAt(n)
			break
		}
		conds := f.lockCells(n)
		own := f.owner(n.Mutex, conds)
		if n.AnyOwner {
			for j, at := range conds { // the panic's write too
				f.access(u.p.LockLocation(n.Mutex.Offset+j), true, at)
			}
		}
		f.checkUnlock(n, own)
		f.setOwner(n.Mutex, conds, u.constVal(0, u.ownWidth))
	case ir.OpTryLock:
		f.tryLock(n)
	case ir.OpJoin:
		if n.JThread != nil {
			f.joinThread(n)
			break
		}
		ts, cs := f.joinTargets(n)
		for j, t := range ts {
			f.access(u.p.ThreadLocation(t), false, cs[j])
		}
	case ir.OpStart:
		f.start(n)
	case ir.OpSpawn:
		f.spawn(n)
	case ir.OpAlloc:
		f.alloc(n)
	case ir.OpFree:
		f.free(n)
	case ir.OpCas:
		if n.LHS.Ptr != nil {
			f.casAt(n)
			break
		}
		lv := n.LHS
		var conds []*solver.Term
		if lv.Index != nil {
			conds = f.index(lv.Var, lv.Index, lv.Index.Pos)
		}
		exp := f.eval(n.X)
		nv := f.eval(n.Y)
		v := lv.Var
		// A failed cas reads the cell, a successful one writes it (machine.exec).
		ok := f.equal(f.value(v, conds), exp)
		if v.Shared && conds == nil {
			f.access(v.Offset, false, b.Not(ok))
		}
		if v.Shared {
			for c, at := range conds {
				f.access(v.Offset+c, false, b.And(at, b.Not(ok)))
			}
		}
		f.put(v, conds, nv, ok)
		if n.Result != nil {
			f.store(n.Result, termVal(ok))
		}
	case ir.OpSend:
		f.send(n)
	case ir.OpRecv:
		f.recv(n)
	case ir.OpClose:
		f.closeChan(n)
	default:
		panic(fmt.Sprintf("encode: unknown operation %v", n.Op))
	}
}

// checkUnlock is machine.exec's check of an unlock of a mutex whose owner
// is own: the owner's own (BadUnlock), or for Go's unlock (ir.Node.AnyOwner)
// any goroutine's of a held mutex (a Panic). As in ir, a failing Go unlock
// writes the mutex (the caller records it) and a failing .kb one touches
// nothing.
func (f *frame) checkUnlock(n *ir.Node, own val) {
	if n.AnyOwner {
		f.check(f.u.is(own, 0), ir.Panic, n.Pos, "sync: unlock of unlocked mutex")
		return
	}
	f.check(f.b.Not(f.u.is(own, f.me())), ir.BadUnlock, n.Pos, "unlock of a mutex the thread does not hold")
}

// lockFree is Program.Status's condition on a lock's owner own: the lock is
// free, or the thread holds it (to fail as a relock), except for Go's Lock,
// which waits for a mutex its thread holds too.
func (f *frame) lockFree(n *ir.Node, own val) *solver.Term {
	if n.AnyOwner {
		return f.u.is(own, 0)
	}
	return f.b.Or(f.u.is(own, 0), f.u.is(own, f.me()))
}

// blocked is machine.blocked: an operation whose guard fails when c holds.
// Inside a transition with an inner guard the thread is then stuck; at a
// transition's start enabledness guarantees that c does not hold.
func (f *frame) blocked(c *solver.Term) {
	if !f.inner {
		return
	}
	b := f.b
	if g := b.And(f.g, c); !g.IsFalse() {
		f.stuck = append(f.stuck, g)
	}
	f.g = b.And(f.g, b.Not(c))
}

// innerAllowed reports whether ir executes blocking node n inside
// transition tr (not as its first node): an await, assume, lock or join of a
// thread value gets the thread stuck when its guard is false, in a transition
// with an inner guard; a spawn or allocation that finds its pool full fails
// as unsupported; a created thread's start right after the lock it was
// folded into (ir.HoistStarts) waits at the transition's entry, whose guard
// (guard) checks the start flag. ir stops with an internal error on any other.
func innerAllowed(tr *ir.Transition, n *ir.Node) bool {
	switch n.Op {
	case ir.OpSpawn, ir.OpAlloc:
		return true
	case ir.OpStart:
		return tr.Entry == tr.Template.Entry
	case ir.OpAssume, ir.OpAwait, ir.OpLock:
		return tr.InnerGuard
	case ir.OpJoin:
		return tr.InnerGuard && n.JThread != nil
	}
	return false
}

// equal compares two values of one type.
func (f *frame) equal(x, y val) *solver.Term {
	if x.isBool() && y.isBool() {
		return f.b.Iff(x.t, y.t)
	}
	return f.u.equal(f.u.toInt(x, f.u.w), f.u.toInt(y, f.u.w))
}

// eval is machine.eval: the value of e, an int as a u.w-bit value and a bool
// as a Bool term (an int with raw Bools). Run-time errors become checks;
// short-circuit operators evaluate their right operand under the guard that
// selects it.
func (f *frame) eval(e *ir.Expr) val {
	v := f.eval0(e)
	if e.Type == ir.Bool {
		if f.u.raw {
			return f.u.toInt(v, f.u.w)
		}
		if !v.isBool() {
			return termVal(f.u.toBool(v)) // a Bool drawn by nondet: 0 or 1
		}
	}
	return v
}

func (f *frame) eval0(e *ir.Expr) val {
	b, u := f.b, f.u
	w := u.w
	asInt := func(v val) val { return u.toInt(v, w) }
	switch e.Op {
	case ir.EConst:
		if e.Type == ir.Bool {
			return termVal(b.Bool(e.Val != 0))
		}
		return f.int(e.Val)
	case ir.EVar:
		return f.load(e.Var, nil)
	case ir.EIndex:
		conds := f.index(e.Var, e.X, e.Pos)
		return f.load(e.Var, conds)
	case ir.ETid:
		return f.int(int64(f.th.Tid))
	case ir.ESelf:
		return f.int(int64(f.th.ID + 1))
	case ir.ENondet:
		return f.nondet(e)
	case ir.ELen:
		return f.length(e)
	case ir.ENeg:
		return u.wrap(e.Type, u.unary(asInt(f.eval(e.X)), b.Neg))
	case ir.ENot:
		x := f.eval(e.X)
		if u.raw {
			return u.binary(f.int(1), asInt(x), b.Sub) // ir: 1 − x, whatever x holds
		}
		return termVal(b.Not(u.toBool(x)))
	case ir.ECompl:
		return u.wrap(e.Type, u.unary(asInt(f.eval(e.X)), b.BVNot))
	case ir.EConv:
		return u.convert(e.Type, f.eval(e.X))
	case ir.EAddr:
		return f.addr(e)
	case ir.EDeref:
		return f.deref(e)
	case ir.ELAnd, ir.ELOr:
		x := u.toBool(f.eval(e.X))
		g0 := f.g
		sel := x
		if e.Op == ir.ELOr {
			sel = b.Not(x)
		}
		f.g = b.And(g0, sel)
		yv := f.eval(e.Y)
		f.g = b.Or(b.And(g0, b.Not(sel)), f.g)
		if u.raw {
			// ir: x && y is y's value when x holds, x || y likewise.
			if e.Op == ir.ELAnd {
				return u.ite(x, asInt(yv), f.int(0))
			}
			return u.ite(x, f.int(1), asInt(yv))
		}
		y := u.toBool(yv)
		if e.Op == ir.ELAnd {
			return termVal(b.And(x, y))
		}
		return termVal(b.Or(x, y))
	case ir.ECond:
		c := u.toBool(f.eval(e.X))
		g0 := f.g
		f.g = b.And(g0, c)
		y := f.eval(e.Y)
		gy := f.g
		f.g = b.And(g0, b.Not(c))
		z := f.eval(e.Z)
		f.g = b.Or(gy, f.g)
		if y.isBool() != z.isBool() {
			y, z = asInt(y), asInt(z)
		}
		return u.ite(c, y, z)
	}
	x := f.eval(e.X)
	y := f.eval(e.Y)
	switch e.Op {
	case ir.EEq:
		return termVal(f.equal(x, y))
	case ir.ENe:
		return termVal(b.Not(f.equal(x, y)))
	case ir.EAnd, ir.EOr, ir.EXor:
		if e.Type == ir.Bool && !u.raw {
			p, q := u.toBool(x), u.toBool(y)
			switch e.Op {
			case ir.EAnd:
				return termVal(b.And(p, q))
			case ir.EOr:
				return termVal(b.Or(p, q))
			}
			return termVal(b.Xor(p, q))
		}
	case ir.EPtrAdd:
		return f.ptrAdd(e, asInt(x), asInt(y))
	case ir.EPtrDiff:
		return f.ptrDiff(e, asInt(x), asInt(y))
	}
	x, y = asInt(x), asInt(y)
	t := e.Type
	switch e.Op {
	case ir.EMul:
		return u.wrap(t, u.binary(x, y, b.Mul))
	case ir.EDiv, ir.ERem:
		f.check(u.is(y, 0), ir.DivisionByZero, e.Pos, "division by zero")
		op := b.SDiv
		switch {
		case e.Op == ir.ERem && t.Signed():
			op = b.SRem
		case e.Op == ir.EDiv && !t.Signed():
			op = b.UDiv
		case e.Op == ir.ERem:
			op = b.URem
		}
		return u.wrap(t, u.binary(x, y, op))
	case ir.EAdd:
		return u.wrap(t, u.binary(x, y, b.Add))
	case ir.ESub:
		return u.wrap(t, u.binary(x, y, b.Sub))
	case ir.EShl, ir.EShr:
		// y < 0 || y >= bits (the type's), which on a term is y >=u bits
		// while bits <= 2^(w-1); above, no w-bit value reaches bits.
		bits := u.typeBits(t)
		bad := u.where(y, func(c int64) bool { return c < 0 || c >= int64(bits) },
			func(y *solver.Term) *solver.Term {
				if w < 8 && bits > 1<<(w-1) {
					return b.Slt(y, b.BV(0, w))
				}
				return b.Uge(y, b.BV(uint64(bits), w))
			})
		f.check(bad, ir.Shift, e.Pos, fmt.Sprintf("shift amount outside [0, %d)", bits))
		switch {
		case e.Op == ir.EShl:
			return u.wrap(t, u.binary(x, y, b.Shl))
		case t.Signed():
			return u.binary(x, y, b.AShr)
		}
		return u.binary(x, y, b.LShr)
	case ir.ELt, ir.ELe, ir.EGt, ir.EGe:
		// By the operands' type (ir compares an unsigned type's values, a
		// pointer's or a Bool's as uint64).
		return u.compare(e.Op, e.X.Type, x, y)
	case ir.EAnd:
		return u.binary(x, y, b.BVAnd)
	case ir.EOr:
		return u.binary(x, y, b.BVOr)
	case ir.EXor:
		return u.binary(x, y, b.BVXor)
	}
	panic(fmt.Sprintf("encode: unknown expression operator %v", e.Op))
}

// nondet draws a value for this evaluation of e: step i's slot-th draw, in
// [Lo, Hi] when the draw happens (any W-bit value for nondet()). A small range
// is drawn as one Boolean per value, exactly one of which holds when the draw
// happens; a large one as a W-bit variable. Slots are shared by the moves of one
// step, of which at most one is taken.
func (f *frame) nondet(e *ir.Expr) val {
	b, u := f.b, f.u
	if f.mv == nil {
		// Guards are evaluated with every draw at its low end (ir's Status);
		// Supported keeps nondet out of guards, so this is not reached.
		return f.int(e.Lo)
	}
	slot := *f.slot
	*f.slot++
	var v val
	if !e.Unbounded && e.Hi >= e.Lo && uint64(e.Hi-e.Lo) < maxOneHot {
		var inds []*solver.Term
		for c := e.Lo; c <= e.Hi; c++ {
			ind := b.BoolVar(fmt.Sprintf("#nd@%d.%d=%d", f.stepIndex, slot, c))
			inds = append(inds, ind)
			v.set = append(v.set, gconst{uint64(c) & solver.Mask(u.w), ind})
		}
		v.w = u.w
		slices.SortFunc(v.set, func(x, y gconst) int { return cmp.Compare(x.c, y.c) })
		*f.as = append(*f.as, b.Implies(f.g, b.Or(inds...)))
		for j := range inds {
			for k := j + 1; k < len(inds); k++ {
				*f.as = append(*f.as, b.Not(b.And(inds[j], inds[k])))
			}
		}
		u.vars += len(inds)
	} else {
		t := b.BVVar(fmt.Sprintf("#nd@%d.%d", f.stepIndex, slot), u.w)
		u.vars++
		if !e.Unbounded {
			*f.as = append(*f.as, b.Implies(f.g, b.And(b.Sle(b.BV(uint64(e.Lo), u.w), t), b.Sle(t, b.BV(uint64(e.Hi), u.w)))))
		}
		if e.Unbounded {
			// Any value of the type (ir.Expr.Unbounded): at u.w bits when
			// the type has them, else the type's range.
			if bits := u.typeBits(e.Type); e.Type != ir.Bool && bits < u.w {
				lo, hi := e.Type.Range(u.p.Width)
				*f.as = append(*f.as, b.Implies(f.g, b.And(b.Sle(b.BV(uint64(lo), u.w), t), b.Sle(t, b.BV(uint64(hi), u.w)))))
			}
		}
		v = termVal(t)
	}
	f.mv.draws = append(f.mv.draws, draw{guard: f.g, value: u.term(v)})
	if f.mv.race != nil {
		f.mv.race.drew(e, f.g)
	}
	return v
}

// guardVal is what a transition's entry node says about its thread
// (Program.Status): en, the thread may take the step; assume, it sits on a
// false assume; dormant, it was never started; limit, it waits at a bound of
// the model (a full thread or heap pool).
type guardVal struct {
	en, assume, dormant, limit *solver.Term
}

// guard evaluates the entry node of tr for enabledness in s (Program.Status).
// A guard whose evaluation fails counts as enabled.
func (u *Unrolling) guard(s *state, th *ir.Thread, tr *ir.Transition) guardVal {
	b := u.b
	n := tr.EntryNode()
	f := &frame{u: u, b: b, th: th, pre: s, st: store{}, g: b.True()}
	g := guardVal{en: b.True(), assume: b.False(), dormant: b.False(), limit: b.False()}
	failed := func() *solver.Term { return b.Or(f.guardFail...) }
	switch n.Op {
	case ir.OpAwait, ir.OpAssume:
		c := u.toBool(f.eval(n.X))
		g.en = b.Or(c, failed())
		if n.Op == ir.OpAssume {
			g.assume = b.Not(g.en)
		}
	case ir.OpLock:
		if n.Addr != nil {
			ts := f.mutexCells(n)
			own := f.cellsValue(ts, ir.MutexCell)
			g.en = b.Or(f.lockFree(n, own), failed())
			break
		}
		conds := f.lockCells(n)
		own := f.owner(n.Mutex, conds)
		g.en = b.Or(f.lockFree(n, own), failed())
	case ir.OpJoin:
		var ts []int
		var cs []*solver.Term
		if n.JThread != nil {
			ts, cs = f.joinedThreads(n)
		} else {
			ts, cs = f.joinTargets(n)
		}
		var all []*solver.Term
		for j, t := range ts {
			done := u.is(s.loc[t], uint64(u.p.Threads[t].Template.Terminated()))
			all = append(all, b.Implies(cs[j], done))
		}
		g.en = b.Or(b.And(all...), failed())
	case ir.OpSend, ir.OpRecv:
		g.en = f.chanGuard(n)
	case ir.OpSelect:
		g.en = f.selectGuard(n)
	case ir.OpStart:
		started := b.Not(u.is(f.get(f.u.p.CellKey(startKey(th.Template, ir.StartFlag))), 0))
		g.en, g.dormant = started, b.Not(started)
	case ir.OpSpawn:
		_, none := f.freeSlot(n)
		g.en, g.limit = b.Not(none), none
	case ir.OpAlloc:
		size := f.eval(n.X)
		_, none := f.freeBlock(n, b.True())
		fits := b.Not(u.where(size, func(c int64) bool { return c > int64(n.Alloc.Blocks[0].Cells()) },
			func(t *solver.Term) *solver.Term { return b.Sgt(t, b.BV(uint64(n.Alloc.Blocks[0].Cells()), u.w)) }))
		g.en = b.Or(failed(), b.And(b.Not(none), fits))
		g.limit = b.Not(g.en)
	}
	if tm := th.Template; tm.Start != nil && tr.Entry == tm.Entry && n.Op != ir.OpStart {
		// A lock the thread's start was folded into (ir.HoistStarts): the
		// thread is Dormant until it is started, as ir.Program.Status.
		started := b.Not(u.is(f.get(f.u.p.CellKey(startKey(tm, ir.StartFlag))), 0))
		g.en, g.assume, g.limit = b.And(started, g.en), b.And(started, g.assume), b.And(started, g.limit)
		g.dormant = b.Not(started)
	}
	return g
}
