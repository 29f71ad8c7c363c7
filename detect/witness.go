package detect

import "fmt"

// CheckWitness checks a witness against the computation, independently of the
// search that found it: the history must start in the initial state, add one
// next event of one process at a time, and pass only through consistent global
// states, ending at w.Cut. For Possibly, Φ must hold at w.Cut; for Definitely (a
// history that avoids Φ), w.Cut must be the final state and Φ must hold nowhere
// on the way. Every witness Detect returns has passed it.
func CheckWitness(c *Computation, phi *Predicate, m Modality, w *Witness) error {
	n := c.N()
	if len(w.Cut) != n {
		return fmt.Errorf("the cut has %d entries for %d processes", len(w.Cut), n)
	}
	cut := make([]int32, n)
	// For Def, keep which conjuncts are false, re-evaluating only those that
	// read the process that moved.
	var readers [][]int
	var isFalse []bool
	falses := 0
	check := func() error {
		ok := phi.eval(cut)
		if err := phi.failure(cut); err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("Φ holds at step %d of a history that should avoid it, in %s", stepOf(cut), c.formatCut(cut))
		}
		return nil
	}
	if m == Definitely {
		readers = make([][]int, n)
		isFalse = make([]bool, len(phi.conj))
		for ci, cj := range phi.conj {
			for _, p := range cj.procs {
				readers[p] = append(readers[p], ci)
			}
			if !cj.holds(cut) {
				isFalse[ci] = true
				falses++
			}
		}
		if err := phi.failure(cut); err != nil {
			return err
		}
		if falses == 0 {
			return check()
		}
	}
	for step, p := range w.History {
		if p < 0 || p >= n {
			return fmt.Errorf("step %d: no process %d", step+1, p)
		}
		k := cut[p] + 1
		if int(k) > len(c.Procs[p].Events) {
			return fmt.Errorf("step %d: %s has no event %d", step+1, c.Procs[p].Name, k)
		}
		// The new local state may join the others iff it happened after
		// nothing they have not done: its clock entry for every other
		// process j is at most j's count (Stoller §2).
		for j, v := range c.req(p, k) {
			if j != p && v > cut[j] {
				return fmt.Errorf("step %d: event %d of %s needs event %d of %s, which has not happened",
					step+1, k, c.Procs[p].Name, v, c.Procs[j].Name)
			}
		}
		cut[p] = k
		if m == Definitely {
			for _, ci := range readers[p] {
				f := !phi.conj[ci].holds(cut)
				if f != isFalse[ci] {
					isFalse[ci] = f
					if f {
						falses++
					} else {
						falses--
					}
				}
			}
			if err := phi.failure(cut); err != nil {
				return err
			}
			if falses == 0 {
				return check()
			}
		}
	}
	for i, k := range cut {
		if int(k) != w.Cut[i] {
			return fmt.Errorf("the history ends with %s after %d events, but the cut says %d", c.Procs[i].Name, k, w.Cut[i])
		}
	}
	if !c.Consistent(w.Cut) {
		return fmt.Errorf("the cut %v is not consistent", w.Cut)
	}
	switch m {
	case Possibly:
		ok := phi.eval(cut)
		if err := phi.failure(cut); err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("Φ does not hold at the cut %s", c.formatCut(cut))
		}
	case Definitely:
		for i, k := range cut {
			if int(k) != len(c.Procs[i].Events) {
				return fmt.Errorf("the history stops before the final state: %s has done %d of %d events", c.Procs[i].Name, k, len(c.Procs[i].Events))
			}
		}
	}
	return nil
}

func stepOf(cut []int32) int {
	n := 0
	for _, k := range cut {
		n += int(k)
	}
	return n
}
