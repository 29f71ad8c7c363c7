package ir

// What a replayed run (Run) shows beyond its steps: which steps a violation
// depends on, whether a state repeats, and which transition keeps running. The
// command line's traces and explanations read them.

// Relevant reports, for each step of the run, whether the violation v that
// ends it depends on the step: the failing step (for a deadlock, the steps of
// the threads that are stuck and of the holders of the mutexes held at the
// end), every earlier step that writes a location a kept step reads (or a mutex
// or channel it uses), and every earlier step of a thread with a kept step (its
// locals and its control flow lead there). It is a backward slice on the trace,
// not on the program: it never hides a step that could matter through a
// location the violation reads.
func (p *Program) Relevant(r *Run, v *Violation) []bool {
	keep := make([]bool, len(r.Events))
	threads := map[int]bool{}
	needed := map[int]bool{}
	if v.Kind.Deadlocks() || v.Kind == LocalDeadlock {
		final := r.Final()
		for t := range p.Threads {
			if !p.Done(final, t) {
				threads[t] = true
			}
		}
		for i := range p.NumLocks {
			if p.LockOwner(final, i) >= 0 {
				needed[p.LockLocation(i)] = true
			}
		}
	} else if n := len(r.Events); n > 0 {
		threads[r.Events[n-1].Thread] = true
	}
	for i := len(r.Events) - 1; i >= 0; i-- {
		ev := &r.Events[i]
		locs := stepLocations(ev)
		writesNeeded := false
		for loc, k := range locs {
			if k == Write && needed[loc] {
				writesNeeded = true
			}
		}
		if !threads[ev.Thread] && !writesNeeded {
			continue
		}
		keep[i] = true
		threads[ev.Thread] = true
		for loc, k := range locs {
			if kind, _ := p.Locate(loc); k == Read || kind == LocLock || kind == LocChannel {
				needed[loc] = true
			}
		}
	}
	return keep
}

// stepLocations is what a step accessed, one kind per location: written if
// the step wrote it at all, else read.
func stepLocations(ev *Event) map[int]AccessKind {
	locs := map[int]AccessKind{}
	for _, a := range ev.Accesses {
		if a.Kind == Write || locs[a.Loc] != Write {
			locs[a.Loc] = a.Kind
		}
	}
	return locs
}

// Repeat finds a state that occurs twice along the run: steps [from, to) lead
// from it back to itself. It returns -1, -1 when no state repeats.
func (r *Run) Repeat() (from, to int) {
	seen := map[uint64][]int{}
	for i, s := range r.States {
		h := s.Hash()
		for _, j := range seen[h] {
			if r.States[j].Equal(s) {
				return j, i
			}
		}
		seen[h] = append(seen[h], i)
	}
	return -1, -1
}

// A Loop is the transition that runs most often in a stretch of a run.
type Loop struct {
	Thread     int // the thread
	Transition int // its transition (Template.Transitions)
	Runs       int // how often it ran there
	// BusyWait: the stretch wrote no shared variable and sent nothing (taking
	// and releasing a mutex does not count).
	BusyWait bool
}

// LoopOf names the transition that runs most often in steps [from, to) of the
// run; a loop head (a condition) wins a tie, as it names the loop best. ok is
// false for an empty stretch.
func (p *Program) LoopOf(r *Run, from, to int) (l Loop, ok bool) {
	type key struct{ thread, from int }
	count := map[key]int{}
	var best key
	busy := true
	score := func(k key) int {
		s := 2 * count[k]
		if p.Threads[k.thread].Template.Transitions[k.from].EntryNode().Op == OpBranch {
			s++
		}
		return s
	}
	for _, ev := range r.Events[from:to] {
		k := key{ev.Thread, ev.From}
		count[k]++
		if !ok || score(k) > score(best) {
			best, ok = k, true
		}
		for _, a := range ev.Accesses {
			if kind, _ := p.Locate(a.Loc); a.Kind == Write && (kind == LocCell || kind == LocChannel) {
				busy = false
			}
		}
	}
	return Loop{Thread: best.thread, Transition: best.from, Runs: count[best], BusyWait: busy}, ok
}
