package encode

import (
	"fmt"

	"kbmc/ir"
	"kbmc/solver"
)

// Channels (ir/exec.go: OpSend, OpRecv, ELen). In the step encoding a channel
// is a ring buffer: its length, the slot of its oldest message (the head), and
// Cap message slots of its fields. A send writes the slot (head + length) mod
// Cap and the length; a receive reads the head's slot and writes the head and
// the length. ir keeps a queue shifted to the front with its free slots
// cleared, so that equal queues are equal states; the encoding compares no
// states. The two agree on everything the program can observe: which
// operations are enabled, the length, and each message received. The
// partial-order encoding numbers messages instead ("Numbered messages"
// below): its length and head cells are a sent and a received counter, and
// it uses no slot.
//
// Every cell of a channel is a store key of its own, after the locks and
// before the moving thread's frame (exec.go): the step encoding holds them in
// its states, the partial-order encoding reads and writes them like shared
// cells. The footprint, which the partial-order reductions compare, has one
// location per channel (ir.Program.ChannelLocation): a send or receive writes
// it, len reads it.

// Cells of a channel, relative to its first store key. A closable channel
// (ir.Channel.Closable) has one more, after its slots: its closed flag, a
// Boolean (closedCell).
const (
	chanLen  = 0
	chanHead = 1
	chanSlot = 2 // slot s, field f: chanSlot + s·len(Fields) + f
)

// closedCell is the cell of a closable channel's closed flag, relative to
// its first store key.
func closedCell(ch *ir.Channel) int { return chanSlot + ch.Cap*len(ch.Fields) }

// layoutChannels assigns the channels' store keys from key 0 on and returns
// the first key after them.
func (u *Unrolling) layoutChannels(k0 ir.StoreKey) ir.StoreKey {
	p := u.p
	u.chanKey0 = k0
	k := k0
	for c := 0; c < p.NumChannels; c++ {
		ch := p.ChannelOf(c)
		u.chanKey = append(u.chanKey, k)
		n := closedCell(ch)
		if ch.Closable {
			n++
		}
		for range n {
			u.keyChan = append(u.keyChan, c)
		}
		k += ir.StoreKey(n)
	}
	return k
}

// countWidth is the width of a channel's length and head, which hold 0..Cap;
// with messages numbered (numbered), of its counters, which hold 0..depth.
func (u *Unrolling) countWidth(ch *ir.Channel) int {
	if u.numbered {
		return u.countW
	}
	return widthFor(ch.Cap)
}

// chanCell returns the channel number and the cell (chanLen, chanHead, or a
// slot's chanSlot+…) of a channel store key.
func (u *Unrolling) chanCell(k ir.StoreKey) (c, cell int) {
	c = u.keyChan[k-u.chanKey0]
	return c, int(k - u.chanKey[c])
}

// isChanKey reports whether store key k is a channel cell.
func (u *Unrolling) isChanKey(k ir.StoreKey) bool { return k >= u.chanKey0 && k < u.keyLocal0 }

// chanZero is a channel cell's initial value: every channel starts empty
// and open.
func (u *Unrolling) chanZero(k ir.StoreKey) val {
	c, cell := u.chanCell(k)
	ch := u.p.ChannelOf(c)
	switch {
	case cell < chanSlot:
		return u.constVal(0, u.countWidth(ch))
	case cell == closedCell(ch):
		return termVal(u.b.False())
	}
	return u.value(ch.Fields[(cell-chanSlot)%len(ch.Fields)], 0)
}

// chanKeyName names a channel cell, for variable names.
func (u *Unrolling) chanKeyName(k ir.StoreKey) string {
	c, cell := u.chanCell(k)
	name := "chan:" + u.p.LocationName(u.p.ChannelLocation(c))
	switch {
	case cell == chanLen && u.numbered:
		return name + ".sent"
	case cell == chanHead && u.numbered:
		return name + ".received"
	case cell == chanLen:
		return name + ".len"
	case cell == chanHead:
		return name + ".head"
	case cell == closedCell(u.p.ChannelOf(c)):
		return name + ".closed"
	}
	f := len(u.p.ChannelOf(c).Fields)
	return fmt.Sprintf("%s.slot%d.%d", name, (cell-chanSlot)/f, (cell-chanSlot)%f)
}

// small maps a value known to be in [0, n) through fn, constant by constant:
// the result is a set of guarded constants of width w. Where the value is
// used, exactly one of the n cases holds.
func (u *Unrolling) small(v val, n int, fn func(int) int, w int) val {
	conds := make([]*solver.Term, n)
	vs := make([]val, n)
	for c := range n {
		conds[c] = u.is(v, uint64(c))
		vs[c] = u.constVal(uint64(fn(c)), w)
	}
	return u.choose(conds, vs)
}

// widen is a channel's length, held in countWidth bits, as a W-bit int. (A
// length is at most the capacity, which fits in W bits: ValueBits follows
// capacities.)
func (u *Unrolling) widen(v val) val {
	if v.set == nil {
		if v.w > u.w {
			return termVal(u.b.Extract(v.t, u.w-1, 0))
		}
		return termVal(u.b.ZeroExtend(v.t, u.w))
	}
	cs := make([]gconst, len(v.set))
	for j, a := range v.set {
		cs[j] = gconst{a.c & solver.Mask(u.w), a.g}
	}
	out, _ := u.collect(cs, u.w) // no more constants than v has
	return out
}

// chanLength is the number of messages in channel c, in countWidth bits: its
// length cell, or with numbered messages the messages sent less those
// received.
func (f *frame) chanLength(c int) val {
	k0 := f.u.chanKey[c]
	if !f.u.numbered {
		return f.get(k0 + chanLen)
	}
	return f.u.binary(f.get(k0+chanLen), f.get(k0+chanHead), f.b.Sub)
}

// chanCells is machine.chanIndex: for each channel of the declaration, the
// condition under which the operation names it, bounds-checked.
func (f *frame) chanCells(ch *ir.Channel, index *ir.Expr) []*solver.Term {
	if index == nil {
		return []*solver.Term{f.b.True()}
	}
	conds, oob := f.u.cells(f.eval(index), ch.Count())
	f.check(oob, ir.Bounds, index.Pos, fmt.Sprintf("index out of bounds for channel %s[%d]", ch.Name, ch.Len))
	return conds
}

// putKey writes x to a channel cell when at holds, recording the write of the
// cell for the partial-order encoding (the footprint's channel location is
// recorded by the operation).
func (f *frame) putKey(k ir.StoreKey, x val, at *solver.Term) {
	if at.IsFalse() {
		return
	}
	if at.IsTrue() {
		f.st[k] = x
	} else {
		f.st[k] = f.u.ite(at, x, f.get(k))
	}
	if f.mv != nil {
		if g := f.b.And(f.g, at); !g.IsFalse() {
			i := k - f.u.chanKey0
			if f.mv.logging {
				f.mv.pending = append(f.mv.pending, pendingWrite{key: int(i), g: g})
			} else {
				f.acc.keyWrite[i] = append(f.acc.keyWrite[i], g)
			}
		}
	}
}

// send is machine.exec's OpSend: the index, then the rest (sendOn).
func (f *frame) send(n *ir.Node) {
	f.sendOn(n, f.chanCells(n.Chan, n.CIndex))
}

// sendOn is machine.send on the channel conds names: the fields left to
// right, then on a lossy channel the loss (lose), then the message goes into
// the slot after the last one. Enabledness guarantees that a channel that
// is not lossy is not full.
func (f *frame) sendOn(n *ir.Node, conds []*solver.Term) {
	b, u := f.b, f.u
	ch := n.Chan
	nf := len(ch.Fields)
	msg := make([]val, len(n.Args))
	for i, a := range n.Args {
		msg[i] = f.conv(ch.Fields[i], f.eval(a))
	}
	if ch.Closable {
		// Go's send on a closed channel panics (machine.send), before a
		// lossy channel draws; it writes the channel, as a close does.
		var closed []*solver.Term
		for j, at := range conds {
			if at.IsFalse() {
				continue
			}
			c := ch.Offset + j
			at = b.And(at, f.closed(c))
			f.access(u.p.ChannelLocation(c), true, at)
			closed = append(closed, at)
		}
		f.check(b.Or(closed...), ir.Panic, n.Pos, "send on closed channel")
	}
	if ch.Rendezvous() {
		f.handOff(n, conds, msg)
		return
	}
	lost := f.lose(ch, conds)
	if u.numbered {
		f.sendNumbered(ch, conds, msg, lost)
		return
	}
	w := u.countWidth(ch)
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		c := ch.Offset + j
		// A lost message writes nothing, but the send still touches the
		// channel: whether it was lost depends on the channel's length.
		f.access(u.p.ChannelLocation(c), true, at)
		at = b.And(at, b.Not(lost))
		k0 := u.chanKey[c]
		ln, hd := f.get(k0+chanLen), f.get(k0+chanHead)
		for s := 0; s < ch.Cap; s++ {
			// (head + length) mod Cap = s, the length below Cap.
			var or []*solver.Term
			for h := 0; h < ch.Cap; h++ {
				or = append(or, b.And(u.is(hd, uint64(h)), u.is(ln, uint64((s-h+ch.Cap)%ch.Cap))))
			}
			slot := b.And(at, b.Or(or...))
			for i := range nf {
				f.putKey(k0+ir.StoreKey(chanSlot+s*nf+i), msg[i], slot)
			}
		}
		f.putKey(k0+chanLen, u.small(ln, ch.Cap, func(l int) int { return l + 1 }, w), at)
	}
}

// lose is the loss of machine.send on a lossy channel (false on any other):
// the message is lost when the channel conds names is full, and otherwise
// when the channel draw (ir.Choice.Channel) of 0..1 says 1.
func (f *frame) lose(ch *ir.Channel, conds []*solver.Term) *solver.Term {
	b, u := f.b, f.u
	if !ch.Lossy {
		return b.False()
	}
	var full []*solver.Term
	for j, at := range conds {
		if !at.IsFalse() {
			full = append(full, b.And(at, u.is(f.chanLength(ch.Offset+j), uint64(ch.Cap))))
		}
	}
	isFull := b.Or(full...)
	d := f.channelDraw(2, b.Not(isFull), nil)
	return b.Or(isFull, u.is(d, 1))
}

// recv is machine.exec's OpRecv: the index, then the rest (recvOn).
func (f *frame) recv(n *ir.Node) {
	f.recvOn(n, f.chanCells(n.Chan, n.CIndex))
}

// recvOn is machine.recv on the channel conds names: the oldest message (on
// an unordered channel, the one a draw names) leaves the channel, then its
// fields are stored left to right, then true into the OK flag. Enabledness
// guarantees that the channel is not empty, or closed: a closed channel
// without messages leaves as it is, and zeros go into the destinations and
// false into the OK flag (machine.recvClosed).
//
// ir moves the messages after the one taken forward; the ring buffer moves
// those before it back by one slot instead and advances the head: the
// messages left are in the same order either way, which is all the program
// can observe.
func (f *frame) recvOn(n *ir.Node, conds []*solver.Term) {
	b, u := f.b, f.u
	ch := n.Chan
	if ch.Rendezvous() {
		f.recvRendezvous(n, conds)
		return
	}
	nf := len(ch.Fields)
	w := u.countWidth(ch)
	var which []*solver.Term // the channel taken from, or found closed and drained
	var took []*solver.Term  // a message was taken
	fields := make([][]val, nf)
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		if ch.Closable && !u.numbered { // the partial-order encoding refuses close
			c := ch.Offset + j
			drained := b.And(at, f.closed(c), u.is(f.chanLength(c), 0))
			if !drained.IsFalse() {
				for i := range fields {
					fields[i] = append(fields[i], u.value(ch.Fields[i], 0))
				}
				which = append(which, drained)
				f.access(u.p.ChannelLocation(c), true, drained)
			}
			at = b.And(at, b.Not(drained))
		}
		took = append(took, at)
		if u.numbered {
			for i, v := range f.recvNumbered(ch, ch.Offset+j, at) {
				fields[i] = append(fields[i], v)
			}
			which = append(which, at)
			continue
		}
		c := ch.Offset + j
		k0 := u.chanKey[c]
		ln, hd := f.get(k0+chanLen), f.get(k0+chanHead)
		pick := f.position(ch, ln, at)
		// take[s]: the message taken is in slot s, (head + position) mod Cap;
		// shift[s]: slot s takes the message of the slot before it, being
		// after the head and at most the position taken.
		take := make([]*solver.Term, ch.Cap)
		shift := make([]*solver.Term, ch.Cap)
		for s := range take {
			take[s], shift[s] = b.False(), b.False()
		}
		for h := 0; h < ch.Cap; h++ {
			atH := u.is(hd, uint64(h))
			for a, pa := range pick {
				g := b.And(atH, pa)
				take[(h+a)%ch.Cap] = b.Or(take[(h+a)%ch.Cap], g)
				for q := 1; q <= a; q++ {
					shift[(h+q)%ch.Cap] = b.Or(shift[(h+q)%ch.Cap], g)
				}
			}
		}
		old := make([]val, ch.Cap*nf)
		for s := range ch.Cap {
			for i := range nf {
				if !take[s].IsFalse() || !shift[(s+1)%ch.Cap].IsFalse() {
					old[s*nf+i] = f.get(k0 + ir.StoreKey(chanSlot+s*nf+i))
				} else {
					old[s*nf+i] = u.value(ch.Fields[i], 0) // a slot nothing reads
				}
			}
		}
		for i := range nf {
			vs := make([]val, ch.Cap)
			for s := range vs {
				vs[s] = old[s*nf+i]
			}
			fields[i] = append(fields[i], u.choose(take, vs))
		}
		for s := range ch.Cap {
			from := (s - 1 + ch.Cap) % ch.Cap
			for i := range nf {
				f.putKey(k0+ir.StoreKey(chanSlot+s*nf+i), old[from*nf+i], b.And(at, shift[s]))
			}
		}
		which = append(which, at)
		f.putKey(k0+chanHead, u.small(hd, ch.Cap, func(h int) int { return (h + 1) % ch.Cap }, w), at)
		f.putKey(k0+chanLen, u.small(ln, ch.Cap+1, func(l int) int { return max(l-1, 0) }, w), at)
		f.access(u.p.ChannelLocation(c), true, at)
	}
	if len(which) == 0 {
		return // every index is out of bounds
	}
	for i, lv := range n.Dsts {
		f.store(lv, u.choose(which, fields[i]))
	}
	if n.OK != nil {
		f.store(n.OK, termVal(b.Or(took...)))
	}
}

// closed is the condition that channel c is closed: its closed flag, false
// on a channel no close names.
func (f *frame) closed(c int) *solver.Term {
	ch := f.u.p.ChannelOf(c)
	if !ch.Closable {
		return f.b.False()
	}
	return f.u.toBool(f.get(f.u.chanKey[c] + ir.StoreKey(closedCell(ch))))
}

// closeChan is machine.exec's OpClose: the index, then the closed flag is
// set; closing a closed channel panics. Either way it writes the channel
// (machine.closeChannel writes both of its ends).
func (f *frame) closeChan(n *ir.Node) {
	b, u := f.b, f.u
	ch := n.Chan
	conds := f.chanCells(ch, n.CIndex)
	var again []*solver.Term
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		c := ch.Offset + j
		f.access(u.p.ChannelLocation(c), true, at)
		again = append(again, b.And(at, f.closed(c)))
	}
	f.check(b.Or(again...), ir.Panic, n.Pos, "close of closed channel")
	for j, at := range conds {
		if !at.IsFalse() {
			f.putKey(u.chanKey[ch.Offset+j]+ir.StoreKey(closedCell(ch)), termVal(b.True()), at)
		}
	}
}

// position is which message a receive from a channel of length ln takes,
// when the index names the channel under at: per position from the oldest
// message, the condition that it is the one. It is the oldest, except on an
// unordered channel holding more than one message, where a channel draw
// (ir.Choice.Channel) of 0..ln−1 names it.
func (f *frame) position(ch *ir.Channel, ln val, at *solver.Term) []*solver.Term {
	b, u := f.b, f.u
	if !ch.Unordered || ch.Cap < 2 {
		return []*solver.Term{b.True()}
	}
	multi := b.Not(b.Or(u.is(ln, 0), u.is(ln, 1)))
	d := f.channelDraw(ch.Cap, b.And(at, multi), func(v int) *solver.Term {
		var longer []*solver.Term // v < ln
		for l := v + 1; l <= ch.Cap; l++ {
			longer = append(longer, u.is(ln, uint64(l)))
		}
		return b.Or(longer...)
	})
	pick := make([]*solver.Term, ch.Cap)
	for a := range pick {
		pick[a] = b.And(multi, u.is(d, uint64(a)))
	}
	pick[0] = b.Or(b.Not(multi), pick[0])
	return pick
}

// channelDraw is a channel operation's draw (ir.Choice.Channel): the step's
// next draw slot, a value in 0..n−1 drawn when when holds on the path, one
// Boolean per value, exactly one of which holds then. allowed(v), when not
// nil, limits the values to those ir's range in the state holds: ir draws
// from 0 to a bound that depends on the state (the ready cases, the length).
func (f *frame) channelDraw(n int, when *solver.Term, allowed func(v int) *solver.Term) val {
	b, u := f.b, f.u
	g := b.And(f.g, when)
	slot := *f.slot
	*f.slot++
	// One bit more than 0..n−1 needs, so that the value read back as a
	// signed number is not negative.
	v := val{w: widthFor(n-1) + 1}
	var ok []*solver.Term
	for c := range n {
		ind := b.BoolVar(fmt.Sprintf("#chd@%d.%d=%d", f.stepIndex, slot, c))
		v.set = append(v.set, gconst{uint64(c), ind})
		if allowed != nil {
			ind = b.And(ind, allowed(c))
		}
		ok = append(ok, ind)
	}
	u.vars += n
	*f.as = append(*f.as, b.Implies(g, b.Or(ok...)))
	for j := range v.set {
		for k := j + 1; k < len(v.set); k++ {
			*f.as = append(*f.as, b.Not(b.And(v.set[j].g, v.set[k].g)))
		}
	}
	f.mv.draws = append(f.mv.draws, draw{guard: g, value: u.term(v), w: v.w})
	return v
}

// length is machine.eval's ELen: the number of messages in the channel,
// reading its location.
func (f *frame) length(e *ir.Expr) val {
	u := f.u
	ch := e.Chan
	conds := f.chanCells(ch, e.X)
	vs := make([]val, len(conds))
	for j, at := range conds {
		if at.IsFalse() {
			vs[j] = f.int(0) // a channel the index cannot name: not read
			continue
		}
		c := ch.Offset + j
		f.access(u.p.ChannelLocation(c), false, at)
		vs[j] = u.widen(f.chanLength(c))
	}
	return u.choose(conds, vs)
}

// chanGuard is Program.Status for send and recv: enabled while the channel
// the index names is ready (readyOn), or when the index fails.
func (f *frame) chanGuard(n *ir.Node) *solver.Term {
	b := f.b
	conds := f.chanCells(n.Chan, n.CIndex)
	return b.Or(f.readyOn(n, conds, f.pre.received), b.Or(f.guardFail...))
}

// readyOn is machine.ready for the channel conds names: a send can proceed
// while the channel is not full, and always on a lossy channel (the message
// is lost when it is full); a recv while it is not empty. With matched set,
// a recv of a numbered channel is taken only with the message it is matched
// with, sent before it, so it is ready without reading the channel
// (channel.go); a select, which needs to know which of its cases are ready,
// reads the lengths.
func (f *frame) readyOn(n *ir.Node, conds []*solver.Term, matched bool) *solver.Term {
	b, u := f.b, f.u
	ch := n.Chan
	var ok []*solver.Term
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		c := ch.Offset + j
		switch {
		case f.ho != nil:
			// A receiver moved by a sender takes the message by the case
			// that receives on its channel and no other (ir's
			// machine.ready).
			if n.Op == ir.OpRecv && ch.Rendezvous() && c == f.ho.c {
				ok = append(ok, at)
			}
			continue
		case ch.Rendezvous():
			// Closed: a send panics, a receive takes zeros. Else a send
			// waits for a receiver; a receive for a sender to move it.
			ready := f.closed(c)
			if n.Op == ir.OpSend {
				sub := *f
				sub.g = b.And(f.g, at)
				ready = b.Or(ready, b.Or(sub.receivers(c)...))
			}
			ok = append(ok, b.And(at, ready))
			continue
		}
		if n.Op == ir.OpRecv && matched || n.Op == ir.OpSend && ch.Lossy {
			ok = append(ok, at)
			continue
		}
		ln := f.chanLength(ch.Offset + j)
		blocked := u.is(ln, 0)
		if n.Op == ir.OpSend {
			blocked = u.is(ln, uint64(ch.Cap))
		}
		// On a closed channel both are ready: a send to panic, a recv to
		// take a message left or zeros.
		blocked = b.And(blocked, b.Not(f.closed(ch.Offset+j)))
		ok = append(ok, b.And(at, b.Not(blocked)))
	}
	return b.Or(ok...)
}

// Numbered messages: the partial-order encoding's channels (Unrolling.numbered).
//
// A ring buffer makes every send a possible writer of every slot and every
// receive a reader of every slot, and the read-from relation of a key costs
// its reads times its writes squared (the from-read clauses): on protocols,
// where one thread sends to a channel from many unrolled steps, the slots
// were most of the formula, and showing that a message is received at most
// once took the solver an argument about heads and lengths. Instead a
// channel is two counters: sent (the len cell's key) and received (the head
// cell's key), each written only by its side. A send numbers its message
// with the sent counter it reads and increments it; a receive takes the
// message numbered with the received counter it reads and increments that.
// The partial-order encoding then matches each receive with a send of the
// same number on the same channel that happens before it (PartialOrder:
// msgOp, match): the receive's fields equal the send's. A receive that has
// its match is enabled — the send numbered with the received counter came
// before it, so the channel was not empty — and an event's receive is
// enabled by its match alone (state.received), without reading the sent
// counter; the final state's status, which no match covers, reads both. The messages in the
// channel are the ones numbered received..sent−1, in order — ir's queue —
// so the length is sent − received, a send is enabled while it is below the
// capacity and a receive while it is not zero, and the message received is
// the oldest. Under sequential consistency the counters' values along the
// order of one side's events are 0, 1, 2, …, so one send has each number and
// the match is unique: nothing else is needed (docs/symbolic.md).

// A msgOp is a send or a receive of one channel in one transition of an
// event, for the partial-order encoding to match.
type msgOp struct {
	send   bool
	c      int          // the channel number
	guard  *solver.Term // the operation happens on this channel
	n      val          // its message's number
	fields []val        // the message: sent, or received (fresh variables)
	// Set by the partial-order encoding: the event, and for a receive one
	// selector per send it may match.
	ev    *event
	cands []*solver.Term
}

// bump is a counter plus one.
func (u *Unrolling) bump(v val) val {
	return u.binary(v, u.constVal(1, v.w), u.b.Add)
}

// sendNumbered is send's numbered form: for each channel the index may
// name, the message (unless it is lost) gets the sent counter's value as its
// number and the counter grows by one.
func (f *frame) sendNumbered(ch *ir.Channel, conds []*solver.Term, msg []val, lost *solver.Term) {
	u, b := f.u, f.b
	for j, at := range conds {
		if at.IsFalse() {
			continue
		}
		c := ch.Offset + j
		f.access(u.p.ChannelLocation(c), true, at)
		at = b.And(at, b.Not(lost)) // a lost message is not numbered
		k := u.chanKey[c] + chanLen
		n := f.get(k)
		f.putKey(k, u.bump(n), at)
		f.message(&msgOp{send: true, c: c, n: n, fields: msg}, at)
	}
}

// recvNumbered is recv's numbered form for channel c, which the index names
// when at holds: the message numbered with the received counter's value,
// whose fields are fresh variables the partial-order encoding equates with
// its send's; the counter grows by one.
func (f *frame) recvNumbered(ch *ir.Channel, c int, at *solver.Term) []val {
	u, b := f.u, f.b
	k := u.chanKey[c] + chanHead
	n := f.get(k)
	fields := make([]val, len(ch.Fields))
	for i, t := range ch.Fields {
		name := fmt.Sprintf("#msg@%d.%d.%d", f.stepIndex, u.vars, i)
		u.vars++
		if z := u.value(t, 0); z.set == nil {
			fields[i] = termVal(b.BoolVar(name)) // a Bool field
		} else {
			fields[i] = termVal(b.BVVar(name, z.w))
		}
	}
	f.putKey(k, u.bump(n), at)
	f.message(&msgOp{c: c, n: n, fields: fields}, at)
	f.access(u.p.ChannelLocation(c), true, at)
	return fields
}

// message records a send or receive that happens when at holds on the
// path; in a transition with an inner guard, only where the step does not
// get stuck (exec), as its writes.
func (f *frame) message(op *msgOp, at *solver.Term) {
	if f.mv == nil {
		return
	}
	op.guard = f.b.And(f.g, at)
	if op.guard.IsFalse() {
		return
	}
	f.mv.msgs = append(f.mv.msgs, op)
}
