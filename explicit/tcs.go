package explicit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kbmc/solver/solvers"
)

// Trace constraint systems (LazyPOR thesis, Metzler 2014, §2.5.1).
//
// A trace constraint system of a run u describes the Mazurkiewicz trace of u: one
// variable per step, program-order constraints between the steps of one thread
// (§4.1, never swapped), and one dependency constraint per pair of dependent steps
// of different threads (Def. 12: the dependency list dep(u) in the order <_{N×N}).
// A variation swaps some of the dependency constraints; a solution (Def. 13) is a
// linear extension of the constraints, the schedule of another trace.

// A TCSEvent is one variable of a trace constraint system: a step of the run the
// system was built from, or the pending next step of a thread that had not
// terminated when the run ended (a thread blocked on a lock, an await, an assume or
// a join, or a thread still enabled when the depth bound cut the run). LazyPOR adds
// the pending steps so that a variation can schedule a blocked thread before the
// step that left it blocked; the thesis's separated systems have none.
type TCSEvent struct {
	Thread  int
	Pending bool
}

// A TCSDep is a dependency constraint: event A before event B, A < B (the run's
// order).
type TCSDep struct {
	A, B int32
}

// A TCS is a trace constraint system (Def. 11–12) with program order (§4.1) and the
// variation being solved.
//
// Events are in the run's order, the pending steps last; the events of one thread
// are ordered by program order. Deps is the dependency list in the thesis's order
// (lexicographic in (A, B)). Swapped[i] reverses Deps[i]: the variation asks for B
// before A. A solution orders every event after its program-order predecessor and
// respects every (possibly swapped) dependency constraint.
type TCS struct {
	Events     []TCSEvent
	NumThreads int
	Deps       []TCSDep
	Swapped    []bool
}

// Constraint returns dependency constraint i of the variation: before must precede
// after.
func (c *TCS) Constraint(i int) (before, after int) {
	d := c.Deps[i]
	if c.Swapped[i] {
		return int(d.B), int(d.A)
	}
	return int(d.A), int(d.B)
}

// NumEvents, Thread and NumConstraints, with Constraint, make a TCS an
// encode.TraceSystem.
func (c *TCS) NumEvents() int      { return len(c.Events) }
func (c *TCS) Thread(e int) int    { return c.Events[e].Thread }
func (c *TCS) NumConstraints() int { return len(c.Deps) }

// Satisfies reports whether order, a permutation of the events, is a solution of the
// variation: every event after its program-order predecessor and every constraint
// respected. LazyPOR checks every solver's answer with it.
func (c *TCS) Satisfies(order []int) error {
	var pos, last []int
	return c.satisfies(order, &pos, &last)
}

// satisfies is Satisfies with scratch slices.
func (c *TCS) satisfies(order []int, posBuf, lastBuf *[]int) error {
	n := len(c.Events)
	if len(order) != n {
		return fmt.Errorf("solution has %d events, the system %d", len(order), n)
	}
	pos := resizeInt(*posBuf, n)
	*posBuf = pos
	for i := range pos {
		pos[i] = -1
	}
	for k, e := range order {
		if e < 0 || e >= n || pos[e] >= 0 {
			return fmt.Errorf("solution is not a permutation (event %d at %d)", e, k)
		}
		pos[e] = k
	}
	last := resizeInt(*lastBuf, c.NumThreads)
	*lastBuf = last
	for i := range last {
		last[i] = -1
	}
	for e, ev := range c.Events {
		if p := last[ev.Thread]; p >= 0 && pos[p] > pos[e] {
			return fmt.Errorf("solution puts event %d before its program-order predecessor %d", e, p)
		}
		last[ev.Thread] = e
	}
	for i := range c.Deps {
		b, a := c.Constraint(i)
		if pos[b] > pos[a] {
			return fmt.Errorf("solution violates constraint %d (%d before %d)", i, b, a)
		}
	}
	return nil
}

// A TCSSolver finds a solution of a variation. LazyPOR executes a canonical schedule
// of the variation, never the solver's particular solution, so every correct solver
// yields the same executions; the solution is checked (TCS.Satisfies) and counted.
// The returned slice may be reused by the solver's next call. A solver need not be
// safe for concurrent use.
type TCSSolver interface {
	Solve(ctx context.Context, c *TCS) (order []int, ok bool, err error)
}

// TCSSolvers lists the names NewTCSSolver accepts, the default first.
func TCSSolvers() []string { return append([]string{"topo"}, solvers.Names()...) }

// NewTCSSolver returns the solver called name: "topo" (or "") is the linear-extension
// solver of thesis Listing 5.1; "z3" and "gini" decide the system with that backend
// (BackendTCSSolver). A solver that holds resources is an io.Closer.
func NewTCSSolver(name string) (TCSSolver, error) {
	if err := CheckTCSSolver(name); err != nil {
		return nil, err
	}
	if name == "" || name == "topo" {
		return new(TopoSolver), nil
	}
	return NewBackendTCSSolver(name)
}

// CheckTCSSolver reports whether NewTCSSolver(name) can succeed in this build,
// without building a solver.
func CheckTCSSolver(name string) error {
	switch {
	case name == "" || name == "topo":
		return nil
	case slices.Contains(solvers.Names(), name):
		return solvers.Check(name)
	}
	return fmt.Errorf("unknown trace-constraint solver %q (available: %s)", name, strings.Join(TCSSolvers(), ", "))
}

// TopoSolver is the linear-extension solver of thesis Listing 5.1: it visits the
// threads round-robin and takes a thread's first remaining event whenever no
// remaining event is constrained to precede it; a full round without progress means
// a cycle (unsatisfiable). Ties are broken by the round-robin, so its solution is a
// deterministic function of the variation.
type TopoSolver struct {
	order  []int
	indeg  []int32
	start  []int32 // CSR: successors of event e are succ[start[e]:start[e+1]]
	succ   []int32
	fill   []int32 // CSR fill cursors
	heads  []int32 // per thread: next event in program order, or -1
	next   []int32 // per event: the thread's next event, or -1
	lastOf []int32
}

// Solve implements TCSSolver.
func (t *TopoSolver) Solve(_ context.Context, c *TCS) ([]int, bool, error) {
	n := len(c.Events)
	t.order = t.order[:0]
	t.indeg = resizeInt32(t.indeg, n)
	t.start = resizeInt32(t.start, n+1)
	t.succ = resizeInt32(t.succ, len(c.Deps))
	t.next = resizeInt32(t.next, n)
	t.heads = resizeInt32(t.heads, c.NumThreads)
	t.lastOf = resizeInt32(t.lastOf, c.NumThreads)
	for i := range t.heads {
		t.heads[i], t.lastOf[i] = -1, -1
	}
	for e, ev := range c.Events {
		t.indeg[e], t.next[e] = 0, -1
		if l := t.lastOf[ev.Thread]; l >= 0 {
			t.next[l] = int32(e)
		} else {
			t.heads[ev.Thread] = int32(e)
		}
		t.lastOf[ev.Thread] = int32(e)
	}
	for i := range t.start {
		t.start[i] = 0
	}
	for i := range c.Deps {
		b, _ := c.Constraint(i)
		t.start[b+1]++
	}
	for e := 0; e < n; e++ {
		t.start[e+1] += t.start[e]
	}
	t.fill = resizeInt32(t.fill, n)
	copy(t.fill, t.start[:n])
	for i := range c.Deps {
		b, a := c.Constraint(i)
		t.succ[t.fill[b]] = int32(a)
		t.fill[b]++
		t.indeg[a]++
	}
	// Listing 5.1: iterate over the processes; take pid's minimal node if it has
	// no dependency predecessor; stop after a full round without progress.
	pid, stuck := 0, 0
	for len(t.order) < n {
		if h := t.heads[pid]; h >= 0 && t.indeg[h] == 0 {
			t.order = append(t.order, int(h))
			for _, a := range t.succ[t.start[h]:t.start[h+1]] {
				t.indeg[a]--
			}
			t.heads[pid] = t.next[h]
			stuck = 0
		} else {
			stuck++
			if stuck == c.NumThreads {
				return t.order, false, nil
			}
		}
		pid++
		if pid == c.NumThreads {
			pid = 0
		}
	}
	return t.order, true, nil
}

func resizeInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

func resizeInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// tcsEnum enumerates the satisfiable variations of a TCS (thesis §3.1,
// variations(u)): every combination of swapped and unswapped dependency constraints
// whose constraints, with program order, are acyclic. The thesis generates all
// 2^|dep| combinations and leaves the unsatisfiable ones to the solver; that is
// infeasible beyond a few dozen dependencies, so the enumeration decides the
// constraints in the thesis's order and abandons a prefix as soon as it is cyclic
// (an unsatisfiable prefix of the system, counted in unsat). Reachability in the
// constraint graph is kept as one bitset row per event and undone on backtracking.
//
// Two kinds of constraint are never swapped or swapped only together, because no
// execution orders them otherwise (see lazyTCS.constrain): keep[i] forbids
// swapping dependency i; requires[i] >= 0 allows swapping i only when dependency
// requires[i] (an earlier one) is swapped.
type tcsEnum struct {
	c        *TCS
	keep     []bool
	requires []int32
	unsat    int64
	poll     func() bool // if set, called now and then; true stops the enumeration
	calls    int

	n, words int
	reach    []uint64 // reach[e*words:(e+1)*words]: events reachable from e
	fixed    []uint64 // reach before any decision: program order and keep
	undoRow  []int32
	undoOld  []uint64
	forced   [][]int32 // forced[j]: the dependencies i with requires[i] == j

	stack            []enumFrame // the decisions of the variation last returned
	weight, used     int         // the swaps the variations have, and the stack
	started, stopped bool
}

// init prepares the enumeration of c's variations. It reports false if poll
// stopped it: the reachability matrix is quadratic in the number of events.
func (en *tcsEnum) init(c *TCS) bool {
	en.c = c
	en.n = len(c.Events)
	en.words = (en.n + 63) / 64
	need := en.n * en.words
	if en.poll != nil && en.poll() {
		return false
	}
	if cap(en.reach) < need {
		en.reach = make([]uint64, need)
	}
	en.reach = en.reach[:need]
	clear(en.reach)
	en.undoRow, en.undoOld = en.undoRow[:0], en.undoOld[:0]
	en.unsat = 0
	// Program order: every event reaches the later events of its thread.
	last := make([]int, c.NumThreads)
	for i := range last {
		last[i] = -1
	}
	for e := en.n - 1; e >= 0; e-- {
		if en.poll != nil && e%1024 == 0 && en.poll() {
			return false
		}
		t := c.Events[e].Thread
		if l := last[t]; l >= 0 {
			row := en.row(e)
			copy(row, en.row(l))
			row[l/64] |= 1 << (l % 64)
		}
		last[t] = e
	}
	if cap(c.Swapped) < len(c.Deps) {
		c.Swapped = make([]bool, len(c.Deps))
	}
	c.Swapped = c.Swapped[:len(c.Deps)]
	clear(c.Swapped)
	// Dependencies that are never swapped are constraints from the start, and a
	// kept dependency forces the ones that require its swap: adding those at once
	// finds the cycles they close early.
	en.forced = en.forced[:0]
	for range c.Deps {
		en.forced = append(en.forced, nil)
	}
	for i, d := range c.Deps {
		if en.keep != nil && en.keep[i] && !en.reaches(int(d.B), int(d.A)) {
			en.add(int(d.A), int(d.B))
		}
		if en.requires != nil && en.requires[i] >= 0 {
			j := en.requires[i]
			en.forced[j] = append(en.forced[j], int32(i))
		}
	}
	en.undoRow, en.undoOld = en.undoRow[:0], en.undoOld[:0]
	en.fixed = append(en.fixed[:0], en.reach...)
	en.stack, en.started, en.stopped = en.stack[:0], false, false
	return true
}

// ordered reports whether events a and b are ordered by program order and the
// dependencies that are never swapped (keep) alone: the same way in every
// variation, and in every execution in which the later one is matched.
func (en *tcsEnum) ordered(a, b int) bool {
	w := en.words
	return en.fixed[a*w+b/64]&(1<<(b%64)) != 0 || en.fixed[b*w+a/64]&(1<<(a%64)) != 0
}

func (en *tcsEnum) row(e int) []uint64 { return en.reach[e*en.words : (e+1)*en.words] }

func (en *tcsEnum) reaches(from, to int) bool {
	return en.reach[from*en.words+to/64]&(1<<(to%64)) != 0
}

// add adds the constraint u before v (which must not close a cycle) and returns
// the undo mark.
func (en *tcsEnum) add(u, v int) int {
	mark := len(en.undoRow)
	if en.reaches(u, v) {
		return mark
	}
	rv := en.row(v)
	for i := 0; i < en.n; i++ {
		if i != u && !en.reaches(i, u) {
			continue
		}
		ri := en.row(i)
		changed := ri[v/64]&(1<<(v%64)) == 0
		if !changed {
			for w := range ri {
				if rv[w]&^ri[w] != 0 {
					changed = true
					break
				}
			}
		}
		if !changed {
			continue
		}
		en.undoRow = append(en.undoRow, int32(i))
		en.undoOld = append(en.undoOld, ri...)
		for w := range ri {
			ri[w] |= rv[w]
		}
		ri[v/64] |= 1 << (v % 64)
	}
	return mark
}

func (en *tcsEnum) undo(mark int) {
	for k := len(en.undoRow) - 1; k >= mark; k-- {
		copy(en.row(int(en.undoRow[k])), en.undoOld[k*en.words:(k+1)*en.words])
	}
	en.undoRow = en.undoRow[:mark]
	en.undoOld = en.undoOld[:mark*en.words]
}

// next sets c.Swapped to the next satisfiable variation, the original order
// (nothing swapped) first, then those with one swap, two, and so on, each
// weight in lexicographic order of the swaps, and reports whether there was one;
// false also when poll stopped the enumeration. A run may have more variations
// than can be enumerated (millions on a two-phase commit), and the few swaps a
// violation needs would otherwise come after every combination of the later
// dependencies. For each weight the enumeration is a depth-first search over the
// dependencies, which abandons a prefix as soon as it is cyclic; it is kept on an
// explicit stack so that it can be resumed from wherever it stopped: the workers
// sharing one node's loop each take its next variation (lazypor.go).
func (en *tcsEnum) next() bool {
	m := len(en.c.Deps)
	switch {
	case en.stopped:
		return false
	case !en.started:
		en.started = true
		en.stack, en.weight, en.used = en.stack[:0], 0, 0
		return true // the original order
	default:
		// Resume after the last variation: its deepest decision first.
		if len(en.stack) > 0 && en.backtrack() && en.descend() {
			return true
		}
	}
	for en.weight < m && !en.stopped {
		en.weight++
		en.stack, en.used = en.stack[:0], 0
		if en.descend() {
			return true
		}
	}
	return false
}

// descend completes the decisions on the stack to a variation of the current
// weight, backtracking as needed; false when there is none left.
func (en *tcsEnum) descend() bool {
	m := len(en.c.Deps)
	for len(en.stack) < m {
		en.stack = append(en.stack, enumFrame{i: len(en.stack)})
		if !en.advance(&en.stack[len(en.stack)-1]) {
			en.stack = en.stack[:len(en.stack)-1]
			if !en.backtrack() {
				return false
			}
		}
	}
	return true
}

// enumFrame is the decision on one dependency in tcsEnum's search: which
// branches were tried (0: none, 1: the original order, 2: both), and the one in
// effect, with the mark that undoes it.
type enumFrame struct {
	i       int
	tried   int8
	took    bool
	swapped bool
	mark    int
}

// backtrack takes the next branch of the deepest decision that has one,
// forgetting the decisions below it; false when none has.
func (en *tcsEnum) backtrack() bool {
	for len(en.stack) > 0 {
		if en.advance(&en.stack[len(en.stack)-1]) {
			return true
		}
		en.stack = en.stack[:len(en.stack)-1]
	}
	return false
}

// advance undoes frame f's branch and takes its next satisfiable one: the
// original order, then the swap; false when neither is left.
func (en *tcsEnum) advance(f *enumFrame) bool {
	c := en.c
	if f.took {
		en.undo(f.mark)
		if f.swapped {
			c.Swapped[f.i] = false
			en.used--
		}
		f.took = false
	}
	if en.calls++; en.calls&1023 == 0 && en.poll != nil && en.poll() {
		en.stopped = true
		en.stack = en.stack[:0]
		return false
	}
	i := f.i
	a, b := int(c.Deps[i].A), int(c.Deps[i].B)
	left := len(c.Deps) - i - 1 // decisions after this one
	for f.tried < 2 {
		f.tried++
		if f.tried == 1 {
			if en.weight-en.used > left {
				continue // too few decisions left to reach the weight
			}
			if en.reaches(b, a) {
				en.unsat++
				continue
			}
			mark := en.add(a, b)
			cyclic := false
			for _, g := range en.forced[i] {
				ga, gb := int(c.Deps[g].A), int(c.Deps[g].B)
				if en.reaches(gb, ga) {
					cyclic = true
					break
				}
				en.add(ga, gb)
			}
			if cyclic {
				en.unsat++
				en.undo(mark)
				continue
			}
			f.mark, f.took, f.swapped = mark, true, false
			return true
		}
		switch {
		case en.used == en.weight || en.weight-en.used-1 > left:
			// The weight is reached, or cannot be reached with this swap.
		case en.keep != nil && en.keep[i],
			en.requires != nil && en.requires[i] >= 0 && !c.Swapped[en.requires[i]]:
			en.unsat++
		case en.reaches(a, b):
			en.unsat++
		default:
			f.mark, f.took, f.swapped = en.add(b, a), true, true
			c.Swapped[i] = true
			en.used++
			return true
		}
	}
	return false
}
