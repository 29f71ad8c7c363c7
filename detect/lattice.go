package detect

// lattice is Cooper and Marzullo's search: it builds the lattice of consistent
// global states level by level (level ℓ holds the states with ℓ events done),
// each state once. For Poss Φ it stops at the first state satisfying Φ; for Def Φ
// it keeps only the states reachable through states that do not satisfy Φ, and
// Def Φ fails iff the final state is among them. It is the reference the other
// searches are tested against, and written to be plainly right rather than
// fast.
func (s *search) lattice(res *Result) error {
	set := newStateSet(s.n, 0)
	var parent, via []int32 // per state: the state and process it was first reached from
	set.insert(s.h, s.cut)
	parent, via = append(parent, -1), append(via, -1)
	s.stats.States = 1
	if done, err := s.initial(res); done || err != nil {
		return err
	}
	history := func(id int32) []int {
		var h []int
		for ; parent[id] >= 0; id = parent[id] {
			h = append(h, int(via[id]))
		}
		for i, j := 0, len(h)-1; i < j; i, j = i+1, j-1 {
			h[i], h[j] = h[j], h[i]
		}
		return h
	}
	st := make([]int32, s.n)
	for lo, hi := 0, 1; lo < hi; lo, hi = hi, set.count {
		for id := int32(lo); id < int32(hi); id++ {
			copy(st, set.at(id))
			s.load(st)
			for i := range s.n {
				if !s.enabled(i) {
					continue
				}
				if err := s.poll(); err != nil {
					return err
				}
				s.stats.Transitions++
				s.advance(i)
				ok, err := s.holds()
				if err != nil {
					return err
				}
				if s.m == Definitely && ok {
					s.retreat(i) // the Def system's guard: no step into Φ
					continue
				}
				nid, added := set.insert(s.h, s.cut)
				if added {
					s.stats.States++
					parent, via = append(parent, id), append(via, int32(i))
					if s.m == Possibly && ok || s.m == Definitely && s.isFinal() {
						res.Witness = &Witness{Cut: s.cutCopy(), History: history(nid)}
						return nil
					}
				}
				s.retreat(i)
			}
		}
	}
	return nil
}

// initial decides the cases the initial state settles: Poss Φ and Def Φ hold if
// Φ holds there; Def Φ fails if the computation has no events and Φ does not
// hold. It reports whether it decided.
func (s *search) initial(res *Result) (bool, error) {
	ok, err := s.holds()
	if err != nil {
		return true, err
	}
	switch {
	case ok && s.m == Possibly, !ok && s.m == Definitely && s.isFinal():
		res.Witness = &Witness{Cut: s.cutCopy(), History: []int{}}
		return true, nil
	case ok: // Def Φ holds: every history starts where Φ holds
		return true, nil
	}
	return false, nil
}
