package explicit

import "kbmc/ir"

// visitedStore is the visited set of a stateful search (dfs --stateful, persistent,
// lazypor's visited-state check): every state the search stored, keyed by the whole
// state — a hash collision never merges two states — with what the search remembers
// of it: the common record of a bounded search (visit) and the algorithm's own (E).
//
// States are copied into large shared blocks and records into fixed-size chunks, so
// that storing a state is one copy without an allocation of its own, and a record
// stays where it is while the store grows.
type visitedStore[E any] struct {
	index  map[uint64]int32 // state hash -> the latest record with that hash
	chunks [][]visit[E]
	block  []int64 // the block states are being copied into
	n      int
}

const (
	visitChunk    = 1 << 8  // records per chunk
	maxStateBlock = 1 << 16 // cells per block of states, once the store has grown
)

// visit is what a bounded stateful search remembers of a state.
type visit[E any] struct {
	state  ir.State
	next   int32 // the previous record with the same hash, or -1
	budget int32 // the largest remaining depth it was explored with; -1: not yet
	height int32 // the longest execution found from it then (budget+1: some went past the bound)
	active int32 // explorations of it under way on the search stack: reaching it again closes a cycle
	own    E
}

func newVisitedStore[E any]() *visitedStore[E] {
	return &visitedStore[E]{index: map[uint64]int32{}}
}

func (v *visitedStore[E]) at(i int32) *visit[E] {
	return &v.chunks[i/visitChunk][i%visitChunk]
}

// lookup returns the record of s, or nil.
func (v *visitedStore[E]) lookup(s ir.State) *visit[E] {
	i, ok := v.index[s.Hash()]
	for ok && i >= 0 {
		e := v.at(i)
		if e.state.Equal(s) {
			return e
		}
		i = e.next
	}
	return nil
}

// insert records s, which must not be present, and returns its new record.
func (v *visitedStore[E]) insert(s ir.State) *visit[E] {
	h := s.Hash()
	prev, ok := v.index[h]
	if !ok {
		prev = -1
	}
	i := int32(v.n)
	if int(i)%visitChunk == 0 {
		v.chunks = append(v.chunks, make([]visit[E], visitChunk))
	}
	e := v.at(i)
	*e = visit[E]{state: v.copyState(s), next: prev, budget: -1}
	v.index[h] = i
	v.n++
	return e
}

// copyState copies s into the current block of states.
func (v *visitedStore[E]) copyState(s ir.State) ir.State {
	if len(s) > cap(v.block)-len(v.block) {
		// Blocks double up to maxStateBlock, so that small searches stay small.
		v.block = make([]int64, 0, max(min(2*cap(v.block), maxStateBlock), 16*len(s)))
	}
	n := len(v.block)
	v.block = append(v.block, s...)
	return ir.State(v.block[n : n+len(s) : n+len(s)])
}

func (v *visitedStore[E]) len() int { return v.n }
