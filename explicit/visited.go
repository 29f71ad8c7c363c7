package explicit

import (
	"sync"
	"sync/atomic"

	"kbmc/ir"
)

// visitedStore is the visited set of a stateful search (dfs --stateful, persistent,
// lazypor's visited-state check): every state the search stored, keyed by the whole
// state — a hash collision never merges two states — with what the search remembers
// of it: the common record of a bounded search (visit) and the algorithm's own (E).
//
// States are copied into large shared blocks and records into fixed-size chunks, so
// that storing a state is one copy without an allocation of its own, and a record
// stays where it is while the store grows.
type visitedStore[E any] struct {
	index   map[uint64]int32 // state hash -> the latest record with that hash
	records recordChunks[visit[E]]
	blocks  stateBlocks
	n       int
}

const (
	visitChunk = 1 << 8 // records per chunk
	// The first chunk is small, and so is the first block of states: a search
	// that stores a handful of states (a subtree, a small program run many
	// times) should not pay for 256 records.
	firstVisitChunk = 16
	maxStateBlock   = 1 << 16 // cells per block of states, once the store has grown
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

func (v *visitedStore[E]) at(i int32) *visit[E] { return v.records.at(i) }

// recordChunks holds the records of a store in chunks that never move, so that
// a record's address stays valid while the store grows. The first chunk is
// small (firstVisitChunk), the others visitChunk records.
type recordChunks[T any] struct {
	chunks [][]T
}

func (r *recordChunks[T]) at(i int32) *T {
	if i < firstVisitChunk {
		return &r.chunks[0][i]
	}
	i -= firstVisitChunk
	return &r.chunks[1+i/visitChunk][i%visitChunk]
}

// add makes room for record i, the next one, and returns it.
func (r *recordChunks[T]) add(i int32) *T {
	switch {
	case i == 0:
		r.chunks = append(r.chunks, make([]T, firstVisitChunk))
	case i >= firstVisitChunk && (i-firstVisitChunk)%visitChunk == 0:
		r.chunks = append(r.chunks, make([]T, visitChunk))
	}
	return r.at(i)
}

// lookup returns the record of s, or nil.
func (v *visitedStore[E]) lookup(s ir.State) *visit[E] {
	e, _ := v.find(s, s.Hash())
	return e
}

// visit returns the record of s, storing s first if it is new (fresh); the
// state is hashed, and its hash looked up in the index, once either way.
func (v *visitedStore[E]) visit(s ir.State) (e *visit[E], fresh bool) {
	h := s.Hash()
	e, head := v.find(s, h)
	if e != nil {
		return e, false
	}
	i := int32(v.n)
	e = v.records.add(i)
	*e = visit[E]{state: v.blocks.copy(s), next: head, budget: -1}
	v.index[h] = i
	v.n++
	return e, true
}

// find returns the record of s, whose hash is h, or nil and the latest record
// with that hash (-1 for none), which a new record chains to.
func (v *visitedStore[E]) find(s ir.State, h uint64) (e *visit[E], head int32) {
	i, ok := v.index[h]
	if !ok {
		return nil, -1
	}
	head = i
	for i >= 0 {
		r := v.at(i)
		if r.state.Equal(s) {
			return r, head
		}
		i = r.next
	}
	return nil, head
}

// stateBlocks holds stored states, copied into large shared blocks, so that
// storing a state is one copy without an allocation of its own.
type stateBlocks struct {
	block []int64 // the block states are being copied into
}

// copy copies s into the current block and returns the copy.
func (b *stateBlocks) copy(s ir.State) ir.State {
	if len(s) > cap(b.block)-len(b.block) {
		// Blocks double up to maxStateBlock, so that small searches stay small.
		b.block = make([]int64, 0, max(min(2*cap(b.block), maxStateBlock), 4*len(s)))
	}
	n := len(b.block)
	b.block = append(b.block, s...)
	return ir.State(b.block[n : n+len(s) : n+len(s)])
}

func (v *visitedStore[E]) len() int { return v.n }

// sharedVisited is the visited set that the searches of one parallel run share
// (dfs --stateful on several workers, parallel.go): each subtree's search finds
// there what the others have explored, so that subtrees that reach the same states
// do not explore them again.
//
// A record tells the others two things. What a completed exploration of the state
// found (its budget and height, published together, atomically, when the
// exploration ends: an exploration under way has not covered its subtree yet, so
// nobody may skip the state on its account), and which workers are exploring it
// now (a bit per worker, for the first 64): reaching a state that the worker's own stack holds is a
// cycle, as in the sequential search; reaching one that only another worker's
// stack holds is not, and the state is explored again.
//
// The store is split into shards by the state's hash, each with its own lock,
// index and blocks as in visitedStore: looking a state up and storing it if it
// is new is one step under its shard's lock, the workers rarely want the same
// shard at once, and once the blocks have grown nothing is allocated. A record
// never moves, so its atomics are read and written without the lock.
type sharedVisited struct {
	shards [visitedShards]visitedShard
}

const visitedShards = 128

type visitedShard struct {
	mu      sync.Mutex
	index   map[uint64]int32
	records recordChunks[sharedVisit]
	blocks  stateBlocks
	n       int
	_       [64]byte // keeps neighbouring shards' locks off one cache line
}

type sharedVisit struct {
	state ir.State
	next  int32 // the previous record of the shard with the same hash, or -1
	// done is the completed exploration with the largest budget: budget<<32 |
	// height (see visit); budget -1 until one completes.
	done atomic.Uint64
	// active has bit w set while worker w < 64 explores the state.
	active atomic.Uint64
}

func newSharedVisited() *sharedVisited {
	v := new(sharedVisited)
	for i := range v.shards {
		v.shards[i].index = map[uint64]int32{}
	}
	return v
}

// visit returns the record of s, storing s first if it is new (fresh).
func (v *sharedVisited) visit(s ir.State) (e *sharedVisit, fresh bool) {
	h := s.Hash()
	sh := &v.shards[h>>57] // ir.State.Hash mixes its high bits well
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i, ok := sh.index[h]
	prev := int32(-1)
	if ok {
		prev = i
	}
	for ok && i >= 0 {
		e := sh.records.at(i)
		if e.state.Equal(s) {
			return e, false
		}
		i = e.next
	}
	i = int32(sh.n)
	e = sh.records.add(i)
	e.state = sh.blocks.copy(s)
	e.next = prev
	e.done.Store(packVisit(-1, 0))
	sh.index[h] = i
	sh.n++
	return e, true
}

func packVisit(budget, height int) uint64 {
	return uint64(uint32(int32(budget)))<<32 | uint64(uint32(int32(height)))
}

// completed returns the budget and height of the completed exploration of the
// state with the largest budget; budget -1 if none has completed.
func (e *sharedVisit) completed() (budget, height int) {
	d := e.done.Load()
	return int(int32(d >> 32)), int(int32(d))
}

// publish records that an exploration of the state with budget found height,
// unless one with at least that budget has been published already. Heights are
// min(longest execution, budget+1) whichever worker computes them, so the record
// with the larger budget says everything the smaller one does.
func (e *sharedVisit) publish(budget, height int) {
	for {
		d := e.done.Load()
		if int(int32(d>>32)) >= budget || e.done.CompareAndSwap(d, packVisit(budget, height)) {
			return
		}
	}
}

// len is the number of states stored; only exact once the searches have ended.
func (v *sharedVisited) len() int {
	n := 0
	for i := range v.shards {
		sh := &v.shards[i]
		sh.mu.Lock()
		n += sh.n
		sh.mu.Unlock()
	}
	return n
}
