package explicit

import "kbmc/ir"

// stateSet is a visited set keyed by the full state (not only its hash: a hash
// collision must never prune an unexplored state). It remembers the largest remaining
// depth a state was explored with, so that a state reached again closer to the root
// is explored again.
type stateSet struct {
	buckets map[uint64][]visit
	n       int
}

type visit struct {
	state  ir.State
	budget int
}

func newStateSet() *stateSet { return &stateSet{buckets: map[uint64][]visit{}} }

// add records s with the given remaining depth; it reports false if s was already
// explored with at least that budget.
func (v *stateSet) add(s ir.State, budget int) bool {
	h := s.Hash()
	b := v.buckets[h]
	for i := range b {
		if b[i].state.Equal(s) {
			if b[i].budget >= budget {
				return false
			}
			b[i].budget = budget
			return true
		}
	}
	v.buckets[h] = append(b, visit{s.Clone(), budget})
	v.n++
	return true
}

func (v *stateSet) len() int { return v.n }
