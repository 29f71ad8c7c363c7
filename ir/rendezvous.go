package ir

import (
	"fmt"
	"slices"
)

// Rendezvous channels (capacity 0): a send and the receive it meets are one
// step, as in SPIN's rendezvous and Go's unbuffered channels.
//
// The step belongs to the sender. It is enabled when some other thread waits
// to receive on the channel: its next transition starts at a recv on it, or
// at a select without default with a case that receives on it. The step draws
// one of the waiting receivers (a Choice, like a select's draw), runs the
// receiver's whole transition with the message handed over, then goes on with
// its own. A receiving transition is never enabled by itself: a thread waiting
// at a plain recv is Blocked until a sender moves it — unless the channel is
// closed (select.go): then it receives zeros by a step of its own, which
// writes the receiving end the close wrote, and no sender is involved. Which thread does the
// work is a convention; starting the step from the receiver as well would give
// two events with one effect.
//
// What the step accesses, so that every reduction sees the dependencies:
//
//   - the sending end of the channel (written: two sends compete for the
//     receivers);
//   - the receiving end of every channel the receiver was waiting on, and its
//     port (PortLocation), written: the receiver stops waiting there, which
//     disables other senders, and it moves;
//   - whatever the receiver's transition accesses.
//
// A thread that arrives at a receiving transition writes the receiving ends it
// now waits on (arrive): that enables senders. Every step of a thread that can
// receive on a rendezvous channel reads its port, so that its steps after a
// handoff are ordered after the sender's step that moved it (happens-before
// through a conflict, which every algorithm already follows). The static
// footprint of a sending transition includes the receiving transitions it may
// run (Transition.Handoffs).

// PortLocation is the location of thread t's port: written by a send on a
// rendezvous channel that hands t a message (which moves t), read by every
// step of t when its template can receive on one.
func (p *Program) PortLocation(t int) int { return p.ThreadLocation(len(p.Threads)) + t }

// receivingCases returns the cases of node n that receive on a rendezvous
// channel and wait for a sender: n itself for a recv, the recv cases of a
// select without default. nil when there are none.
func receivingCases(n *Node, buf []*Node) []*Node {
	switch {
	case n.Op == OpRecv && n.Chan.Rendezvous():
		return append(buf, n)
	case n.Op == OpSelect && !n.Default:
		for _, c := range n.Cases {
			if c.Op == OpRecv && c.Chan.Rendezvous() {
				buf = append(buf, c)
			}
		}
	}
	return buf
}

// receiving returns the node thread r waits at to receive on a rendezvous
// channel in s, or nil when it does not wait so (it is elsewhere, not yet
// started, or a sender already moved it).
func (p *Program) receiving(s State, r int) *Node {
	th := p.Threads[r]
	tm := th.Template
	if !tm.Receives {
		return nil
	}
	l := int(s[th.Base])
	if l >= len(tm.Transitions) || !tm.Transitions[l].Receives {
		return nil
	}
	if tm.Start != nil && l == tm.loc[tm.Entry] && s[tm.Start.Offset+StartFlag] == 0 {
		return nil // Dormant
	}
	return tm.Transitions[l].EntryNode()
}

// receiver is a thread waiting to receive on a channel, and the case of its
// select it would take (-1: a plain recv).
type receiver struct{ thread, cas int }

// receivers appends the threads other than m's that wait to receive on
// channel number c in m's state (a select's case only while its When holds).
// Evaluating a receiver's When and channel index reads what they read,
// recorded as m's accesses.
func (m *machine) receivers(c int, buf []receiver) []receiver {
	p := m.p
	var casesBuf [4]*Node
	for r := range p.Threads {
		if r == m.th.ID {
			continue
		}
		n := p.receiving(m.s, r)
		if n == nil {
			continue
		}
		rm := p.newMachine(m.s, r, nil, m.ev)
		for _, cs := range receivingCases(n, casesBuf[:0]) {
			if cs.When != nil && (rm.eval(cs.When) == 0 || rm.failed) {
				rm.failed = false // a case whose When fails is not waiting
				continue
			}
			if rm.chanIndex(cs.Chan, cs.CIndex) == c && !rm.failed {
				k := -1
				if n.Op == OpSelect {
					k = caseIndex(n, cs)
				}
				buf = append(buf, receiver{r, k})
				break
			}
		}
	}
	return buf
}

func caseIndex(n *Node, cs *Node) int {
	for i, c := range n.Cases {
		if c == cs {
			return i
		}
	}
	return -1
}

// readyRendezvous reports whether a send on rendezvous channel c can proceed
// in m's state: some other thread waits to receive on it.
func (m *machine) readyRendezvous(c int) bool {
	var buf [4]receiver
	return len(m.receivers(c, buf[:0])) > 0
}

// handOff performs a send node n's step on rendezvous channel c: it draws one
// of the waiting receivers and runs its transition with msg handed over.
func (m *machine) handOff(n *Node, c int, msg []int64) {
	var buf [8]receiver
	rs := m.receivers(c, buf[:0])
	if len(rs) == 0 {
		m.blocked(n)
		return
	}
	k := 0
	if len(rs) > 1 && m.ch != nil {
		k = int(m.ch.chooseChannel(0, int64(len(rs)-1)))
	}
	r := rs[k].thread
	send, _ := m.p.ChannelEnds(c)
	m.access(send, Write, 0)
	if m.ev != nil {
		m.ev.Channel, m.ev.ChannelOp = c, OpSend
		m.ev.Message = append(m.ev.Message[:0], msg...)
	}
	m.moveReceiver(r, c, msg)
}

// moveReceiver runs receiver r's transition inside m's step, with msg handed
// over on channel number c.
func (m *machine) moveReceiver(r, c int, msg []int64) {
	p := m.p
	th := p.Threads[r]
	from := int(m.s[th.Base])
	rm := p.newMachine(m.s, r, m.ch, m.ev)
	rm.partner, rm.handoff, rm.handoffChan = true, msg, c
	rm.logging = m.logging
	rm.markWaiting(p.Threads[r].Template.Transitions[from].EntryNode())
	m.access(p.PortLocation(r), Write, 0)
	if m.logging {
		m.undo = append(m.undo, undoEntry{th.Base, m.s[th.Base]})
	}
	to := rm.run(from)
	if m.ev != nil {
		m.ev.Partner, m.ev.PartnerFrom, m.ev.PartnerTo = r, from, to
	}
	if rm.failed {
		m.failed, m.viol = true, rm.viol
		if m.ev != nil {
			m.ev.Violation = nil // Step's loop reports m's
		}
		return
	}
	if m.logging {
		m.undo = append(m.undo, rm.undo...)
	}
}

// markWaiting records that m's thread arrives at, or leaves, receiving node
// n (by a handoff, or by its select's own step): it writes the receiving ends
// of the rendezvous channels it waits on there, which senders read.
func (m *machine) markWaiting(n *Node) {
	var buf [4]*Node
	for _, cs := range receivingCases(n, buf[:0]) {
		c := m.chanIndex(cs.Chan, cs.CIndex)
		if m.failed {
			m.failed = false // the index fails when the case is performed, if ever
			continue
		}
		_, recv := m.p.ChannelEnds(c)
		m.access(recv, Write, 0)
	}
}

// takeHandoff completes a recv, or a select's case, on rendezvous channel c
// inside the sender's step: it stores the handed-over message. It reports
// whether m holds a handoff for c.
func (m *machine) takeHandoff(n *Node, c int) bool {
	if m.handoff == nil || c != m.handoffChan {
		return false
	}
	if m.ev != nil {
		m.ev.Channel, m.ev.ChannelOp = c, OpSend
	}
	msg := m.handoff
	m.handoff = nil
	for i, lv := range n.Dsts {
		m.store(lv, msg[i])
		if m.failed {
			break
		}
	}
	return true
}

// waitsForRendezvous describes what a blocked operation on rendezvous
// channel c waits for.
func (m *machine) waitsForRendezvous(n *Node, c int) string {
	name := m.p.LocationName(m.p.ChannelLocation(c))
	if n.Op == OpSend {
		return fmt.Sprintf("a receiver on channel %s (a rendezvous)", name)
	}
	return fmt.Sprintf("a sender on channel %s (a rendezvous)", name)
}

// linkRendezvous fills in, after every template is cut, what rendezvous
// channels add to the transitions: Receives, Handoffs, and the channels of a
// transition that may end where its thread waits to receive (its step writes
// their receiving ends, markWaiting), in Chans.
func (p *Program) linkRendezvous() {
	var buf []*Node
	receivers := map[*Channel][]*Transition{}
	for _, t := range p.Templates {
		t.Receives = false
		for _, tr := range t.Transitions {
			cases := receivingCases(tr.EntryNode(), buf[:0])
			tr.Receives = len(cases) > 0
			t.Receives = t.Receives || tr.Receives
			for _, c := range cases {
				if !slices.Contains(receivers[c.Chan], tr) {
					receivers[c.Chan] = append(receivers[c.Chan], tr)
				}
			}
		}
	}
	if len(receivers) == 0 {
		for _, t := range p.Templates {
			for _, tr := range t.Transitions {
				tr.Handoffs = nil
			}
		}
		return
	}
	for _, t := range p.Templates {
		for _, tr := range t.Transitions {
			tr.Handoffs = tr.Handoffs[:0]
			for _, i := range tr.Nodes {
				n := t.Nodes[i]
				sends := []*Node{n}
				if n.Op == OpSelect {
					sends = n.Cases
				}
				for _, s := range sends {
					if s.Op != OpSend || !s.Chan.Rendezvous() {
						continue
					}
					for _, h := range receivers[s.Chan] {
						if !slices.Contains(tr.Handoffs, h) {
							tr.Handoffs = append(tr.Handoffs, h)
						}
					}
				}
			}
			added := false
			for _, l := range tr.Succ {
				if l >= len(t.Transitions) || !t.Transitions[l].Receives {
					continue
				}
				for _, c := range receivingCases(t.Transitions[l].EntryNode(), buf[:0]) {
					if !slices.Contains(tr.Chans, c.Chan) {
						tr.Chans = append(tr.Chans, c.Chan)
						added = true
					}
				}
			}
			if added {
				slices.SortFunc(tr.Chans, func(a, b *Channel) int { return a.Offset - b.Offset })
			}
		}
	}
}

// RendezvousChoice returns a select of the program, if any, that waits to
// receive on a rendezvous channel and has a case that can be ready without a
// sender (a send, a receive from a buffered or closable channel): a sender's
// handoff and the select's own step are then two ways out of one state, and
// the handoff consumes the step the receiver had.
func (p *Program) RendezvousChoice() *Node {
	var buf [4]*Node
	for _, t := range p.Templates {
		for _, n := range t.Nodes {
			if n.Op != OpSelect || n.Default || len(receivingCases(n, buf[:0])) == 0 {
				continue
			}
			for _, c := range n.Cases {
				if c.Op != OpRecv || !c.Chan.Rendezvous() || c.Chan.Closable {
					return n
				}
			}
		}
	}
	return nil
}
