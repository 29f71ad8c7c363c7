package encode

import (
	"kbmc/ir"
	"kbmc/solver"
)

// Rendezvous channels (capacity 0; ir/rendezvous.go). A send and the receive
// it meets are one step, the sender's: it is enabled while some other thread
// waits to receive on the channel — its control location is a transition
// that starts at a recv on it, or at a select without default with a
// receive case on it whose When holds — and it draws which of the waiting
// receivers (in thread order) gets the message, a channel draw
// (ir.Choice.Channel) of 0..r−1 when r > 1, as machine.handOff does. The
// receiver's whole transition then runs inside the sender's step, at the
// send: its entry node takes the message (handoff), its writes go into the
// sender's store, its control location into its pcKey, its checks, draws
// and accesses into the sender's move; then the sender goes on. A receive
// on a rendezvous is never enabled by itself, except on a closed channel,
// where it takes zeros by its own step (recvRendezvous).
//
// Footprints follow ir's: the step writes the receiver's port
// (ir.Program.PortLocation), which every step of a thread that can receive
// reads (exec), and the location of every channel the receiver waited on;
// a step that arrives at a receiving transition writes the locations of
// its channels (waitAt), and a select that waited to receive and leaves by
// its own step too (selectCase), since they change which sends are ready;
// a sender reads what deciding who waits reads (waits).

// handoff is the message a sender hands a receiver's entry node over on
// channel number c (ir's machine.handoff).
type handoff struct {
	c   int
	msg []val
}

// receivingCases returns the cases of node n that wait for a sender on a
// rendezvous channel: n itself for a recv, the receive cases of a select
// without default (ir's receivingCases).
func receivingCases(n *ir.Node) []*ir.Node {
	switch {
	case n.Op == ir.OpRecv && n.Chan.Rendezvous():
		return []*ir.Node{n}
	case n.Op == ir.OpSelect && !n.Default:
		var out []*ir.Node
		for _, c := range n.Cases {
			if c.Op == ir.OpRecv && c.Chan.Rendezvous() {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

// markWaiting records writes, under g, of the locations of the channels
// node n waits to receive on: every channel of each case's declaration, a
// superset of those its index names (ir's markWaiting evaluates the index;
// a write more only orders more steps).
func (f *frame) markWaiting(n *ir.Node, g *solver.Term) {
	if f.mv == nil {
		return
	}
	for _, cs := range receivingCases(n) {
		for j := range cs.Chan.Count() {
			loc := f.u.p.ChannelLocation(cs.Chan.Offset + j)
			f.acc.write[loc] = append(f.acc.write[loc], g)
		}
	}
}

// waitAt records that a step arrives, when g holds, at transition tr, which
// starts by waiting to receive on a rendezvous: it may enable senders.
func (r run) waitAt(tr *ir.Transition, g *solver.Term) {
	f := &frame{u: r.u, b: r.u.b, mv: r.mv, acc: r.acc}
	f.markWaiting(tr.EntryNode(), g)
}

// waits is the condition, on f's path, that thread r waits to receive on
// channel number c in f's store (ir's machine.receivers): it is at a
// receiving transition, started, with a case considered whose channel is
// c. The cases' Whens and indices are evaluated as ir does, a failure
// meaning "not waiting there" rather than a violation; in a step their
// reads are the sender's.
func (f *frame) waits(r, c int) *solver.Term {
	u, b := f.u, f.b
	th := u.p.Threads[r]
	tm := th.Template
	if !tm.Receives {
		return b.False()
	}
	var or []*solver.Term
	for l, tr := range tm.Transitions {
		if !mayReceive(tr.EntryNode(), c) {
			continue
		}
		at := b.And(f.g, u.is(f.get(u.pcKey(r)), uint64(l)))
		if at.IsFalse() {
			continue
		}
		rf := &frame{u: u, b: b, th: th, pre: f.pre, st: f.st, g: at, probe: true,
			mv: f.mv, acc: f.acc, as: f.as, stepIndex: f.stepIndex, slot: f.slot}
		if tm.Start != nil && tr.Entry == tm.Entry {
			// Dormant until started (ir's Program.receiving).
			k := startKey(tm, ir.StartFlag)
			rf.access(k, false, b.True())
			rf.g = b.And(rf.g, b.Not(u.is(rf.get(u.p.CellKey(k)), 0)))
		}
		or = append(or, rf.namesChannel(tr.EntryNode(), c))
	}
	return b.Or(or...)
}

// namesChannel is the condition, on f's path, that some receiving case of
// node n is considered and names channel c. As in ir's machine.receivers,
// an index that fails leaves the machine failed for the cases after it:
// the next case without a When does not match, the next with one is not
// considered, and the failure is over.
func (f *frame) namesChannel(n *ir.Node, c int) *solver.Term {
	b := f.b
	g0 := f.g
	failed := b.False() // relative to g0: an earlier index failed
	var match []*solver.Term
	for _, cs := range receivingCases(n) {
		ok := b.Not(failed)
		if cs.When != nil {
			f.g, f.guardFail = b.And(g0, ok), nil
			w := f.u.toBool(f.eval(cs.When))
			ok = b.And(ok, w, b.Not(b.Or(f.guardFail...)))
			failed = b.False()
		}
		if cs.CIndex == nil {
			if cs.Chan.Offset == c {
				match = append(match, ok)
			}
			continue
		}
		f.g, f.guardFail = b.And(g0, ok), nil
		conds := f.chanCells(cs.Chan, cs.CIndex)
		fail := b.Or(f.guardFail...)
		if j := c - cs.Chan.Offset; j >= 0 && j < len(conds) {
			match = append(match, b.And(ok, b.Not(fail), conds[j]))
		}
		failed = b.Or(failed, b.And(ok, fail))
	}
	f.g = g0
	return b.And(g0, b.Or(match...))
}

// receivers returns, per other thread in thread order, the condition that
// it waits to receive on channel c.
func (f *frame) receivers(c int) []*solver.Term {
	out := make([]*solver.Term, len(f.u.p.Threads))
	for r := range out {
		out[r] = f.b.False()
		if r != f.th.ID {
			out[r] = f.waits(r, c)
		}
	}
	return out
}

// handOff is machine.handOff for send node n on the rendezvous channel
// conds names, with message msg: for each channel, it draws one of the
// receivers waiting on it and runs that receiver's transition with the
// message handed over; f goes on from the joined exits. Enabledness
// guarantees a receiver.
func (f *frame) handOff(n *ir.Node, conds []*solver.Term, msg []val) {
	b, u := f.b, f.u
	p := u.p
	var exits []edge
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		c := n.Chan.Offset + j
		f.access(p.ChannelLocation(c), true, at)
		g0 := f.g
		f.g = b.And(g0, at)
		// The receiver: one of those waiting, in thread order.
		for r, chosen := range f.drawAmong(f.receivers(c)) {
			if chosen.IsFalse() {
				continue
			}
			es, err := f.moveReceiver(r, c, msg, b.And(f.g, chosen))
			if err != nil {
				f.err = err
				return
			}
			exits = append(exits, es...)
		}
		f.g = b.And(g0, b.Not(at))
	}
	g, st := u.join(f.pre, f.th, exits)
	f.g, f.st = g, st
}

// moveReceiver runs receiver r's transition from each receiving location
// it may be at, inside the sender's step on path g, with msg handed over on
// channel c (machine.moveReceiver), and returns the exits, each with r's
// control location after it stored.
func (f *frame) moveReceiver(r, c int, msg []val, g *solver.Term) ([]edge, error) {
	b, u := f.b, f.u
	p := u.p
	th := p.Threads[r]
	tm := th.Template
	if f.mv != nil {
		loc := p.PortLocation(r)
		f.acc.write[loc] = append(f.acc.write[loc], g)
	}
	rn := run{u: u, i: f.stepIndex, s: f.pre, mv: f.mv, acc: f.acc, as: f.as, slot: f.slot}
	var out []edge
	for l, tr := range tm.Transitions {
		if !mayReceive(tr.EntryNode(), c) {
			continue // it does not wait for c there: g excludes the location
		}
		gl := b.And(g, u.is(f.get(u.pcKey(r)), uint64(l)))
		if gl.IsFalse() {
			continue
		}
		f.markWaiting(tr.EntryNode(), gl) // it stops waiting there
		exits, locs, err := rn.transition(th, tr, gl, f.st.clone(), &handoff{c: c, msg: msg})
		if err != nil {
			return nil, err
		}
		for k, e := range exits {
			if e.stuck {
				// Supported refuses these: ir undoes the receiver's
				// writes alone and lets the sender go on.
				return nil, &unsupportedStuck{tr: tr}
			}
			e.st = e.st.clone() // a branch's two edges share their store
			e.st[u.pcKey(r)] = locs[k]
			out = append(out, e)
		}
	}
	return out, nil
}

// mayReceive reports whether node n has a case waiting to receive on a
// declaration of which channel number c is one.
func mayReceive(n *ir.Node, c int) bool {
	for _, cs := range receivingCases(n) {
		if c >= cs.Chan.Offset && c < cs.Chan.Offset+cs.Chan.Count() {
			return true
		}
	}
	return false
}

// unsupportedStuck is the error of a receiving transition with an inner
// guard, which Supported refuses.
type unsupportedStuck struct{ tr *ir.Transition }

func (e *unsupportedStuck) Error() string {
	return "encode: " + e.tr.EntryNode().Pos.String() + ": a receive on a rendezvous in a transition with an inner guard"
}

// recvRendezvous is machine.recv on the rendezvous channel conds names:
// inside a sender's step, the handed-over message goes into the
// destinations and true into the OK flag (takeHandoff); by the receiver's
// own step, which enabledness allows on a closed channel only, zeros and
// false (recvClosed), writing the channel.
func (f *frame) recvRendezvous(n *ir.Node, conds []*solver.Term) {
	b, u := f.b, f.u
	ch := n.Chan
	var fields []val
	ok := b.False()
	if ho := f.ho; ho != nil {
		f.ho = nil
		fields, ok = ho.msg, b.True()
	} else {
		for j, at := range conds {
			if !at.IsFalse() {
				f.access(u.p.ChannelLocation(ch.Offset+j), true, at)
			}
		}
		for _, t := range ch.Fields {
			fields = append(fields, u.value(t, 0))
		}
	}
	for i, lv := range n.Dsts {
		f.store(lv, fields[i])
	}
	if n.OK != nil {
		f.store(n.OK, termVal(ok))
	}
}
