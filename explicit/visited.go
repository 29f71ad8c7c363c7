package explicit

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"kbmc/ir"
)

// visitedStore is the visited set of a stateful search (dfs --stateful, persistent,
// lazypor's visited-state check): every state the search stored, keyed by the whole
// state — a hash collision never merges two states (but in a lossy mode the user
// asked for, below) — with what the search remembers of it: the common record of a
// bounded search (visit) and the algorithm's own (E).
//
// States are packed (packedState) into large shared blocks and records into
// fixed-size chunks, so that storing a state is one copy without an allocation of
// its own, and a record stays where it is while the store grows. A record names
// its state by block and offset (stateRef), not by a slice: a stored state costs
// its packed bytes, its record and its share of the index, and nothing in the
// store holds a pointer per state for the garbage collector to follow.
//
// A lossy store (storeMode) keeps less: with hash compaction a state's record,
// which holds the state's 64-bit hash where an exact record names its packed
// bytes, and no state, so that two states with one hash are one; with a bit
// array (bitstate), only the bits that a state's hashes set, and no record.
type visitedStore[E any] struct {
	index   []visitSlot // a slot's ref is its record's number plus one
	records recordChunks[visit[E]]
	blocks  stateBlocks
	n       int
	mode    storeMode
	// bitstate: the bit array (allocated on first use), and the records
	// visit returns, which the store does not keep: scratch for every new
	// state (reset but for own: persistent's sets, which nothing reads after
	// the visit that chose them), seen for one seen before (explored with any
	// budget, on no search's path, so that every algorithm skips it).
	bits          []uint64
	scratch, seen visit[E]
	// key holds the state being looked up, packed: the store hashes and
	// compares packed states (see key).
	key []byte
}

// storeMode is how a visitedStore tells states apart: exactly (the zero
// value), by their 64-bit hash (hash compaction), or by the bits their hashes
// set in a bit array of bits bits, a power of two (bitstate).
type storeMode struct {
	kind int
	bits int
}

const (
	exactStore = iota
	hashCompactStore
	bitStateStore
)

// bitHashes is how many bits a state sets in a bitstate store's array (SPIN's
// default -k3).
const bitHashes = 3

// bitstateBits is the number of bits of a bit array of at most mb MiB
// (DefaultBitstateMB if mb <= 0): a power of two.
func bitstateBits(mb int) int {
	if mb <= 0 {
		mb = DefaultBitstateMB
	}
	return 1 << (bits.Len(uint(mb)<<23) - 1)
}

const (
	visitChunk = 1 << 8 // records per chunk
	// The first chunk is small, and so is the first block of states: a search
	// that stores a handful of states (a subtree, a small program run many
	// times) should not pay for 256 records.
	firstVisitChunk = 16
	maxStateBlock   = 1 << 19 // bytes per block of states, once the store has grown
)

// visit is what a bounded stateful search remembers of a state.
type visit[E any] struct {
	state  stateRef
	budget int32 // the largest remaining depth it was explored with; -1: not yet
	height int32 // the longest execution found from it then (budget+1: some went past the bound)
	active int32 // explorations of it under way on the search stack: reaching it again closes a cycle
	own    E
}

func newVisitedStore[E any](mode storeMode) *visitedStore[E] {
	v := &visitedStore[E]{mode: mode}
	if mode.kind != bitStateStore {
		v.index = newStateIndex()
	}
	return v
}

func (v *visitedStore[E]) at(i int32) *visit[E] { return v.records.at(i) }

// recordChunks holds the records of a store in chunks that never move, so that
// a record's address stays valid while the store grows. The first chunk is
// small (firstVisitChunk), the others visitChunk records. Adding a chunk
// publishes a new directory (append writes only past what readers of the old
// one see), read atomically: in sharedVisited, other workers read an owner's
// records while it adds more.
type recordChunks[T any] struct {
	dir atomic.Pointer[[][]T]
}

func (r *recordChunks[T]) at(i int32) *T {
	d := *r.dir.Load()
	if i < firstVisitChunk {
		return &d[0][i]
	}
	i -= firstVisitChunk
	return &d[1+i/visitChunk][i%visitChunk]
}

// add makes room for record i, the next one, and returns it. Adding the same
// record again returns it again: sharedVisited prepares a record before it
// knows whether the state is new.
func (r *recordChunks[T]) add(i int32) *T {
	chunks := 0 // how many chunks record i needs
	if i < firstVisitChunk {
		chunks = 1
	} else {
		chunks = 2 + int((i-firstVisitChunk)/visitChunk)
	}
	have := 0
	if p := r.dir.Load(); p != nil {
		have = len(*p)
	}
	if have < chunks {
		r.grow()
	}
	return r.at(i)
}

// grow adds a chunk.
func (r *recordChunks[T]) grow() {
	var d [][]T
	size := firstVisitChunk
	if p := r.dir.Load(); p != nil {
		d, size = *p, visitChunk
	}
	c := make([]T, size)
	clear(c) // written before the garbage collector reads it: see newIndex
	d = append(d, c)
	r.dir.Store(&d)
}

// key packs s into the store's scratch key and returns it with its hash. A
// sequential store hashes and compares states packed, not their cells: the
// packing is canonical (the least width), so two states are equal exactly
// when their packings are, and a packed state is an eighth of the words to
// hash and a byte comparison (bytes.HasPrefix) to compare, where most lookups
// find a state stored before. Packing it costs one pass over the cells, and
// storing a new state is then a copy.
func (v *visitedStore[E]) keyOf(s ir.State) (packedState, uint64) {
	k := appendPacked(v.key[:0], s)
	v.key = k
	return k, ir.HashBytes(k)
}

// lookup returns the record of s, or nil.
func (v *visitedStore[E]) lookup(s ir.State) *visit[E] {
	k, h := v.keyOf(s)
	if v.mode.kind == bitStateStore {
		if !v.bitsSet(h, false) {
			return nil
		}
		v.seen = visit[E]{budget: math.MaxInt32}
		return &v.seen
	}
	e, _ := v.find(k, h)
	return e
}

// visit returns the record of s, storing s first if it is new (fresh); the
// state is hashed, and its hash looked up in the index, once either way.
func (v *visitedStore[E]) visit(s ir.State) (e *visit[E], fresh bool) {
	k, h := v.keyOf(s)
	if v.mode.kind == bitStateStore {
		return v.visitBits(h)
	}
	e, slot := v.find(k, h)
	if e != nil {
		return e, false
	}
	i := int32(v.n)
	e = v.records.add(i)
	*e = visit[E]{budget: -1}
	if v.mode.kind == exactStore {
		e.state = v.blocks.add(k)
	} else {
		e.state = hashRef(h)
	}
	v.n++
	v.index[slot].set(seqSlots.word(h, uint64(v.n)))
	if 4*v.n > 3*len(v.index) {
		v.grow()
	}
	return e, true
}

// grow replaces the index with one twice as large.
func (v *visitedStore[E]) grow() {
	slots := newIndex(2 * len(v.index))
	regrow(v.index, slots, seqSlots, func(ref uint64) uint64 {
		e := v.at(int32(ref - 1))
		if v.mode.kind == hashCompactStore {
			return e.state.hash()
		}
		return ir.HashBytes(v.blocks.packed(e.state).trim())
	})
	v.index = slots
}

// visitBits is visit in a bitstate store: a state is new unless every one of
// its bits is set, and sets them.
func (v *visitedStore[E]) visitBits(h uint64) (*visit[E], bool) {
	if !v.bitsSet(h, true) {
		v.n++
		v.scratch = visit[E]{budget: -1, own: v.scratch.own}
		return &v.scratch, true
	}
	v.seen = visit[E]{budget: math.MaxInt32}
	return &v.seen, false
}

// bitsSet reports whether the bitHashes bits of the hash h are set in the bit
// array, and sets them if set says so. The bits are h + i*h2 for a second
// hash h2 made from h's other half (double hashing), odd so that the k bits
// differ.
func (v *visitedStore[E]) bitsSet(h uint64, set bool) bool {
	if v.bits == nil {
		v.bits = make([]uint64, v.mode.bits/64)
	}
	mask := uint64(v.mode.bits - 1)
	h2 := bits.RotateLeft64(h, 32)*0x9e3779b97f4a7c15 | 1
	all := true
	for i := range uint64(bitHashes) {
		b := (h + i*h2) & mask
		w, m := &v.bits[b>>6], uint64(1)<<(b&63)
		if *w&m == 0 {
			all = false
			if set {
				*w |= m
			}
		}
	}
	return all
}

// find returns the record of the state packed as k, whose hash is h, or nil
// and the empty slot of the index where it would go. With hash compaction,
// the record of any state with hash h is its.
func (v *visitedStore[E]) find(k packedState, h uint64) (*visit[E], uint64) {
	ref, slot := probe(v.index, h, seqSlots, func(ref uint64) bool {
		if v.mode.kind == hashCompactStore {
			return v.at(int32(ref-1)).state.hash() == h
		}
		// A packed state's header is a uvarint, which says where it
		// ends: a stored state that starts with k is k.
		return bytes.HasPrefix(v.blocks.packed(v.at(int32(ref-1)).state), k)
	})
	if ref == 0 {
		return nil, slot
	}
	return v.at(int32(ref - 1)), slot
}

// A state index maps a state's hash to the records of the states with that hash:
// open addressing with linear probing over slots, a power of two of them, at
// most 3/4 used (the caller grows it). Not a Go map: a map's header and tables
// are objects of their own, read on every lookup and written on every
// insertion, one more cache miss per state in a search that spends most of its
// time fetching stored states, and in sharedVisited, whose shards' maps shared
// cache lines, lines that two workers passed back and forth on nearly every
// state. A slot is one word, written once with an atomic store that publishes
// the record, so that sharedVisited can look states up without a lock; the
// sequential store pays one atomic store per new state, and nothing per lookup.

// visitSlot is a slot of a state index: a stored state's record (its ref, in
// the low bits that the index's slotFormat says, never 0) and, in the others,
// the low bits of its hash, which a lookup compares before it compares states,
// and which give a slot's position in a larger index (regrow). 0 is an empty
// slot. 8 bytes, not the 16 of a whole hash beside the record: a stored state
// costs 10–20 bytes less.
type visitSlot struct{ w atomic.Uint64 }

func (sl *visitSlot) set(w uint64) {
	sl.w.Store(w) // publishes the record
}

// slotFormat is the number of a slot's bits that hold its ref: 32 in a
// sequential store (a record's number plus one), more in a shared one (the
// owner's too); the other 64-f bits hold the hash's low bits.
type slotFormat uint

const seqSlots slotFormat = 32

// word is the slot of ref, the record of a state with hash h.
func (f slotFormat) word(h, ref uint64) uint64 { return h<<f | ref }

func (f slotFormat) ref(w uint64) uint64 { return w & (1<<f - 1) }

// hashBits is the low bits of the hash that slot w holds.
func (f slotFormat) hashBits(w uint64) uint64 { return w >> f }

// gives reports whether the hash bits of a slot give its position in an
// index of n slots.
func (f slotFormat) gives(n int) bool { return uint64(n-1)>>(64-f) == 0 }

// firstIndexSlots is the size of a state index at first.
const firstIndexSlots = 64

func newStateIndex() []visitSlot { return make([]visitSlot, firstIndexSlots) }

// probe returns the record of the state with hash h in slots of format f, the
// ref for which same says yes; or 0 and the empty slot where that state would
// go.
func probe(slots []visitSlot, h uint64, f slotFormat, same func(ref uint64) bool) (ref, slot uint64) {
	mask := uint64(len(slots) - 1)
	tag := h << f
	refMask := uint64(1)<<f - 1
	i := h & mask
	for {
		w := slots[i].w.Load()
		if w == 0 {
			return 0, i
		}
		if w&^refMask == tag && same(w&refMask) {
			return w & refMask, i
		}
		i = (i + 1) & mask
	}
}

// newIndex returns an empty index of n slots, a power of two.
func newIndex(n int) []visitSlot {
	slots := make([]visitSlot, n)
	// Write every slot now. A new allocation may come as untouched pages,
	// which a reader (a lookup, the garbage collector scanning records) maps
	// to the kernel's shared zero page; the first write into each would then
	// replace it and flush the translation caches of every core running the
	// process, an interrupt to the other workers.
	clear(slots)
	return slots
}

// regrow copies the slots of old, of format f, into slots, a larger index
// nobody reads yet. A slot goes where its hash bits say, in the order of the
// old index, which writes the new one nearly in order too; where they are too
// few for the new size (a shared store of many owners), the state's hash, which
// hash returns for a ref, does.
func regrow(old, slots []visitSlot, f slotFormat, hash func(ref uint64) uint64) {
	mask := uint64(len(slots) - 1)
	stored := f.gives(len(slots))
	for j := range old {
		w := old[j].w.Load()
		if w == 0 {
			continue
		}
		var i uint64
		if stored {
			i = f.hashBits(w) & mask
		} else {
			i = hash(f.ref(w)) & mask
		}
		for slots[i].w.Load() != 0 {
			i = (i + 1) & mask
		}
		slots[i].set(w)
	}
}

// stateBlocks holds stored states, packed into large shared blocks, so that
// storing a state is one copy without an allocation of its own. Only the owner
// packs; others (sharedVisited) read the states it has published, through the
// directory of blocks, which is replaced atomically when a block is added
// (append writes only past what readers of the old one see).
type stateBlocks struct {
	dir     atomic.Pointer[[][]byte] // every block, at its full length
	used    int                      // bytes written into the last block
	scratch []byte                   // pack's
}

// stateRef names a packed state in a stateBlocks: its block and its offset
// there. Two uint32s, not a slice: 8 bytes per record instead of 24, and no
// pointer.
type stateRef struct{ block, at uint32 }

// hashRef is the stateRef of a record of a hash-compaction store, which keeps
// the state's hash where an exact store names its state.
func hashRef(h uint64) stateRef { return stateRef{block: uint32(h >> 32), at: uint32(h)} }

// hash is the hash a hashRef keeps.
func (r stateRef) hash() uint64 { return uint64(r.block)<<32 | uint64(r.at) }

// pack packs s into the current block and returns where.
func (b *stateBlocks) pack(s ir.State) stateRef {
	b.scratch = appendPacked(b.scratch[:0], s)
	return b.add(b.scratch)
}

// add copies the packed state k into the current block and returns where.
func (b *stateBlocks) add(k packedState) stateRef {
	var d [][]byte
	if p := b.dir.Load(); p != nil {
		d = *p
	}
	if len(d) == 0 || len(k) > len(d[len(d)-1])-b.used {
		d = b.grow(len(k))
	}
	at := b.used
	b.used += copy(d[len(d)-1][at:], k)
	return stateRef{block: uint32(len(d) - 1), at: uint32(at)}
}

// appendPacked returns s packed (packedState), in dst if it has room.
func appendPacked(dst []byte, s ir.State) packedState {
	head := uint64(len(s)) << 2 // and the log of the width, which leaves the length of the uvarint alone
	k := uvarintLen(head)
	if need := k + 8*len(s); cap(dst) < need {
		dst = make([]byte, need)
	}
	dst = dst[:cap(dst)]
	// Most states' cells all fit in a byte: pack them so while finding their
	// width, in one pass over the state, and again only if they do not.
	// A cell fits in a byte when v+128 is in [0, 256): or'd together, these
	// say whether every cell does with one addition and one or a cell; four
	// cells an iteration.
	c := dst[k : k+len(s)]
	var fit uint64
	i := 0
	for ; i+4 <= len(s) && i+4 <= len(c); i += 4 {
		q, b := s[i:i+4:i+4], c[i:i+4:i+4]
		b[0], b[1], b[2], b[3] = byte(q[0]), byte(q[1]), byte(q[2]), byte(q[3])
		fit |= uint64(q[0]+128) | uint64(q[1]+128) | uint64(q[2]+128) | uint64(q[3]+128)
	}
	for ; i < len(s) && i < len(c); i++ {
		c[i] = byte(s[i])
		fit |= uint64(s[i] + 128)
	}
	w := 1
	if fit >= 256 {
		var m uint64
		for _, v := range s {
			m |= uint64(v ^ v>>63) // the bits v needs besides its sign
		}
		w = widthOf(m)
	}
	binary.PutUvarint(dst, head|uint64(bits.TrailingZeros(uint(w))))
	c = dst[k:]
	switch w {
	case 2:
		for i, v := range s {
			binary.LittleEndian.PutUint16(c[2*i:], uint16(v))
		}
	case 4:
		for i, v := range s {
			binary.LittleEndian.PutUint32(c[4*i:], uint32(v))
		}
	case 8:
		for i, v := range s {
			binary.LittleEndian.PutUint64(c[8*i:], uint64(v))
		}
	}
	return dst[:k+w*len(s)]
}

// grow adds a block with room for n bytes at least and returns the directory.
func (b *stateBlocks) grow(n int) [][]byte {
	var d [][]byte
	size := 0
	if p := b.dir.Load(); p != nil {
		d = *p
		size = len(d[len(d)-1])
	}
	// Blocks double up to maxStateBlock, so that small searches stay small.
	d = append(d, make([]byte, max(min(2*size, maxStateBlock), 4*n)))
	b.dir.Store(&d)
	b.used = 0
	return d
}

// packed returns the packed state r names (running on to the end of its block).
func (b *stateBlocks) packed(r stateRef) packedState {
	return packedState((*b.dir.Load())[r.block][r.at:])
}

// drop takes the state r names, packed last, back out of the current block.
func (b *stateBlocks) drop(r stateRef) {
	if d := *b.dir.Load(); int(r.block) == len(d)-1 {
		b.used = int(r.at)
	}
}

// bytes is the size of the blocks.
func (b *stateBlocks) bytes() int {
	n := 0
	if p := b.dir.Load(); p != nil {
		for _, blk := range *p {
			n += len(blk)
		}
	}
	return n
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// packedState is a state as the visited stores keep it: a header, the number of
// cells times 4 plus the log of a width, 1, 2, 4 or 8, as a uvarint (one byte
// up to 31 cells, two up to 4095), then every cell in that many bytes
// (little-endian, two's complement), the least width that holds every cell of
// the state. A packedState may run on past its state (packed returns the rest
// of the block); the header says where it ends. Most cells
// are small — program counters, flags, counters, array entries still zero — so
// most states take an eighth of their size in memory. A stateful search is bound
// by memory: on indexer N = 6 (1.8 million states of 152 cells) copying states
// into the store, and the page faults that brings, was half the run's time, and
// two workers shared the bandwidth, not the work.
type packedState []byte

// widthOf returns the least width of packedState that holds cells whose
// bits besides their signs are m, or'd together.
func widthOf(m uint64) int {
	switch n := bits.Len64(m); {
	case n < 8:
		return 1
	case n < 16:
		return 2
	case n < 32:
		return 4
	}
	return 8
}

// trim returns p without the bytes past its state.
func (p packedState) trim() packedState {
	head, k := binary.Uvarint(p)
	return p[:k+int(head>>2)<<(head&3)]
}

// header returns the number of cells and the width of p, and its cells.
func (p packedState) header() (n, w int, c []byte) {
	head, k := binary.Uvarint(p)
	n, w = int(head>>2), 1<<(head&3)
	return n, w, p[k : k+n*w]
}

// equal reports whether p is the packing of s.
func (p packedState) equal(s ir.State) bool {
	n, w, c := p.header()
	if n != len(s) {
		return false
	}
	switch w {
	case 1:
		c := c[:len(s)] // one bounds check, none in the loop
		for i, v := range s {
			if int64(int8(c[i])) != v {
				return false
			}
		}
	case 2:
		for i, v := range s {
			if int64(int16(binary.LittleEndian.Uint16(c[2*i:]))) != v {
				return false
			}
		}
	case 4:
		for i, v := range s {
			if int64(int32(binary.LittleEndian.Uint32(c[4*i:]))) != v {
				return false
			}
		}
	default:
		for i, v := range s {
			if int64(binary.LittleEndian.Uint64(c[8*i:])) != v {
				return false
			}
		}
	}
	return true
}

// unpackState returns the state ps is the packing of, in dst if it has room:
// its identity cells (ir.Program.IdentityCells), as stores keep them, and the
// channels' heads at 0.
func unpackState(p *ir.Program, ps packedState, dst ir.State) ir.State {
	s := ps.unpack(dst)
	for range p.StateSize - len(s) {
		s = append(s, 0)
	}
	return s
}

// unpack returns the state p is the packing of, in dst if it has room.
func (p packedState) unpack(dst ir.State) ir.State {
	n, w, c := p.header()
	s := dst[:0]
	if cap(s) >= n {
		s = s[:n]
	} else {
		s = make(ir.State, n)
	}
	switch w {
	case 1:
		for i := range s {
			s[i] = int64(int8(c[i]))
		}
	case 2:
		for i := range s {
			s[i] = int64(int16(binary.LittleEndian.Uint16(c[2*i:])))
		}
	case 4:
		for i := range s {
			s[i] = int64(int32(binary.LittleEndian.Uint32(c[4*i:])))
		}
	default:
		for i := range s {
			s[i] = int64(binary.LittleEndian.Uint64(c[8*i:]))
		}
	}
	return s
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
// now (a bit per worker, for the first 64): reaching a state that the worker's own
// stack holds is a cycle, as in the sequential search; reaching one that only
// another worker's stack holds is not, and the state is explored again.
//
// The index is split into shards by the state's hash, each with its own lock:
// looking a state up and storing it if it is new is one step under its shard's
// lock, and the workers rarely want the same shard at once. The records and the
// states are kept apart from the index, per owner (a worker, or the frontier),
// in the order that owner stored them, as in visitedStore: a search mostly
// revisits states it stored a moment ago, which are then still in its core's
// cache, and no two workers write to the same cache lines when they store
// states. A record never moves, so its atomics are read and written without a
// lock; once the blocks have grown nothing is allocated.
type sharedVisited[E any] struct {
	shards    [visitedShards]visitedShard
	owners    []visitOwner[E]
	ownerBits uint       // of a visitRef
	slots     slotFormat // of the shards' indexes
}

const visitedShards = 128

type visitedShard struct {
	// The shard's state index. A lookup reads it without the lock: a slot is
	// written once, and a larger index replaces the whole array (the old one
	// stays valid, and misses only states stored since). Only a state not
	// found takes the lock, looks again and stores it. Most visits find their
	// state, so the lock's cache line, which the other core wrote a moment ago
	// half of the time, seldom moves between cores.
	index atomic.Pointer[[]visitSlot]
	_     [56]byte // the readers' line, apart from the writers'
	mu    sync.Mutex
	used  int
	_     [48]byte // keeps neighbouring shards' locks off one cache line
}

// visitRef names a record of a sharedVisited: its number in its owner's
// records plus one, then its owner in the store's ownerBits bits, so that the
// zero value names none; 32+ownerBits bits in all.
type visitRef uint64

func (v *sharedVisited[E]) makeRef(owner int, i int32) visitRef {
	return visitRef(uint64(i)+1)<<v.ownerBits | visitRef(owner)
}

// visitOwner is what one owner stored: only that owner writes here, and others
// read a record only after finding it in a shard's index, where it is
// published (an atomic store) once complete.
type visitOwner[E any] struct {
	records recordChunks[sharedVisit[E]]
	blocks  stateBlocks
	n       int32
	_       [64]byte // keeps owners' counters apart
}

type sharedVisit[E any] struct {
	// own is what the algorithm keeps besides (first: a zero-size last field
	// would be padded).
	own   E
	state stateRef
	// done is the completed exploration with the largest budget: budget<<32 |
	// height (see visit); budget -1 until one completes.
	done atomic.Uint64
	// active has bit w set while worker w < 64 explores the state.
	active atomic.Uint64
}

// newSharedVisited returns a store for owners owners, numbered from 0.
func newSharedVisited[E any](owners int) *sharedVisited[E] {
	v := &sharedVisited[E]{owners: make([]visitOwner[E], owners), ownerBits: uint(bits.Len(uint(owners - 1)))}
	v.slots = seqSlots + slotFormat(v.ownerBits)
	for i := range v.shards {
		slots := newStateIndex()
		v.shards[i].index.Store(&slots)
	}
	return v
}

func (v *sharedVisited[E]) record(r visitRef) *sharedVisit[E] {
	return v.owner(r).records.at(int32(r>>v.ownerBits) - 1)
}

func (v *sharedVisited[E]) owner(r visitRef) *visitOwner[E] {
	return &v.owners[r&(1<<v.ownerBits-1)]
}

// visit returns the record of s, storing s first, as owner's, if it is new
// (fresh).
func (v *sharedVisited[E]) visit(s ir.State, owner int) (e *sharedVisit[E], fresh bool) {
	h := s.Hash()
	sh := &v.shards[h>>57] // ir.State.Hash mixes its high bits well
	if e, _ = v.find(*sh.index.Load(), h, s); e != nil {
		return e, false
	}
	// Prepare the record before taking the lock, which is then held only to
	// look again and publish it: a worker that finds the lock taken sleeps, and
	// waking it takes longer than the critical section. (On indexer N = 6 with
	// the copy under the lock, two workers spent a third of their time waiting
	// to be woken.) The owner's next record is reused if s was stored meanwhile.
	o := &v.owners[owner]
	e = o.records.add(o.n)
	e.state = o.blocks.pack(s)
	e.done.Store(packVisit(-1, 0))
	sh.mu.Lock()
	slots := *sh.index.Load()
	found, i := v.find(slots, h, s)
	if found != nil {
		sh.mu.Unlock()
		o.blocks.drop(e.state)
		return found, false
	}
	slots[i].set(v.slots.word(h, uint64(v.makeRef(owner, o.n))))
	o.n++
	if sh.used++; 4*sh.used > 3*len(slots) {
		grown := v.grown(slots)
		sh.index.Store(&grown)
	}
	sh.mu.Unlock()
	return e, true
}

// grown returns a copy of a shard's index, slots, twice as large; under the
// shard's lock. A state whose slot's hash bits are too few is hashed again:
// it is published, and its owner never writes its bytes again.
func (v *sharedVisited[E]) grown(slots []visitSlot) []visitSlot {
	g := newIndex(2 * len(slots))
	var scratch ir.State
	regrow(slots, g, v.slots, func(ref uint64) uint64 {
		r := visitRef(ref)
		scratch = v.owner(r).blocks.packed(v.record(r).state).unpack(scratch)
		return scratch.Hash()
	})
	return g
}

// lookup returns the record of s, or nil; without a lock, so a state another
// worker is storing at that moment may be missed.
func (v *sharedVisited[E]) lookup(s ir.State) *sharedVisit[E] {
	h := s.Hash()
	e, _ := v.find(*v.shards[h>>57].index.Load(), h, s)
	return e
}

// find returns the record of s, whose hash is h, in slots; or nil and the
// empty slot where s would go.
func (v *sharedVisited[E]) find(slots []visitSlot, h uint64, s ir.State) (*sharedVisit[E], uint64) {
	ref, i := probe(slots, h, v.slots, func(ref uint64) bool {
		r := visitRef(ref)
		return v.owner(r).blocks.packed(v.record(r).state).equal(s)
	})
	if ref == 0 {
		return nil, i
	}
	return v.record(visitRef(ref)), i
}

// each calls f with every state stored; only while no search runs.
func (v *sharedVisited[E]) each(f func(ir.State)) {
	for i := range v.owners {
		o := &v.owners[i]
		for j := range o.n {
			f(o.blocks.packed(o.records.at(j).state).unpack(nil))
		}
	}
}

func packVisit(budget, height int) uint64 {
	return uint64(uint32(int32(budget)))<<32 | uint64(uint32(int32(height)))
}

// completed returns the budget and height of the completed exploration of the
// state with the largest budget; budget -1 if none has completed.
func (e *sharedVisit[E]) completed() (budget, height int) {
	d := e.done.Load()
	return int(int32(d >> 32)), int(int32(d))
}

// publish records that an exploration of the state with budget found height,
// unless one with at least that budget has been published already. Heights are
// min(longest execution, budget+1) whichever worker computes them, so the record
// with the larger budget says everything the smaller one does.
func (e *sharedVisit[E]) publish(budget, height int) {
	for {
		d := e.done.Load()
		if int(int32(d>>32)) >= budget || e.done.CompareAndSwap(d, packVisit(budget, height)) {
			return
		}
	}
}

// len is the number of states stored; only while no search runs.
func (v *sharedVisited[E]) len() int {
	n := 0
	for i := range v.owners {
		n += int(v.owners[i].n)
	}
	return n
}

// sharedPath is the path of one search through a sharedVisited: which records
// its stack holds, so that reaching one again closes a cycle, while reaching
// one that only other workers are exploring does not. Worker w < 64 marks a
// record with bit 1<<w of its active set, which the others see too; workers
// past the 64th have no bit and look for the record on their stack instead.
type sharedPath[E any] struct {
	bit   uint64
	stack []*sharedVisit[E]
}

func newSharedPath[E any](worker int) sharedPath[E] {
	if worker < 64 {
		return sharedPath[E]{bit: 1 << worker}
	}
	return sharedPath[E]{}
}

// enter puts e on the path at depth.
func (p *sharedPath[E]) enter(e *sharedVisit[E], depth int) {
	if len(p.stack) <= depth {
		p.stack = append(p.stack, make([]*sharedVisit[E], depth+1-len(p.stack))...)
	}
	p.stack[depth] = e
	if p.bit != 0 {
		e.active.Or(p.bit)
	}
}

// leave takes e, entered last, off the path.
func (p *sharedPath[E]) leave(e *sharedVisit[E]) {
	if p.bit != 0 {
		e.active.And(^p.bit)
	}
}

// onStack reports whether e is on the path above depth.
func (p *sharedPath[E]) onStack(e *sharedVisit[E], depth int) bool {
	if p.bit != 0 {
		return e.active.Load()&p.bit != 0
	}
	for _, o := range p.stack[:min(depth, len(p.stack))] {
		if o == e {
			return true
		}
	}
	return false
}

// putsOff reports whether a search puts off e (see postponed), a state it
// reached at depth d that no completed exploration and not its own path
// decides: when another worker is exploring it, unless d is the search's root
// or the search is coming back to it (retry).
func (p *sharedPath[E]) putsOff(e *sharedVisit[E], d int, retry bool) bool {
	return !retry && d > 0 && p.elsewhere(e)
}

// elsewhere reports whether another worker with a bit is exploring e now.
func (p *sharedPath[E]) elsewhere(e *sharedVisit[E]) bool {
	return e.active.Load()&^p.bit != 0
}
