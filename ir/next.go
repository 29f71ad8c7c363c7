package ir

// What a thread's next transition may access. Every partial-order reduction asks
// this about transitions that have not happened yet — to find races with them, to
// choose persistent sets, to build trace constraint systems — and asks it here, at
// one of three precisions:

// Precision says how a Probe describes a thread's next transition.
type Precision uint8

const (
	// Exact is what the transition accesses when it executes now, every
	// nondeterministic draw at its low end (Probe.Succ and Probe.Event then hold
	// the successor state and the step); for a thread that cannot move now, what
	// its guard reads: an await's or assume's condition, the lock it waits for,
	// the terminations it waits for, the channel it sends to or receives from,
	// and the shared cells their indices read.
	Exact Precision = iota
	// AllDraws is the union of Exact over every combination of nondeterministic
	// values the transition may draw. A transition with more than MaxProbeDraws
	// combinations gets the union over the first MaxProbeDraws and its static
	// footprint instead: a sound over-approximation that keeps one probe from
	// executing, say, a hundred million draws of nondet(0, 99999999).
	AllDraws
	// Static is the guard's accesses in this state plus everything the transition
	// may access from any state: its static footprint (whole arrays, whole mutex
	// and channel arrays, every instance of a joined template) and, when it may
	// end the thread, the thread's termination.
	Static
)

// MaxProbeDraws is how many combinations of nondeterministic draws an AllDraws
// probe executes before it falls back to the transition's static footprint. It
// stays above the draws of ordinary programs (two nondet(0, 99) in one step make
// 10,000), whose reductions are therefore unchanged, and bounds one probe to a
// few milliseconds, so that a search looks at its clock often enough.
const MaxProbeDraws = 1 << 14

// A Probe looks at threads' next transitions without disturbing the state. It owns
// the scratch that looking ahead needs, so that probing allocates nothing once
// its buffers have grown; a search keeps one per worker.
type Probe struct {
	p *Program
	// Succ receives the successor state of an Exact probe of a thread that can
	// move; a caller may point it at a buffer of its own (of StateSize cells).
	Succ State
	// Event is the step of the last probe that executed one (Exact or AllDraws).
	Event Event
	// Steps counts the transitions probes have executed, for the statistics.
	Steps int64

	ch    Choices
	fixed []int64
	foot  []Access // scratch for the footprint of an AllDraws probe that falls back
	seen  []uint8  // per location: access kinds already in the list being built
}

// NewProbe returns a probe of p's threads.
func (p *Program) NewProbe() *Probe {
	return &Probe{p: p, Succ: make(State, p.StateSize), seen: make([]uint8, p.NumLocations())}
}

// Choices returns the draws of the last step a probe executed.
func (pr *Probe) Choices() []Choice { return pr.ch.Made }

// Accesses appends to buf what thread t's next transition in s may access at
// precision prec; status is t's Status in s. It returns nothing for a terminated
// thread (but the read of its port for a rendezvous receiver). An Exact probe of a step that fails leaves the violation in
// pr.Event.Violation.
func (pr *Probe) Accesses(s State, t int, status Status, prec Precision, buf []Access) []Access {
	p := pr.p
	buf = buf[:0]
	tr := p.Transition(s, t)
	if status == Terminated || tr == nil { // ended, or stuck for ever (Template.Stuck)
		if p.Threads[t].Template.Receives {
			// A receiver a handoff ended (ir/rendezvous.go) has no transition
			// left, but the step that ended it consumed the one it had: its
			// own, when it was enabled too (a select with another case
			// ready). Reading its port keeps that step dependent with the
			// handoff, so that a race reversal tries the receiver's own step
			// first, as it does for a receiver the handoff only moved.
			return append(buf, Access{p.PortLocation(t), Read, 0})
		}
		return buf
	}
	if status != Enabled || prec == Static {
		buf = pr.guard(s, t, tr.EntryNode(), buf)
		if prec == Static {
			buf = pr.footprint(t, tr, buf)
		}
		return buf
	}
	if prec == Exact {
		copy(pr.Succ, s)
		pr.ch.Reset(nil)
		pr.Event.Violation = nil
		p.Step(pr.Succ, t, &pr.ch, &pr.Event)
		pr.Steps++
		return append(buf, pr.Event.Accesses...)
	}
	scratch := pr.Succ
	fixed := pr.fixed[:0]
	for n := 1; ; n++ {
		copy(scratch, s)
		pr.ch.Reset(fixed)
		p.Step(scratch, t, &pr.ch, &pr.Event)
		pr.Steps++
		buf = pr.union(buf, pr.Event.Accesses)
		var more bool
		if fixed, more = pr.ch.Next(fixed); !more {
			break
		}
		if n == MaxProbeDraws {
			// Every draw's accesses are within the static footprint.
			pr.foot = pr.footprint(t, p.Transition(s, t), pr.foot[:0])
			buf = pr.union(buf, pr.foot)
			break
		}
	}
	pr.fixed = fixed
	return pr.done(buf)
}

// guard appends what the guard of n, thread t's next operation, reads in s.
func (pr *Probe) guard(s State, t int, n *Node, buf []Access) []Access {
	p := pr.p
	th := p.Threads[t]
	if tm := th.Template; tm.Start != nil && int(s[th.Base]) == tm.Loc(tm.Entry) && n.Op != OpStart {
		if f := tm.Start.Offset + StartFlag; s[f] == 0 {
			// A lock its start was folded into (HoistStarts) waits for the
			// start first.
			return append(buf, Access{f, Read, 0})
		}
	}
	ev := Event{Accesses: buf}
	m := p.newMachine(s, t, nil, &ev)
	switch n.Op {
	case OpAwait, OpAssume:
		m.eval(n.X)
	case OpLock:
		if c := m.lockCell(n); !m.failed {
			ev.Accesses = append(ev.Accesses, Access{p.lockLocation(n, c), Write, int64(t + 1)})
		}
	case OpJoin:
		// A join that waits for several threads waits, until it has ended,
		// for the last one it names that has not ended: what it reads is
		// that thread's end. The ends of threads that have ended are set
		// for good (no step writes a thread's end twice), and while that
		// thread runs, a step that ends another changes neither whether
		// the join can move nor what it reads, so it is independent of the
		// join (ir.Conflict). The last rather than the first: threads tend
		// to end in the order they are named (a search runs the lowest
		// thread first), so the join waits for one end, not each in turn.
		// Main's join of every thread in a C program (prefix.go, JAlso: main's
		// constants) is then not dependent with every thread's last step.
		// JThread, checked last, reads only main's locals when there are
		// JAlso (joinChain). A join of a phantom never ends (ir/memory.go).
		if n.JThread != nil {
			for i := len(n.JAlso) - 1; i >= -1; i-- {
				e := n.JThread
				if i >= 0 {
					e = n.JAlso[i]
				}
				u := m.joinedBy(n, e)
				if m.failed || u == phantomThread {
					break
				}
				if !p.Done(s, u) {
					ev.Accesses = append(ev.Accesses, Access{p.ThreadLocation(u), Read, 0})
					break
				}
			}
			break
		}
		lo, hi := m.joinRange(n)
		for u := hi - 1; u >= lo; u-- {
			if !p.Done(s, u) {
				ev.Accesses = append(ev.Accesses, Access{p.ThreadLocation(u), Read, 0})
				break
			}
		}
	case OpStart:
		f := p.Threads[t].Template.Start.Offset + StartFlag
		ev.Accesses = append(ev.Accesses, Access{f, Read, s[f]})
	case OpSpawn:
		// The slots it might take: the first free one, or every one when none is.
		for _, u := range n.Pool.Slots {
			f := u.Start.Offset + StartFlag
			ev.Accesses = append(ev.Accesses, Access{f, Write, s[f]})
			if s[f] == 0 {
				break
			}
		}
	case OpAlloc:
		m.eval(n.X)
		a := n.Alloc
		for i := range a.Blocks {
			c := a.Status.Offset + i
			ev.Accesses = append(ev.Accesses, Access{c, Write, s[c]})
			if s[c] == 0 {
				break
			}
		}
	case OpSend, OpRecv:
		if c := m.chanIndex(n.Chan, n.CIndex); !m.failed {
			ev.Accesses = p.channelAccesses(n.Op, s, c, ev.Accesses)
			if n.Op == OpSend && n.Chan.Rendezvous() {
				// Who waits to receive depends on the receivers' When
				// conditions and channel indices too.
				var rb [4]receiver
				m.receivers(c, rb[:0])
			}
		}
	case OpSelect:
		p.selectAccesses(&m, n)
	}
	if th.Template.Receives {
		ev.Accesses = append(ev.Accesses, Access{p.PortLocation(t), Read, 0}) // a sender may move it
	}
	return ev.Accesses
}

// footprint appends thread t's transition tr's static footprint: its own,
// and that of every receiving transition a rendezvous send in it may run
// (Transition.Handoffs), with the receivers' ports.
func (pr *Probe) footprint(t int, tr *Transition, buf []Access) []Access {
	p := pr.p
	buf = p.transitionFootprint(tr, buf)
	if terminates(tr) {
		buf = append(buf, Access{Loc: p.ThreadLocation(t), Kind: Write})
	}
	if tr.Template.Receives {
		buf = append(buf, Access{Loc: p.PortLocation(t), Kind: Read})
	}
	for _, h := range tr.Handoffs {
		buf = p.transitionFootprint(h, buf)
		for u := h.Template.First; u < h.Template.First+h.Template.Instances(); u++ {
			buf = append(buf, Access{Loc: p.PortLocation(u), Kind: Write})
			if terminates(h) {
				buf = append(buf, Access{Loc: p.ThreadLocation(u), Kind: Write})
			}
		}
	}
	if inv, ok := p.InvariantLocation(); ok && p.WritesInvariantReads(buf) {
		buf = append(buf, Access{Loc: inv, Kind: Write}) // the visibility condition (invariant.go)
	}
	return buf
}

// terminates reports whether transition tr may end its thread.
func terminates(tr *Transition) bool {
	for _, l := range tr.Succ {
		if l == tr.Template.Terminated() {
			return true
		}
	}
	return false
}

// transitionFootprint appends what transition tr's code may access, whichever
// thread runs it: the cells, locks, terminations and channels of its static
// footprint.
func (p *Program) transitionFootprint(tr *Transition, buf []Access) []Access {
	for _, v := range tr.Reads {
		for c := range v.Cells() {
			buf = append(buf, Access{Loc: p.CellLocation(v.Offset + c), Kind: Read})
		}
	}
	for _, v := range tr.Writes {
		for c := range v.Cells() {
			buf = append(buf, Access{Loc: p.CellLocation(v.Offset + c), Kind: Write})
		}
	}
	for _, m := range tr.Locks {
		for c := range m.Count() {
			buf = append(buf, Access{Loc: p.LockLocation(m.Offset + c), Kind: Write})
		}
	}
	for _, j := range tr.Joins {
		for c := range j.Instances() {
			buf = append(buf, Access{Loc: p.ThreadLocation(j.First + c), Kind: Read})
		}
	}
	for _, ch := range tr.Chans {
		for c := range ch.Count() {
			first, n := p.ChannelLocations(ch.Offset + c)
			for l := first; l < first+n; l++ {
				buf = append(buf, Access{Loc: l, Kind: Write})
			}
		}
	}
	return buf
}

// union appends the accesses of acc that buf does not hold yet (same location and
// kind), marking them in pr.seen until done clears the marks.
func (pr *Probe) union(buf, acc []Access) []Access {
	for _, a := range acc {
		bit := uint8(1) << a.Kind
		if pr.seen[a.Loc]&bit == 0 {
			pr.seen[a.Loc] |= bit
			buf = append(buf, a)
		}
	}
	return buf
}

func (pr *Probe) done(buf []Access) []Access {
	for _, a := range buf {
		pr.seen[a.Loc] = 0
	}
	return buf
}

// channelAccesses appends what a send or recv (op) on channel c accesses in
// state s, enabled or not: the end it writes and the slot its message goes
// into or comes from. A blocked send waits for the slot of the oldest message
// to be freed, a blocked recv for the slot at the head to be filled: the
// accesses of the step that enables it.
func (p *Program) channelAccesses(op OpKind, s State, c int, buf []Access) []Access {
	send, recv := p.ChannelEnds(c)
	if p.chanDecl[c].Rendezvous() {
		// A send waits for a receiver (its arrival writes the receiving
		// end); a receiver waits for a send, which writes the receiving end
		// and the receiver's port (rendezvous.go; guard adds the port).
		if op == OpSend {
			return append(buf, Access{send, Write, 0}, Access{recv, Write, 0})
		}
		return append(buf, Access{recv, Read, 0})
	}
	l := int(p.ChannelQueue(s, c)[0])
	h := p.ChannelHead(s, c)
	switch ch := p.chanDecl[c]; {
	case ch.Unordered:
		// Any message may leave: every two operations conflict, on the ends
		// (never on slots, which would order them).
		return append(buf, Access{send, Write, int64(l)}, Access{recv, Write, int64(l)})
	case ch.Lossy && op == OpSend:
		// Delivered; whether it could be depends on the receiving end.
		buf = append(buf, Access{recv, Read, int64(l)})
	}
	if op == OpSend {
		return append(buf, Access{send, Write, int64(l)}, Access{p.ChannelSlot(c, (h+l)%p.chanDecl[c].Cap), Write, 1})
	}
	return append(buf, Access{recv, Write, int64(l)}, Access{p.ChannelSlot(c, h), Write, 0})
}
