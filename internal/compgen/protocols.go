package compgen

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"kbmc/detect"
)

// Database simulates Stoller §6's database partitioning example with n processes
// db[0] … db[n-1] until one has executed s-1 events (so that no process has more
// than s local states). db[0] assigns tasks by the current partition; db[1] …
// db[n-1] hold the database and, after a random delay, propose a new partition:
// set chg, multicast the proposal with the next version number, and clear chg
// when every other process has acknowledged it. A recipient accepts a proposal
// whose version is newer than its own, or as new and proposed by a lower-numbered
// process, and acknowledges it either way. partn encodes a partition as
// version·n + proposer.
func Database(rng *rand.Rand, n, s int) *detect.Computation {
	sm := newSim(rng, fmt.Sprintf("database n=%d s=%d", n, s), indexed("db", n), s-1)
	ver := make([]int, n)  // version of the partition each process holds
	prop := make([]int, n) // and who proposed it
	acks := make([]int, n) // acknowledgements a proposer still waits for
	for i := range n {
		sm.b.Set(i, "partn", intv(0), detect.Pos{})
		sm.b.Set(i, "chg", boolv(false), detect.Pos{})
	}
	var propose func(i int)
	var onProposal func(j, v, from int, clock []int64)
	onAck := func(i int, clock []int64) {
		acks[i]--
		if acks[i] > 0 {
			sm.event(i, detect.Recv, "recv ack", clock)
			return
		}
		if sm.event(i, detect.Recv, "recv last ack", clock, set{"chg", boolv(false)}) {
			sm.after(sm.delay(), func() { propose(i) })
		}
	}
	onProposal = func(j, v, from int, clock []int64) {
		text := fmt.Sprintf("recv proposal v%d from db[%d]", v, from)
		var sets []set
		if ver[j] < v || ver[j] == v && prop[j] > from {
			ver[j], prop[j] = v, from
			sets = append(sets, set{"partn", intv(v*n + from)})
		}
		if sm.event(j, detect.Recv, text, clock, sets...) {
			sm.send(j, []int{from}, fmt.Sprintf("ack v%d to db[%d]", v, from), func(_ int, c []int64) { onAck(from, c) })
		}
	}
	propose = func(i int) {
		v := ver[i] + 1
		ver[i], prop[i] = v, i
		acks[i] = n - 1
		sm.send(i, others(n, i), fmt.Sprintf("propose v%d", v),
			func(j int, c []int64) { onProposal(j, v, i, c) },
			set{"chg", boolv(true)}, set{"partn", intv(v*n + i)})
	}
	for i := 1; i < n; i++ {
		sm.after(sm.delay(), func() { propose(i) })
	}
	return sm.run()
}

// NotIdb is ¬I_db (Stoller (8)) written as a conjunction, as §6 does:
// (⋀_{i≥1} ¬chg_i) ∧ ⋁_{i<j} partn_i ≠ partn_j.
func NotIdb(n int) string {
	var parts, diff []string
	for i := 1; i < n; i++ {
		parts = append(parts, fmt.Sprintf("!db[%d].chg", i))
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			diff = append(diff, fmt.Sprintf("db[%d].partn != db[%d].partn", i, j))
		}
	}
	return strings.Join(append(parts, "("+strings.Join(diff, " || ")+")"), " && ")
}

// PrimarySecondary simulates Stoller §6's primary–secondary example with n ≥ 3
// processes ps[0] … ps[n-1] until one has executed s-1 events. ps[0] starts as
// primary and ps[1] as secondary. After a random delay, the primary hands over:
// it tells the secondary, waits for its acknowledgement, multicasts a request
// for volunteers to the others, makes the first volunteer that answers the new
// primary; the new primary tells the secondary, which updates its state and
// tells the old primary to stop. The secondary hands over the same way, except
// that it aborts when the primary's announcement arrives instead of its
// acknowledgement, waits for the new primary, and then starts again.
func PrimarySecondary(rng *rand.Rand, n, s int) *detect.Computation {
	sm := newSim(rng, fmt.Sprintf("primary-secondary n=%d s=%d", n, s), indexed("ps", n), s-1)
	type role int
	const (
		idle        role = iota
		waitAck          // announced a hand-over, waiting for the partner's acknowledgement
		waitVolunt       // asked for volunteers
		waitStop         // chose a successor, waiting to be told to stop
		partnerBusy      // acknowledged the partner's hand-over
		aborted          // secondary: gave way to the primary's hand-over
	)
	isPrim := make([]bool, n)
	isSec := make([]bool, n)
	prim := make([]int, n) // whom each process takes for the primary
	sec := make([]int, n)  // and for the secondary
	state := make([]role, n)
	round := make([]int, n) // hand-over round of a primary or secondary, to drop stale volunteers
	asked := make([]int, n) // whom a process announced its hand-over to
	isPrim[0], isSec[1] = true, true
	for i := range n {
		prim[i], sec[i] = 0, 1
		sm.b.Set(i, "isPrimary", boolv(isPrim[i]), detect.Pos{})
		sm.b.Set(i, "isSecondary", boolv(isSec[i]), detect.Pos{})
		sm.b.Set(i, "primary", intv(0), detect.Pos{})
		sm.b.Set(i, "secondary", intv(1), detect.Pos{})
	}
	var start func(i int, primary bool)
	var deliver func(to int, clock []int64, m message)
	msg := func(from int, to []int, m message, text string, sets ...set) {
		m.from = from
		sm.send(from, to, text, func(q int, c []int64) { deliver(q, c, m) }, sets...)
	}
	later := func(i int, primary bool) {
		sm.after(sm.delay(), func() { start(i, primary) })
	}
	start = func(i int, primary bool) {
		if state[i] != idle || primary && !isPrim[i] || !primary && !isSec[i] {
			return
		}
		round[i]++
		state[i] = waitAck
		if primary {
			asked[i] = sec[i]
			msg(i, []int{sec[i]}, message{kind: intentP}, "announce primary hand-over")
		} else {
			asked[i] = prim[i]
			msg(i, []int{prim[i]}, message{kind: intentS}, "announce secondary hand-over")
		}
	}
	deliver = func(q int, c []int64, m message) {
		recv := func(text string, sets ...set) bool {
			return sm.event(q, detect.Recv, text, c, sets...)
		}
		switch m.kind {
		case intentP: // at the secondary
			if !recv(fmt.Sprintf("recv primary hand-over from ps[%d]", m.from)) {
				return
			}
			state[q] = aborted
			msg(q, []int{m.from}, message{kind: ackP}, "ack primary hand-over")
		case intentS: // at the primary
			if !recv(fmt.Sprintf("recv secondary hand-over from ps[%d]", m.from)) {
				return
			}
			// Busy with its own hand-over, the primary does not answer: the
			// secondary gives way when the primary's announcement arrives. An
			// announcement that reaches a process that is no longer the primary
			// is stale: the secondary has since learnt of the new primary.
			if isPrim[q] && state[q] == idle && sec[q] == m.from {
				state[q] = partnerBusy
				msg(q, []int{m.from}, message{kind: ackS}, "ack secondary hand-over")
			}
		case ackP, ackS:
			if !recv("recv ack") || state[q] != waitAck || m.from != asked[q] {
				return
			}
			state[q] = waitVolunt
			k := volReqP
			if m.kind == ackS {
				k = volReqS
			}
			msg(q, others(n, prim[q], sec[q]), message{kind: k, round: round[q]}, "ask for volunteers")
		case volReqP, volReqS:
			if !recv(fmt.Sprintf("recv request for volunteers from ps[%d]", m.from)) {
				return
			}
			if !isPrim[q] && !isSec[q] {
				msg(q, []int{m.from}, message{kind: volunteer, round: m.round, primary: m.kind == volReqP}, "volunteer")
			}
		case volunteer:
			if !recv(fmt.Sprintf("recv volunteer ps[%d]", m.from)) {
				return
			}
			if state[q] != waitVolunt || m.round != round[q] {
				return // another volunteer came first
			}
			state[q] = waitStop
			if m.primary {
				msg(q, []int{m.from}, message{kind: becomePrimary, partner: sec[q]}, fmt.Sprintf("make ps[%d] primary", m.from))
			} else {
				msg(q, []int{m.from}, message{kind: becomeSecondary, partner: prim[q]}, fmt.Sprintf("make ps[%d] secondary", m.from))
			}
		case becomePrimary:
			isPrim[q], prim[q], sec[q] = true, q, m.partner
			if !recv("recv: now primary", set{"isPrimary", boolv(true)}, set{"primary", intv(q)}, set{"secondary", intv(m.partner)}) {
				return
			}
			msg(q, []int{m.partner}, message{kind: newPrimary, old: m.from}, "tell the secondary")
			later(q, true)
		case becomeSecondary:
			isSec[q], sec[q], prim[q] = true, q, m.partner
			if !recv("recv: now secondary", set{"isSecondary", boolv(true)}, set{"secondary", intv(q)}, set{"primary", intv(m.partner)}) {
				return
			}
			msg(q, []int{m.partner}, message{kind: newSecondary, old: m.from}, "tell the primary")
			later(q, false)
		case newPrimary: // at the secondary
			prim[q] = m.from
			if !recv(fmt.Sprintf("recv new primary ps[%d]", m.from), set{"primary", intv(m.from)}) {
				return
			}
			state[q] = idle
			msg(q, []int{m.old}, message{kind: stop}, "tell the old primary to stop")
			later(q, false)
		case newSecondary: // at the primary
			sec[q] = m.from
			if !recv(fmt.Sprintf("recv new secondary ps[%d]", m.from), set{"secondary", intv(m.from)}) {
				return
			}
			state[q] = idle
			msg(q, []int{m.old}, message{kind: stop}, "tell the old secondary to stop")
			later(q, true)
		case stop:
			var sets []set
			if isPrim[q] {
				isPrim[q] = false
				sets = append(sets, set{"isPrimary", boolv(false)})
			} else {
				isSec[q] = false
				sets = append(sets, set{"isSecondary", boolv(false)})
			}
			state[q] = idle
			recv("recv stop", sets...)
		}
	}
	later(0, true)
	later(1, false)
	return sm.run()
}

type msgKind int

const (
	intentP msgKind = iota
	intentS
	ackP
	ackS
	volReqP
	volReqS
	volunteer
	becomePrimary
	becomeSecondary
	newPrimary
	newSecondary
	stop
)

type message struct {
	kind    msgKind
	from    int
	round   int
	primary bool // volunteer: for the primary's request
	partner int  // become*: the other one of the pair
	old     int  // new*: the process being replaced
}

// NotIpr is ¬I_pr (Stoller (9)) written as a conjunction by De Morgan's law:
// ⋀_{i≠j} ¬(isPrimary_i ∧ isSecondary_j ∧ secondary_i = j ∧ primary_j = i).
func NotIpr(n int) string {
	var parts []string
	for i := range n {
		for j := range n {
			if i != j {
				parts = append(parts, fmt.Sprintf("!(ps[%d].isPrimary && ps[%d].isSecondary && ps[%d].secondary == %d && ps[%d].primary == %d)",
					i, j, i, j, j, i))
			}
		}
	}
	return strings.Join(parts, " && ")
}
