package explicit

import (
	"slices"

	"kbmc/ir"
)

// Happens-before for the dynamic partial-order reductions. Dependency between two
// steps is ir's (ir.Conflict, on the accesses the steps made); a step's own thread
// orders it after every earlier step of that thread.
//
// happens-before is the transitive closure of program order and of dependency
// between steps in execution order. Flanagan and Godefroid (POPL 2005, §3) track it
// with one vector clock per step: entry v of step i's clock says how far thread v's
// steps are ordered before step i.

// vclock is a vector clock over threads: entry v is 1 + the position (in the
// execution) of the latest step of thread v that happens before the clock's owner,
// or 0 when none does. Positions count from 0, so a clock covers step i of thread v
// iff clock[v] > i.
type vclock []int32

func (c vclock) join(o vclock) {
	for v, n := range o {
		if n > c[v] {
			c[v] = n
		}
	}
}

// A traceStep is one step of the execution on the search stack.
type traceStep struct {
	thread int
	acc    []ir.Access // what the step accessed (an owned copy)
	sum    ir.AccessSummary
	clock  vclock // the step's vector clock (only when the trace keeps clocks)
	run    int    // position of the first step of the run of same-thread steps that ends here
	prev   int    // the thread's latest step before this one, or -1
}

// hbTrace is the execution on a stateless search's stack, with each step's accesses
// and, optionally, its vector clock. Push and pop follow the search; nothing is
// allocated once every depth has been reached.
type hbTrace struct {
	clocks bool // compute vector clocks (DPOR); BPOR needs only the accesses
	steps  []traceStep
	last   []int  // per thread: position of its latest step, or -1
	seen   []bool // per thread, scratch for notAfter
	// byLoc lists, per location, the positions of the steps on the trace
	// that accessed it, in order (with clocks only). Only a step that shares
	// a location with another can conflict with it (ir.Conflict), so a step
	// is compared with those, not with every step of an execution thousands
	// of steps long (ring-election N = 40: 2,660). cand is their scratch.
	byLoc [][]int32
	cand  []int32
}

func newHBTrace(threads, locations int, clocks bool) *hbTrace {
	h := &hbTrace{clocks: clocks, last: make([]int, threads), seen: make([]bool, threads)}
	for t := range h.last {
		h.last[t] = -1
	}
	if clocks {
		h.byLoc = make([][]int32, locations)
	}
	return h
}

// reset makes steps the trace: their threads' latest steps and the index
// follow.
func (h *hbTrace) reset(steps []traceStep) {
	h.steps = steps
	for u := range h.last {
		h.last[u] = -1
	}
	for i, st := range steps {
		h.last[st.thread] = i
	}
	for l := range h.byLoc {
		h.byLoc[l] = h.byLoc[l][:0]
	}
	if h.clocks {
		for i := range steps {
			h.index(i)
		}
	}
}

// candidates returns the positions before n of the steps that accessed a
// location of acc, latest first, each once (in h.cand); false if acc has a
// location outside the index.
func (h *hbTrace) candidates(acc []ir.Access, n int) ([]int32, bool) {
	c := h.cand[:0]
	for _, a := range acc {
		if a.Loc < 0 || a.Loc >= len(h.byLoc) {
			return nil, false
		}
		for _, j := range h.byLoc[a.Loc] {
			if int(j) < n {
				c = append(c, j)
			}
		}
	}
	slices.SortFunc(c, func(a, b int32) int { return int(b) - int(a) })
	c = slices.Compact(c)
	h.cand = c
	return c, true
}

// allAfter reports whether every step that accessed a location of acc comes
// after position pos (pos -1: any step does); false if acc has a location
// outside the index.
func (h *hbTrace) allAfter(acc []ir.Access, pos int) bool {
	if !h.clocks {
		return false
	}
	for _, a := range acc {
		if a.Loc < 0 || a.Loc >= len(h.byLoc) {
			return false
		}
		if l := h.byLoc[a.Loc]; len(l) > 0 && int(l[0]) <= pos {
			return false
		}
	}
	return true
}

// index records that step n accessed the locations of its acc.
func (h *hbTrace) index(n int) {
	for _, a := range h.steps[n].acc {
		if a.Loc < 0 || a.Loc >= len(h.byLoc) {
			continue // candidates scans every step for such a step's peers
		}
		l := h.byLoc[a.Loc]
		if len(l) == 0 || int(l[len(l)-1]) != n {
			h.byLoc[a.Loc] = append(l, int32(n))
		}
	}
}

// unindex undoes index(n), n the latest step.
func (h *hbTrace) unindex(n int) {
	for _, a := range h.steps[n].acc {
		if a.Loc < 0 || a.Loc >= len(h.byLoc) {
			continue
		}
		if l := h.byLoc[a.Loc]; len(l) > 0 && int(l[len(l)-1]) == n {
			h.byLoc[a.Loc] = l[:len(l)-1]
		}
	}
}

// push appends a step of thread t that accessed acc (copied), computing its clock:
// the join of the clocks of its thread's previous step and of every earlier
// dependent step, with its own entry set to itself.
func (h *hbTrace) push(t int, acc []ir.Access) {
	n := len(h.steps)
	if n < cap(h.steps) {
		h.steps = h.steps[:n+1]
	} else {
		h.steps = append(h.steps, traceStep{})
	}
	st := &h.steps[n]
	st.thread = t
	st.acc = append(st.acc[:0], acc...)
	st.sum = ir.Summarize(acc)
	st.prev = h.last[t]
	st.run = n
	if n > 0 && h.steps[n-1].thread == t {
		st.run = h.steps[n-1].run
	}
	h.last[t] = n
	if !h.clocks {
		return
	}
	if st.clock == nil {
		st.clock = make(vclock, len(h.last))
	}
	c := st.clock
	if st.prev >= 0 {
		copy(c, h.steps[st.prev].clock)
	} else {
		clear(c)
	}
	join := func(j int) {
		o := &h.steps[j]
		// A step already covered by c contributes nothing new: its own clock is
		// covered too, since clocks are transitively closed.
		if o.thread == t || c[o.thread] > int32(j) {
			return
		}
		if o.sum.MayConflict(st.sum) && ir.Conflict(o.acc, st.acc) {
			c.join(o.clock)
		}
	}
	if cand, ok := h.candidates(st.acc, n); ok {
		for _, j := range cand {
			join(int(j))
		}
	} else {
		for j := n - 1; j >= 0; j-- {
			join(j)
		}
	}
	c[t] = int32(n + 1)
	h.index(n)
}

// pop removes the latest step.
func (h *hbTrace) pop() {
	n := len(h.steps) - 1
	h.last[h.steps[n].thread] = h.steps[n].prev
	if h.clocks {
		h.unindex(n)
	}
	h.steps = h.steps[:n]
}

// racesOf collects the steps that race with thread t's next transition, whose
// accesses are fp: dependent with it, by another thread, and not happening before
// t's latest step. It appends their positions to races, latest first, and sets c to
// the clock the transition would have if t took it now (every step it would happen
// after, through program order or dependency).
func (h *hbTrace) racesOf(t int, fp []ir.Access, races []int, c vclock) []int {
	var own vclock
	if l := h.last[t]; l >= 0 {
		own = h.steps[l].clock
		copy(c, own)
	} else {
		clear(c)
	}
	sum := ir.Summarize(fp)
	step := func(i int) {
		st := &h.steps[i]
		if st.thread == t || !st.sum.MayConflict(sum) || !ir.Conflict(st.acc, fp) {
			return
		}
		if own == nil || own[st.thread] <= int32(i) {
			races = append(races, i)
		}
		if c[st.thread] <= int32(i) {
			c.join(st.clock)
		}
	}
	if cand, ok := h.candidates(fp, len(h.steps)); ok {
		for _, i := range cand {
			step(int(i))
		}
	} else {
		for i := len(h.steps) - 1; i >= 0; i-- {
			step(i)
		}
	}
	return races
}

// notAfter sets first[u], for every thread u, to the position of u's first step
// after step i if that step does not happen after step i, else to -1. The steps
// after i that do not happen after it are notdep(i) of Abdulla et al. (JACM 2017,
// §3): what could be moved in front of step i. A thread's steps there are a prefix
// of its steps after i, since program order keeps the rest after i, so first[u]
// is u's first step in notdep(i).
func (h *hbTrace) notAfter(i int, first []int) {
	for u := range first {
		first[u] = -1
	}
	v := h.steps[i].thread
	seen := h.seen
	clear(seen)
	for j := i + 1; j < len(h.steps); j++ {
		st := &h.steps[j]
		if seen[st.thread] {
			continue
		}
		seen[st.thread] = true
		if st.clock[v] <= int32(i) {
			first[st.thread] = j
		}
	}
}

// coversAny reports whether clock c covers some step of notdep(i), given first
// from notAfter(i).
func coversAny(c vclock, first []int) bool {
	for u, j := range first {
		if j >= 0 && c[u] > int32(j) {
			return true
		}
	}
	return false
}

// initialsAfter adds to set the threads of the initial steps of notdep(i) (first
// from notAfter(i)): those no other step of notdep(i) happens before. Each thread
// has at most one, its first step there.
func (h *hbTrace) initialsAfter(first []int, set bitSet) {
	for u, j := range first {
		if j < 0 {
			continue
		}
		c := h.steps[j].clock
		initial := true
		for w, k := range first {
			if w != u && k >= 0 && c[w] > int32(k) {
				initial = false
				break
			}
		}
		if initial {
			set.add(u)
		}
	}
}
