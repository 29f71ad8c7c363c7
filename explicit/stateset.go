package explicit

import "kbmc/ir"

// stateSet is a visited set keyed by the full state (not only its hash: a hash
// collision must never prune an unexplored state).
type stateSet struct {
	buckets map[uint64][]*visit
	n       int
}

// visit is what a stateful search remembers of a state.
type visit struct {
	state   ir.State
	budget  int  // the largest remaining depth it was explored with
	height  int  // the longest execution from it found then (budget+1: some went past the bound)
	onStack bool // its exploration is in progress: reaching it again closes a cycle
}

func newStateSet() *stateSet { return &stateSet{buckets: map[uint64][]*visit{}} }

// lookup returns the record of s, or nil.
func (v *stateSet) lookup(s ir.State) *visit {
	for _, e := range v.buckets[s.Hash()] {
		if e.state.Equal(s) {
			return e
		}
	}
	return nil
}

// insert records s (which must not be present) and returns its record.
func (v *stateSet) insert(s ir.State) *visit {
	h := s.Hash()
	e := &visit{state: s.Clone()}
	v.buckets[h] = append(v.buckets[h], e)
	v.n++
	return e
}

func (v *stateSet) len() int { return v.n }
