package detect

// formula evaluates Φ during a search. When Φ is a conjunction of 1-local
// predicates it keeps, for each process, whether the conjunction of that
// process's conjuncts holds in each of its local states (one bit per state), and
// the number of processes whose conjunction is false in the current state, so
// that Φ costs O(1) per state and the searches can ask about single processes.
type formula struct {
	p          *Predicate
	lens       []int32
	local      bool
	ok         [][]uint64 // per process; nil when no conjunct reads it
	constFalse bool       // a conjunct that reads no process is false
	falses     int        // processes whose conjunction is false now
	doneFalse  int        // of those, processes that have done all their events
}

func (f *formula) init(p *Predicate, lens []int32) error {
	f.p, f.lens, f.local = p, lens, p.OneLocal()
	if !f.local {
		return nil
	}
	n := len(lens)
	f.ok = make([][]uint64, n)
	cut := make([]int32, n)
	for _, c := range p.conj {
		if c.konst {
			f.constFalse = f.constFalse || c.val == 0
			continue
		}
		i := c.procs[0]
		bits := f.ok[i]
		if bits == nil {
			bits = make([]uint64, (lens[i]+1+63)/64)
			for w := range bits {
				bits[w] = ^uint64(0)
			}
			f.ok[i] = bits
		}
		for k := int32(0); k <= lens[i]; k++ {
			cut[i] = k
			if c.fn(cut) == 0 {
				bits[k>>6] &^= 1 << (k & 63)
			}
		}
		cut[i] = 0
		if err := p.failure(cut); err != nil {
			return err
		}
	}
	for i := range n {
		if !f.okAt(i, 0) {
			f.falses++
			if lens[i] == 0 {
				f.doneFalse++
			}
		}
	}
	return nil
}

// okAt reports whether process i's conjunction holds in its local state k.
func (f *formula) okAt(i int, k int32) bool {
	bits := f.ok[i]
	return bits == nil || bits[k>>6]&(1<<(k&63)) != 0
}

// moved updates the counts when process i goes from local state from to to.
func (f *formula) moved(i int, from, to int32) {
	if !f.local || f.ok[i] == nil {
		return
	}
	a, b := f.okAt(i, from), f.okAt(i, to)
	if a == b && from != f.lens[i] && to != f.lens[i] {
		return
	}
	if !a {
		f.falses--
		if from == f.lens[i] {
			f.doneFalse--
		}
	}
	if !b {
		f.falses++
		if to == f.lens[i] {
			f.doneFalse++
		}
	}
}

// holds evaluates Φ in cut.
func (f *formula) holds(cut []int32) bool {
	if f.local {
		return f.falses == 0 && !f.constFalse
	}
	return f.p.eval(cut)
}

// neverAgain reports, for a 1-local Φ, that Φ cannot hold in this state or any
// later one: some process whose conjunction is false has no events left.
func (f *formula) neverAgain() bool { return f.constFalse || f.doneFalse > 0 }
