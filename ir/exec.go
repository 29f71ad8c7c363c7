package ir

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// ViolationKind classifies a violation (docs/language.md §11).
type ViolationKind uint8

const (
	NoViolation ViolationKind = iota
	Assertion
	Bounds
	DivisionByZero
	Shift
	BadUnlock
	Relock
	Deadlock
	LocalDeadlock // one process can never move again, while others may
	ReachError    // a C program called reach_error() (or __assert_fail, __VERIFIER_error)
	InvalidDeref  // a null, invalid or dangling pointer dereferenced, an access outside its object
	InvalidFree   // free of a pointer that is no heap block's start, or of a block freed already
	BadJoin       // a join of a value that is no created thread, or of the joining thread itself
	// Unsupported is no fault of the program: a step does something the model
	// cannot express (a char read of an int's cell, say). Its verdict is unknown.
	Unsupported
	// InvariantViolation: a global invariant (Program.Invariants) is false in a
	// reached state (the initial state, or the state after a step).
	InvariantViolation
	// DataRace: two threads each have an enabled access to one memory
	// location in a reached state, at least one a write, not both atomic
	// (race.go). Checked only when a run selects it (SelectRaces).
	DataRace
	// Overflow: a signed integer operation whose exact result does not fit
	// its type (overflow.go). Checked only when a run selects it
	// (SelectProperty); otherwise signed arithmetic wraps.
	Overflow
	// Panic: a Go run-time panic (a send on or a close of a closed channel,
	// an unlock of an unlocked sync.Mutex, a call of panic: an OpAssert of
	// this Kind); Msg says which.
	Panic
	// Leak: a Go program's end state in which the entry goroutine has
	// returned and other goroutines wait for ever (Program.End; a deadlock
	// while the entry goroutine waits too).
	Leak
)

var violationNames = [...]string{
	NoViolation: "none", Assertion: "assertion", Bounds: "bounds",
	DivisionByZero: "division-by-zero", Shift: "shift", BadUnlock: "bad-unlock",
	Relock: "relock", Deadlock: "deadlock", LocalDeadlock: "local-deadlock",
	ReachError: "reach-error", InvalidDeref: "invalid-deref", InvalidFree: "invalid-free",
	BadJoin: "bad-join", Unsupported: "unsupported", InvariantViolation: "invariant",
	DataRace: "data-race", Overflow: "overflow", Panic: "panic", Leak: "leak",
}

func (k ViolationKind) String() string {
	if int(k) < len(violationNames) {
		return violationNames[k]
	}
	return fmt.Sprintf("ViolationKind(%d)", k)
}

// ParseViolationKind is the inverse of String.
func ParseViolationKind(s string) (ViolationKind, bool) {
	for k, n := range violationNames {
		if n == s && k != int(NoViolation) {
			return ViolationKind(k), true
		}
	}
	return NoViolation, false
}

// A Violation is what went wrong, where, and in which thread (-1 for a deadlock).
type Violation struct {
	Kind   ViolationKind
	Msg    string
	Pos    Pos
	Thread int
}

// AccessKind says whether an access reads or writes its location.
type AccessKind uint8

const (
	Read AccessKind = iota
	Write
)

// An Access is one concrete location a step read or wrote, with the value read or
// written (lock accesses carry the new owner+1, termination accesses 1).
type Access struct {
	Loc   int
	Kind  AccessKind
	Value int64
}

// A Choice is one nondeterministic value drawn during a step. Channel marks a
// draw of a channel operation (which ready case a select takes, whether a
// lossy send loses its message, which message an unordered receive takes),
// which a trace shows as the message sent or received rather than as a value.
//
// Delay marks the draw of a pool's delay (drawDelays): how many of its
// spawns start phantoms before its first slot, in a program lowered for a bug
// hunt. It is no value of the program's, so a trace and a witness leave it
// out of what the program draws.
type Choice struct {
	Lo, Hi, Value int64
	Channel       bool
	Delay         bool
}

// Choices supplies nondeterministic values to Step: the first len(Fixed) draws take
// their values from Fixed, later ones the range's low end (or a value Draw picks
// when set, else a random one when Rand is set). Made records every draw, so that
// an exhaustive search can enumerate the alternatives with Next.
type Choices struct {
	Fixed []int64
	Made  []Choice
	Rand  *rand.Rand
	// Draw picks a value from lo to hi (read as choose reads them); a random
	// search sets it to favour the values programs test for.
	Draw func(lo, hi int64) int64
	// Delay picks the delay of the pool with the given index (drawDelays)
	// when no Fixed value gives it; nil: 0, the slots first.
	Delay func(pool int) int64
}

// Reset prepares for a step whose draws start with fixed.
func (c *Choices) Reset(fixed []int64) {
	c.Fixed = fixed
	c.Made = c.Made[:0]
}

// choose draws a value from lo to hi. The range is read modulo 2^64, from lo
// upwards, so that a U64's (or a pointer's) whole range, held as 0..-1, is a
// range too.
func (c *Choices) choose(lo, hi int64) int64 {
	var v int64
	switch i := len(c.Made); {
	case i < len(c.Fixed):
		v = c.Fixed[i]
	case c.Draw != nil:
		v = c.Draw(lo, hi)
	case c.Rand != nil && uint64(hi-lo) == 1<<64-1:
		v = int64(c.Rand.Uint64())
	case c.Rand != nil:
		v = lo + int64(c.Rand.Uint64N(uint64(hi-lo)+1))
	default:
		v = lo
	}
	if uint64(v-lo) > uint64(hi-lo) { // a replayed value from another program: clamp, replay checks it
		v = lo
	}
	c.Made = append(c.Made, Choice{Lo: lo, Hi: hi, Value: v})
	return v
}

// chooseDelay draws the delay of pool number pool (drawDelays).
func (c *Choices) chooseDelay(pool int) int64 {
	var v int64
	switch i := len(c.Made); {
	case i < len(c.Fixed):
		v = c.Fixed[i]
	case c.Delay != nil:
		v = c.Delay(pool)
	}
	v = min(max(v, 0), MaxPhantomDelay)
	c.Made = append(c.Made, Choice{Lo: 0, Hi: MaxPhantomDelay, Value: v, Delay: true})
	return v
}

// chooseChannel is choose for a channel operation's draw (Choice.Channel).
func (c *Choices) chooseChannel(lo, hi int64) int64 {
	v := c.choose(lo, hi)
	c.Made[len(c.Made)-1].Channel = true
	return v
}

// Next advances to the next combination of draws after the ones Made, in
// lexicographic order: it sets Fixed (reusing buf) and reports false when Made was
// the last combination. Ranges of later draws may depend on earlier values; Next only
// fixes a prefix and lets the step discover the rest.
func (c *Choices) Next(buf []int64) ([]int64, bool) {
	for i := len(c.Made) - 1; i >= 0; i-- {
		if c.Made[i].Value != c.Made[i].Hi {
			buf = buf[:0]
			for _, m := range c.Made[:i] {
				buf = append(buf, m.Value)
			}
			return append(buf, c.Made[i].Value+1), true
		}
	}
	return buf[:0], false
}

// An Event is what one step did. Accesses and Choices alias buffers that the next
// Step into the same Event reuses; copy them to keep them.
type Event struct {
	Thread    int
	From, To  int // control locations before and after
	Accesses  []Access
	Choices   []Choice
	Violation *Violation // non-nil if the step failed

	// With TraceLocals set, Step also records every assignment to a local in
	// LocalWrites (Loc is the cell's offset in the thread's frame), and every
	// node it executed in Visits, for traces.
	TraceLocals bool
	LocalWrites []Access
	Visits      []Visit

	// Channel is the channel number a send or recv used (-1: none), ChannelOp
	// which of the two it was (a select's chosen case), Message the message
	// it appended or took.
	Channel   int
	ChannelOp OpKind
	Message   []int64
	Lost      bool // a send on a lossy channel lost its message
	// Closed: a recv found its channel closed and empty, and received
	// zeros (Message), no message anyone sent.
	Closed bool

	// Partner is the thread a send on a rendezvous channel handed its message
	// to (-1: none); the step ran that thread's transition too, from
	// PartnerFrom to PartnerTo (ir/rendezvous.go).
	Partner                int
	PartnerFrom, PartnerTo int
}

// A Visit is one node a step executed (recorded only with TraceLocals): the
// node, for a branch the way it went, and the ends of the node's accesses in
// Event.Accesses and Event.LocalWrites (those from the previous visit's ends
// up to these are the node's own).
type Visit struct {
	Node        int
	Partner     bool // a node of Event.Partner's template, not Event.Thread's
	Taken       bool // OpBranch: the condition held; OpCas: the swap happened
	Accesses    int
	LocalWrites int
	// Mutex is the index in Event.Accesses of the node's access of a mutex
	// (lock, unlock, trylock), or -1: a synchronisation, which the data-race
	// check tells apart from the reads that find the mutex (race.go).
	Mutex int
	// Draws is how many values the step had drawn at the node's end (0
	// without Choices).
	Draws int
}

// Status is a thread's situation in a state.
type Status uint8

const (
	Enabled       Status = iota
	Terminated           // ran to its end
	Blocked              // lock held by another, await false, join target running
	BlockedAssume        // sitting on a false assume: the execution is cut here
	// Dormant: a thread created at run time that has not been started yet. It
	// counts neither as running nor as blocked.
	Dormant
	// BlockedLimit: waiting at a bound of the model, a thread pool or a heap
	// pool with no free slot left; an execution that ends so was cut by it.
	BlockedLimit
)

// Status reports whether thread t can move in s. A guard that fails at run time
// (say an out-of-bounds index in an await) counts as enabled: the step reports the
// violation.
func (p *Program) Status(s State, t int) Status {
	th := p.Threads[t]
	tm := th.Template
	l := int(s[th.Base])
	if l >= len(tm.Transitions) {
		if l == tm.Stuck() {
			return BlockedAssume
		}
		return Terminated
	}
	if tm.Start != nil && l == tm.loc[tm.Entry] && s[tm.Start.Offset+StartFlag] == 0 {
		// Not yet started, whether the entry is its start or a lock the
		// start was folded into (HoistStarts).
		return Dormant
	}
	n := tm.Nodes[tm.Transitions[l].Entry]
	switch n.Op {
	case OpAwait, OpAssume:
		m := p.newMachine(s, t, nil, nil)
		if m.eval(n.X) != 0 || m.failed {
			return Enabled
		}
		if n.Op == OpAssume {
			return BlockedAssume
		}
		return Blocked
	case OpLock:
		m := p.newMachine(s, t, nil, nil)
		c := m.lockCell(n)
		if m.failed {
			return Enabled
		}
		if o := s[c]; o != 0 && (o != int64(t+1) || n.AnyOwner) {
			return Blocked // Go's Lock (AnyOwner) of a mutex its thread holds waits too
		}
	case OpJoin:
		m := p.newMachine(s, t, nil, nil)
		if n.JThread != nil {
			switch u := m.joined(n); {
			case m.failed:
			case u == phantomThread:
				return BlockedLimit // a phantom never runs, let alone ends
			case !p.Done(s, u):
				return Blocked
			}
			for _, e := range n.JAlso {
				switch u := m.joinedBy(n, e); {
				case m.failed:
				case u == phantomThread:
					return BlockedLimit
				case !p.Done(s, u):
					return Blocked
				}
			}
			return Enabled
		}
		lo, hi := m.joinRange(n)
		if m.failed {
			return Enabled
		}
		for u := lo; u < hi; u++ {
			if !p.Done(s, u) {
				return Blocked
			}
		}
	case OpSend, OpRecv:
		m := p.newMachine(s, t, nil, nil)
		if ready, _ := m.ready(n); !ready {
			return Blocked
		}
	case OpSelect:
		if n.Default {
			return Enabled
		}
		m := p.newMachine(s, t, nil, nil)
		for _, c := range n.Cases {
			if !m.considered(c) {
				continue
			}
			if ready, _ := m.ready(c); ready {
				return Enabled
			}
		}
		return Blocked // every case's When false (or none): for ever, unless a When changes
	case OpSpawn:
		if p.freeSlot(s, n.Pool) == nil && n.Pool.Overflow == nil {
			return BlockedLimit
		}
	case OpAlloc:
		m := p.newMachine(s, t, nil, nil)
		size := m.eval(n.X)
		if m.failed {
			return Enabled
		}
		if p.freeBlock(s, n.Alloc) < 0 || size > int64(n.Alloc.Blocks[0].Cells()) {
			return BlockedLimit
		}
	}
	return Enabled
}

// Enabled reports whether thread t can take a step in s.
func (p *Program) Enabled(s State, t int) bool { return p.Status(s, t) == Enabled }

// An Ending says how an execution that reaches a state ends there.
type Ending uint8

const (
	Running     Ending = iota // some thread is enabled: the execution goes on
	Complete                  // every thread terminated (or was never started)
	CutByAssume               // some thread sits on a false assume: the execution is cut here
	Deadlocked                // some thread is blocked, none enabled or on a false assume
	CutByLimit                // some thread waits at a bound of the model (BlockedLimit)
)

// End classifies s in one pass over the threads, and for a deadlock (docs/language.md
// §11: no thread enabled, some thread not terminated, and no thread waiting on a false
// assume) returns the violation describing who waits for what: a Deadlock, or
// for a Go program whose entry goroutine has returned a Leak.
func (p *Program) End(s State) (Ending, *Violation) {
	end := Complete
	for t := range p.Threads {
		switch p.Status(s, t) {
		case Enabled:
			return Running, nil
		case BlockedLimit:
			end = CutByLimit
		case BlockedAssume:
			if end != CutByLimit {
				end = CutByAssume
			}
		case Blocked:
			if end == Complete && !p.Transition(s, t).EndsValidly() {
				end = Deadlocked
			}
		}
	}
	if end != CutByLimit && p.phantomsStarted(s) {
		return CutByLimit, nil // the phantoms would still run
	}
	if end != Deadlocked {
		return end, nil
	}
	var parts []string
	var pos Pos
	for t, th := range p.Threads {
		if p.Status(s, t) != Blocked {
			continue
		}
		if tr := p.Transition(s, t); tr != nil && !tr.EndsValidly() {
			n := tr.EntryNode()
			if pos == (Pos{}) {
				pos = n.Pos
			}
			parts = append(parts, fmt.Sprintf("%s waits at %s (%s): %s", th.Name, n.Text, n.Pos, p.WaitsFor(s, t)))
		}
	}
	if p.entryReturned(s) {
		return end, &Violation{Kind: Leak, Pos: pos, Thread: -1,
			Msg: "goroutine leak: " + p.Entry.Name + " returned, and " + strings.Join(parts, "; ")}
	}
	return end, &Violation{Kind: Deadlock, Msg: strings.Join(parts, "; "), Pos: pos, Thread: -1}
}

// entryReturned reports whether the program has an entry goroutine (Entry: a
// Go program) and every instance of it has terminated in s: a deadlocked end
// state is then a goroutine leak, not a deadlock (Go's "all goroutines are
// asleep" needs the entry goroutine asleep too).
func (p *Program) entryReturned(s State) bool {
	if p.Entry == nil {
		return false
	}
	for t := p.Entry.First; t < p.Entry.First+p.Entry.Instances(); t++ {
		if p.Status(s, t) != Terminated {
			return false
		}
	}
	return true
}

// Deadlocks reports whether k is a property of a deadlocked end state, which
// Program.End reports: a Deadlock, or a Go program's Leak. --no-deadlock
// leaves out both.
func (k ViolationKind) Deadlocks() bool { return k == Deadlock || k == Leak }

// Deadlock reports whether s is a deadlock (see End), with the violation
// describing who waits for what.
func (p *Program) Deadlock(s State) *Violation {
	_, v := p.End(s)
	return v
}

// Stuck returns a LocalDeadlock violation for process i in s when the process has
// a thread that has not terminated, none of its threads can move, and none sits on
// a false assume (an execution there is cut, not stuck); otherwise nil. Whether
// the process can never move again depends on the states reachable from s, which
// a search decides; Stuck is what a single state shows.
func (p *Program) Stuck(s State, i int) *Violation {
	first := -1
	var parts []string
	var pos Pos
	for t, th := range p.Threads {
		if p.ProcessOf(t) != i {
			continue
		}
		switch p.Status(s, t) {
		case Enabled, BlockedAssume, BlockedLimit:
			return nil
		case Blocked:
			tr := p.Transition(s, t)
			if tr.EndsValidly() {
				continue // waits at an end: label, as it may for ever
			}
			n := tr.EntryNode()
			if first < 0 {
				first, pos = t, n.Pos
			}
			parts = append(parts, fmt.Sprintf("%s waits at %s (%s): %s", th.Name, n.Text, n.Pos, p.WaitsFor(s, t)))
		}
	}
	if first < 0 {
		return nil
	}
	return &Violation{Kind: LocalDeadlock, Pos: pos, Thread: first,
		Msg: fmt.Sprintf("%s can never move again: %s", p.ProcessName(i), strings.Join(parts, "; "))}
}

// WaitsFor says what blocked thread t waits for in s: the mutex and who holds it,
// the threads a join waits for, the channel that is full or empty, or the
// condition that is false. A thread that can move waits for nothing, whatever
// its next operation: a send to a channel with room is not waiting for a full
// one (a local deadlock's state has such threads beside the stuck ones).
func (p *Program) WaitsFor(s State, t int) string {
	tr := p.Transition(s, t)
	if tr == nil {
		return "terminated"
	}
	if p.Status(s, t) == Enabled {
		return "nothing (it can move)"
	}
	n := tr.EntryNode()
	m := p.newMachine(s, t, nil, nil)
	switch n.Op {
	case OpLock:
		if c := m.lockCell(n); !m.failed {
			name := p.mutexName(n, c)
			if o := s[c] - 1; o >= 0 {
				return fmt.Sprintf("mutex %s, held by %s", name, p.Threads[o].Name)
			}
			return "mutex " + name
		}
	case OpJoin:
		if n.JThread != nil {
			us := []int{m.joined(n)}
			for _, e := range n.JAlso {
				if !m.failed {
					us = append(us, m.joinedBy(n, e))
				}
			}
			if m.failed {
				break
			}
			for _, u := range us {
				switch {
				case u == phantomThread:
					return "the end of a thread started beyond its pool's slots, which the model never runs"
				case !p.Done(s, u):
					return "the end of " + p.Threads[u].Name
				}
			}
			return "the end of " + p.Threads[us[0]].Name
		}
		lo, hi := m.joinRange(n)
		var running []string
		for u := lo; u < hi; u++ {
			if !p.Done(s, u) {
				running = append(running, p.Threads[u].Name)
			}
		}
		return "the end of " + strings.Join(running, ", ")
	case OpSend, OpRecv:
		if w := m.waitsOnChannel(n); w != "" {
			return w
		}
	case OpSelect:
		var ws []string
		for _, c := range n.Cases {
			if !m.considered(c) {
				continue
			}
			if w := m.waitsOnChannel(c); w != "" {
				ws = append(ws, w)
			}
		}
		if len(ws) == 0 {
			return "a case it may take: it has none whose condition holds"
		}
		return "one of " + strings.Join(ws, ", or ")
	case OpAwait, OpAssume:
		return "its condition, which is false"
	case OpStart:
		return "its creation (pthread_create)"
	case OpSpawn:
		return fmt.Sprintf("a free slot of the %d threads of %s the model has (all are taken)", len(n.Pool.Slots), n.Pool.Name)
	case OpAlloc:
		return fmt.Sprintf("a free block of the %d blocks of %s the model has (all are taken, or too small)", len(n.Alloc.Blocks), n.Alloc.Name)
	}
	return "nothing (it can move)"
}

// Step executes thread t's next transition in s, in place. The thread must be
// enabled. ev receives what happened; if ev.Violation is set the step failed and s is
// left as it was when the failure occurred. ch may be nil: then every draw takes its
// low end and none is recorded.
//
// A transition with an inner guard (Transition.InnerGuard: an assume, a lock
// or a join of a thread value inside a C atomic section, after its first
// operation) may find it false.
// The step then undoes its writes and leaves the thread Stuck, sitting on a
// false assume for ever: what it did was never visible to anyone (it was
// atomic), and the executions in which the section runs later, when its guard
// holds, are those in which the thread moves later. Its reads stay in ev, since
// whether it got stuck depends on them.
func (p *Program) Step(s State, t int, ch *Choices, ev *Event) {
	p.step(s, t, ch, ev)
	if p.races != nil && ev.Violation == nil {
		ev.Violation = p.checkRace(s)
	}
}

// step is Step without the data-race check, which itself executes the
// threads' next steps (race.go).
func (p *Program) step(s State, t int, ch *Choices, ev *Event) {
	th := p.Threads[t]
	tmpl := th.Template
	from := int(s[th.Base])
	if from >= len(tmpl.Transitions) {
		panic(fmt.Sprintf("ir: Step of terminated thread %s", th.Name))
	}
	ev.Thread, ev.From, ev.To = t, from, from
	ev.Accesses = ev.Accesses[:0]
	ev.LocalWrites = ev.LocalWrites[:0]
	ev.Visits = ev.Visits[:0]
	ev.Channel, ev.Message, ev.Lost, ev.Closed = -1, ev.Message[:0], false, false
	ev.Partner, ev.PartnerFrom, ev.PartnerTo = -1, 0, 0
	ev.Violation = nil
	if tmpl.Receives {
		// Another thread's send may have moved this one (rendezvous.go).
		ev.Accesses = append(ev.Accesses, Access{p.PortLocation(t), Read, 0})
	}
	m := p.newMachine(s, t, ch, ev)
	if p.phantoms {
		m.drawDelays()
	}
	ev.To = m.run(from)
	if p.invariantReads != nil && ev.To != tmpl.Stuck() {
		p.watchInvariants(s, t, ev, ev.Violation == nil)
	}
	if ch != nil {
		ev.Choices = ch.Made
	} else {
		ev.Choices = ev.Choices[:0]
	}
}

// run executes m's thread's transition at location from on m.s, recording
// into m.ev, and returns the location it ends at, which it stores as the
// thread's control location. A step that fails leaves the violation in
// m.ev.Violation; one whose inner guard is false undoes its writes and ends
// Stuck (Step).
func (m *machine) run(from int) int {
	p, s, ev, th := m.p, m.s, m.ev, m.th
	tmpl := th.Template
	tr := tmpl.Transitions[from]
	m.logging = m.logging || tr.InnerGuard
	acc0 := len(ev.Accesses)
	n := tr.Entry
	for {
		node := tmpl.Nodes[n]
		m.inner = n != tr.Entry
		m.mutexAt = -1
		next := m.exec(node)
		if ev.TraceLocals {
			draws := 0
			if m.ch != nil {
				draws = len(m.ch.Made)
			}
			ev.Visits = append(ev.Visits, Visit{Node: n, Partner: m.partner, Taken: m.taken,
				Accesses: len(ev.Accesses), LocalWrites: len(ev.LocalWrites), Mutex: m.mutexAt, Draws: draws})
		}
		if m.failed {
			v := m.viol // copied so that the machine itself stays on the stack
			ev.Violation = &v
			return from
		}
		if m.halted {
			s[th.Base] = int64(tmpl.Stuck())
			return tmpl.Stuck()
		}
		if m.stuck {
			for i := len(m.undo) - 1; i >= 0; i-- {
				s[m.undo[i].cell] = m.undo[i].old
			}
			m.undo = m.undo[:0]
			m.dropWrites(acc0)
			s[th.Base] = int64(tmpl.Stuck())
			return tmpl.Stuck()
		}
		if next == Exit {
			to := tmpl.Terminated()
			s[th.Base] = int64(to)
			p.clearDead(s, th, to)
			ev.Accesses = append(ev.Accesses, Access{p.ThreadLocation(th.ID), Write, 1})
			return to
		}
		if tmpl.Nodes[next].Cut {
			to := tmpl.loc[next]
			s[th.Base] = int64(to)
			p.clearDead(s, th, to)
			if tmpl.Transitions[to].Receives {
				m.markWaiting(tmpl.Transitions[to].EntryNode()) // it now waits there
			}
			return to
		}
		n = next
	}
}

// dropWrites removes the writes recorded from ev.Accesses[from] on, which
// a step that got stuck undid, keeping its reads (Step), and moves the
// visits' ends in ev.Accesses with them, so that each visit still owns its
// node's accesses (the data-race check reads them, race.go).
func (m *machine) dropWrites(from int) {
	ev := m.ev
	if ev == nil {
		return
	}
	kept := make([]int, len(ev.Accesses)+1) // kept[i]: accesses kept before index i
	for i, a := range ev.Accesses {
		kept[i+1] = kept[i]
		if i < from || a.Kind == Read {
			kept[i+1]++
		}
	}
	for i := range ev.Visits {
		v := &ev.Visits[i]
		if v.Mutex >= 0 && v.Mutex >= from && ev.Accesses[v.Mutex].Kind != Read {
			v.Mutex = -1
		} else if v.Mutex >= 0 {
			v.Mutex = kept[v.Mutex]
		}
		v.Accesses = kept[v.Accesses]
	}
	reads := ev.Accesses[:from]
	for _, a := range ev.Accesses[from:] {
		if a.Kind == Read {
			reads = append(reads, a)
		}
	}
	ev.Accesses = reads
}

// undoEntry is a cell a step with an inner guard wrote, and its value before.
type undoEntry struct {
	cell int
	old  int64
}

// machine evaluates one thread's code on a state. It lives on the stack of Step.
type machine struct {
	p      *Program
	s      State
	th     *Thread
	frame  int
	ch     *Choices
	ev     *Event
	failed bool
	viol   Violation
	taken  bool // the last branch's condition held, or the last cas swapped
	// mutexAt is the index in ev.Accesses of the access of the mutex the
	// node executing takes, releases or tries (-1: none), for Visit.Mutex.
	mutexAt int
	// For a transition with an inner guard, logging is set and undo logs
	// every write; inner says that the node executing is not the transition's
	// first; stuck that an inner guard was false (see Step).
	logging bool
	undo    []undoEntry
	inner   bool
	stuck   bool
	// partner says that the machine runs a receiver's transition inside a
	// sender's step on a rendezvous channel, and handoff is then the message
	// it receives on channel number handoffChan (rendezvous.go).
	partner     bool
	handoff     []int64
	handoffChan int
	// halted: a failing assertion stopped the thread for good (race.go,
	// SelectRaces): the step ends, keeping what it did, at Stuck.
	halted bool
	// recoverable: the node executing is Recoverable.
	recoverable bool
}

// newMachine returns a machine running thread t on s: its locals are the thread's
// frame. Draws come from ch and accesses go to ev; either may be nil (guards).
func (p *Program) newMachine(s State, t int, ch *Choices, ev *Event) machine {
	th := p.Threads[t]
	return machine{p: p, s: s, th: th, frame: th.Base + 1, ch: ch, ev: ev}
}

func (m *machine) fail(kind ViolationKind, pos Pos, format string, args ...any) {
	if m.failed {
		return
	}
	m.failed = true
	msg := fmt.Sprintf(format, args...)
	if m.recoverable && kind != Unsupported && kind != Assertion {
		msg = fmt.Sprintf("%s (%s) where a deferred recover may stop it: kbmc does not model recovering from a panic", kind, msg)
		kind = Unsupported
	}
	m.viol = Violation{Kind: kind, Msg: msg, Pos: pos, Thread: m.th.ID}
}

func (m *machine) access(loc int, k AccessKind, v int64) {
	if m.ev != nil {
		m.ev.Accesses = append(m.ev.Accesses, Access{loc, k, v})
	}
}

// mutexAccess records an access of a mutex's location, and where it is
// (Visit.Mutex).
func (m *machine) mutexAccess(loc int, k AccessKind, v int64) {
	if m.ev != nil {
		m.mutexAt = len(m.ev.Accesses)
	}
	m.access(loc, k, v)
}

// channelAccess records what a send or recv (op) on channel c accesses, in the
// state before it (Program.channelAccesses, which probes share).
func (m *machine) channelAccess(op OpKind, c int) {
	if m.ev != nil {
		m.ev.Accesses = m.p.channelAccesses(op, m.s, c, m.ev.Accesses)
	}
}

// wrote reports whether the step so far has recorded a write of loc.
func (m *machine) wrote(loc int) bool {
	if m.ev == nil {
		return false
	}
	for _, a := range m.ev.Accesses {
		if a.Loc == loc && a.Kind == Write {
			return true
		}
	}
	return false
}

// set writes cell i of the state, logging its old value for an undo.
func (m *machine) set(i int, v int64) {
	if m.logging {
		m.undo = append(m.undo, undoEntry{i, m.s[i]})
	}
	m.s[i] = v
}

// blocked handles an operation that finds its guard false: inside a
// transition (an inner guard) the thread is stuck; at its start the step
// should not have been taken.
func (m *machine) blocked(n *Node) {
	if m.inner && m.logging {
		m.stuck = true
		return
	}
	panic(fmt.Sprintf("ir: Step of %s blocked at %s", m.th.Name, n.Pos))
}

// exec runs one node and returns the next node index.
func (m *machine) exec(n *Node) int {
	p := m.p
	m.recoverable = n.Recoverable
	switch n.Op {
	case OpNop, OpYield:
	case OpAssign:
		v := m.eval(n.X)
		if !m.failed {
			m.store(n.LHS, v)
		}
	case OpBranch:
		m.taken = m.eval(n.X) != 0
		if !m.taken {
			return n.Else
		}
	case OpAssert:
		if m.eval(n.X) == 0 && !m.failed {
			msg := n.Msg
			if msg == "" {
				msg = "assertion " + n.Text + " failed"
			}
			kind := n.Kind
			if kind == NoViolation {
				kind = Assertion
			}
			if p.AbortsOnAssert() && kind != Unsupported && !n.Recoverable {
				// Under no-data-race and no-overflow a failing assertion is
				// no violation: it aborts, as C's assert does. A bound of
				// the model (Unsupported) is no assertion of the program:
				// it still ends the run as unknown, as a panic a deferred
				// recover may stop does (fail).
				m.halted = true
				break
			}
			m.fail(kind, n.Pos, "%s", msg)
		}
	case OpAssume, OpAwait:
		if m.eval(n.X) == 0 && !m.failed {
			m.blocked(n)
		}
	case OpLock:
		c := m.lockCell(n)
		if m.failed {
			break
		}
		me := int64(m.th.ID + 1)
		switch o := m.s[c]; o {
		case me:
			if n.AnyOwner {
				m.mutexAccess(p.lockLocation(n, c), Read, o)
				m.blocked(n)
				break
			}
			m.fail(Relock, n.Pos, "lock of %s, which %s already holds", p.mutexName(n, c), m.th.Name)
		case 0:
			m.set(c, me)
			m.mutexAccess(p.lockLocation(n, c), Write, me)
		default:
			m.mutexAccess(p.lockLocation(n, c), Read, o)
			m.blocked(n)
		}
	case OpUnlock:
		c := m.lockCell(n)
		if m.failed {
			break
		}
		if n.AnyOwner {
			// Go's sync.Mutex: any goroutine may unlock a held mutex.
			if o := m.s[c]; o == 0 {
				m.mutexAccess(p.lockLocation(n, c), Write, 0)
				m.fail(Panic, n.Pos, "sync: unlock of unlocked mutex (%s)", p.mutexName(n, c))
				break
			}
			m.set(c, 0)
			m.mutexAccess(p.lockLocation(n, c), Write, 0)
			break
		}
		if m.s[c] != int64(m.th.ID+1) {
			m.fail(BadUnlock, n.Pos, "unlock of %s, which %s does not hold", p.mutexName(n, c), m.th.Name)
			break
		}
		m.set(c, 0)
		m.mutexAccess(p.lockLocation(n, c), Write, 0)
	case OpTryLock:
		c := m.lockCell(n)
		if m.failed {
			break
		}
		taken := int64(0)
		if o := m.s[c]; o == 0 {
			me := int64(m.th.ID + 1)
			m.set(c, me)
			m.mutexAccess(p.lockLocation(n, c), Write, me)
			taken = 1
		} else {
			m.mutexAccess(p.lockLocation(n, c), Read, o)
		}
		m.taken = taken == 1
		if n.Result != nil {
			m.store(n.Result, taken)
		}
	case OpJoin:
		if n.JThread != nil {
			u := m.joined(n)
			if m.failed {
				break
			}
			if u == phantomThread {
				m.blocked(n) // inside an atomic section: a phantom never ends
				break
			}
			if !p.Done(m.s, u) {
				// Inside an atomic section the thread gets stuck, and
				// that depends on u's end: a read, as a blocked join's
				// guard reads it (Probe.Accesses).
				m.access(p.ThreadLocation(u), Read, 0)
				m.blocked(n)
				break
			}
			m.access(p.ThreadLocation(u), Read, 1)
			for _, e := range n.JAlso {
				u := m.joinedBy(n, e)
				if m.failed {
					break
				}
				if u == phantomThread {
					m.blocked(n)
					break
				}
				if !p.Done(m.s, u) {
					m.access(p.ThreadLocation(u), Read, 0)
					m.blocked(n)
					break
				}
				m.access(p.ThreadLocation(u), Read, 1)
			}
			if m.failed || m.stuck {
				break
			}
			if n.LHS != nil {
				c := p.Threads[u].Template.Start.Offset + StartReturn
				v := m.s[c]
				m.access(c, Read, v)
				m.store(n.LHS, v)
			}
			break
		}
		lo, hi := m.joinRange(n)
		for u := lo; u < hi && !m.failed; u++ {
			if !p.Done(m.s, u) {
				panic(fmt.Sprintf("ir: Step of %s blocked at %s", m.th.Name, n.Pos))
			}
			m.access(p.ThreadLocation(u), Read, 1)
		}
	case OpCas:
		cell, shared, ok := m.slot(n.LHS)
		exp := m.eval(n.X)
		nv := m.eval(n.Y)
		if m.failed || !ok {
			break
		}
		cur := m.s[cell]
		success := cur == exp
		m.taken = success
		switch {
		case success && shared:
			m.set(cell, nv)
			m.access(cell, Write, nv)
		case success:
			m.set(cell, nv)
			m.localWrite(cell-m.frame, nv)
		case shared:
			m.access(cell, Read, cur)
		}
		if n.Result != nil {
			r := int64(0)
			if success {
				r = 1
			}
			m.store(n.Result, r)
		}
	case OpSend:
		c := m.chanIndex(n.Chan, n.CIndex)
		msg := m.message(n.Args)
		if !m.failed {
			m.send(n, c, msg)
		}
	case OpRecv:
		if c := m.chanIndex(n.Chan, n.CIndex); !m.failed {
			m.recv(n, c)
		}
	case OpSelect:
		m.selectCase(n)
	case OpClose:
		if c := m.chanIndex(n.Chan, n.CIndex); !m.failed {
			m.closeChannel(n, c)
		}
	case OpStart:
		st := m.th.Template.Start.Offset
		m.access(st+StartFlag, Read, m.s[st+StartFlag])
		if n.LHS != nil {
			arg := m.s[st+StartArg]
			m.access(st+StartArg, Read, arg)
			m.store(n.LHS, arg)
		}
	case OpSpawn:
		arg := m.eval(n.X)
		if m.failed {
			break
		}
		var slot *Template
		delayed := false
		if o := n.Pool.Overflow; o != nil {
			// The first delay spawns start phantoms (drawDelays).
			k, d := m.s[o.Offset+OverflowCount], m.s[o.Offset+OverflowDelay]
			m.access(o.Offset+OverflowDelay, Read, d)
			delayed = k < d-1
		}
		for _, u := range n.Pool.Slots {
			if delayed {
				break
			}
			f := u.Start.Offset + StartFlag
			if !m.wrote(f) {
				// A flag an earlier spawn of this same step set (main's
				// creations folded into one step, cfront/spawns.go) is
				// not recorded as read again: the step already writes
				// it, so the read adds no dependency (Conflict: a common
				// location with a write), and its value, 1, is this
				// step's own, so it tells no reduction anything about
				// other threads. Recording it made the step's accesses
				// grow with the square of the creations (105 reads for
				// 14 readers), and every comparison with it as costly.
				m.access(f, Read, m.s[f])
			}
			if m.s[f] == 0 {
				slot = u
				break
			}
		}
		if slot == nil && n.Pool.Overflow != nil {
			c := n.Pool.Overflow.Offset + OverflowCount
			k := m.s[c]
			m.access(c, Read, k)
			m.set(c, k+1)
			m.access(c, Write, k+1)
			if n.LHS != nil {
				m.store(n.LHS, m.p.PhantomValue(n.Pool, k))
			}
			break
		}
		if slot == nil {
			if m.inner {
				m.fail(Unsupported, n.Pos, "every one of the %d threads of %s the model has is taken, inside an atomic section",
					len(n.Pool.Slots), n.Pool.Name)
				break
			}
			panic(fmt.Sprintf("ir: Step of %s blocked at %s", m.th.Name, n.Pos))
		}
		st := slot.Start.Offset
		m.set(st+StartFlag, 1)
		m.access(st+StartFlag, Write, 1)
		m.set(st+StartArg, arg)
		m.access(st+StartArg, Write, arg)
		if n.LHS != nil {
			m.store(n.LHS, int64(slot.First+1))
		}
	case OpAlloc:
		size := m.eval(n.X)
		if m.failed {
			break
		}
		if size <= 0 {
			m.store(n.LHS, 0) // malloc(0) may return a null pointer; kbmc's does
			break
		}
		a := n.Alloc
		block := -1
		for i := range a.Blocks {
			c := a.Status.Offset + i
			m.access(c, Read, m.s[c])
			if m.s[c] == 0 {
				block = i
				break
			}
		}
		if block < 0 || size > int64(a.Blocks[0].Cells()) {
			if m.inner {
				m.fail(Unsupported, n.Pos, "%s has no free block of %d cells left (the model has %d blocks of %d), inside an atomic section",
					a.Name, size, len(a.Blocks), a.Blocks[0].Cells())
				break
			}
			panic(fmt.Sprintf("ir: Step of %s blocked at %s", m.th.Name, n.Pos))
		}
		c := a.Status.Offset + block
		m.set(c, size)
		m.access(c, Write, size)
		m.store(n.LHS, p.MakePointer(a.Blocks[block].Object, 0))
	case OpFree:
		v := m.eval(n.X)
		if m.failed || v == 0 {
			break
		}
		obj, off := p.SplitPointer(v)
		if obj < 1 || obj > len(p.Objects) || p.Objects[obj-1].Block == nil {
			m.fail(InvalidFree, n.Pos, "free of %s, which is no heap block", p.PointerName(v))
			break
		}
		o := p.Objects[obj-1]
		c := o.Block.Status.Offset + o.BlockIndex
		status := m.s[c]
		m.access(c, Read, status)
		switch {
		case status < 0:
			m.fail(InvalidFree, n.Pos, "free of %s, which was freed already", o.Name)
		case off != 0:
			m.fail(InvalidFree, n.Pos, "free of %s, which is inside %s, not its start", p.PointerName(v), o.Name)
		default:
			m.set(c, -1)
			m.access(c, Write, -1)
		}
	default:
		panic(fmt.Sprintf("ir: unknown operation %v", n.Op))
	}
	return n.Next
}

// chanIndex resolves a channel and its index to a channel number.
func (m *machine) chanIndex(c *Channel, index *Expr) int {
	if index == nil {
		return c.Offset
	}
	i := m.eval(index)
	if m.failed {
		return 0
	}
	if i < 0 || i >= int64(c.Count()) {
		m.fail(Bounds, index.Pos, "index %d out of bounds for channel %s[%d]", i, c.Name, c.Len)
		return 0
	}
	return c.Offset + int(i)
}

// message evaluates the fields of a message to send, left to right, into the
// event's Message. Only Step sends, and it always has an event.
func (m *machine) message(args []*Expr) []int64 {
	m.ev.Message = m.ev.Message[:0]
	for _, a := range args {
		v := m.eval(a)
		m.ev.Message = append(m.ev.Message, v)
	}
	return m.ev.Message
}

func (m *machine) lockIndex(n *Node) int {
	if n.MIndex == nil {
		return n.Mutex.Offset
	}
	i := m.eval(n.MIndex)
	if m.failed {
		return 0
	}
	if i < 0 || i >= int64(n.Mutex.Count()) {
		m.fail(Bounds, n.MIndex.Pos, "index %d out of bounds for %s[%d]", i, n.Mutex.Name, n.Mutex.Len)
		return 0
	}
	return n.Mutex.Offset + int(i)
}

// joinRange is the range of thread numbers a join waits for.
func (m *machine) joinRange(n *Node) (lo, hi int) {
	t := n.Join
	if n.JIndex == nil {
		return t.First, t.First + t.Instances()
	}
	i := m.eval(n.JIndex)
	if m.failed {
		return 0, 0
	}
	if i < 0 || i >= int64(t.Instances()) {
		m.fail(Bounds, n.JIndex.Pos, "index %d out of bounds for thread %s[%d]", i, t.Name, t.Instances())
		return 0, 0
	}
	return t.First + int(i), t.First + int(i) + 1
}

// slot resolves an lvalue to the State index of its cell, and whether other
// threads may reach it (a shared variable's cell, or one a pointer addresses).
func (m *machine) slot(lv *LValue) (cell int, shared, ok bool) {
	if lv.Ptr != nil {
		v := m.eval(lv.Ptr)
		if m.failed {
			return 0, true, false
		}
		c, _, ok := m.cellAt(v, lv.Type, lv.Pos)
		return c, true, ok
	}
	v := lv.Var
	c := v.Offset
	if lv.Index != nil {
		i := m.eval(lv.Index)
		if m.failed {
			return 0, false, false
		}
		if i < 0 || i >= int64(v.Len) {
			m.fail(Bounds, lv.Index.Pos, "index %d out of bounds for %s[%d]", i, v.Name, v.Len)
			return 0, false, false
		}
		c += int(i)
	}
	if v.Shared {
		return c, true, true
	}
	return m.frame + c, false, true
}

func (m *machine) store(lv *LValue, val int64) {
	if lv.Ptr != nil {
		v := m.eval(lv.Ptr)
		if m.failed {
			return
		}
		c, ct, ok := m.cellAt(v, lv.Type, lv.Pos)
		if !ok {
			return
		}
		val = ct.Wrap(m.p.Width, val) // the cell's signedness, if it differs
		m.set(c, val)
		m.access(c, Write, val)
		return
	}
	c, shared, ok := m.slot(lv)
	if !ok {
		return
	}
	m.set(c, val)
	if shared {
		m.access(c, Write, val)
		return
	}
	m.localWrite(c-m.frame, val)
}

func (m *machine) localWrite(cell int, v int64) {
	if m.ev != nil && m.ev.TraceLocals {
		m.ev.LocalWrites = append(m.ev.LocalWrites, Access{cell, Write, v})
	}
}

// wrap normalizes an arithmetic result to type t.
func (m *machine) wrap(t Type, v int64) int64 { return t.Wrap(m.p.Width, v) }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// eval evaluates e; on a run-time error it records the violation and returns 0.
func (m *machine) eval(e *Expr) int64 {
	if m.failed {
		return 0
	}
	switch e.Op {
	case EConst:
		return e.Val
	case EVar:
		v := e.Var
		if v.Shared {
			x := m.s[v.Offset]
			m.access(v.Offset, Read, x)
			return x
		}
		return m.s[m.frame+v.Offset]
	case EIndex:
		v := e.Var
		i := m.eval(e.X)
		if m.failed {
			return 0
		}
		if i < 0 || i >= int64(v.Len) {
			m.fail(Bounds, e.Pos, "index %d out of bounds for %s[%d]", i, v.Name, v.Len)
			return 0
		}
		c := v.Offset + int(i)
		if v.Shared {
			x := m.s[c]
			m.access(c, Read, x)
			return x
		}
		return m.s[m.frame+c]
	case ETid:
		return int64(m.th.Tid)
	case ESelf:
		return int64(m.th.ID + 1)
	case ELen:
		c := m.chanIndex(e.Chan, e.X)
		if m.failed {
			return 0
		}
		l := m.p.ChannelQueue(m.s, c)[0]
		send, recv := m.p.ChannelEnds(c)
		m.access(send, Read, l)
		m.access(recv, Read, l)
		return l
	case ENondet:
		if m.ch == nil { // a guard, or a Step without Choices
			return e.Lo
		}
		if e.Unbounded {
			// Any value of the type: a front end need not fill in Lo and Hi
			// (cfront leaves them 0 for 64-bit types and pointers).
			lo, hi := e.Type.Range(m.p.Width)
			return m.ch.choose(lo, hi)
		}
		return m.ch.choose(e.Lo, e.Hi)
	case ENeg:
		x := m.eval(e.X)
		if m.p.overflow {
			m.checkOverflow(e, 0, x)
		}
		return m.wrap(e.Type, -x)
	case ENot:
		return 1 - m.eval(e.X)
	case ECompl:
		return m.wrap(e.Type, ^m.eval(e.X))
	case EConv:
		return Convert(e.Type, m.p.Width, m.eval(e.X))
	case EAddr:
		var i int64
		if e.X != nil {
			i = m.eval(e.X)
		}
		if m.failed {
			return 0
		}
		return m.addr(e.Var, i, e.Pos)
	case EDeref:
		v := m.eval(e.X)
		if m.failed {
			return 0
		}
		c, _, ok := m.cellAt(v, e.Type, e.Pos)
		if !ok {
			return 0
		}
		x := m.s[c]
		m.access(c, Read, x)
		return m.wrap(e.Type, x) // the access's signedness, if the cell's differs
	case ELAnd:
		if m.eval(e.X) == 0 {
			return 0
		}
		return m.eval(e.Y)
	case ELOr:
		if m.eval(e.X) != 0 {
			return 1
		}
		return m.eval(e.Y)
	case ECond:
		if m.eval(e.X) != 0 {
			return m.eval(e.Y)
		}
		return m.eval(e.Z)
	}
	x := m.eval(e.X)
	y := m.eval(e.Y)
	if m.failed {
		return 0
	}
	if m.p.overflow {
		m.checkOverflow(e, x, y)
		if m.failed {
			return 0
		}
	}
	switch e.Op {
	case EMul:
		return m.wrap(e.Type, x*y)
	case EDiv, ERem:
		if y == 0 {
			m.fail(DivisionByZero, e.Pos, "division by zero")
			return 0
		}
		if !e.Type.Signed() {
			if e.Op == EDiv {
				return m.wrap(e.Type, int64(uint64(x)/uint64(y)))
			}
			return m.wrap(e.Type, int64(uint64(x)%uint64(y)))
		}
		if e.Op == EDiv {
			return m.wrap(e.Type, x/y) // Go's int64 MinInt64 / -1 == MinInt64, as kbmc wants
		}
		return m.wrap(e.Type, x%y)
	case EAdd:
		return m.wrap(e.Type, x+y)
	case ESub:
		return m.wrap(e.Type, x-y)
	case EShl, EShr:
		w := e.Type.Bits(m.p.Width)
		if y < 0 || y >= int64(w) {
			m.fail(Shift, e.Pos, "shift amount %d outside [0, %d)", y, w)
			return 0
		}
		switch {
		case e.Op == EShl:
			return m.wrap(e.Type, x<<uint(y))
		case e.Type.Signed():
			return x >> uint(y)
		}
		return int64(uint64(x) >> uint(y))
	case EPtrAdd:
		return m.ptrAdd(x, y, e.Val == 1, e.Pos)
	case EPtrDiff:
		return m.ptrDiff(x, y, e.Val, e.Pos)
	case EAnd:
		return x & y
	case EXor:
		return x ^ y
	case EOr:
		return x | y
	}
	if !e.X.Type.Signed() {
		ux, uy := uint64(x), uint64(y)
		switch e.Op {
		case ELt:
			return b2i(ux < uy)
		case ELe:
			return b2i(ux <= uy)
		case EGt:
			return b2i(ux > uy)
		case EGe:
			return b2i(ux >= uy)
		}
	}
	switch e.Op {
	case ELt:
		return b2i(x < y)
	case ELe:
		return b2i(x <= y)
	case EGt:
		return b2i(x > y)
	case EGe:
		return b2i(x >= y)
	case EEq:
		return b2i(x == y)
	case ENe:
		return b2i(x != y)
	}
	panic(fmt.Sprintf("ir: unknown expression operator %v", e.Op))
}

// MinInt and MaxInt are the W-bit signed bounds.
func (p *Program) MinInt() int64 { return -1 << (p.Width - 1) }
func (p *Program) MaxInt() int64 { return 1<<(p.Width-1) - 1 }
