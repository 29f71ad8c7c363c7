package encode

import (
	"context"
	"fmt"
	"math/bits"
	"slices"

	"kbmc/ir"
	"kbmc/solver"
)

// Options configure an Unrolling.
type Options struct {
	// Reduction adds partial-order constraints to every step (docs/symbolic.md);
	// nil adds none. A Reduction serves one Unrolling.
	Reduction Reduction
	// NoDeadlock leaves deadlocks out of Bad (--no-deadlock).
	NoDeadlock bool
	// Kinds, when not empty, restricts Bad to violations of these kinds. A
	// step failing with another kind still ends its execution. Differential
	// tests use it to ask for the violation another engine reported.
	Kinds []ir.ViolationKind
	// Steps, when positive, promises that no query asks about an execution of
	// more than Steps steps (the state after them included). Ints are then
	// encoded in the fewest bits that hold every value of such executions
	// (ir.Program.ValueBits) instead of W: on them the two agree, and a
	// narrower value makes a smaller formula. 0 encodes ints at W bits.
	Steps int
}

// A state is one state copy s_i of the unrolling (see value.go for the values).
type state struct {
	shared []val   // per shared cell: W bits, a Bool for bool variables
	owner  []val   // per lock: the owner's thread number + 1, 0 when free
	chans  []val   // per channel cell (store key − chanKey0; see channel.go)
	loc    []val   // per thread: its control location (Template.Terminated() when done)
	local  [][]val // per thread, per frame cell

	// lazy, when set, supplies shared cells, lock owners and channel cells
	// (by store key) instead of shared, owner and chans: the partial-order
	// encoding creates a read only for the cells a step actually looks at.
	lazy func(k ir.StoreKey) val
	// received: a receive of a numbered channel is enabled by the send it
	// is matched with, so its guard need not read the sent counter (the
	// partial-order encoding's events, not its final state; channel.go).
	received bool
}

// cellOf returns the shared cell store key k stands for, if it stands for one.
func (u *Unrolling) cellOf(k ir.StoreKey) (int, bool) {
	if k < 0 || k >= u.p.FirstFreeKey() {
		return 0, false
	}
	kind, c := u.p.LocateKey(k)
	return c, kind == ir.LocCell
}

func (u *Unrolling) newState() *state {
	p := u.p
	return &state{
		shared: make([]val, p.SharedSize),
		owner:  make([]val, p.NumLocks),
		chans:  make([]val, int(u.keyLocal0-u.chanKey0)),
		loc:    make([]val, len(p.Threads)),
		local:  make([][]val, len(p.Threads)),
	}
}

// status is what the scheduler and the properties need to know about one state.
type status struct {
	enabled    []*solver.Term // per thread: it may take a step (ir.Program.Status == Enabled)
	stuck      []*solver.Term // per thread: terminated or blocked (¬enabled, in another form)
	terminated []*solver.Term // per thread: at Template.Terminated()
	assume     []*solver.Term // per thread: sitting on a false assume (BlockedAssume)
	limit      []*solver.Term // per thread: waiting at a bound of the model (BlockedLimit)
	deadlock   *solver.Term   // ir.Program.Deadlock: nobody enabled, someone waiting, no false assume
	entryDone  *solver.Term   // every instance of the entry goroutine terminated (false without one): a deadlock is a Leak
	anyEnabled *solver.Term
	anyLimit   *solver.Term
	allDone    *solver.Term
}

// A Footprint is the set of locations a step touches, as one read and one write
// proposition per location of ir's location space (shared cells, locks,
// channels, thread termination; ir.Program.NumLocations). A location accessed through a symbolic
// index gets the access guarded by the index's equality with it.
type Footprint struct {
	Read, Write []*solver.Term
}

// step is the encoding of step i, from s_i to s_{i+1}.
type step struct {
	halt  *solver.Term // h_i: no thread moves, s_{i+1} = s_i
	sel   *solver.Term // sel_i: the moving thread
	fail  *solver.Term // the step is taken and fails with a violation
	bad   *solver.Term // the step fails with a violation of Options.Kinds
	moves []*move      // one per (thread, location) the step may execute
	fp    Footprint
}

// Unrolling is the k-step BMC encoding of one program on one solver backend.
// Steps are added with Extend; each is asserted once.
type Unrolling struct {
	p    *ir.Program
	b    *solver.Builder
	be   solver.Backend
	opts Options

	w        int       // the width of ints: Program.Width, or ValueBits (see Options.Steps), widened for typed values (typed.go)
	raw      bool      // Bool-typed values are ints, as ir holds them (rawBools)
	cellType []ir.Type // per shared cell
	// atomicCells marks the cells of C11 atomic objects, whose accesses are
	// atomic for the data-race check (ir.Program.RaceAtomicCells).
	atomicCells []bool
	selWidth    int
	ownWidth    int
	locWidth    []int         // per thread
	numLocs     int           // ir location space
	chanKey0    ir.StoreKey   // store key of the first channel cell (see channel.go)
	chanKey     []ir.StoreKey // per channel number: the store key of its first cell
	keyChan     []int         // per channel cell (store key − chanKey0): its channel number
	keyLocal0   ir.StoreKey   // store key of thread 0's frame cell 0 (see exec.go)
	localBase   []int         // per thread: its frame's first store key − keyLocal0
	pcKey0      ir.StoreKey   // store key of thread 0's control location (pcKey)
	// numbered: channels are two counters and numbered messages (the
	// partial-order encoding, channel.go), the counters countW bits wide.
	numbered bool
	countW   int

	states  []*state
	status  []*status
	steps   []*step
	failed  []*solver.Term // failed[k]: some step < k failed
	badFail []*solver.Term // badFail[k]: some step < k failed with a violation of Options.Kinds
	reach   [][][]bool     // reach[i][t][l]: thread t may be at location l in s_i
	lits    map[string]*solver.Term
	// initBad is the initial state's violation (concrete:
	// ir.Program.InitialViolation): an invariant it breaks (invariant.go)
	// or its race (race.go); nil when it has none.
	initBad *ir.Violation
	vars    int // variables the encoding created
	// probe, while set, makes exec's moves probes of the data-race check
	// (race.go).
	probe *raceProbe
	slots int // nondet slots of the step being encoded
	stop  stopper
}

// New returns the unrolling of p with no steps (only s_0), asserting on be the
// terms it builds with b. It returns a *verify.UnsupportedError for a construct
// the encoding cannot express.
func New(p *ir.Program, b *solver.Builder, be solver.Backend, opts Options) (*Unrolling, error) {
	if err := Supported(p); err != nil {
		return nil, err
	}
	u := newCore(p, b, be, opts)
	s := u.newState()
	init := p.Initial()
	for _, v := range p.Shared {
		for c := v.Offset; c < v.Offset+v.Cells(); c++ {
			s.shared[c] = u.value(u.cellType[c], init[c])
		}
	}
	for j := range s.owner {
		s.owner[j] = u.constVal(0, u.ownWidth)
	}
	for j := range s.chans {
		s.chans[j] = u.chanZero(u.chanKey0 + ir.StoreKey(j))
	}
	reach := make([][]bool, len(p.Threads))
	for t, th := range p.Threads {
		tm := th.Template
		entry := tm.Loc(tm.Entry)
		s.loc[t] = u.constVal(uint64(entry), u.locWidth[t])
		s.local[t] = make([]val, tm.FrameSize)
		for _, v := range tm.Locals {
			for c := range v.Cells() {
				s.local[t][v.Offset+c] = u.value(v.CellType(c), init[th.Base+1+v.Offset+c])
			}
		}
		reach[t] = make([]bool, u.lastLocOf(tm)+1)
		reach[t][entry] = true
	}
	u.states = []*state{s}
	u.reach = [][][]bool{reach}
	u.failed = []*solver.Term{b.False()}
	u.badFail = []*solver.Term{b.False()}
	if u.initBad = p.InitialViolation(); u.initBad != nil {
		// The initial state breaks an invariant: the empty execution fails.
		u.failed[0] = b.True()
		if u.wanted(u.initBad.Kind) { // an invariant, or a race (race.go)
			u.badFail[0] = b.True()
		}
	}
	u.status = []*status{u.statusOf(s, reach)}
	return u, nil
}

// newCore returns an Unrolling without states or steps: the symbolic machine
// (exec, guard, statusOf, values) that both encodings share.
func newCore(p *ir.Program, b *solver.Builder, be solver.Backend, opts Options) *Unrolling {
	u := &Unrolling{
		p: p, b: b, be: be, opts: opts,
		w:        p.Width,
		selWidth: widthFor(len(p.Threads) - 1),
		ownWidth: widthFor(len(p.Threads)),
		numLocs:  p.NumLocations(),
		lits:     make(map[string]*solver.Term),
	}
	switch {
	case opts.Steps > 0:
		// Every value of those executions, typed ones included (typed.go),
		// and what the invariants compute from them.
		u.w = p.ValueBits(opts.Steps)
	case typedWidth(p) > 0:
		// Typed values are held exactly (typed.go); Int values wrap at W
		// where u.w exceeds it.
		u.w = max(u.w, typedWidth(p))
	}
	if u.raw = rawBools(p); u.raw {
		// A Bool cell may hold any char, which ValueBits, reading Bools
		// as 0 or 1, does not follow: every type's full width.
		u.w = max(p.Width, typedWidth(p))
	}
	u.cellType = make([]ir.Type, p.SharedSize)
	u.atomicCells = p.RaceAtomicCells()
	for _, v := range p.Shared {
		for c := range v.Cells() {
			u.cellType[v.Offset+c] = v.CellType(c)
		}
	}
	u.keyLocal0 = u.layoutChannels(p.FirstFreeKey())
	n := 0
	for _, th := range p.Threads {
		u.locWidth = append(u.locWidth, widthFor(u.lastLocOf(th.Template)))
		u.localBase = append(u.localBase, n)
		n += th.Template.FrameSize
	}
	u.pcKey0 = u.keyLocal0 + ir.StoreKey(n)
	return u
}

// handsOff reports whether some transition of p may send on a rendezvous
// and so move a receiver (ir.Transition.Handoffs).
func handsOff(p *ir.Program) bool {
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			if len(tr.Handoffs) > 0 {
				return true
			}
		}
	}
	return false
}

// innerGuards reports whether some transition of tm has an inner guard, so
// that its threads may end at Template.Stuck() (Program.Step).
func innerGuards(tm *ir.Template) bool {
	for _, tr := range tm.Transitions {
		if tr.InnerGuard {
			return true
		}
	}
	return false
}

// lastLoc is the greatest control location a thread of tm can be at:
// Terminated(), or Stuck() when an inner guard may leave it there.
func lastLoc(tm *ir.Template) int {
	if innerGuards(tm) {
		return tm.Stuck()
	}
	return tm.Terminated()
}

// successors marks in next the locations a step of tr may end at: its
// successors, and Stuck() when an inner guard may fail.
func successors(tr *ir.Transition, next []bool) {
	for _, succ := range tr.Succ {
		next[succ] = true
	}
	if tr.InnerGuard {
		next[tr.Template.Stuck()] = true
	}
}

// widthFor is the number of bits that hold the values 0..max (at least 1).
func widthFor(max int) int {
	if max < 1 {
		return 1
	}
	return bits.Len(uint(max))
}

// value is the constant of type t.
func (u *Unrolling) value(t ir.Type, v int64) val {
	if t == ir.Bool && !u.raw {
		return termVal(u.b.Bool(v != 0))
	}
	return u.constVal(uint64(v), u.w)
}

// Program returns the program the unrolling encodes.
func (u *Unrolling) Program() *ir.Program { return u.p }

// Builder returns the term builder.
func (u *Unrolling) Builder() *solver.Builder { return u.b }

// Depth returns the number of steps encoded so far.
func (u *Unrolling) Depth() int { return len(u.steps) }

// Halt returns the halt flag h_i of step i: the execution has ended before it.
func (u *Unrolling) Halt(i int) *solver.Term { return u.steps[i].halt }

// Sel returns the scheduler variable sel_i of step i: the thread number that moves.
func (u *Unrolling) Sel(i int) *solver.Term { return u.steps[i].sel }

// Selects returns the proposition "step i is taken by thread t".
func (u *Unrolling) Selects(i, t int) *solver.Term {
	st := u.steps[i]
	return u.b.And(u.b.Not(st.halt), u.b.Eq(st.sel, u.b.BV(uint64(t), u.selWidth)))
}

// Value returns the term of shared cell c (an ir location below SharedSize) in s_i.
func (u *Unrolling) Value(i, c int) *solver.Term { return u.term(u.states[i].shared[c]) }

// Footprint returns the footprint of step i (empty when it is halted).
func (u *Unrolling) Footprint(i int) Footprint { return u.steps[i].fp }

// Threads returns the number of threads.
func (u *Unrolling) Threads() int { return len(u.p.Threads) }

// Variables returns the number of solver variables the encoding has created.
func (u *Unrolling) Variables() int { return u.vars }

// Conflict is conflict(F, G) (docs/symbolic.md, "Footprints"): ir's dependency relation
// (ir.Conflicts) on some location both touch, as a term.
func (u *Unrolling) Conflict(f, g Footprint) *solver.Term {
	b := u.b
	var or []*solver.Term
	for c := range f.Read {
		of := func(fp Footprint, k ir.AccessKind) *solver.Term {
			if k == ir.Write {
				return fp.Write[c]
			}
			return fp.Read[c]
		}
		for _, ka := range [...]ir.AccessKind{ir.Write, ir.Read} {
			var with []*solver.Term // g's accesses dependent with f's of kind ka
			for _, kb := range [...]ir.AccessKind{ir.Read, ir.Write} {
				if gk := of(g, kb); ir.Conflicts(ka, kb) && !gk.IsFalse() {
					with = append(with, gk)
				}
			}
			if fk := of(f, ka); !fk.IsFalse() && len(with) > 0 {
				or = append(or, b.And(fk, b.Or(with...)))
			}
		}
	}
	return b.Or(or...)
}

// freshVal is fresh for a value: a set gets one variable per constant.
func (u *Unrolling) freshVal(name string, v val, as *[]*solver.Term) val {
	if v.set == nil {
		return termVal(u.fresh(name, v.t, as))
	}
	out := val{w: v.w, set: make([]gconst, len(v.set))}
	for j, x := range v.set {
		out.set[j] = gconst{x.c, u.fresh(fmt.Sprintf("%s=%d", name, x.c), x.g, as)}
	}
	return out
}

// Variable names: a program's names are identifiers, which cannot contain '#',
// so the encoding's own variables (#h@i, #sel@i, #nd@i.s, #dc@…, literals) start
// with it; a local's name carries its frame cell, since sibling blocks may
// declare two locals of one name.

// fresh returns a new variable of t's sort constrained to equal t, or t itself
// when it is a constant or a variable: the state copies are solver variables, but
// a value no step can have changed stays the same term, so constants fold.
func (u *Unrolling) fresh(name string, t *solver.Term, as *[]*solver.Term) *solver.Term {
	if t.IsConst() || t.Op() == solver.OpVar {
		return t
	}
	var v *solver.Term
	if t.IsBool() {
		v = u.b.BoolVar(name)
	} else {
		v = u.b.BVVar(name, t.Width())
	}
	u.vars++
	*as = append(*as, u.b.Eq(v, t))
	return v
}

func (u *Unrolling) assert(as []*solver.Term) error {
	for _, t := range as {
		if t.IsTrue() {
			continue
		}
		if u.stop.stopped(16) {
			return u.stop.stopErr()
		}
		if err := u.be.Assert(t); err != nil {
			return fmt.Errorf("encode: %w", err)
		}
	}
	return nil
}

// ExtendTo adds steps until Depth() is k. When ctx ends first it returns an
// error wrapping ctx.Err(), and the unrolling must not be used again.
func (u *Unrolling) ExtendTo(ctx context.Context, k int) error {
	for len(u.steps) < k {
		if err := u.Extend(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Extend encodes and asserts one more step: from s_k to s_{k+1}, where k =
// Depth(). On 1,024 threads one step is seconds of work, so it looks at ctx
// as it goes (see stopper); when ctx ends it returns an error wrapping
// ctx.Err(), and the unrolling must not be used again.
func (u *Unrolling) Extend(ctx context.Context) error {
	defer u.stop.watch(ctx)()
	if err := u.extend(); err != nil {
		return err
	}
	return u.stop.stopErr()
}

func (u *Unrolling) extend() error {
	b, p := u.b, u.p
	i := len(u.steps)
	s, st, reach := u.states[i], u.status[i], u.reach[i]
	var as []*solver.Term

	h := b.BoolVar(fmt.Sprintf("#h@%d", i))
	sel := b.BVVar(fmt.Sprintf("#sel@%d", i), u.selWidth)
	u.vars += 2
	// The halt flag is absorbing, and a failed step ends the execution
	// (docs/symbolic.md, "Scheduler and halting"). A halted step selects thread 0, so
	// that a halted suffix has one model and schedules can be enumerated.
	if i > 0 {
		prev := u.steps[i-1]
		as = append(as, b.Implies(prev.halt, h), b.Implies(prev.fail, h))
	} else {
		as = append(as, b.Implies(u.failed[0], h))
	}
	as = append(as, b.Implies(h, b.Eq(sel, b.BV(0, u.selWidth))))
	if n := len(p.Threads); n < 1<<u.selWidth {
		as = append(as, b.Ult(sel, b.BV(uint64(n), u.selWidth)))
	}
	stp := &step{halt: h, sel: sel}
	u.steps = append(u.steps, stp)
	// Never select a disabled thread.
	for t := range p.Threads {
		as = append(as, b.Implies(u.Selects(i, t), st.enabled[t]))
	}

	// The chosen thread's transition, for every location it may be at.
	acc := u.newAccesses()
	u.slots = 0
	next := make([][]bool, len(p.Threads))
	for t, th := range p.Threads {
		tm := th.Template
		next[t] = append([]bool(nil), reach[t]...)
		selT := u.Selects(i, t)
		for l := 0; l < tm.Terminated(); l++ {
			if !reach[t][l] {
				continue
			}
			if u.stop.stopped(64) {
				return u.stop.stopErr()
			}
			act := b.And(selT, u.is(s.loc[t], uint64(l)))
			if act.IsFalse() {
				continue
			}
			mv, err := u.exec(i, s, th, tm.Transitions[l], act, acc, &as)
			if err != nil {
				return err
			}
			stp.moves = append(stp.moves, mv)
			u.successors(tm.Transitions[l], next[t])
		}
	}

	// A send on a rendezvous moves a receiver (rendezvous.go), from any
	// receiving location it may be at.
	if handsOff(p) {
		for r, th := range p.Threads {
			for l, tr := range th.Template.Transitions {
				if tr.Receives && reach[r][l] {
					successors(tr, next[r])
				}
			}
		}
	}

	// s_{i+1}: each cell is the value the active move leaves, else unchanged
	// (the frame condition; a halted step changes nothing).
	ns := u.newState()
	for c := range ns.shared {
		if u.stop.stopped(1 + len(stp.moves)) {
			return u.stop.stopErr()
		}
		k := p.CellKey(c)
		ns.shared[c] = u.freshVal(fmt.Sprintf("%s@%d", u.keyName(k), i+1), u.merged(stp.moves, k, s.shared[c]), &as)
	}
	for j := range ns.owner {
		k := p.LockKey(j)
		ns.owner[j] = u.freshVal(fmt.Sprintf("%s@%d", u.keyName(k), i+1), u.merged(stp.moves, k, s.owner[j]), &as)
	}
	for j := range ns.chans {
		k := u.chanKey0 + ir.StoreKey(j)
		ns.chans[j] = u.freshVal(fmt.Sprintf("%s@%d", u.keyName(k), i+1), u.merged(stp.moves, k, s.chans[j]), &as)
	}
	for t, th := range p.Threads {
		if u.stop.stopped(8 + len(stp.moves)*(1+len(s.local[t]))) {
			return u.stop.stopErr()
		}
		var conds []*solver.Term
		var vs []val
		for _, mv := range stp.moves {
			if mv.thread == t {
				conds = append(conds, mv.act)
				vs = append(vs, mv.next)
			}
		}
		// Moved as a rendezvous's receiver by another thread's step, or
		// by its own.
		loc := u.merged(stp.moves, u.pcKey(t), s.loc[t])
		if len(conds) > 0 {
			loc = u.choose(append(conds, b.Not(b.Or(conds...))), append(vs, loc))
		}
		ns.loc[t] = u.freshVal(fmt.Sprintf("pc:%s@%d", th.Name, i+1), loc, &as)
		ns.local[t] = make([]val, len(s.local[t]))
		for c := range ns.local[t] {
			ns.local[t][c] = u.freshVal(fmt.Sprintf("%s.%s#%d@%d", th.Name, th.Template.LocalName(c), c, i+1),
				u.merged(stp.moves, u.localKey(t, c), s.local[t][c]), &as)
		}
	}

	// The invariants after the step (invariant.go), and the data-race
	// check of the state it reaches (race.go): checks of its moves.
	u.checkInvariants(ns, stp.moves)
	if err := u.checkRaces(i+1, ns, next, stp.moves, &as); err != nil {
		return err
	}

	// Failure of the step: exactly one check can hold on the executed path.
	var fails, bads []*solver.Term
	for _, mv := range stp.moves {
		for _, c := range mv.checks {
			fails = append(fails, c.guard)
			if u.wanted(c.kind) {
				bads = append(bads, c.guard)
			}
		}
	}
	stp.fail = b.Or(fails...)
	stp.bad = b.Or(bads...)
	u.failed = append(u.failed, b.Or(u.failed[i], stp.fail))
	u.badFail = append(u.badFail, b.Or(u.badFail[i], stp.bad))
	stp.fp = acc.footprint(b)
	u.invariantFootprint(stp.fp)

	if r := u.opts.Reduction; r != nil {
		as = append(as, r.Constrain(u, i)...) // Constrain stops early with u.stop
	}
	if err := u.assert(as); err != nil {
		return err
	}
	u.states = append(u.states, ns)
	u.reach = append(u.reach, next)
	u.status = append(u.status, u.statusOf(ns, next))
	return u.stop.stopErr()
}

// merged is the value of store key k after the step: the active move's value, or
// old.
func (u *Unrolling) merged(moves []*move, k ir.StoreKey, old val) val {
	var conds []*solver.Term
	var vs []val
	for _, mv := range moves {
		if nv, ok := mv.final[k]; ok {
			conds = append(conds, mv.act)
			vs = append(vs, nv)
		}
	}
	if len(conds) == 0 {
		return old
	}
	return u.choose(append(conds, u.b.Not(u.b.Or(conds...))), append(vs, old))
}

// keyName names a shared cell, lock or channel cell key, for variable names.
// The builder makes one variable of one name, so the name ends with the key:
// two cells may have one location name (the Go front end names every object
// of one allocation site after the site), and sharing their variables made
// them one cell.
func (u *Unrolling) keyName(k ir.StoreKey) string {
	if u.isChanKey(k) {
		return fmt.Sprintf("%s#%d", u.chanKeyName(k), k)
	}
	name := u.p.LocationName(u.p.KeyLocation(k))
	if kind, _ := u.p.LocateKey(k); kind == ir.LocLock {
		name = "lock:" + name
	}
	return fmt.Sprintf("%s#%d", name, k)
}

// statusOf computes enabledness, termination and deadlock of a state, following
// ir.Program.Status and ir.Program.End (docs/symbolic.md, "Enabledness,
// termination, deadlock").
func (u *Unrolling) statusOf(s *state, reach [][]bool) *status {
	b, p := u.b, u.p
	st := &status{}
	var idle []*solver.Term // per thread: terminated or Dormant (neither running nor blocked)
	for t, th := range p.Threads {
		tm := th.Template
		var en, blocked, ab, dormant, limit []*solver.Term
		for l := 0; l < tm.Terminated(); l++ {
			if !reach[t][l] {
				continue
			}
			if u.stop.stopped(8) {
				return st // half-built: the caller returns u.stop's error and nobody queries it
			}
			at := u.is(s.loc[t], uint64(l))
			g := u.guard(s, th, tm.Transitions[l])
			en = append(en, b.And(at, g.en))
			blocked = append(blocked, b.And(at, b.Not(g.en)))
			ab = append(ab, b.And(at, g.assume))
			dormant = append(dormant, b.And(at, g.dormant))
			if tm.Transitions[l].EndsValidly() {
				// Waiting at an end: label is a valid end, as terminating is.
				dormant = append(dormant, b.And(at, b.Not(g.en)))
			}
			limit = append(limit, b.And(at, g.limit))
		}
		term := u.is(s.loc[t], uint64(tm.Terminated()))
		if u.mayStick(tm) {
			// Stuck for ever on a false inner guard, or stopped by a
			// failing assertion (race.go): BlockedAssume.
			stuck := u.is(s.loc[t], uint64(tm.Stuck()))
			blocked = append(blocked, stuck)
			ab = append(ab, stuck)
		}
		st.enabled = append(st.enabled, b.Or(en...))
		// Not enabled, for deadlock: terminated or at a location whose guard
		// is false. In a state of an execution exactly one location holds, so
		// this is ¬∨_l (at_l ∧ en_l); stated this way, a thread that never
		// blocks is enabled until it terminates by propagation alone, without
		// the solver rediscovering that the locations exclude each other. (The
		// scheduler keeps ∨_l at_l ∧ en_l, which also says that the selected
		// thread is at one of its locations.)
		st.stuck = append(st.stuck, b.Or(term, b.Or(blocked...)))
		st.assume = append(st.assume, b.Or(ab...))
		st.limit = append(st.limit, b.Or(limit...))
		st.terminated = append(st.terminated, term)
		idle = append(idle, b.Or(term, b.Or(dormant...)))
	}
	var notEn, notAssume, notLimit, notIdle []*solver.Term
	for t := range p.Threads {
		notEn = append(notEn, st.stuck[t])
		notAssume = append(notAssume, b.Not(st.assume[t]))
		notLimit = append(notLimit, b.Not(st.limit[t]))
		notIdle = append(notIdle, b.Not(idle[t]))
	}
	st.anyEnabled = b.Or(st.enabled...)
	st.anyLimit = b.Or(st.limit...)
	st.allDone = b.And(st.terminated...)
	// ir.Program.End: a deadlock has no thread enabled, none on a false
	// assume, none waiting at a bound of the model (that ending is a cut),
	// and one blocked: not terminated and not Dormant.
	st.deadlock = b.And(b.And(notEn...), b.And(notAssume...), b.And(notLimit...), b.Or(notIdle...))
	st.entryDone = b.False()
	if e := p.Entry; e != nil {
		st.entryDone = b.And(st.terminated[e.First : e.First+e.Instances()]...)
	}
	return st
}

// literal returns the assumption literal called name, asserting lit → def the
// first time.
func (u *Unrolling) literal(name string, def func() *solver.Term) (*solver.Term, error) {
	if l, ok := u.lits[name]; ok {
		return l, nil
	}
	l := u.b.BoolVar(name)
	u.vars++
	if err := u.assert([]*solver.Term{u.b.Implies(l, def())}); err != nil {
		return nil, err
	}
	u.lits[name] = l
	return l, nil
}

func (u *Unrolling) checkDepth(k int) {
	if k < 0 || k > len(u.steps) {
		panic(fmt.Sprintf("encode: depth %d outside 0..%d", k, len(u.steps)))
	}
}

// wanted reports whether Bad looks for violations of kind k.
func (u *Unrolling) wanted(k ir.ViolationKind) bool {
	if k.Deadlocks() && u.opts.NoDeadlock {
		return false
	}
	return len(u.opts.Kinds) == 0 || slices.Contains(u.opts.Kinds, k)
}

// violation is "a violation within k steps": a step below k fails, or s_k is a
// deadlock (a deadlocked state has no enabled thread, so the execution halts
// there and s_k equals it; see docs/symbolic.md). A deadlock counts only in an
// execution in which no step failed: after a failed step the state is not one
// the program reaches.
func (u *Unrolling) violation(k int) *solver.Term {
	b := u.b
	return b.Or(u.badFail[k], b.And(b.Not(u.failed[k]), u.endBad(u.status[k])))
}

// endBad is "a state of status st is a deadlocked end state Bad looks for":
// ir.Program.End's Deadlock, or its Leak when the entry goroutine has
// returned (entryDone), each if wanted.
func (u *Unrolling) endBad(st *status) *solver.Term {
	b := u.b
	var or []*solver.Term
	if u.wanted(ir.Deadlock) {
		or = append(or, b.And(st.deadlock, b.Not(st.entryDone)))
	}
	if u.wanted(ir.Leak) {
		or = append(or, b.And(st.deadlock, st.entryDone))
	}
	return b.Or(or...)
}

// Bad returns an assumption literal that holds only in executions with a
// violation within k steps (k ≤ Depth()).
func (u *Unrolling) Bad(k int) (*solver.Term, error) {
	u.checkDepth(k)
	return u.literal(fmt.Sprintf("#bad@%d", k), func() *solver.Term { return u.violation(k) })
}

// AssertSafe records that Bad(k) was found unsatisfiable: no violation within k
// steps. The assertion is implied by the encoding; it spares the solver relearning it.
func (u *Unrolling) AssertSafe(k int) error {
	u.checkDepth(k)
	return u.assert([]*solver.Term{u.b.Not(u.violation(k))})
}

// taken is "the first k steps are taken and none failed": h_{k-1} is false
// (halting is absorbing) and so is failed[k].
func (u *Unrolling) taken(k int) *solver.Term {
	if k == 0 {
		return u.b.True()
	}
	return u.b.And(u.b.Not(u.steps[k-1].halt), u.b.Not(u.failed[k]))
}

// Live returns an assumption literal for the completeness query (docs/symbolic.md,
// "Properties and queries"):
// the first k steps are taken and some thread is still enabled in s_k. When it is
// unsatisfiable (and Bad(k) is) every execution ends within k steps.
func (u *Unrolling) Live(k int) (*solver.Term, error) {
	u.checkDepth(k)
	return u.literal(fmt.Sprintf("#live@%d", k), func() *solver.Term {
		return u.b.And(u.taken(k), u.status[k].anyEnabled)
	})
}

// LimitCut returns an assumption literal for "an execution of at most k steps
// ends, without a failure, with a thread waiting at a bound of the model" (a
// full thread or heap pool: ir.CutByLimit). Such an execution was cut by the
// model, not completed: the verdict is at most bounded-safe. (A state in which
// no thread is enabled halts its execution, so s_k is that state.)
func (u *Unrolling) LimitCut(k int) (*solver.Term, error) {
	u.checkDepth(k)
	return u.literal(fmt.Sprintf("#limit@%d", k), func() *solver.Term {
		st := u.status[k]
		return u.b.And(u.b.Not(u.failed[k]), u.b.Not(st.anyEnabled), st.anyLimit)
	})
}

// CanLimit reports whether a thread of p may wait at a bound of the model:
// some transition starts with a spawn or an allocation.
func CanLimit(p *ir.Program) bool {
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			if op := tr.EntryNode().Op; op == ir.OpSpawn || op == ir.OpAlloc {
				return true
			}
		}
	}
	return false
}

// Complete returns an assumption literal for "the first k steps are taken and
// every thread has terminated in s_k": complete executions of length k.
func (u *Unrolling) Complete(k int) (*solver.Term, error) {
	u.checkDepth(k)
	return u.literal(fmt.Sprintf("#complete@%d", k), func() *solver.Term {
		return u.b.And(u.taken(k), u.status[k].allDone)
	})
}
