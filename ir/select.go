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
// the step then reports the violation.
func (m *machine) ready(n *Node) (bool, int) {
	c := m.chanIndex(n.Chan, n.CIndex)
	if m.failed {
		return true, 0
	}
	if n.Chan.Rendezvous() {
		if n.Op == OpSend {
			return m.readyRendezvous(c), c
		}
		return m.handoff != nil && c == m.handoffChan, c // moved by a sender only
	}
	if m.handoff != nil {
		return false, c // a receiver moved by a sender takes the handed-over message
	}
	l := m.p.ChannelQueue(m.s, c)[0]
	if n.Op == OpSend && n.Chan.Lossy {
		return true, c // a full lossy channel loses the message
	}
	return !(n.Op == OpSend && l == int64(n.Chan.Cap) || n.Op == OpRecv && l == 0), c
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
// recv node n.
func (m *machine) recv(n *Node, c int) {
	p := m.p
	if n.Chan.Rendezvous() {
		if !m.takeHandoff(n, c) {
			m.blocked(n)
		}
		return
	}
	q := p.ChannelQueue(m.s, c)
	f := len(n.Chan.Fields)
	if q[0] == 0 {
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
			break
		}
	}
}

// selectCase executes a select: it evaluates every case's channel (a bounds
// failure is the step's violation), reads both ends of each, draws one of the
// ready cases (none drawn when one is ready) and performs it, then stores the
// case's index, or len(Cases) for the default, into LHS.
func (m *machine) selectCase(n *Node) {
	var readyBuf, chanBuf [8]int
	ready, chans := readyBuf[:0], chanBuf[:0] // the ready cases and their channels
	for i, cs := range n.Cases {
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

// selectAccesses appends what the guard of a select n of thread t's machine m
// reads in state s: both ends of every case's channel, and the accesses of the
// step on each case's channel that would make the case ready
// (channelAccesses). A probe of an enabled select runs its step instead.
func (p *Program) selectAccesses(m *machine, n *Node, s State, buf []Access) []Access {
	for _, cs := range n.Cases {
		c := m.chanIndex(cs.Chan, cs.CIndex)
		if m.failed {
			return buf
		}
		send, recv := p.ChannelEnds(c)
		l := p.ChannelQueue(s, c)[0]
		buf = append(buf, Access{send, Read, l}, Access{recv, Read, l})
		buf = p.channelAccesses(cs.Op, s, c, buf)
	}
	return buf
}
