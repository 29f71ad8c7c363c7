package encode

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"kbmc/ir"
	"kbmc/solver"
	"kbmc/verify"
)

// The partial-order encoding (docs/symbolic.md, "The partial-order encoding"):
// instead of one global state per step and a scheduler, every thread is
// unrolled on its own, step by step, into events; shared memory is a
// read-from relation between the events' reads and writes, and the order of
// conflicting events is a Boolean per pair, made acyclic by clocks (Alglave,
// Kroening, Tautschnig, CAV 2013). An execution is a set of active events —
// per thread a prefix of its unrolling — with an order in which every read
// sees the latest write before it. Interleavings that differ only in the order
// of independent events are one model, so there is nothing for a partial-order
// reduction to prune.
//
// Thread t's unrolling has b_t events. Bounds grow one thread at a time
// (Grow); the queries of one set of bounds are asked under a generation
// literal (Seal), which carries the clauses that name every event of the
// generation: each read's "reads from one of these writes or the initial
// value", and the depth bound Σ_t steps_t ≤ K.

// PartialOrder is the partial-order encoding of one program on one backend.
type PartialOrder struct {
	u     *Unrolling // the symbolic machine (exec, guard, statusOf, values)
	init  ir.State   // the initial state
	depth int        // K: executions have at most K steps
	clkW  int

	joinTarget []bool // per thread: some join may wait for it
	// cellWriter[c] is the one thread whose code may write shared cell c
	// (the static footprints, Transition.Writes), -1 when there is none,
	// -2 when there are several; folded[k] is the thread whose reads of key
	// k took its initial value for that reason (unwritten).
	cellWriter []int
	folded     map[ir.StoreKey]int
	threads    []*poThread
	events     []*event
	end        *event // a pseudo-event after every event: the final state

	writers map[ir.StoreKey][]*event   // per key: the events that may write it
	readers map[ir.StoreKey][]*readVal // per key: the reads of it
	reads   []*readVal                 // every read, in the order made
	byLoc   map[[2]int]*readVal        // by (thread, key): the thread's latest read of the key
	ords    map[[2]int]*solver.Term
	as      []*solver.Term // assertions not yet given to the backend

	sends, recvs map[int][]*msgOp // per channel: the numbered sends and receives (channel.go)
	recvList     []*msgOp         // every receive, in the order made

	fails []*solver.Term // per event: it fails
	bads  []*solver.Term // per event: it fails with a wanted violation
	gen   *generation
	gens  int
}

type poThread struct {
	th     *ir.Thread
	events []*event
	loc    []val    // loc[j]: the location before step j
	local  [][]val  // local[j]: the frame before step j
	reach  [][]bool // reach[j]: the locations step j may start from
	clock  *event   // the last event with a clock
}

// An event is step j of thread t of the unrolling.
type event struct {
	id, t, j int
	act      *solver.Term // the thread takes its step j
	clk      *solver.Term // nil: the event takes part in no order
	reads    map[ir.StoreKey]*readVal
	moves    []*move
	writes   map[ir.StoreKey]write // by key
	fail     *solver.Term
	bad      *solver.Term // fails with a wanted violation
	badOther *solver.Term // fails with a violation that is not wanted
}

type write struct {
	guard *solver.Term // the event writes the key (implies act)
	value val
}

// A readVal is the value of one key as an event sees it before it runs: a
// fresh variable equal to the value of the write it reads from (or the
// initial value), chosen by one selector per candidate write.
type readVal struct {
	ev         *event
	key        ir.StoreKey
	v          val
	sInit      *solver.Term
	cands      []rfCand
	prev, next *readVal // the same thread's reads of the key before and after it
}

type rfCand struct {
	w *event
	s *solver.Term
}

// generation is the set of bounds the queries are asked about.
type generation struct {
	lit     *solver.Term
	bounds  []int
	atLeast []*solver.Term // atLeast[c]: Σ_t steps_t ≥ c, for c = 0..depth+1 (when Σ_t b_t > depth)
	status  *status        // of the final state
	last    []*solver.Term
	noFail  *solver.Term
	lits    map[string]*solver.Term
}

// Keys: the shared cells' and locks' keys (ir.StoreKey), a channel's cells
// after them (as in a step's store), and thread t's termination, which join
// reads, is key -1-t.
func termKey(t int) ir.StoreKey { return ir.StoreKey(-1 - t) }

// NewPartialOrder returns the partial-order encoding of p for executions of at
// most depth steps, with no events yet. opts.Reduction must be nil.
func NewPartialOrder(p *ir.Program, b *solver.Builder, be solver.Backend, opts Options, depth int) (*PartialOrder, error) {
	if err := Supported(p); err != nil {
		return nil, err
	}
	if opts.Reduction != nil {
		return nil, fmt.Errorf("encode: the partial-order encoding takes no partial-order reduction (%s)", opts.Reduction.Name())
	}
	if depth < 1 {
		return nil, fmt.Errorf("encode: depth %d", depth)
	}
	if p.ChecksRaces() {
		// A race is a property of a global state (what every thread is
		// about to do), which its events do not have either.
		return nil, &verify.UnsupportedError{Engine: "symbolic engine",
			Msg: "the property no-data-race is not encoded by the partial-order encoding (use --encoding step, or the explicit engine)"}
	}
	if len(p.Invariants) > 0 {
		// Its events have no global states between them to check an
		// invariant in; an observer event would be needed.
		inv := p.Invariants[0]
		return nil, &verify.UnsupportedError{Pos: inv.Pos, Engine: "symbolic engine",
			Msg: "invariant " + inv.Name + ": the partial-order encoding does not check invariants (use --encoding step, or the explicit engine)"}
	}
	for _, ch := range p.Channels {
		if ch.Rendezvous() {
			// Its send and receive are one step of two threads, which
			// one event of one thread does not express.
			return nil, &verify.UnsupportedError{Pos: ch.Pos, Engine: "symbolic engine",
				Msg: "channel " + ch.Name + " is a rendezvous (capacity 0), which the partial-order encoding does not express (use --encoding step, or the explicit engine)"}
		}
	}
	for _, ch := range p.Channels {
		if ch.Unordered {
			// Its messages are numbered in the order sent and received
			// (channel.go); a receive that may take any message breaks
			// the order the numbers stand for.
			return nil, &verify.UnsupportedError{Pos: ch.Pos, Engine: "symbolic engine",
				Msg: "channel " + ch.Name + " is unordered, which the partial-order encoding does not express (use --encoding step, or the explicit engine)"}
		}
		if ch.Closable {
			// A receive from a closed channel takes no message when the
			// channel is drained: it would be matched with no send, and
			// its enabledness would read the sent counter.
			return nil, &verify.UnsupportedError{Pos: ch.Pos, Engine: "symbolic engine",
				Msg: "channel " + ch.Name + " is closed by a close, which the partial-order encoding does not express (use --encoding step, or the explicit engine)"}
		}
	}
	u := newCore(p, b, be, opts)
	// Channels are counters and numbered messages (channel.go); no
	// execution of at most depth steps sends or receives more than depth
	// messages.
	u.numbered, u.countW = true, widthFor(depth)
	po := &PartialOrder{
		sends: make(map[int][]*msgOp),
		recvs: make(map[int][]*msgOp),
		u:     u, depth: depth, clkW: widthFor(depth),
		joinTarget: make([]bool, len(p.Threads)),
		writers:    make(map[ir.StoreKey][]*event),
		byLoc:      make(map[[2]int]*readVal),
		readers:    make(map[ir.StoreKey][]*readVal),
		ords:       make(map[[2]int]*solver.Term),
	}
	po.end = &event{id: -1, t: -1, j: -1, act: b.True(), reads: make(map[ir.StoreKey]*readVal)}
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			if n.Op == ir.OpJoin {
				for _, t := range joinCandidates(p, n) {
					po.joinTarget[t] = true
				}
			}
		}
	}
	po.cellWriter, po.folded = cellWriters(p), make(map[ir.StoreKey]int)
	init := p.Initial()
	po.init = init
	for _, th := range p.Threads {
		tm := th.Template
		pt := &poThread{th: th}
		entry := tm.Loc(tm.Entry)
		frame := make([]val, tm.FrameSize)
		for _, v := range tm.Locals {
			for c := range v.Cells() {
				frame[v.Offset+c] = u.value(v.CellType(c), init[th.Base+1+v.Offset+c])
			}
		}
		reach := make([]bool, lastLoc(tm)+1)
		reach[entry] = true
		pt.loc = []val{u.constVal(uint64(entry), u.locWidth[th.ID])}
		pt.local = [][]val{frame}
		pt.reach = [][]bool{reach}
		po.threads = append(po.threads, pt)
	}
	return po, nil
}

// Program returns the program the encoding is of.
func (po *PartialOrder) Program() *ir.Program { return po.u.p }

// Bounds returns the number of events of each thread.
func (po *PartialOrder) Bounds() []int {
	out := make([]int, len(po.threads))
	for t, pt := range po.threads {
		out[t] = len(pt.events)
	}
	return out
}

// Variables returns the number of solver variables the encoding has created.
func (po *PartialOrder) Variables() int { return po.u.vars }

// Grow unrolls thread t to n events (it never shrinks). An event's reads
// and writes are related to every other thread's, which on hundreds of threads
// is seconds of work: when ctx ends first Grow returns an error wrapping
// ctx.Err(), and the encoding must not be used again.
func (po *PartialOrder) Grow(ctx context.Context, t, n int) error {
	defer po.u.stop.watch(ctx)()
	pt := po.threads[t]
	for len(pt.events) < n {
		if err := po.addEvent(pt); err != nil {
			return err
		}
		if err := po.u.stop.stopErr(); err != nil {
			return err
		}
	}
	return nil
}

func (po *PartialOrder) flush() error {
	as := po.as
	po.as = nil
	return po.u.assert(as)
}

// addEvent encodes the next step of a thread.
func (po *PartialOrder) addEvent(pt *poThread) error {
	u, b, p := po.u, po.u.b, po.u.p
	th := pt.th
	tm := th.Template
	j := len(pt.events)
	e := &event{id: len(po.events), t: th.ID, j: j, reads: make(map[ir.StoreKey]*readVal), writes: make(map[ir.StoreKey]write)}
	e.act = b.BoolVar(fmt.Sprintf("#act@%s.%d", th.Name, j))
	u.vars++
	po.events = append(po.events, e)
	pt.events = append(pt.events, e)
	if j > 0 {
		prev := pt.events[j-1]
		// A thread's events are a prefix, and a failed step is its last.
		po.as = append(po.as, b.Implies(e.act, prev.act), b.Implies(prev.fail, b.Not(e.act)))
	}

	// The state the step starts from: the thread's own location and frame,
	// shared keys read on demand, and for each thread a join may wait for,
	// whether it has terminated before this event.
	s := &state{loc: make([]val, len(p.Threads)), local: make([][]val, len(p.Threads))}
	s.loc[th.ID] = pt.loc[j]
	s.local[th.ID] = pt.local[j]
	s.lazy = func(k ir.StoreKey) val { return po.read(e, k) }
	s.received = true
	reach := pt.reach[j]
	for l := 0; l < tm.Terminated(); l++ {
		if !reach[l] {
			continue
		}
		if u.stop.stopped(8) {
			return u.stop.stopErr()
		}
		// A join may start the transition, or wait inside it (a join of a
		// thread value in an atomic section with an inner guard).
		for _, ni := range tm.Transitions[l].Nodes {
			n := tm.Nodes[ni]
			if n.Op != ir.OpJoin {
				continue
			}
			for _, t := range joinCandidates(p, n) {
				if t == th.ID || s.loc[t].w != 0 {
					continue
				}
				done := u.toBool(po.read(e, termKey(t)))
				s.loc[t] = val{set: []gconst{{0, b.Not(done)}, {uint64(po.threads[t].th.Template.Terminated()), done}}, w: u.locWidth[t]}
			}
		}
	}

	acc := u.newAccesses()
	// Step j+1 of a thread follows its step j: the locations it may start
	// from are exactly the successors of those of step j.
	next := make([]bool, len(reach))
	var en []*solver.Term
	for l := 0; l < tm.Terminated(); l++ {
		if !reach[l] {
			continue
		}
		if u.stop.stopped(64) {
			return u.stop.stopErr()
		}
		at := u.is(pt.loc[j], uint64(l))
		act := b.And(e.act, at)
		if act.IsFalse() {
			continue
		}
		tr := tm.Transitions[l]
		g := u.guard(s, th, tr)
		en = append(en, b.And(at, g.en))
		mv, err := u.exec(e.id, s, th, tr, act, acc, &po.as)
		if err != nil {
			return err
		}
		e.moves = append(e.moves, mv)
		successors(tr, next)
	}
	// Never take a step that is not enabled where it starts.
	po.as = append(po.as, b.Implies(e.act, b.Or(en...)))

	var fails, bads, others []*solver.Term
	for _, mv := range e.moves {
		for _, c := range mv.checks {
			fails = append(fails, c.guard)
			if u.wanted(c.kind) {
				bads = append(bads, c.guard)
			} else {
				others = append(others, c.guard)
			}
		}
	}
	e.fail, e.bad, e.badOther = b.Or(fails...), b.Or(bads...), b.Or(others...)
	po.fails = append(po.fails, e.fail)
	po.bads = append(po.bads, e.bad)

	// Writes: every shared cell, lock and channel cell some move may write,
	// with the value the moving transition leaves; termination, when a join
	// may wait for it.
	fp := acc.footprint(b)
	var keys []ir.StoreKey
	guards := make(map[ir.StoreKey]*solver.Term)
	for k := ir.StoreKey(0); k < p.FirstFreeKey(); k++ {
		if w := fp.Write[p.KeyLocation(k)]; !w.IsFalse() {
			keys = append(keys, k)
			guards[k] = w
		}
	}
	for i, ws := range acc.keyWrite {
		if g := b.Or(ws...); !g.IsFalse() {
			k := u.chanKey0 + ir.StoreKey(i)
			keys = append(keys, k)
			guards[k] = g
		}
	}
	for _, k := range keys {
		v := u.merged(e.moves, k, po.placeholder(k))
		v = u.freshVal(fmt.Sprintf("#wr@%s.%d.%s", th.Name, j, u.keyName(k)), v, &po.as)
		e.writes[k] = write{guard: guards[k], value: v}
	}
	if term := fp.Write[p.ThreadLocation(th.ID)]; po.joinTarget[th.ID] && !term.IsFalse() {
		keys = append(keys, termKey(th.ID))
		e.writes[termKey(th.ID)] = write{guard: term, value: termVal(b.True())}
	}
	if len(e.reads) > 0 || len(e.writes) > 0 || len(u.opts.Kinds) > 0 && !e.fail.IsFalse() {
		po.clock(e)
	}
	for _, k := range keys {
		if t, ok := po.folded[k]; ok && t != th.ID {
			// The static footprints missed a writer: a read taken for
			// the initial value may see this write.
			return fmt.Errorf("internal error: %s writes %s, which %s read as never written",
				th.Name, u.keyName(k), po.threads[t].th.Name)
		}
		po.newWriter(e, k)
	}
	for _, mv := range e.moves {
		for _, op := range mv.msgs {
			op.ev = e
			po.message(op)
		}
	}
	if err := u.stop.stopErr(); err != nil {
		return err
	}
	if len(u.opts.Kinds) > 0 {
		po.firstFailure(e)
	}

	// The thread's state after the step (unchanged when it is not taken).
	var conds []*solver.Term
	var locs []val
	for _, mv := range e.moves {
		conds = append(conds, mv.act)
		locs = append(locs, mv.next)
	}
	loc := pt.loc[j]
	if len(conds) > 0 {
		loc = u.choose(append(conds, b.Not(b.Or(conds...))), append(locs, loc))
	}
	pt.loc = append(pt.loc, u.freshVal(fmt.Sprintf("pc:%s@%d", th.Name, j+1), loc, &po.as))
	frame := make([]val, len(pt.local[j]))
	for c := range frame {
		frame[c] = u.freshVal(fmt.Sprintf("%s.%s#%d@%d", th.Name, tm.LocalName(c), c, j+1),
			u.merged(e.moves, u.localKey(th.ID, c), pt.local[j][c]), &po.as)
	}
	pt.local = append(pt.local, frame)
	pt.reach = append(pt.reach, next)
	return po.flush()
}

// placeholder stands for a key's old value in a written value, where it is
// never observed: under the write's guard the moving transition wrote it.
func (po *PartialOrder) placeholder(k ir.StoreKey) val { return po.u.zeroOf(k) }

// initial is a key's value in the initial state.
func (po *PartialOrder) initial(k ir.StoreKey) val {
	u := po.u
	switch {
	case k < 0:
		return termVal(u.b.False())
	case u.isChanKey(k):
		return u.chanZero(k) // every channel starts empty
	}
	if c, ok := u.cellOf(k); ok {
		return u.value(u.cellType[c], po.init[c])
	}
	return u.constVal(0, u.ownWidth)
}

// cellWriters returns, per shared cell, the one thread whose transitions may
// write it according to their static footprints, -1 for none, -2 for more.
func cellWriters(p *ir.Program) []int {
	w := make([]int, p.SharedSize)
	for c := range w {
		w[c] = -1
	}
	for _, th := range p.Threads {
		for _, tr := range th.Template.Transitions {
			for _, v := range tr.Writes {
				for c := v.Offset; c < v.Offset+v.Cells() && c < len(w); c++ {
					if w[c] == -1 || w[c] == th.ID {
						w[c] = th.ID
					} else {
						w[c] = -2
					}
				}
			}
		}
	}
	return w
}

// unwritten reports whether no step before event e can have written key k: a
// shared cell that no other thread's code writes and that no earlier event of
// e's thread writes. Such a read sees the initial value in every execution,
// and needs no read-from choice: main's creation step, main's first, reads
// the started flag of every slot it fills, which main alone writes.
func (po *PartialOrder) unwritten(e *event, k ir.StoreKey) bool {
	if e == po.end || k < 0 {
		return false
	}
	c, ok := po.u.cellOf(k)
	if !ok || c >= len(po.cellWriter) || po.cellWriter[c] != -1 && po.cellWriter[c] != e.t {
		return false
	}
	for _, f := range po.threads[e.t].events[:e.j] {
		if _, w := f.writes[k]; w {
			return false
		}
	}
	return true
}

// read returns event e's view of key k, creating it with its read-from
// candidates on first use.
func (po *PartialOrder) read(e *event, k ir.StoreKey) val {
	if r, ok := e.reads[k]; ok {
		return r.v
	}
	if po.unwritten(e, k) {
		po.folded[k] = e.t
		return po.initial(k)
	}
	u, b := po.u, po.u.b
	name := fmt.Sprintf("#rd@%d.%d", e.id, k)
	var v val
	switch {
	case k < 0:
		v = termVal(b.BoolVar(name))
	case u.isChanKey(k):
		if z := u.chanZero(k); z.set == nil {
			v = termVal(b.BoolVar(name)) // a bool field
		} else {
			v = termVal(b.BVVar(name, z.w))
		}
	default:
		if c, ok := u.cellOf(k); !ok {
			v = termVal(b.BVVar(name, u.ownWidth))
		} else if u.cellType[c] == ir.Bool && !u.raw {
			v = termVal(b.BoolVar(name))
		} else {
			v = termVal(b.BVVar(name, u.w))
		}
	}
	u.vars++
	r := &readVal{ev: e, key: k, v: v, sInit: b.BoolVar(name + "=init")}
	u.vars++
	e.reads[k] = r
	if e != po.end {
		po.clock(e)
	}
	po.as = append(po.as, b.Implies(r.sInit, u.equal(r.v, po.initial(k))))
	if e != po.end {
		at := [2]int{e.t, int(k)}
		if prev := po.byLoc[at]; prev != nil {
			r.prev, prev.next = prev, r
			// Once a read has seen a write, a later read of the thread
			// cannot see the initial value (read-read coherence).
			for _, c := range prev.cands {
				po.as = append(po.as, b.Or(b.Not(c.s), b.Not(r.sInit)))
			}
		}
		po.byLoc[at] = r
	}
	for _, w := range po.writers[k] {
		if po.u.stop.stopped(4) {
			break // addEvent returns the stop
		}
		if po.sees(r, w) {
			po.as = append(po.as, b.Implies(b.And(r.sInit, w.writes[k].guard), po.before(e, w)))
		}
		po.candidate(r, w, po.writers[k])
	}
	po.readers[k] = append(po.readers[k], r)
	po.reads = append(po.reads, r)
	return v
}

// message relates a numbered send or receive of event e (channel.go) to the
// receives or sends of its channel in earlier events: a receive takes the
// message of a send of the same number that happens before it, one of those
// of the events encoded so far under a generation (Seal). A send and a
// receive of one event never match (a receive follows its send), nor do a
// receive and a later send of one thread.
func (po *PartialOrder) message(op *msgOp) {
	if op.send {
		for _, r := range po.recvs[op.c] {
			if r.ev.t != op.ev.t {
				po.match(op, r)
			}
		}
		po.sends[op.c] = append(po.sends[op.c], op)
		return
	}
	for _, s := range po.sends[op.c] {
		if s.ev != op.ev {
			po.match(s, op)
		}
	}
	po.recvs[op.c] = append(po.recvs[op.c], op)
	po.recvList = append(po.recvList, op)
}

// match adds send s as a message receive r may take: a selector that
// implies that s happens, before r, with r's number, and that r's fields
// are s's.
func (po *PartialOrder) match(s, r *msgOp) {
	u, b := po.u, po.u.b
	m := b.BoolVar(fmt.Sprintf("#match@%d.%d.%d", r.ev.id, s.ev.id, u.vars))
	u.vars++
	and := []*solver.Term{s.guard, po.before(s.ev, r.ev), u.equal(s.n, r.n)}
	for i := range r.fields {
		and = append(and, u.equal(s.fields[i], r.fields[i]))
	}
	po.as = append(po.as, b.Implies(m, b.And(and...)))
	r.cands = append(r.cands, m)
}

// sees reports whether read r can read from event w: not its own event, and
// not a later event of its own thread.
func (po *PartialOrder) sees(r *readVal, w *event) bool {
	e := r.ev
	return e == po.end || w.t != e.t || w.j < e.j
}

// candidate adds w as a write r may read from. From-read: while r reads from
// w, every other write of the key is before w or after r (SC coherence).
func (po *PartialOrder) candidate(r *readVal, w *event, others []*event) {
	if !po.sees(r, w) {
		return
	}
	u, b := po.u, po.u.b
	k := r.key
	wr := w.writes[k]
	s := b.BoolVar(fmt.Sprintf("#rf@%d.%d.%d", r.ev.id, k, w.id))
	u.vars++
	po.as = append(po.as, b.Implies(s, b.And(wr.guard, po.before(w, r.ev), u.equal(r.v, wr.value))))
	for _, o := range others {
		if o == w || !po.sees(r, o) {
			continue
		}
		if u.stop.stopped(4) {
			return // addEvent returns the stop
		}
		po.as = append(po.as, b.Implies(b.And(s, o.writes[k].guard), b.Or(po.before(o, w), po.before(r.ev, o))))
	}
	r.cands = append(r.cands, rfCand{w: w, s: s})
	po.coherentReads(r, w, s)
}

// coherentReads adds read-read coherence for the new selector s (r reads
// from w): of two reads of a key by one thread, the later one cannot read a
// write that comes before, in its own thread's order, the write the earlier
// one read; and it cannot read the initial value once the earlier one read a
// write. Sequential consistency implies this through the clocks; stated
// directly, it propagates.
func (po *PartialOrder) coherentReads(r *readVal, w *event, s *solver.Term) {
	b := po.u.b
	if p := r.prev; p != nil {
		for _, c := range p.cands {
			if c.w.t == w.t && c.w.j > w.j {
				po.as = append(po.as, b.Or(b.Not(c.s), b.Not(s)))
			}
		}
	}
	if n := r.next; n != nil {
		po.as = append(po.as, b.Or(b.Not(s), b.Not(n.sInit)))
		for _, c := range n.cands {
			if c.w.t == w.t && c.w.j < w.j {
				po.as = append(po.as, b.Or(b.Not(s), b.Not(c.s)))
			}
		}
	}
}

// newWriter registers e as a writer of key k: a candidate of every read of k,
// and a write every read of k from another candidate must not fall between.
func (po *PartialOrder) newWriter(e *event, k ir.StoreKey) {
	b := po.u.b
	g := e.writes[k].guard
	for _, r := range po.readers[k] {
		if !po.sees(r, e) {
			continue
		}
		if po.u.stop.stopped(4 + 4*len(r.cands)) {
			break // addEvent returns the stop
		}
		for _, c := range r.cands {
			po.as = append(po.as, b.Implies(b.And(c.s, g), b.Or(po.before(e, c.w), po.before(r.ev, e))))
		}
		po.as = append(po.as, b.Implies(b.And(r.sInit, g), po.before(r.ev, e)))
		po.candidate(r, e, po.writers[k])
	}
	po.writers[k] = append(po.writers[k], e)
}

// clock gives e a clock, after the clock of its thread's previous event that
// has one (program order).
func (po *PartialOrder) clock(e *event) {
	if e.clk != nil {
		return
	}
	pt := po.threads[e.t]
	if pt.events[len(pt.events)-1] != e {
		panic("encode: a clock for an event that is not its thread's last")
	}
	b := po.u.b
	e.clk = b.BVVar(fmt.Sprintf("#clk@%d", e.id), po.clkW)
	po.u.vars++
	if prev := pt.clock; prev != nil {
		po.as = append(po.as, b.Implies(e.act, b.Ult(prev.clk, e.clk)))
	}
	pt.clock = e
}

// before is "e happens before f", for two events that are both active: a
// constant within a thread and for the final state, else an order literal
// tied to the clocks.
func (po *PartialOrder) before(e, f *event) *solver.Term {
	b := po.u.b
	switch {
	case e == po.end:
		return b.False()
	case f == po.end:
		return b.True()
	case e.t == f.t:
		return b.Bool(e.j < f.j)
	}
	lo, hi := e, f
	if lo.id > hi.id {
		lo, hi = hi, lo
	}
	key := [2]int{lo.id, hi.id}
	o, ok := po.ords[key]
	if !ok {
		if lo.clk == nil || hi.clk == nil {
			panic(fmt.Sprintf("encode: order of events %d and %d without clocks", lo.id, hi.id))
		}
		o = b.BoolVar(fmt.Sprintf("#ord@%d.%d", lo.id, hi.id))
		po.u.vars++
		both := b.And(lo.act, hi.act)
		po.as = append(po.as,
			b.Implies(b.And(both, o), b.Ult(lo.clk, hi.clk)),
			b.Implies(b.And(both, b.Not(o)), b.Ult(hi.clk, lo.clk)))
		po.ords[key] = o
		po.chain(lo, hi)
		po.chain(hi, lo)
	}
	if lo == e {
		return o
	}
	return b.Not(o)
}

// chain ties the new order of e and f to the orders of f with e's nearest
// program-order neighbours that have one: what is before e is before
// everything e is before, and what is after e is after everything after e.
// The clocks imply these clauses; stated outright, the order of two threads'
// events is decided by propagation instead of a search over clock bits. (An
// event not taken can be put after every event, which satisfies them all.)
func (po *PartialOrder) chain(e, f *event) {
	b := po.u.b
	pt := po.threads[e.t]
	for j := e.j - 1; j >= 0; j-- {
		if p := pt.events[j]; po.hasOrder(p, f) {
			po.as = append(po.as, b.Implies(po.before(e, f), po.before(p, f)))
			break
		}
	}
	for j := e.j + 1; j < len(pt.events); j++ {
		if n := pt.events[j]; po.hasOrder(n, f) {
			po.as = append(po.as, b.Implies(po.before(n, f), po.before(e, f)))
			break
		}
	}
}

func (po *PartialOrder) hasOrder(e, f *event) bool {
	lo, hi := min(e.id, f.id), max(e.id, f.id)
	_, ok := po.ords[[2]int{lo, hi}]
	return ok
}

// firstFailure keeps, when Options.Kinds restricts the violations looked
// for, a failure of another kind from happening before a wanted one in
// another thread (a failed step ends the execution).
func (po *PartialOrder) firstFailure(e *event) {
	b := po.u.b
	for _, f := range po.events {
		if f.t == e.t {
			continue
		}
		if !e.bad.IsFalse() && !f.badOther.IsFalse() {
			po.as = append(po.as, b.Implies(b.And(e.bad, f.badOther), b.Ult(e.clk, f.clk)))
		}
		if !f.bad.IsFalse() && !e.badOther.IsFalse() {
			po.as = append(po.as, b.Implies(b.And(f.bad, e.badOther), b.Ult(f.clk, e.clk)))
		}
	}
}

// Seal returns the generation literal of the current bounds: under it every
// read reads from one of the writes encoded so far or the initial value, and
// the events taken number at most the depth. When ctx ends first it returns an
// error wrapping ctx.Err(), and the encoding must not be used again.
func (po *PartialOrder) Seal(ctx context.Context) (*solver.Term, error) {
	defer po.u.stop.watch(ctx)()
	bounds := po.Bounds()
	if g := po.gen; g != nil && slices.Equal(g.bounds, bounds) {
		return g.lit, nil
	}
	u, b := po.u, po.u.b
	g := &generation{bounds: bounds, lits: make(map[string]*solver.Term)}
	// The final state: each thread after its last event, shared keys as the
	// last write leaves them.
	s := &state{loc: make([]val, len(po.threads)), local: make([][]val, len(po.threads))}
	s.lazy = func(k ir.StoreKey) val { return po.read(po.end, k) }
	reach := make([][]bool, len(po.threads))
	for t, pt := range po.threads {
		n := len(pt.events)
		// A thread ends after any number of its events: where it may be is
		// every location reachable in at most n steps.
		s.loc[t], s.local[t] = pt.loc[n], pt.local[n]
		reach[t] = make([]bool, len(pt.reach[0]))
		for _, r := range pt.reach {
			for l, ok := range r {
				reach[t][l] = reach[t][l] || ok
			}
		}
		if n > 0 {
			g.last = append(g.last, pt.events[n-1].act)
		} else {
			g.last = append(g.last, b.True())
		}
	}
	g.status = u.statusOf(s, reach)
	if err := u.stop.stopErr(); err != nil {
		return nil, err
	}
	g.noFail = b.Not(b.Or(po.fails...))
	g.lit = b.BoolVar(fmt.Sprintf("#gen@%d", po.gens))
	u.vars++
	po.gens++
	var cl []*solver.Term
	for _, r := range po.reads {
		if u.stop.stopped(1 + len(r.cands)) {
			return nil, u.stop.stopErr()
		}
		or := []*solver.Term{r.sInit}
		for _, c := range r.cands {
			or = append(or, c.s)
		}
		cl = append(cl, b.Implies(g.lit, b.Or(or...)))
	}
	for _, r := range po.recvList {
		// A receive that happens takes one of the messages sent.
		cl = append(cl, b.Implies(g.lit, b.Or(append([]*solver.Term{b.Not(r.guard)}, r.cands...)...)))
	}
	if sum := SumBounds(bounds); sum > po.depth {
		var count []*solver.Term
		g.atLeast, count = po.count()
		if err := u.stop.stopErr(); err != nil {
			return nil, err
		}
		cl = append(cl, count...)
		cl = append(cl, b.Implies(g.lit, b.Not(g.atLeast[po.depth+1])))
	}
	po.as = append(po.as, cl...)
	if err := po.flush(); err != nil {
		return nil, err
	}
	po.gen = g
	return g.lit, nil
}

// count returns atLeast[c] = "at least c events are taken", c = 0..depth+1,
// exactly (both directions), as a unary sequential counter over the threads:
// a thread's events are a prefix, so "thread t takes at least j steps" is the
// activity literal of its event j−1. It is what the depth bound, Exceed and
// Long need; a bit-vector sum of the activity literals was measured to
// propagate worse (docs/symbolic.md).
func (po *PartialOrder) count() ([]*solver.Term, []*solver.Term) {
	b := po.u.b
	k := po.depth + 1
	var cl []*solver.Term
	// prev[c]: threads before t take at least c steps in all.
	prev := make([]*solver.Term, k+1)
	prev[0] = b.True()
	for c := 1; c <= k; c++ {
		prev[c] = b.False()
	}
	for t, pt := range po.threads {
		steps := func(j int) *solver.Term { // thread t takes at least j steps
			switch {
			case j == 0:
				return b.True()
			case j > len(pt.events):
				return b.False()
			}
			return pt.events[j-1].act
		}
		cur := make([]*solver.Term, k+1)
		cur[0] = b.True()
		for c := 1; c <= k; c++ {
			if po.u.stop.stopped(c + 1) {
				return prev, cl // Seal returns the stop
			}
			var or []*solver.Term
			for j := 0; j <= c; j++ {
				// at least c−j before t and at least j in t; at most c in all
				// is what the literal is compared with.
				or = append(or, b.And(prev[c-j], steps(j)))
			}
			def := b.Or(or...)
			if def.IsConst() || t == len(po.threads)-1 && c < k-1 {
				cur[c] = def
				continue
			}
			v := b.BoolVar(fmt.Sprintf("#count@%d.%d.%d", po.gens, t, c))
			po.u.vars++
			cl = append(cl, b.Iff(v, def))
			cur[c] = v
		}
		prev = cur
	}
	return prev, cl
}

func (po *PartialOrder) literal(name string, def func() *solver.Term) (*solver.Term, error) {
	g := po.gen
	if g == nil {
		panic("encode: a query before Seal")
	}
	if l, ok := g.lits[name]; ok {
		return l, nil
	}
	b := po.u.b
	l := b.BoolVar(fmt.Sprintf("#%s@gen%d", name, po.gens-1))
	po.u.vars++
	if err := po.u.assert([]*solver.Term{b.Implies(l, def())}); err != nil {
		return nil, err
	}
	g.lits[name] = l
	return l, nil
}

// Bad returns an assumption literal, to be used with the generation's, for
// "a violation within the current bounds": an event fails, or the final
// state is a deadlock of an execution in which nothing failed.
func (po *PartialOrder) Bad() (*solver.Term, error) {
	return po.literal("bad", func() *solver.Term {
		b := po.u.b
		return b.Or(b.Or(po.bads...), b.And(po.gen.noFail, po.u.endBad(po.gen.status)))
	})
}

// Exceed returns an assumption literal for "one of these threads takes all
// its events and is still enabled, in an execution in which nothing failed
// and that could take one more step within the depth": the bound of such a
// thread does not cover every execution.
func (po *PartialOrder) Exceed(threads []int) (*solver.Term, error) {
	name := fmt.Sprintf("exceed%v", threads)
	return po.literal(name, func() *solver.Term {
		b := po.u.b
		g := po.gen
		var or []*solver.Term
		for _, t := range threads {
			or = append(or, b.And(g.last[t], g.status.enabled[t]))
		}
		q := b.And(b.Or(or...), g.noFail)
		if SumBounds(g.bounds) > po.depth {
			q = b.And(q, b.Not(g.atLeast[po.depth]))
		} else if SumBounds(g.bounds) == po.depth {
			q = b.And(q, b.Not(b.And(g.last...)))
		}
		return q
	})
}

// Exceeding returns the threads of a model of Exceed that take all their
// events and are still enabled.
func (po *PartialOrder) Exceeding(m Model, threads []int) ([]int, error) {
	var out []int
	for _, t := range threads {
		on, err := m.BoolValue(po.u.b.And(po.gen.last[t], po.gen.status.enabled[t]))
		if err != nil {
			return nil, fmt.Errorf("encode: model: %w", err)
		}
		if on {
			out = append(out, t)
		}
	}
	return out, nil
}

// Long returns an assumption literal for "an execution of exactly depth
// steps in which nothing failed still has an enabled thread": some execution
// is longer than the depth. Ask it once the bounds cover every execution of
// at most depth steps.
func (po *PartialOrder) Long() (*solver.Term, error) {
	return po.literal("long", func() *solver.Term {
		b := po.u.b
		g := po.gen
		if SumBounds(g.bounds) < po.depth {
			return b.False()
		}
		all := b.And(g.last...) // Σ_t b_t = depth: every event taken
		if SumBounds(g.bounds) > po.depth {
			all = g.atLeast[po.depth]
		}
		return b.And(g.status.anyEnabled, g.noFail, all)
	})
}

// LimitCut returns an assumption literal, to be used with the generation's,
// for "an execution within the bounds ends, without a failure, with a thread
// waiting at a bound of the model" (ir.CutByLimit; see Unrolling.LimitCut).
func (po *PartialOrder) LimitCut() (*solver.Term, error) {
	return po.literal("limit", func() *solver.Term {
		b := po.u.b
		g := po.gen
		return b.And(g.noFail, b.Not(g.status.anyEnabled), g.status.anyLimit)
	})
}

// Counterexample reads a violating execution from a model of Bad: the active
// events in an order that respects the clocks (events without a clock touch
// nothing shared and go as early as their thread allows), cut after the first
// failing event; or, if none fails, a deadlocked final state.
func (po *PartialOrder) Counterexample(m Model) ([]ir.Move, *ir.Violation, error) {
	u := po.u
	type pick struct {
		e  *event
		mv *move
	}
	per := make([][]pick, len(po.threads))
	for t, pt := range po.threads {
		for _, e := range pt.events {
			on, err := m.BoolValue(e.act)
			if err != nil {
				return nil, nil, fmt.Errorf("encode: model: %w", err)
			}
			if !on {
				break
			}
			var mv *move
			for _, c := range e.moves {
				if on, err := m.BoolValue(c.act); err != nil {
					return nil, nil, fmt.Errorf("encode: model: %w", err)
				} else if on {
					mv = c
					break
				}
			}
			if mv == nil {
				return nil, nil, fmt.Errorf("encode: model: event %d of %s takes no transition", e.j, pt.th.Name)
			}
			per[t] = append(per[t], pick{e, mv})
		}
	}
	clocks := make(map[*event]uint64)
	for _, ps := range per {
		for _, pk := range ps {
			if pk.e.clk != nil {
				v, err := m.BVValue(pk.e.clk)
				if err != nil {
					return nil, nil, fmt.Errorf("encode: model: %w", err)
				}
				clocks[pk.e] = v
			}
		}
	}
	var moves []ir.Move
	next := make([]int, len(per))
	for {
		best := -1
		for t, ps := range per {
			if next[t] == len(ps) {
				continue
			}
			e := ps[next[t]].e
			if e.clk == nil {
				best = t
				break
			}
			if best < 0 || clocks[e] < clocks[per[best][next[best]].e] {
				best = t
			}
		}
		if best < 0 {
			break
		}
		pk := per[best][next[best]]
		next[best]++
		out, v, err := u.readMove(m, pk.mv, best)
		if err != nil {
			return nil, nil, err
		}
		moves = append(moves, out)
		if v != nil {
			if !u.wanted(v.Kind) {
				return moves, v, fmt.Errorf("%w: the execution fails with %s", ErrNoViolation, v.Kind)
			}
			return moves, v, nil
		}
	}
	v, err := u.endViolation(m, po.gen.status)
	if err != nil || v == nil {
		return nil, nil, cmp.Or(err, ErrNoViolation)
	}
	return moves, v, nil
}
