package explicit

import (
	"kbmc/ir"
)

// Static analyses: what the partial-order reductions know about a program before
// they search it. They live here, apart from the algorithms, so that each question
// has one answer:
//
//   - footprints (footprint, staticInfo): what a transition, or all the code a
//     thread may still run, may access — persistent's stubborn sets;
//   - where a thread may fail (failingNodes, with heldLocks): persistent's §4
//     safety construction;
//   - which transitions may enable another thread (releases): bpor-fair;
//   - which lock and join operations name a fixed target (staticTarget): lazypor's
//     mutual-exclusion and termination constraints.
//
// Values are approximated by intervals that know constants, tid and nondet ranges
// (intervals), so that a[tid] or fork[(tid + 1) % N] name single cells and locks.
// Expressions are walked with ir.Inspect; locations and dependency are ir's.

// staticTarget reports whether the mutex or thread a lock, unlock or join names
// does not depend on shared data, so that every execution of the operation from
// the same local state names the same one.
func staticTarget(n *ir.Node) bool {
	for _, e := range n.JAlso {
		if e.ReadsShared() {
			return false
		}
	}
	return !n.MIndex.ReadsShared() && !n.JIndex.ReadsShared() && !n.Addr.ReadsShared() && !n.JThread.ReadsShared()
}

// A footprint is what a step, a transition or the rest of a thread's code may
// access: the locations (ir's location space) it may read and may write — shared
// cells, locks (lock and unlock both write), the terminations join reads — and
// whether it may end its own thread, which writes that thread's termination. The
// last is a flag rather than a location so that the instances of a template that
// does not use tid can share one footprint.
type footprint struct {
	acc  [2]bitSet // indexed by ir.AccessKind
	term bool
	// port: the code reads its own thread's port (ir.PortLocation), which a
	// rendezvous send that moves the thread writes. A flag for the same
	// reason as term.
	port bool
}

func newFootprint(p *ir.Program) footprint {
	n := p.NumLocations()
	return footprint{acc: [2]bitSet{ir.Read: newBitSet(n), ir.Write: newBitSet(n)}}
}

// touches reports whether f may access location l in a way dependent with an
// access of kind k (ir.Conflicts).
func (f *footprint) touches(l int, k ir.AccessKind) bool {
	return ir.Conflicts(k, ir.Read) && f.acc[ir.Read].has(l) || ir.Conflicts(k, ir.Write) && f.acc[ir.Write].has(l)
}

func (f *footprint) add(l int, k ir.AccessKind) { f.acc[k].add(l) }

func (a *footprint) or(b *footprint) {
	a.acc[ir.Read].or(b.acc[ir.Read])
	a.acc[ir.Write].or(b.acc[ir.Write])
	a.term = a.term || b.term
	a.port = a.port || b.port
}

// staticInfo is what the persistent-set computation knows about the program
// before the search, per thread: the footprint of each transition and of all the
// code reachable from each location, and where the code may fail. Array indices
// are approximated by intervals that know constants, tid and nondet ranges, so
// that a[tid] or fork[(tid + 1) % N] name single cells and locks.
type staticInfo struct {
	p      *ir.Program
	own    [][]footprint // thread, location: the transition's footprint
	future [][]footprint // thread, location: every transition reachable from it, itself included
	fails  [][]bool      // thread, location: some transition reachable from it may fail
	// trFails: thread, location: the transition itself may fail.
	trFails [][]bool
	// ownerWait: thread, location: the transition is a lock or a join, whose
	// necessary enabling set depends on who holds the mutex or which threads
	// have ended, not only on who may write what its guard reads (see
	// persistentSearch.localRow).
	ownerWait [][]bool
	// ordered holds the locations whose conflicts order steps but are never
	// races (ir.Program.OrderedLocation: channels' message slots). Two steps
	// enabled in one state never conflict there, nor does a step enabled now
	// with one another thread takes before it: that step either ran before or
	// waits for it. So conflicts and accessesConflict, which ask about a step
	// enabled now, skip them; enablers, which asks who can enable a blocked
	// step, does not.
	ordered bitSet
	// writers and users list, per location, the threads whose code may write
	// it and the threads whose code may access it at all, so that the
	// persistent-set construction asks about the few threads a step or a
	// guard may concern instead of all n (O(n²) per state on a ring of 40
	// processes). Nil on a program whose lists would be too long; callers
	// then ask every thread.
	writers, users [][]int32
	// On at most 64 threads, the same as masks, one word per location:
	// askUsers[l] the threads a step accessing l may concern (users[l], and
	// the thread whose end l is; none for an ordered l), writerMask[l]
	// writers[l]. Nil otherwise, and when writers and users are.
	askUsers, writerMask []uint64
}

// maxThreadLists bounds the entries of staticInfo's writers and users.
const maxThreadLists = 1 << 22

// conflicts reports whether code of thread ta that may access a and code of
// thread tb that may access b may be dependent (ir.Conflicts on a common
// location, a thread's end included).
func (in *staticInfo) conflicts(a *footprint, ta int, b *footprint, tb int) bool {
	for ka := range a.acc {
		for kb := range b.acc {
			if ir.Conflicts(ir.AccessKind(ka), ir.AccessKind(kb)) && a.acc[ka].intersectsOutside(b.acc[kb], in.ordered) {
				return true
			}
		}
	}
	return a.term && b.touches(in.p.ThreadLocation(ta), ir.Write) ||
		b.term && a.touches(in.p.ThreadLocation(tb), ir.Write) ||
		a.port && b.touches(in.p.PortLocation(ta), ir.Read) ||
		b.port && a.touches(in.p.PortLocation(tb), ir.Read)
}

// accessesConflict reports whether a step of thread ta that made the accesses acc
// may be dependent with code of thread tb that may access f.
func (in *staticInfo) accessesConflict(acc []ir.Access, ta int, f *footprint, tb int) bool {
	end, port := in.p.ThreadLocation(tb), in.p.PortLocation(tb)
	for _, a := range acc {
		if in.ordered.has(a.Loc) {
			continue
		}
		if f.touches(a.Loc, a.Kind) || f.term && a.Loc == end && ir.Conflicts(a.Kind, ir.Write) ||
			f.port && a.Loc == port && ir.Conflicts(a.Kind, ir.Read) {
			return true
		}
	}
	return false
}

// writesAny reports whether thread u may, from location loc on, change the value
// of one of the locations: write a shared cell, or send or receive on a channel
// (which changes its length, what len and the enabledness of send and recv read).
// values (see valueLocations) holds only such locations: who can release a lock
// or end a thread depends on the state, and is the caller's to decide.
func (in *staticInfo) writesAny(values []int, u, loc int) bool {
	w := in.future[u][loc].acc[ir.Write]
	for _, l := range values {
		if w.has(l) {
			return true
		}
	}
	return false
}

// valueLocations appends to buf the locations of acc that hold values a write
// changes (shared cells and channels), for writesAny.
func (in *staticInfo) valueLocations(acc []ir.Access, buf []int) []int {
	for _, a := range acc {
		if k, _ := in.p.Locate(a.Loc); k == ir.LocCell || k == ir.LocChannel {
			buf = append(buf, a.Loc)
		}
	}
	return buf
}

// mayFail reports whether thread t may fail (an assertion or a run-time error) in
// some step from location loc on.
func (in *staticInfo) mayFail(t, loc int) bool { return in.fails[t][loc] }

func analyze(p *ir.Program) *staticInfo {
	n := len(p.Threads)
	in := &staticInfo{p: p, own: make([][]footprint, n), future: make([][]footprint, n),
		fails: make([][]bool, n), trFails: make([][]bool, n), ownerWait: make([][]bool, n),
		ordered: newBitSet(p.NumLocations())}
	for l := range p.NumLocations() {
		if p.OrderedLocation(l) {
			in.ordered.add(l)
		}
	}
	// The locations the invariants read: a transition that may write one
	// also writes ir's InvariantLocation (the visibility condition), and may
	// fail, since its step checks the invariants.
	var watched bitSet
	invLoc, hasInv := p.InvariantLocation()
	if hasInv {
		watched = newBitSet(p.NumLocations())
		for l := range p.NumLocations() {
			if p.ReadByInvariant(l) {
				watched.add(l)
			}
		}
	}
	reach := map[*ir.Template][]bool{}
	shared := map[*ir.Template]int{} // a template whose code does not use tid: its first thread
	fixedLocals := map[*ir.Template]map[*ir.Var]*ir.Expr{}
	for t, th := range p.Threads {
		tmpl := th.Template
		L := len(tmpl.Transitions)
		r, ok := reach[tmpl]
		if !ok {
			r = reachable(tmpl)
			reach[tmpl] = r
		}
		if u, ok := shared[tmpl]; ok {
			in.own[t], in.future[t], in.trFails[t] = in.own[u], in.future[u], in.trFails[u]
			in.ownerWait[t] = in.ownerWait[u]
			continue
		}
		waits := make([]bool, L+2)
		for l, tr := range tmpl.Transitions {
			op := tr.EntryNode().Op
			waits[l] = op == ir.OpLock || op == ir.OpJoin
		}
		in.ownerWait[t] = waits
		if !usesTid(tmpl) {
			shared[tmpl] = t
		}
		iv := &intervals{p: p, thread: t}
		fixed, ok := fixedLocals[tmpl]
		if !ok {
			fixed = tmpl.FixedLocals()
			fixedLocals[tmpl] = fixed
		}
		iv.Intervals = p.Intervals(ir.Interval{Lo: int64(th.Tid), Hi: int64(th.Tid)}, func(v *ir.Var) (ir.Interval, bool) {
			if e := fixed[v]; e != nil {
				return iv.Eval(e), true // a local named once (ir.Template.FixedLocals)
			}
			return ir.Interval{}, false
		})
		// Locations L (terminated) and L+1 (Template.Stuck: an inner guard
		// failed) run no code: their footprints are empty, and they fail
		// nowhere.
		own := make([]footprint, L+2)
		fut := make([]footprint, L+2)
		for l := range own {
			own[l], fut[l] = newFootprint(p), newFootprint(p)
		}
		for l, tr := range tmpl.Transitions {
			c := &own[l]
			for _, i := range tr.Nodes {
				iv.node(tmpl.Nodes[i], c)
			}
			for _, l2 := range tr.Succ {
				c.term = c.term || l2 == L
			}
		}
		nodeFails := failingNodes(p, th, iv)
		trFails := make([]bool, L)
		for l, tr := range tmpl.Transitions {
			for _, i := range tr.Nodes {
				trFails[l] = trFails[l] || nodeFails[i]
			}
			if tmpl.Receives {
				own[l].port = true
			}
			for _, l2 := range tr.Succ {
				// Arriving where the thread waits to receive on a
				// rendezvous writes the receiving ends (ir/rendezvous.go).
				if l2 < L && tmpl.Transitions[l2].Receives {
					iv.arrival(tmpl.Transitions[l2].EntryNode(), &own[l])
				}
			}
		}
		in.own[t], in.future[t], in.trFails[t] = own, fut, trFails
	}
	in.linkHandoffs()
	for t, th := range p.Threads {
		tmpl := th.Template
		if u, ok := shared[tmpl]; ok && u != t {
			in.future[t], in.fails[t] = in.future[u], in.fails[u]
			continue
		}
		L := len(tmpl.Transitions)
		r := reach[tmpl]
		own, fut, trFails := in.own[t], in.future[t], in.trFails[t]
		for l := range L {
			if hasInv && own[l].acc[ir.Write].intersects(watched) {
				own[l].add(invLoc, ir.Write)
				trFails[l] = true
			}
		}
		fails := make([]bool, L+2)
		for l := range L {
			for m := range L {
				if r[l*(L+1)+m] {
					fut[l].or(&own[m])
					fails[l] = fails[l] || trFails[m]
				}
			}
		}
		in.fails[t] = fails
	}
	in.indexThreads()
	return in
}

// indexThreads fills in writers and users from the footprints of every
// thread's transitions, which every future footprint is a union of.
func (in *staticInfo) indexThreads() {
	nl := in.p.NumLocations()
	writers, users := make([][]int32, nl), make([][]int32, nl)
	entries := 0
	union := newFootprint(in.p)
	var unionOf []footprint // the threads of a template without tid share own
	for t, own := range in.own {
		if len(own) == 0 {
			continue
		}
		if unionOf == nil || &unionOf[0] != &own[0] {
			union.acc[ir.Read].clear()
			union.acc[ir.Write].clear()
			for l := range own {
				union.or(&own[l])
			}
			unionOf = own
		}
		w := union.acc[ir.Write]
		for l := w.next(0); l >= 0; l = w.next(l + 1) {
			writers[l] = append(writers[l], int32(t))
			users[l] = append(users[l], int32(t))
			entries += 2
		}
		r := union.acc[ir.Read]
		for l := r.next(0); l >= 0; l = r.next(l + 1) {
			if !w.has(l) {
				users[l] = append(users[l], int32(t))
				entries++
			}
		}
		if entries > maxThreadLists {
			return
		}
	}
	in.writers, in.users = writers, users
	if len(in.own) > 64 {
		return
	}
	in.askUsers, in.writerMask = make([]uint64, nl), make([]uint64, nl)
	for l := range nl {
		for _, t := range writers[l] {
			in.writerMask[l] |= 1 << t
		}
		if in.ordered.has(l) {
			continue // a step enabled now never conflicts there (see ordered)
		}
		for _, t := range users[l] {
			in.askUsers[l] |= 1 << t
		}
		if k, t := in.p.Locate(l); k == ir.LocThread {
			in.askUsers[l] |= 1 << t
		}
	}
}

// asked returns the threads persistentSearch.affected asks about for a step
// that made the accesses acc (askUsers: at most 64 threads).
func (in *staticInfo) asked(acc []ir.Access) uint64 {
	var m uint64
	for _, a := range acc {
		m |= in.askUsers[a.Loc]
	}
	return m
}

// reachable returns the reflexive-transitive closure of the successor relation
// between a template's locations: entry l*(L+1)+m says m is reachable from l.
func reachable(tmpl *ir.Template) []bool {
	L := len(tmpl.Transitions)
	r := make([]bool, (L+1)*(L+1))
	var stack []int
	for l := range L {
		stack = append(stack[:0], l)
		r[l*(L+1)+l] = true
		for len(stack) > 0 {
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if m == L {
				continue
			}
			for _, l2 := range tmpl.Transitions[m].Succ {
				if !r[l*(L+1)+l2] {
					r[l*(L+1)+l2] = true
					stack = append(stack, l2)
				}
			}
		}
	}
	return r
}

// usesTid reports whether some expression of the template reads tid, so that its
// instances need their own analysis.
func usesTid(tmpl *ir.Template) bool {
	for _, n := range tmpl.Nodes {
		for e := range n.Exprs() {
			if ir.Any(e, func(x *ir.Expr) bool { return x.Op == ir.ETid }) {
				return true
			}
		}
	}
	return false
}

// node adds what executing n may access to fp.
func (iv *intervals) node(n *ir.Node, fp *footprint) {
	iv.reads(n.X, fp)
	iv.reads(n.Y, fp)
	switch n.Op {
	case ir.OpAssign:
		iv.lvalue(n.LHS, fp, false)
	case ir.OpCas:
		iv.lvalue(n.LHS, fp, true)
		iv.lvalue(n.Result, fp, false)
	case ir.OpLock, ir.OpUnlock, ir.OpTryLock:
		if n.Addr != nil {
			iv.reads(n.Addr, fp)
			iv.pointer(n.Addr, fp, ir.Write)
			iv.lvalue(n.Result, fp, false)
			break
		}
		iv.reads(n.MIndex, fp)
		lo, hi := 0, n.Mutex.Count()-1
		if n.MIndex != nil {
			i := iv.Eval(n.MIndex)
			lo, hi = int(max(i.Lo, int64(lo))), int(min(i.Hi, int64(hi)))
		}
		for i := lo; i <= hi; i++ {
			fp.add(iv.p.LockLocation(n.Mutex.Offset+i), ir.Write)
		}
	case ir.OpJoin:
		if n.JThread != nil {
			iv.reads(n.JThread, fp)
			for _, e := range n.JAlso {
				iv.reads(e, fp)
			}
			for _, pool := range iv.p.Pools {
				for _, u := range pool.Slots {
					fp.add(iv.p.ThreadLocation(u.First), ir.Read)
					if n.LHS != nil {
						fp.add(iv.p.CellLocation(u.Start.Offset+ir.StartReturn), ir.Read)
					}
				}
			}
			iv.lvalue(n.LHS, fp, false)
			break
		}
		iv.reads(n.JIndex, fp)
		lo, hi := 0, n.Join.Instances()-1
		if n.JIndex != nil {
			i := iv.Eval(n.JIndex)
			lo, hi = int(max(i.Lo, int64(lo))), int(min(i.Hi, int64(hi)))
		}
		for i := lo; i <= hi; i++ {
			fp.add(iv.p.ThreadLocation(n.Join.First+i), ir.Read)
		}
	case ir.OpStart:
		st := iv.p.Threads[iv.thread].Template.Start
		fp.add(iv.p.CellLocation(st.Offset+ir.StartFlag), ir.Read)
		fp.add(iv.p.CellLocation(st.Offset+ir.StartArg), ir.Read)
		iv.lvalue(n.LHS, fp, false)
	case ir.OpSpawn:
		for _, u := range n.Pool.Slots {
			for c := range ir.StartCells {
				fp.add(iv.p.CellLocation(u.Start.Offset+c), ir.Write)
			}
			fp.add(iv.p.CellLocation(u.Start.Offset+ir.StartFlag), ir.Read)
		}
		iv.lvalue(n.LHS, fp, false)
	case ir.OpAlloc:
		for c := range n.Alloc.Blocks {
			fp.add(iv.p.CellLocation(n.Alloc.Status.Offset+c), ir.Read)
			fp.add(iv.p.CellLocation(n.Alloc.Status.Offset+c), ir.Write)
		}
		iv.lvalue(n.LHS, fp, false)
	case ir.OpFree:
		iv.heapStatus(fp, ir.Write)
	case ir.OpSend, ir.OpRecv, ir.OpClose:
		for _, a := range n.Args {
			iv.reads(a, fp)
		}
		iv.reads(n.CIndex, fp)
		iv.channels(n.Chan, n.CIndex, fp, n.Op)
		for _, lv := range n.Dsts {
			iv.lvalue(lv, fp, false)
		}
		iv.lvalue(n.OK, fp, false)
	case ir.OpSelect:
		// Every case may be the one performed, and each reads its When and
		// its channel's ends (ir/select.go).
		for _, c := range n.Cases {
			iv.reads(c.When, fp)
			iv.node(c, fp)
			iv.channels(c.Chan, c.CIndex, fp, ir.OpNop)
		}
		iv.lvalue(n.LHS, fp, false)
	}
}

// chanOpFails reports whether a send or recv node n (or a select's case) may
// fail: its When, its channel index, a field of its message, a destination or
// its ok flag, or a send on a channel some close names (a panic).
func (iv *intervals) chanOpFails(n *ir.Node) bool {
	bad := iv.chanFails(n.Chan, n.CIndex) || iv.fails(n.When) || iv.lvFails(n.OK) ||
		n.Op == ir.OpSend && n.Chan.Closable
	for _, a := range n.Args {
		bad = bad || iv.fails(a)
	}
	for _, lv := range n.Dsts {
		bad = bad || iv.lvFails(lv)
	}
	return bad
}

// channels adds to fp what op (a send, a recv, a close, or ELen's read of the
// length) accesses on the channels of c that index may select: a send writes
// the sending end and any slot, a recv the receiving end and any slot, a close
// both ends, len reads both ends (ir.Program.ChannelLocations).
func (iv *intervals) channels(c *ir.Channel, index *ir.Expr, fp *footprint, op ir.OpKind) {
	lo, hi := 0, c.Count()-1
	if index != nil {
		i := iv.Eval(index)
		lo, hi = int(max(i.Lo, int64(lo))), int(min(i.Hi, int64(hi)))
	}
	for i := lo; i <= hi; i++ {
		send, recv := iv.p.ChannelEnds(c.Offset + i)
		switch op {
		case ir.OpSend:
			fp.add(send, ir.Write)
		case ir.OpRecv:
			fp.add(recv, ir.Write)
		case ir.OpClose:
			fp.add(send, ir.Write)
			fp.add(recv, ir.Write)
			continue
		default:
			fp.add(send, ir.Read)
			fp.add(recv, ir.Read)
			continue
		}
		for k := range c.Cap {
			fp.add(iv.p.ChannelSlot(c.Offset+i, k), ir.Write)
		}
		// What ir's channelAccesses adds for the attributes.
		if c.Unordered {
			fp.add(send, ir.Write)
			fp.add(recv, ir.Write)
		}
		if c.Lossy && op == ir.OpSend {
			fp.add(recv, ir.Read)
		}
	}
}

// reads adds the locations evaluating e may read to fp: shared cells, and the
// channels whose length it asks for.
func (iv *intervals) reads(e *ir.Expr, fp *footprint) {
	ir.Inspect(e, func(e *ir.Expr) bool {
		switch e.Op {
		case ir.EVar:
			if e.Var.Shared {
				fp.add(iv.p.CellLocation(e.Var.Offset), ir.Read)
			}
		case ir.EIndex:
			if e.Var.Shared {
				iv.cells(e.Var, e.X, fp, ir.Read)
			}
		case ir.ELen:
			iv.channels(e.Chan, e.X, fp, ir.OpNop)
		case ir.EDeref:
			iv.pointer(e.X, fp, ir.Read)
		}
		return true
	})
}

// pointer adds to fp, as accesses of kind k, the cells pointer expression e may
// address: one cell for the address of a variable's cell whose index is known,
// else every cell of every object (and, read, every heap block's status).
func (iv *intervals) pointer(e *ir.Expr, fp *footprint, k ir.AccessKind) {
	if e.Op == ir.EAddr {
		i := ir.Interval{}
		if e.X != nil {
			i = iv.Eval(e.X)
		}
		if i.Single() && i.Lo >= 0 && i.Lo < int64(e.Var.Cells()) && e.Var.Block == nil {
			fp.add(iv.p.CellLocation(e.Var.Offset+int(i.Lo)), k)
			return
		}
	}
	for _, o := range iv.p.Objects {
		for c := range o.Cells() {
			fp.add(iv.p.CellLocation(o.Offset+c), k)
		}
	}
	iv.heapStatus(fp, ir.Read)
}

// heapStatus adds every heap block's status cell to fp, as accesses of kind k
// (a free writes one; every access to a block reads its own).
func (iv *intervals) heapStatus(fp *footprint, k ir.AccessKind) {
	for _, a := range iv.p.Allocs {
		for c := range a.Blocks {
			fp.add(iv.p.CellLocation(a.Status.Offset+c), ir.Read)
			if k == ir.Write {
				fp.add(iv.p.CellLocation(a.Status.Offset+c), ir.Write)
			}
		}
	}
}

// lvalue adds what assigning lv accesses to fp: its index is read, a shared cell is
// written (and read, for cas).
func (iv *intervals) lvalue(lv *ir.LValue, fp *footprint, cas bool) {
	if lv == nil {
		return
	}
	if lv.Ptr != nil {
		iv.reads(lv.Ptr, fp)
		iv.pointer(lv.Ptr, fp, ir.Write)
		if cas {
			iv.pointer(lv.Ptr, fp, ir.Read)
		}
		return
	}
	iv.reads(lv.Index, fp)
	if !lv.Var.Shared {
		return
	}
	if lv.Index == nil {
		fp.add(iv.p.CellLocation(lv.Var.Offset), ir.Write)
		if cas {
			fp.add(iv.p.CellLocation(lv.Var.Offset), ir.Read)
		}
		return
	}
	iv.cells(lv.Var, lv.Index, fp, ir.Write)
	if cas {
		iv.cells(lv.Var, lv.Index, fp, ir.Read)
	}
}

// cells adds to fp, as accesses of kind k, the cells of array v that index may
// select.
func (iv *intervals) cells(v *ir.Var, index *ir.Expr, fp *footprint, k ir.AccessKind) {
	i := iv.Eval(index)
	lo, hi := max(i.Lo, 0), min(i.Hi, int64(v.Len-1))
	for c := lo; c <= hi; c++ {
		fp.add(iv.p.CellLocation(v.Offset+int(c)), k)
	}
}

// failingNodes tells, for each node of thread th's template, whether executing it
// in th may fail: an assertion whose condition is not always true, an index that
// may be out of bounds, a divisor that may be zero, a shift amount that may be out
// of range, a lock the thread may already hold, an unlock of a mutex it may not
// hold, a close, a send on a channel some close names. Values are approximated by intervals that know constants, tid and nondet
// ranges; which mutexes the thread holds is a data-flow analysis over the
// template's control-flow graph. An unreachable node cannot fail.
func failingNodes(p *ir.Program, th *ir.Thread, iv *intervals) []bool {
	held := heldLocks(p, th, iv)
	tmpl := th.Template
	out := make([]bool, len(tmpl.Nodes))
	for i, n := range tmpl.Nodes {
		h := held[i]
		if h == nil {
			continue
		}
		switch n.Op {
		case ir.OpAssign:
			out[i] = iv.fails(n.X) || iv.lvFails(n.LHS)
		case ir.OpBranch, ir.OpAssume, ir.OpAwait:
			out[i] = iv.fails(n.X)
		case ir.OpAssert:
			out[i] = iv.fails(n.X) || iv.Eval(n.X).Lo <= 0
		case ir.OpCas:
			out[i] = iv.lvFails(n.LHS) || iv.fails(n.X) || iv.fails(n.Y) || iv.lvFails(n.Result)
		case ir.OpJoin:
			switch {
			case n.JThread != nil:
				out[i] = true // a value that is no created thread
			case n.JIndex != nil:
				j := iv.Eval(n.JIndex)
				out[i] = iv.fails(n.JIndex) || j.Lo < 0 || j.Hi >= int64(n.Join.Instances())
			}
		case ir.OpStart:
			out[i] = iv.lvFails(n.LHS)
		case ir.OpSpawn, ir.OpAlloc:
			// Inside an atomic section, a full pool is reported as unsupported.
			out[i] = n.Atomic || iv.fails(n.X) || iv.lvFails(n.LHS)
		case ir.OpFree:
			out[i] = true
		case ir.OpTryLock:
			out[i] = iv.fails(n.Addr) || n.Addr.Op != ir.EAddr || iv.lvFails(n.Result)
		case ir.OpSend, ir.OpRecv:
			out[i] = iv.chanOpFails(n)
		case ir.OpClose:
			out[i] = true // the channel may be closed already
		case ir.OpSelect:
			out[i] = iv.lvFails(n.LHS)
			for _, c := range n.Cases {
				out[i] = out[i] || iv.chanOpFails(c)
			}
		case ir.OpLock, ir.OpUnlock:
			if n.AnyOwner || n.Op == ir.OpUnlock && p.AnyOwnerUnlocks() {
				// Go's unlock fails on a free mutex; and where another
				// thread may unlock, which mutexes a thread holds is
				// not its own code's to say.
				out[i] = true
				break
			}
			if n.Addr != nil {
				l, known := iv.addrLock(n)
				switch {
				case !known:
					out[i] = true
				case n.Op == ir.OpLock:
					out[i] = h.may.has(l) || h.anyAddr
				default:
					out[i] = !h.must.has(l)
				}
				break
			}
			l, known, bad := iv.lock(n)
			switch {
			case bad:
				out[i] = true
			case n.Op == ir.OpLock && known:
				out[i] = h.may.has(p.LockLocation(l)) || h.any.has(mutexNumber(p, n.Mutex))
			case n.Op == ir.OpLock:
				out[i] = h.any.has(mutexNumber(p, n.Mutex)) || h.mayAnyOf(p, n.Mutex)
			default:
				out[i] = !known || !h.must.has(p.LockLocation(l))
			}
		}
	}
	return out
}

func mutexNumber(p *ir.Program, m *ir.Mutex) int {
	for i, o := range p.Mutexes {
		if o == m {
			return i
		}
	}
	return -1
}

// lockFacts is what is known at a node about the mutexes the thread holds: may
// (the locations of mutexes possibly held: a .kb lock's, or the cell of a
// mutex in memory), any (.kb mutex declarations of which some element with an
// unknown index is possibly held), anyAddr (some mutex in memory whose address
// is not known is possibly held), must (locations certainly held).
type lockFacts struct {
	may, any, must bitSet
	anyAddr        bool
}

func (h *lockFacts) mayAnyOf(p *ir.Program, m *ir.Mutex) bool {
	for i := range m.Count() {
		if h.may.has(p.LockLocation(m.Offset + i)) {
			return true
		}
	}
	return false
}

// addrLock resolves the mutex a lock or unlock by address names: its cell's
// location when the address is a variable's cell of known index.
func (iv *intervals) addrLock(n *ir.Node) (loc int, known bool) {
	e := n.Addr
	if e.Op != ir.EAddr || e.Var.Block != nil {
		return 0, false
	}
	i := ir.Interval{}
	if e.X != nil {
		i = iv.Eval(e.X)
	}
	if !i.Single() || i.Lo < 0 || i.Lo >= int64(e.Var.Cells()) {
		return 0, false
	}
	return iv.p.CellLocation(e.Var.Offset + int(i.Lo)), true
}

// heldLocks computes the lock facts before every node reachable from the entry
// (nil for the others).
func heldLocks(p *ir.Program, th *ir.Thread, iv *intervals) []*lockFacts {
	tmpl := th.Template
	in := make([]*lockFacts, len(tmpl.Nodes))
	newFacts := func() *lockFacts {
		return &lockFacts{may: newBitSet(p.NumLocations()), any: newBitSet(len(p.Mutexes)), must: newBitSet(p.NumLocations())}
	}
	in[tmpl.Entry] = newFacts()
	work := []int{tmpl.Entry}
	out := newFacts()
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		n := tmpl.Nodes[i]
		out.copyFrom(in[i])
		switch {
		case n.Addr != nil && (n.Op == ir.OpLock || n.Op == ir.OpTryLock):
			if l, known := iv.addrLock(n); known {
				out.may.add(l)
				if n.Op == ir.OpLock {
					out.must.add(l)
				}
			} else {
				out.anyAddr = true
			}
		case n.Addr != nil && n.Op == ir.OpUnlock:
			if l, known := iv.addrLock(n); known {
				out.may.remove(l)
				out.must.remove(l)
			} else {
				for _, o := range p.Objects { // which one is not known: none is certain
					for c := range o.Cells() {
						out.must.remove(p.CellLocation(o.Offset + c))
					}
				}
			}
		case n.Op == ir.OpLock:
			if l, known, _ := iv.lock(n); known {
				out.may.add(p.LockLocation(l))
				out.must.add(p.LockLocation(l))
			} else {
				out.any.add(mutexNumber(p, n.Mutex))
			}
		case n.Op == ir.OpUnlock:
			if l, known, _ := iv.lock(n); known {
				out.may.remove(p.LockLocation(l))
				out.must.remove(p.LockLocation(l))
			} else {
				for c := range n.Mutex.Count() {
					out.must.remove(p.LockLocation(n.Mutex.Offset + c))
				}
			}
		}
		succ := [2]int{n.Next, ir.Exit}
		if n.Op == ir.OpBranch {
			succ[1] = n.Else
		}
		for _, j := range succ {
			if j == ir.Exit {
				continue
			}
			if in[j] == nil {
				in[j] = newFacts()
				in[j].copyFrom(out)
				work = append(work, j)
				continue
			}
			if in[j].merge(out) {
				work = append(work, j)
			}
		}
	}
	return in
}

func (h *lockFacts) copyFrom(o *lockFacts) {
	h.may.copyFrom(o.may)
	h.any.copyFrom(o.any)
	h.must.copyFrom(o.must)
	h.anyAddr = o.anyAddr
}

// merge joins o into h (may and any grow, must shrinks) and reports a change.
func (h *lockFacts) merge(o *lockFacts) bool {
	changed := false
	for i := range h.may {
		if w := h.may[i] | o.may[i]; w != h.may[i] {
			h.may[i], changed = w, true
		}
		if w := h.must[i] & o.must[i]; w != h.must[i] {
			h.must[i], changed = w, true
		}
	}
	for i := range h.any {
		if w := h.any[i] | o.any[i]; w != h.any[i] {
			h.any[i], changed = w, true
		}
	}
	if o.anyAddr && !h.anyAddr {
		h.anyAddr, changed = true, true
	}
	return changed
}

// intervals approximates the values of expressions in one thread by intervals
// (ir.Intervals): it knows constants, tid and nondet ranges, and nothing about
// variables.
type intervals struct {
	ir.Intervals
	p      *ir.Program
	thread int // the thread whose code is analysed (a template's first one, for shared analyses)
}

// fails reports whether evaluating e may fail at run time.
func (iv *intervals) fails(e *ir.Expr) bool {
	if e == nil {
		return false
	}
	switch e.Op {
	case ir.EIndex:
		if i := iv.Eval(e.X); i.Lo < 0 || i.Hi >= int64(e.Var.Len) {
			return true
		}
	case ir.EAdd, ir.ESub, ir.EMul, ir.ENeg:
		if iv.p.ChecksOverflow() && e.Type.Signed() {
			return true // signed overflow (ir/overflow.go), when the run checks it
		}
	case ir.EDiv, ir.ERem:
		if iv.p.ChecksOverflow() && e.Type.Signed() {
			return true
		}
		if y := iv.Eval(e.Y); y.Lo <= 0 && y.Hi >= 0 {
			return true
		}
	case ir.EShl, ir.EShr:
		if y := iv.Eval(e.Y); y.Lo < 0 || y.Hi >= int64(e.Type.Bits(iv.p.Width)) {
			return true
		}
	case ir.EDeref, ir.EPtrAdd, ir.EPtrDiff:
		return true // a pointer that addresses no cell, an arithmetic that leaves its object
	case ir.EAddr:
		if e.X != nil {
			if i := iv.Eval(e.X); i.Lo < 0 || i.Hi > int64(e.Var.Cells()) {
				return true
			}
		}
	case ir.ELen:
		if iv.chanFails(e.Chan, e.X) {
			return true
		}
	}
	return iv.fails(e.X) || iv.fails(e.Y) || iv.fails(e.Z)
}

// chanFails reports whether selecting a channel of c with index may fail.
func (iv *intervals) chanFails(c *ir.Channel, index *ir.Expr) bool {
	if index == nil {
		return false
	}
	i := iv.Eval(index)
	return iv.fails(index) || i.Lo < 0 || i.Hi >= int64(c.Count())
}

func (iv *intervals) lvFails(lv *ir.LValue) bool {
	if lv != nil && lv.Ptr != nil {
		return true
	}
	if lv == nil || lv.Index == nil {
		return false
	}
	i := iv.Eval(lv.Index)
	return iv.fails(lv.Index) || i.Lo < 0 || i.Hi >= int64(lv.Var.Len)
}

// lock resolves the mutex a lock or unlock node names: its lock number when the
// index is known, and whether computing the index may fail.
func (iv *intervals) lock(n *ir.Node) (l int, known, bad bool) {
	if n.MIndex == nil {
		return n.Mutex.Offset, true, false
	}
	i := iv.Eval(n.MIndex)
	bad = iv.fails(n.MIndex) || i.Lo < 0 || i.Hi >= int64(n.Mutex.Count())
	if i.Single() && !bad {
		return n.Mutex.Offset + int(i.Lo), true, false
	}
	return 0, false, bad
}

// releases computes, per thread and control location, whether the transition there
// may enable another thread (a release operation for the fair bound, Def. 1.10):
// it unlocks, writes a shared variable that an await or assume condition, a lock
// index or a join index reads, or may end a thread that some join waits for.
// Anything else can only disable other threads, which the fair-bound proofs allow.
func releases(p *ir.Program) [][]bool {
	guards := map[*ir.Var]bool{}
	joined := map[*ir.Template]bool{}
	for _, t := range p.Templates {
		for _, n := range t.Nodes {
			gs := []*ir.Expr{n.Guard()}
			for g := range n.CaseGuards() { // a select waits on each case's guard and When
				gs = append(gs, g)
			}
			if n.Op == ir.OpUnlock {
				gs[0] = n.MIndex // which mutex it frees (conservatively)
				if n.Addr != nil {
					gs[0] = n.Addr
				}
			}
			for _, g := range gs {
				ir.Inspect(g, func(e *ir.Expr) bool {
					if (e.Op == ir.EVar || e.Op == ir.EIndex) && e.Var.Shared {
						guards[e.Var] = true
					}
					if e.Op == ir.EDeref { // any object may be the one it reads
						for _, o := range p.Objects {
							guards[o] = true
						}
					}
					return true
				})
			}
			switch {
			case n.Op == ir.OpLock && n.Addr != nil:
				// A mutex in memory: whoever writes its cell (an unlock)
				// releases it.
				for _, o := range p.Objects {
					guards[o] = true
				}
			case n.Op == ir.OpJoin && n.JThread != nil:
				for _, pool := range p.Pools {
					for _, u := range pool.Slots {
						joined[u] = true
					}
				}
			case n.Op == ir.OpJoin:
				joined[n.Join] = true
			}
		}
	}
	byTemplate := map[*ir.Template][]bool{}
	for _, t := range p.Templates {
		tab := make([]bool, len(t.Transitions))
		for i, tr := range t.Transitions {
			for _, n := range tr.Nodes {
				if t.Nodes[n].Op.Props().Release {
					tab[i] = true
				}
			}
			for _, v := range tr.Writes {
				if guards[v] {
					tab[i] = true
				}
			}
			// Rendezvous (ir/rendezvous.go): arriving to receive enables
			// senders; a send runs its receiver's code, which may write a
			// guard or end the receiver.
			for _, l := range tr.Succ {
				if l < len(t.Transitions) && t.Transitions[l].Receives {
					tab[i] = true
				}
			}
			for _, h := range tr.Handoffs {
				for _, v := range h.Writes {
					tab[i] = tab[i] || guards[v]
				}
				for _, l := range h.Succ {
					tab[i] = tab[i] || l == h.Template.Terminated() && joined[h.Template]
				}
			}
			if joined[t] {
				for _, l := range tr.Succ {
					if l == t.Terminated() {
						tab[i] = true
					}
				}
			}
		}
		byTemplate[t] = tab
	}
	out := make([][]bool, len(p.Threads))
	for i, th := range p.Threads {
		out[i] = byTemplate[th.Template]
	}
	return out
}

// arrival adds to fp what a step that arrives at receiving node n writes: the
// receiving ends of the rendezvous channels n waits on (ir/rendezvous.go).
func (iv *intervals) arrival(n *ir.Node, fp *footprint) {
	cases := []*ir.Node{n}
	if n.Op == ir.OpSelect {
		cases = n.Cases
	}
	for _, c := range cases {
		if c.Op == ir.OpRecv && c.Chan.Rendezvous() {
			iv.reads(c.CIndex, fp)
			iv.channels(c.Chan, c.CIndex, fp, ir.OpRecv)
		}
	}
}

// linkHandoffs adds to the footprint of every transition that may send on a
// rendezvous channel what the receiving transitions it may run access
// (ir.Transition.Handoffs), the receivers' ports and terminations, and that
// it fails where they may.
func (in *staticInfo) linkHandoffs() {
	p := in.p
	done := map[*footprint]bool{} // threads of a template without tid share own
	for t, th := range p.Threads {
		own := in.own[t]
		if len(own) == 0 || done[&own[0]] {
			continue
		}
		done[&own[0]] = true
		for l, tr := range th.Template.Transitions {
			for _, h := range tr.Handoffs {
				for u := h.Template.First; u < h.Template.First+h.Template.Instances(); u++ {
					f := &in.own[u][h.Index]
					own[l].acc[ir.Read].or(f.acc[ir.Read])
					own[l].acc[ir.Write].or(f.acc[ir.Write])
					own[l].add(p.PortLocation(u), ir.Write)
					if f.term {
						own[l].add(p.ThreadLocation(u), ir.Write)
					}
					in.trFails[t][l] = in.trFails[t][l] || in.trFails[u][h.Index]
				}
			}
		}
	}
}
