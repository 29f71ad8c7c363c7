package ir

import "fmt"

// Channel operations: a send, a recv, and a select, which performs one of
// several sends and receives that can proceed (OpSelect).
//
// A select reads the state of every channel its cases name (both ends, as
// len does) and performs one ready case; which one is a draw when several
// are ready, so a search tries each. What it accesses is therefore the
// chosen case's accesses (Program.channelAccesses) plus a read of both ends
// of every case's channel: a send or recv by another thread on any of them
// may change which cases are ready, and so conflicts with the select. The
// reads are on the ends, never on message slots, because a slot conflict
// orders events without being a race (OrderedOnly), while a select that did
// not take a message from a channel and a send into it may well happen the
// other way round.

// ready reports whether a send or recv node n can proceed in m's state, and
// the channel number it names. A channel index out of bounds counts as ready:
// the step then reports the violation. On a closed channel both are ready: a
// send to panic (Go's send on a closed channel panics rather than blocks), a
// recv to take a message left or zeros. A case's When is the caller's to
// check (considered).
func (m *machine) ready(n *Node) (bool, int) {
	c := m.chanIndex(n.Chan, n.CIndex)
	if m.failed {
		return true, 0
	}
	if m.handoff != nil {
		// A receiver moved by a sender takes the handed-over message, by
		// the case that receives on its channel and no other: a select's
		// send case taken instead would lose the message, and one on the
		// same rendezvous would hand it on and on.
		return n.Op == OpRecv && n.Chan.Rendezvous() && c == m.handoffChan, c
	}
	if m.p.ChannelClosed(m.s, c) {
		return true, c
	}
	if n.Chan.Rendezvous() {
		if n.Op == OpSend {
			return m.readyRendezvous(c), c
		}
		return false, c // moved by a sender only
	}
	l := m.p.ChannelQueue(m.s, c)[0]
	if n.Op == OpSend && n.Chan.Lossy {
		return true, c // a full lossy channel loses the message
	}
	return !(n.Op == OpSend && l == int64(n.Chan.Cap) || n.Op == OpRecv && l == 0), c
}

// considered reports whether select case cs is considered in m's state: its
// When condition holds (or it has none). A When that fails to evaluate counts
// as true, with m.failed set: the step reports the violation.
func (m *machine) considered(cs *Node) bool {
	if cs.When == nil {
		return true
	}
	v := m.eval(cs.When)
	return m.failed || v != 0
}

// waitsOnChannel says which channel a blocked send or recv waits for, "" when
// its index fails.
func (m *machine) waitsOnChannel(n *Node) string {
	c := m.chanIndex(n.Chan, n.CIndex)
	if m.failed {
		return ""
	}
	if n.Chan.Rendezvous() {
		return m.waitsForRendezvous(n, c)
	}
	name := m.p.LocationName(m.p.ChannelLocation(c))
	if n.Op == OpSend {
		return fmt.Sprintf("channel %s, which is full (%d messages)", name, n.Chan.Cap)
	}
	return fmt.Sprintf("channel %s, which is empty", name)
}

// send appends msg to channel c for the send node n. On a lossy channel the
// message is lost when the channel is full, and may be (a draw, 1: lost)
// when it is not.
func (m *machine) send(n *Node, c int, msg []int64) {
	if m.p.ChannelClosed(m.s, c) {
		// What the panic depends on, the closed flag, is what a close
		// writes: the channel's ends.
		send, _ := m.p.ChannelEnds(c)
		m.access(send, Write, 0)
		m.fail(Panic, n.Pos, "send on closed channel")
		return
	}
	if n.Chan.Rendezvous() {
		m.handOff(n, c, msg)
		return
	}
	q := m.p.ChannelQueue(m.s, c)
	f := len(n.Chan.Fields)
	m.ev.Channel, m.ev.ChannelOp = c, OpSend
	if n.Chan.Lossy {
		lost := q[0] == int64(n.Chan.Cap)
		if !lost && m.ch != nil {
			lost = m.ch.chooseChannel(0, 1) == 1
		}
		if lost {
			// Whether it could have been delivered is the receiving end's
			// state; the sends' order stays the sending end's.
			send, recv := m.p.ChannelEnds(c)
			m.access(send, Write, q[0])
			m.access(recv, Read, q[0])
			m.ev.Lost = true
			return
		}
	}
	if q[0] == int64(n.Chan.Cap) {
		m.blocked(n)
		return
	}
	m.channelAccess(OpSend, c)
	copy(q[1+int(q[0])*f:], msg)
	q[0]++
}

// recv takes the oldest message of channel c into the destinations of the
// recv node n, and 1 into its OK; on a closed channel without messages, zeros
// and 0 (recvClosed).
func (m *machine) recv(n *Node, c int) {
	p := m.p
	if n.Chan.Rendezvous() {
		switch {
		case m.takeHandoff(n, c):
			m.storeOK(n, 1)
		case p.ChannelClosed(m.s, c):
			m.recvClosed(n, c)
		default:
			m.blocked(n)
		}
		return
	}
	q := p.ChannelQueue(m.s, c)
	f := len(n.Chan.Fields)
	if q[0] == 0 {
		if p.ChannelClosed(m.s, c) {
			m.recvClosed(n, c)
			return
		}
		m.blocked(n)
		return
	}
	// Take the oldest message (on an unordered channel, any one: a draw),
	// then move the later ones forward and clear the freed slot, so that a
	// queue's cells depend on its contents alone.
	at := 0
	if n.Chan.Unordered && q[0] > 1 && m.ch != nil {
		at = int(m.ch.chooseChannel(0, q[0]-1))
	}
	m.channelAccess(OpRecv, c)
	m.ev.Channel, m.ev.ChannelOp = c, OpRecv
	m.ev.Message = append(m.ev.Message[:0], q[1+at*f:1+(at+1)*f]...)
	copy(q[1+at*f:], q[1+(at+1)*f:1+int(q[0])*f])
	clear(q[1+int(q[0]-1)*f : 1+int(q[0])*f])
	q[0]--
	m.s[p.HeadBase+c] = int64((p.ChannelHead(m.s, c) + 1) % n.Chan.Cap)
	for i, lv := range n.Dsts {
		m.store(lv, m.ev.Message[i])
		if m.failed {
			return
		}
	}
	m.storeOK(n, 1)
}

// recvClosed completes recv node n on closed channel c, which holds no
// message: zeros go into its destinations, 0 into its OK. It writes the
// receiving end (which a close writes), not a slot: message slots order a
// send before the receive of its message (OrderedLocation), and this receive
// takes none. On a rendezvous the thread leaves the receiving node by its own
// step, as a select's does (markWaiting).
func (m *machine) recvClosed(n *Node, c int) {
	_, recv := m.p.ChannelEnds(c)
	m.access(recv, Write, 0)
	if m.ev != nil {
		m.ev.Channel, m.ev.ChannelOp, m.ev.Closed = c, OpRecv, true
		m.ev.Message = m.ev.Message[:0]
		for range n.Chan.Fields {
			m.ev.Message = append(m.ev.Message, 0)
		}
	}
	for _, lv := range n.Dsts {
		m.store(lv, 0)
		if m.failed {
			return
		}
	}
	m.storeOK(n, 0)
}

// storeOK stores whether recv node n took a message into its OK, if it has one.
func (m *machine) storeOK(n *Node, ok int64) {
	if n.OK != nil && !m.failed {
		m.store(n.OK, ok)
	}
}

// closeChannel executes close node n on channel c: it sets the closed flag,
// writing both ends (so that it conflicts with every send and recv on the
// channel, whose steps it changes); closing a closed channel panics.
func (m *machine) closeChannel(n *Node, c int) {
	send, recv := m.p.ChannelEnds(c)
	if m.p.ChannelClosed(m.s, c) {
		m.access(send, Write, 1)
		m.access(recv, Write, 1)
		m.fail(Panic, n.Pos, "close of closed channel")
		return
	}
	m.set(m.p.closedCell(c), 1)
	m.access(send, Write, 1)
	m.access(recv, Write, 1)
	if m.ev != nil {
		m.ev.Channel, m.ev.ChannelOp = c, OpClose
	}
}

// selectCase executes a select: it evaluates every case's When and, for the
// cases considered, the channel (a failure is the step's violation), reads
// both ends of each, draws one of the ready cases (none drawn when one is
// ready) and performs it, then stores the case's index, or len(Cases) for the
// default, into LHS.
func (m *machine) selectCase(n *Node) {
	var readyBuf, chanBuf [8]int
	ready, chans := readyBuf[:0], chanBuf[:0] // the ready cases and their channels
	for i, cs := range n.Cases {
		if !m.considered(cs) {
			continue
		}
		if m.failed {
			return
		}
		ok, c := m.ready(cs)
		if m.failed {
			return
		}
		send, recv := m.p.ChannelEnds(c)
		l := m.p.ChannelQueue(m.s, c)[0]
		m.access(send, Read, l)
		m.access(recv, Read, l)
		if ok {
			ready, chans = append(ready, i), append(chans, c)
		}
	}
	k := 0
	switch {
	case len(ready) > 1 && m.ch != nil:
		k = int(m.ch.chooseChannel(0, int64(len(ready)-1)))
	case len(ready) == 0 && !n.Default:
		m.blocked(n)
		return
	}
	if !m.partner {
		m.markWaiting(n) // a select that waited to receive on a rendezvous stops
	}
	chosen := len(n.Cases) // the default
	if len(ready) > 0 {
		chosen = ready[k]
		if cs := n.Cases[chosen]; cs.Op == OpSend {
			m.send(cs, chans[k], m.message(cs.Args))
		} else {
			m.recv(cs, chans[k])
		}
		if m.failed {
			return
		}
	}
	if n.LHS != nil {
		m.store(n.LHS, int64(chosen))
	}
}

// selectAccesses records, as m's accesses, what the guard of a select n
// reads in m's state: every case's When, and for the cases considered both
// ends of the case's channel and the accesses of the step on it that would
// make the case ready (channelAccesses; for a send on a rendezvous, what
// deciding who waits to receive reads). A probe of an enabled select runs its
// step instead.
func (p *Program) selectAccesses(m *machine, n *Node) {
	for _, cs := range n.Cases {
		if !m.considered(cs) {
			continue
		}
		if m.failed {
			return
		}
		c := m.chanIndex(cs.Chan, cs.CIndex)
		if m.failed {
			return
		}
		send, recv := p.ChannelEnds(c)
		l := p.ChannelQueue(m.s, c)[0]
		m.ev.Accesses = append(m.ev.Accesses, Access{send, Read, l}, Access{recv, Read, l})
		m.ev.Accesses = p.channelAccesses(cs.Op, m.s, c, m.ev.Accesses)
		if cs.Op == OpSend && cs.Chan.Rendezvous() {
			var buf [4]receiver
			m.receivers(c, buf[:0])
		}
	}
}
