package detect

import (
	"fmt"
	"math/bits"
)

// dfs is depth-first selective search (Godefroid's persistent-set selective
// search, Stoller §3) over the concurrent system whose executions are the
// histories of the computation (Stoller §4 for Poss, §5 for Def, where a
// transition that would make Φ true is disabled). From each state it explores a
// set T of transitions: all enabled ones (lattice+sleep), or the persistent set
// PS_Poss or PS_Def.
//
// With sleep sets, a transition explored from a state sleeps in the later
// siblings' subtrees for as long as only transitions independent of it are
// taken. The visited set remembers, per state, the transitions that slept at
// every visit so far; a later visit with a smaller sleep set explores those it
// no longer sleeps (Godefroid's stateful sleep-set search), so no state is
// missed.
//
// A state enters the visited set when the search backtracks from it, not when
// it first reaches it: the state graph is acyclic (every transition adds an
// event), so a state cannot be reached again while it is on the stack, and a
// search that finds its witness on the first path it tries stores nothing.
// Searches that keep every state (lattice+sleep, and PS_Poss when Φ is not a
// conjunction of 1-local predicates, as in Stoller's table) count N_S as
// distinct states. When Φ is a conjunction of 1-local predicates, PS_Poss and
// PS_Def return one transition in almost every state, so the search is one
// path; it then keeps only the states where it branched, and a state reached
// again below a branch counts again in N_S.
type dfsRun struct {
	s          *search
	res        *Result
	persistent bool
	storeAll   bool
	w          int // words per sleep set; 0 without sleep sets
	set        *stateSet
	frames     []dfsFrame
	todo       []int32  // the transitions of every frame, back to back
	sleeps     []uint64 // the sleep set of the frame at depth d is sleeps[d*w:(d+1)*w]
	phint      int      // PS_Poss, PS_Def: where to start looking for a false process
	ehint      int
}

type dfsFrame struct {
	proc   int32 // the transition that led here; -1 at the root
	lo, hi int32 // untried transitions: todo[lo:hi]
	end    int32 // todo[lo:end] are all its transitions
	store  bool  // enter the visited set on backtracking
}

func (s *search) dfs(res *Result, persistent bool) error {
	if done, err := s.initial(res); done || err != nil {
		s.stats.States = 1
		return err
	}
	d := &dfsRun{s: s, res: res, persistent: persistent, storeAll: !(persistent && s.f.local)}

	if s.opts.Sleep {
		d.w = (s.n + 63) / 64
	}
	d.set = newStateSet(s.n, d.w)
	d.sleeps = make([]uint64, d.w)
	if _, err := d.enter(-1); err != nil {
		return err
	}
	for len(d.frames) > 0 && res.Witness == nil {
		top := len(d.frames) - 1
		f := &d.frames[top]
		if f.hi == f.lo {
			d.backtrack(top)
			continue
		}
		if err := s.poll(); err != nil {
			return err
		}
		f.hi--
		t := int(d.todo[f.hi])
		if err := d.sleepChild(top, t); err != nil {
			return err
		}
		s.advance(t)
		s.stats.Transitions++
		if _, err := d.enter(int32(t)); err != nil {
			return err
		}
	}
	return nil
}

// backtrack pops the frame at depth top, entering its state in the visited set
// with the sleep set it had when the search reached it: its sleep set now,
// without the transitions explored from it since.
func (d *dfsRun) backtrack(top int) {
	s := d.s
	f := d.frames[top]
	if f.store {
		id, _ := d.set.insert(s.h, s.cut)
		if d.w > 0 {
			z := d.set.sleepOf(id)
			copy(z, d.sleeps[top*d.w:(top+1)*d.w])
			for _, t := range d.todo[f.lo:f.end] {
				z[t/64] &^= 1 << (t % 64)
			}
		}
	}
	d.todo = d.todo[:f.lo]
	if f.proc >= 0 {
		s.retreat(int(f.proc))
	}
	d.frames = d.frames[:top]
}

// sleepAt returns the sleep set of depth d, growing the arena as needed.
func (d *dfsRun) sleepAt(depth int) []uint64 {
	for len(d.sleeps) < (depth+1)*d.w {
		d.sleeps = append(d.sleeps, 0)
	}
	return d.sleeps[depth*d.w : (depth+1)*d.w]
}

// sleepChild computes the sleep set of the state reached by t from the frame at
// depth top: the transitions asleep there that are independent of t, and then
// puts t to sleep for t's later siblings.
func (d *dfsRun) sleepChild(top, t int) error {
	if d.w == 0 {
		return nil
	}
	child := d.sleepAt(top + 1)
	z := d.sleeps[top*d.w : (top+1)*d.w] // after sleepAt(top+1), which may move the arena
	for wi, word := range z {
		child[wi] = 0
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			u := wi*64 + b
			if u == t {
				continue
			}
			indep, err := d.independent(t, u)
			if err != nil {
				return err
			}
			if indep {
				child[wi] |= 1 << b
			}
		}
	}
	z[t/64] |= 1 << (t % 64)
	return nil
}

// independent reports whether the transitions of processes t and u, both
// enabled in the current state, are independent there. In the Poss system any
// two are (Φ is false here, or the search would have stopped; Stoller §6). In the
// Def system they are iff taking both does not make Φ true, since otherwise the
// first disables the second.
func (d *dfsRun) independent(t, u int) (bool, error) {
	if d.s.m == Possibly {
		return true, nil
	}
	ok, err := d.s.holdsAfter2(t, u)
	return !ok, err
}

// enter handles the state the search has just moved to by transition proc (-1:
// the initial state): the goal, the visited set, the sleep set, and the frame of
// transitions to explore from it.
func (d *dfsRun) enter(proc int32) (bool, error) {
	s := d.s
	depth := len(d.frames)
	var z []uint64
	if d.w > 0 {
		z = d.sleepAt(depth)
		if proc < 0 {
			clear(z)
		}
	}
	id := d.set.find(s.h, s.cut)
	if id >= 0 && d.w == 0 {
		s.retreat(int(proc)) // seen, and explored from, before (never the root)
		return false, nil
	}
	if id < 0 {
		s.stats.States++
		if proc >= 0 {
			found, err := d.goal(proc)
			if found || err != nil {
				return found, err
			}
		}
	}
	lo := int32(len(d.todo))
	d.todo = grow(d.todo, s.c.Events()+1)
	if err := d.expand(); err != nil {
		return false, err
	}
	f := dfsFrame{proc: proc, lo: lo, store: id < 0 && (d.storeAll || len(d.todo)-int(lo) >= 2)}
	hi := lo
	for _, t := range d.todo[lo:] {
		keep := true
		switch {
		case d.w == 0:
		case id >= 0:
			keep = has(d.set.sleepOf(id), int(t)) && !has(z, int(t))
		default:
			keep = !has(z, int(t))
		}
		if keep {
			d.todo[hi] = t
			hi++
		}
	}
	d.todo = d.todo[:hi]
	f.hi, f.end = hi, hi
	if id >= 0 {
		old := d.set.sleepOf(id)
		for i := range old {
			old[i] &= z[i]
		}
	}
	d.frames = grow(d.frames, s.c.Events()+1)
	d.frames = append(d.frames, f)
	return false, nil
}

// grow makes room for one more element in a stack that rarely holds more than
// limit (a path has at most one frame per event): it doubles the capacity up to
// limit, and beyond it if need be, where append would grow a large slice by a
// quarter and, over a million-event path, allocate five times the final size.
func grow[T any](s []T, limit int) []T {
	if len(s) < cap(s) {
		return s
	}
	c := max(2*cap(s), 64)
	if len(s) < limit {
		c = min(c, limit)
	}
	t := make([]T, len(s), c)
	copy(t, s)
	return t
}

// goal checks whether the state just entered decides the search: for Poss, Φ
// holds; for Def, it is the final state (reached without passing through Φ).
func (d *dfsRun) goal(proc int32) (bool, error) {
	s := d.s
	switch s.m {
	case Possibly:
		ok, err := s.holds()
		if err != nil || !ok {
			return false, err
		}
	case Definitely:
		if !s.isFinal() {
			return false, nil
		}
	}
	h := make([]int, 0, len(d.frames))
	for _, f := range d.frames[1:] {
		h = append(h, int(f.proc))
	}
	d.res.Witness = &Witness{Cut: s.cutCopy(), History: append(h, int(proc))}
	return true, nil
}

// expand appends to d.todo the transitions to explore from the current state,
// in which Φ does not hold.
func (d *dfsRun) expand() error {
	s := d.s
	switch {
	case !d.persistent:
		for i := range s.n {
			if !s.enabled(i) {
				continue
			}
			if s.m == Definitely {
				ok, err := s.holdsAfter(i)
				if err != nil {
					return err
				}
				if ok {
					continue
				}
			}
			d.todo = append(d.todo, int32(i))
		}
		return nil
	case s.m == Possibly:
		return d.psPoss()
	}
	return d.psDef()
}

// psPoss is Stoller's PS_Poss (§4, Fig. 2): choose a conjunct φ of Φ that is false
// here; Φ cannot become true before φ does, and φ cannot before a process of its
// support takes its next event. For each such process i, follow the wait-for
// graph from i to a process j whose next event is enabled and must come first,
// and explore t_j. The set is persistent (Stoller's Theorem 1). Among the false
// conjuncts it takes one with the fewest processes that still have events, which
// gives the smallest set; one whose processes have all finished can never
// become true, and then nothing is explored.
func (d *dfsRun) psPoss() error {
	s := d.s
	if s.f.local {
		if s.f.neverAgain() {
			return nil
		}
		i := d.falseProcess()
		j, err := s.sink(i)
		if err == nil {
			d.todo = append(d.todo, int32(j))
		}
		return err
	}
	best, count := -1, s.n+1
	for ci, c := range s.phi.conj {
		if c.holds(s.cut) {
			continue
		}
		k := 0
		for _, p := range c.procs {
			if s.cut[p] < s.lens[p] {
				k++
			}
		}
		if k < count {
			best, count = ci, k
			if k == 0 {
				break
			}
		}
	}
	if err := s.phi.failure(s.cut); err != nil {
		return err
	}
	if best < 0 {
		return fmt.Errorf("%w: PS_Poss found no false conjunct in a state where Φ is false", ErrInternal)
	}
	lo := len(d.todo)
	for _, p := range s.phi.conj[best].procs {
		if s.cut[p] == s.lens[p] {
			continue
		}
		j, err := s.sink(int(p))
		if err != nil {
			return err
		}
		dup := false
		for _, t := range d.todo[lo:] {
			dup = dup || int(t) == j
		}
		if !dup {
			d.todo = append(d.todo, int32(j))
		}
	}
	return nil
}

// falseProcess returns a process whose conjunction is false in the current
// state (one exists: Φ is false and 1-local), with its next event left.
func (d *dfsRun) falseProcess() int {
	s := d.s
	for k := range s.n {
		i := (d.phint + k) % s.n
		if !s.f.okAt(i, s.cut[i]) {
			d.phint = i
			return i
		}
	}
	return 0 // unreachable: Φ is false
}

// psDef computes a persistent set of the Def system (Stoller §5) when Φ is a
// conjunction of 1-local predicates φ_i, one per process (true for processes no
// conjunct reads).
//
// Stoller's PS_Def (Fig. 3) chooses a process i with stayfalse(i) — φ_i false in
// i's current and next local states — and returns the sink j of the wait-for
// graph from i. Its Theorem 2 claims such an i exists whenever a transition is
// enabled, but the proof of (6) takes "φ_i is false in s′" for "φ_i is false in
// i's next state". It is not so: with two independent processes, φ_1 false,
// true, false and φ_2 true, false, true, no process satisfies stayfalse in the
// initial state, yet a history avoiding Φ exists (2, 1, 1, 2), so a search that
// returns ∅ there answers Def Φ wrongly. kbmc uses what the proof does show:
//
//  1. If a process whose φ is false has no events left, Φ never holds again, and
//     any one enabled transition is persistent.
//  2. Else, for a process i with φ_i false: if i's next event waits for another
//     process, the sink j ≠ i of the wait-for graph from i is persistent — i
//     cannot move before t_j, so φ_i stays false and nothing t_j does can
//     make Φ true or disable another transition (Stoller's Appendix argument,
//     which needs only φ_i false now). If i's next event is enabled and leaves
//     φ_i false, {t_i} is persistent (stayfalse).
//  3. Else, any enabled t_m that does not turn φ_m from false to true is
//     persistent: it can make Φ neither true nor enabled transitions disabled.
//  4. Otherwise every enabled transition turns a false φ true, and those are
//     exactly the processes whose φ is false. With one of them nothing is
//     enabled (it would make Φ true). With two or more, any two, a and b, make
//     a persistent set: while neither moves, both φ_a and φ_b stay false, so
//     nothing else can make Φ true or disable t_a or t_b.
//
// So the set is a single transition except in case 4, where it is two.
func (d *dfsRun) psDef() error {
	s := d.s
	f := &s.f
	if f.neverAgain() {
		for k := range s.n {
			i := (d.ehint + k) % s.n
			if s.cut[i] < s.lens[i] {
				d.ehint = i
				j, err := s.sink(i)
				return d.pushDef(j, err)
			}
		}
		return nil // the final state; the search has stopped there
	}
	for k := range s.n {
		i := (d.phint + k) % s.n
		if f.okAt(i, s.cut[i]) {
			continue
		}
		// φ_i is false and i has events left (else case 1).
		if b := s.waitsFor(i); b >= 0 {
			d.phint = i
			j, err := s.sink(b)
			return d.pushDef(j, err)
		}
		if !f.okAt(i, s.cut[i]+1) {
			d.phint = i
			return d.pushDef(i, nil)
		}
	}
	poised := [2]int{-1, -1}
	for k := range s.n {
		m := (d.ehint + k) % s.n
		if !s.enabled(m) {
			continue
		}
		if f.okAt(m, s.cut[m]) || !f.okAt(m, s.cut[m]+1) {
			d.ehint = m
			return d.pushDef(m, nil)
		}
		if poised[0] < 0 {
			poised[0] = m
		} else if poised[1] < 0 {
			poised[1] = m
		}
	}
	if f.falses >= 2 {
		d.todo = append(d.todo, int32(poised[0]), int32(poised[1]))
	}
	return nil
}

// pushDef adds a transition chosen by psDef, checking what the argument
// guarantees: it does not make Φ true.
func (d *dfsRun) pushDef(j int, err error) error {
	if err != nil {
		return err
	}
	ok, err := d.s.holdsAfter(j)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("%w: PS_Def chose a transition that makes Φ true", ErrInternal)
	}
	d.todo = append(d.todo, int32(j))
	return nil
}

func has(set []uint64, i int) bool { return set[i/64]&(1<<(i%64)) != 0 }
