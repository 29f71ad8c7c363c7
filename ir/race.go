package ir

import (
	"fmt"
	"sync"
)

// Data races (the property no-data-race, SV-COMP's definition): a reachable
// state in which two threads each have an enabled access to the same memory
// location, at least one of them a write, and not both inside atomic
// sections. This file is the one owner of the definition: which accesses a
// thread has enabled in a state (raceAccesses), which of them are memory,
// which are atomic, and when two of them race (FindRace). Step checks the
// state after every step when a run selects the property (SelectRaces), and
// InitialViolation checks the initial state, so that every engine that runs
// Step reports a race the same way and Confirm replays it: the race is the
// violation of the step that reaches the racing state.
//
// What "the access a thread is about to perform" is, on kbmc's steps. A step
// executes atomically from one visible operation up to the next cut point.
// Outside an atomic section a step holds at most one operation that touches
// memory another thread can reach, at its start: C's lowering makes every
// such access a step of its own (docs/c.md, "What a step is"), and what
// follows it is local. The one exception is a created thread's first step,
// which begins with its start (a flag, not memory) and then performs its
// first access. So a thread's enabled access is the memory access of the
// first operation of its step that touches memory: for C, exactly the access
// the fine-grained semantics has the thread perform next. For a .kb
// statement, which is one operation (x = y reads y and writes x at once),
// it is every memory access of that statement. Each nondeterministic draw of
// the step gives an execution of its own, so the accesses of every draw
// count (a thread about to write a[nondet] has each cell's write enabled).
//
// Inside an atomic section (an atomic block, a __VERIFIER_atomic_ function,
// __VERIFIER_atomic_begin/end, and C's __atomic_ and __sync_ builtins, which
// cfront lowers to atomic sections) the whole section is one step: every
// memory access of it counts, as atomic. A .kb cas is one atomic operation.
// Two atomic accesses never race; an atomic and a plain one do.
//
// Locks, unlocks, joins, thread creation and starts, allocation and free,
// and channel operations synchronise: what they synchronise on (a mutex,
// also a mutex's cell in memory — Visit.Mutex marks that access —, a
// thread's start cells and end, a heap block's status, a channel's ends and
// slots) is no memory, and never races. What they read and write besides is
// memory like any other: the variable pthread_create stores the thread's
// id in, the cell a join stores its result in, a .kb lock's index.

// DataRace, the violation kind of a racing state, is declared with the
// others (exec.go).

// A RaceAccess is one enabled access of a racing pair: the thread, the
// operation (its position and source text), the location and whether it
// reads or writes it, and whether it is atomic.
type RaceAccess struct {
	Thread int
	Node   *Node
	Access Access
	Atomic bool
}

// A Race is two enabled accesses of different threads to one memory
// location, at least one a write, not both atomic.
type Race struct {
	A, B RaceAccess
}

// SelectRaces turns the data-race check on or off: with it on, Step reports
// a DataRace violation when the state a step reaches has a race, and
// InitialViolation when the initial state has one. A failing assertion (a
// call of reach_error, say) is then no violation: the property is about
// races, and C's assert aborts the program, so the thread stops there for
// good (Template.Stuck) as abort() makes it stop. A state in which it sits
// there is one in which it is about to abort, and the other threads may
// still race in it. Like SelectInvariants, SelectRaces may be called on a
// finished program, before any run.
func (p *Program) SelectRaces(on bool) {
	if on {
		p.races = &raceTable{memory: p.memoryCells(), atomic: p.RaceAtomicCells(), maxDraws: MaxProbeDraws}
	} else {
		p.races = nil
	}
}

// SampleRaces is SelectRaces for a search that never claims that a program
// has no race (explicit.Hunt, whose values are drawn from whole ranges):
// a thread's next step is executed with at most its first huntRaceDraws
// combinations of values rather than refused beyond MaxProbeDraws. A race
// it finds is a race; a state it passes may still race with other values.
func (p *Program) SampleRaces() {
	p.races = &raceTable{memory: p.memoryCells(), atomic: p.RaceAtomicCells(), maxDraws: huntRaceDraws, sampled: true}
}

// huntRaceDraws is how many combinations of a step's draws SampleRaces
// executes: a few, so that a random execution stays fast.
const huntRaceDraws = 16

// ChecksRaces reports whether runs of p look for data races (SelectRaces).
func (p *Program) ChecksRaces() bool { return p.races != nil }

// SamplesRaces reports whether runs of p look for data races as SampleRaces
// makes them.
func (p *Program) SamplesRaces() bool { return p.races != nil && p.races.sampled }

// raceTable is what the data-race check needs beyond the program: which
// cells are memory, and scratch for the threads' steps, one per goroutine
// that checks a state at a time.
type raceTable struct {
	memory []bool
	atomic []bool // RaceAtomicCells: nil when no cell is an atomic object
	// maxDraws is how many combinations of a step's draws the check
	// executes; beyond, it reports an Unsupported violation, or, sampled,
	// goes on without the others (SampleRaces).
	maxDraws int
	sampled  bool
	scratch  sync.Pool // *raceScratch
}

type raceScratch struct {
	succ  State
	ch    Choices
	ev    Event
	fixed []int64
	acc   [][]RaceAccess // per thread
}

// memoryCells marks the shared cells a program's memory accesses may race
// on: every shared cell but a thread slot's start cells, a heap pool's block
// status and a pool's phantom counter, which only synchronising operations
// and the model's bookkeeping touch.
func (p *Program) memoryCells() []bool {
	mem := make([]bool, p.SharedSize)
	for i := range mem {
		mem[i] = true
	}
	clear := func(v *Var) {
		if v != nil {
			for c := range v.Cells() {
				mem[v.Offset+c] = false
			}
		}
	}
	for _, pool := range p.Pools {
		clear(pool.Overflow)
		for _, t := range pool.Slots {
			clear(t.Start)
		}
	}
	for _, a := range p.Allocs {
		clear(a.Status)
	}
	return mem
}

// FindRace returns a race in s, or nil. It reports an Unsupported violation
// instead when a thread's next step draws more combinations of values than
// the check enumerates. Threads are compared in order, so that the race
// found in a state is always the same one.
func (p *Program) FindRace(s State) (*Race, *Violation) {
	rt := p.races
	if rt == nil {
		rt = &raceTable{memory: p.memoryCells(), atomic: p.RaceAtomicCells(), maxDraws: MaxProbeDraws}
	}
	sc, _ := rt.scratch.Get().(*raceScratch)
	if sc == nil {
		sc = &raceScratch{succ: make(State, p.StateSize), acc: make([][]RaceAccess, len(p.Threads))}
	}
	defer rt.scratch.Put(sc)
	enabled := 0
	for t := range p.Threads {
		sc.acc[t] = sc.acc[t][:0]
		if p.Status(s, t) == Enabled {
			enabled++
		}
	}
	if enabled < 2 {
		// No race, whatever the one thread draws: its step is not
		// executed (nor found to draw more than the check enumerates).
		return nil, nil
	}
	for t := range p.Threads {
		if p.Status(s, t) != Enabled {
			continue
		}
		if wide := p.raceAccesses(rt, sc, s, t); wide != nil {
			return nil, &Violation{Kind: Unsupported, Pos: wide.Pos, Thread: t,
				Msg: fmt.Sprintf("the data-race check enumerates at most %d combinations of nondeterministic values per step, and %s's next step draws more",
					rt.maxDraws, p.Threads[t].Name)}
		}
	}
	for t := range p.Threads {
		for _, a := range sc.acc[t] {
			for u := t + 1; u < len(p.Threads); u++ {
				for _, b := range sc.acc[u] {
					if a.Access.Loc == b.Access.Loc && Conflicts(a.Access.Kind, b.Access.Kind) && !(a.Atomic && b.Atomic) {
						return &Race{A: a, B: b}, nil
					}
				}
			}
		}
	}
	return nil, nil
}

// RaceMemory marks, per location, whether a data race may be on it: the
// shared cells that are memory (memoryCells). Locations past its end (locks,
// terminations, channels) are synchronisation, never memory. The symbolic
// encoding asks it rather than deciding for itself.
func (p *Program) RaceMemory() []bool { return p.memoryCells() }

// RaceAtomic reports whether the accesses node n performs in transition tr
// are atomic for the data-race check: tr is an atomic section, or n is a
// .kb cas.
func RaceAtomic(tr *Transition, n *Node) bool { return tr.EntryNode().Atomic || n.Op == OpCas }

// RaceAtomicCells marks, per location, the cells of C11 atomic objects
// (Var.AtomicCells): any access to one is atomic, wherever it is, so an
// access is atomic when RaceAtomic says so or its location is marked here.
func (p *Program) RaceAtomicCells() []bool {
	var atomic []bool
	for _, v := range p.Shared {
		for c, a := range v.AtomicCells {
			if a {
				if atomic == nil {
					atomic = make([]bool, p.SharedSize)
				}
				atomic[v.Offset+c] = true
			}
		}
	}
	return atomic
}

// RaceFirstOnly reports whether only the first operation of tr that touches
// memory holds a thread's enabled accesses (a plain step), rather than every
// operation of it (an atomic section).
func RaceFirstOnly(tr *Transition) bool { return !tr.EntryNode().Atomic }

// MutexAccess reports whether an access by node n of a location holding a
// value of type t is n's synchronisation on its mutex (Visit.Mutex), which is
// no memory: a lock, unlock or trylock of a mutex in memory accesses its
// mutex's cell (of type MutexCell). The address it evaluates to find the
// cell is memory like any other read.
func MutexAccess(n *Node, t Type) bool {
	switch n.Op {
	case OpLock, OpUnlock, OpTryLock:
		return n.Addr != nil && t == MutexCell
	}
	return false
}

// raceAccesses collects in sc.acc[t] the memory accesses thread t, enabled in
// s, is about to perform, over every combination of its step's draws. It
// returns the step's entry node when the step draws more combinations than
// the check enumerates, else nil.
func (p *Program) raceAccesses(rt *raceTable, sc *raceScratch, s State, t int) *Node {
	tm := p.Threads[t].Template
	tr := p.Transition(s, t)
	firstOnly := RaceFirstOnly(tr)
	fixed := sc.fixed[:0]
	defer func() { sc.fixed = fixed }()
	for n := 1; ; n++ {
		copy(sc.succ, s)
		sc.ch.Reset(fixed)
		sc.ev.TraceLocals = true
		p.step(sc.succ, t, &sc.ch, &sc.ev)
		from := 0
		for _, v := range sc.ev.Visits {
			vt := tm
			if v.Partner { // a rendezvous receiver's code, run in t's step (rendezvous.go)
				vt = p.Threads[sc.ev.Partner].Template
			}
			node := vt.Nodes[v.Node]
			found := false
			for i := from; i < v.Accesses; i++ {
				if a := sc.ev.Accesses[i]; i != v.Mutex && a.Loc < len(rt.memory) && rt.memory[a.Loc] {
					found = true
					sc.acc[t] = addRaceAccess(sc.acc[t], RaceAccess{Thread: t, Node: node, Access: a,
						Atomic: RaceAtomic(tr, node) || rt.atomic != nil && rt.atomic[a.Loc]})
				}
			}
			from = v.Accesses
			if found && firstOnly {
				// The first memory operation of a plain step is the
				// enabled one; what the step draws after it changes
				// none of its accesses, and is not enumerated.
				sc.ch.Made = sc.ch.Made[:v.Draws]
				break
			}
		}
		var more bool
		if fixed, more = sc.ch.Next(fixed); !more {
			return nil
		}
		if n == rt.maxDraws {
			if rt.sampled {
				return nil
			}
			return tr.EntryNode()
		}
	}
}

// addRaceAccess appends a to acc unless an access of the same location and
// kind is there already (draws repeat them).
func addRaceAccess(acc []RaceAccess, a RaceAccess) []RaceAccess {
	for _, b := range acc {
		if b.Access.Loc == a.Access.Loc && b.Access.Kind == a.Access.Kind && b.Atomic == a.Atomic {
			return acc
		}
	}
	return append(acc, a)
}

// raceViolation is the violation a step reports when the state it reaches
// has race r: at the first access's position, naming both accesses.
func (p *Program) raceViolation(r *Race) *Violation {
	return &Violation{Kind: DataRace, Pos: r.A.Node.Pos, Thread: r.A.Thread,
		Msg: fmt.Sprintf("data race on %s: %s and %s", p.LocationName(r.A.Access.Loc), p.describeRaceAccess(r.A), p.describeRaceAccess(r.B))}
}

// describeRaceAccess renders one access of a race: "writer[0]'s write at
// prog.c:12:5 (x = x + 1;)".
func (p *Program) describeRaceAccess(a RaceAccess) string {
	kind := "read"
	if a.Access.Kind == Write {
		kind = "write"
	}
	if a.Atomic {
		kind = "atomic " + kind
	}
	at := a.Node.Pos.String()
	if p.File != "" {
		at = p.File + ":" + at
	}
	s := fmt.Sprintf("%s's %s at %s", p.Threads[a.Thread].Name, kind, at)
	if a.Node.Text != "" {
		s += fmt.Sprintf(" (%s)", a.Node.Text)
	}
	return s
}

// checkRace is Step's check of the state s a step reached: the race's
// violation, the check's own failure, or nil.
func (p *Program) checkRace(s State) *Violation {
	r, v := p.FindRace(s)
	if v != nil {
		return v
	}
	if r != nil {
		return p.raceViolation(r)
	}
	return nil
}
