package explicit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"kbmc/ir"
)

// TestSharedVisitedConcurrent hammers one sharedVisited from several goroutines
// (run it with -race): each visits every state, in an order of its own, marks
// itself active on it, and publishes an exploration of it; lookups run without
// the shards' locks while other goroutines store states, add record chunks and
// grow the indexes. Every state must be stored once (exactly one goroutine sees
// it fresh), every goroutine must get the same record for it, the record must
// keep the exploration with the largest budget together with its own height,
// and the active bits must come and go.
func TestSharedVisitedConcurrent(t *testing.T) {
	for _, tc := range []struct {
		goroutines, states, size int
	}{
		{2, 10000, 4},
		{8, 3000, 9},
		{64, 200, 2},   // every bit of the active set
		{3, 5000, 300}, // states larger than a first block
		{4, 60000, 3},  // indexes that grow while others look states up
	} {
		t.Run(fmt.Sprintf("g=%d/n=%d/size=%d", tc.goroutines, tc.states, tc.size), func(t *testing.T) {
			v := newSharedVisited[struct{}](tc.goroutines)
			state := func(i int) ir.State {
				s := make(ir.State, tc.size)
				for j := range s {
					s[j] = int64(i*(j+1)) ^ int64(j)
				}
				return s
			}
			fresh := make([]atomic.Int32, tc.states)
			recs := make([][]*sharedVisit[struct{}], tc.goroutines)
			var wg sync.WaitGroup
			for g := range tc.goroutines {
				recs[g] = make([]*sharedVisit[struct{}], tc.states)
				wg.Go(func() {
					bit := uint64(1) << g
					for _, i := range rand.New(rand.NewPCG(uint64(g), 1)).Perm(tc.states) {
						s := state(i)
						e, isNew := v.visit(s, g)
						if isNew {
							fresh[i].Add(1)
						}
						if v.lookup(s) != e { // lookup compares the stored state with s
							t.Errorf("state %d: its record is not found again", i)
							return
						}
						recs[g][i] = e
						e.active.Or(bit)
						if e.active.Load()&bit == 0 {
							t.Errorf("state %d: goroutine %d's bit is not set", i, g)
						}
						e.publish(g, 1000*g+i)
						e.active.And(^bit)
					}
				})
			}
			wg.Wait()
			if n := v.len(); n != tc.states {
				t.Errorf("len = %d, want %d", n, tc.states)
			}
			for i := range tc.states {
				if n := fresh[i].Load(); n != 1 {
					t.Errorf("state %d stored %d times", i, n)
				}
				e := recs[0][i]
				for g := range tc.goroutines {
					if recs[g][i] != e {
						t.Fatalf("state %d: goroutines 0 and %d got different records", i, g)
					}
				}
				last := tc.goroutines - 1
				if b, h := e.completed(); b != last || h != 1000*last+i {
					t.Errorf("state %d: completed (%d, %d), want (%d, %d)", i, b, h, last, 1000*last+i)
				}
				if a := e.active.Load(); a != 0 {
					t.Errorf("state %d: active %b after every goroutine left", i, a)
				}
			}
		})
	}
}

// TestSharedVisitedPublish checks what a record says as explorations of its
// state complete: nothing before the first, then the one with the largest
// budget, never a smaller one.
func TestSharedVisitedPublish(t *testing.T) {
	v := newSharedVisited[struct{}](1)
	e, _ := v.visit(ir.State{1, 2, 3}, 0)
	type step struct{ budget, height, wantBudget, wantHeight int }
	steps := []step{
		{-2, 0, -1, 0}, // nothing published yet
		{5, 6, 5, 6},   // cut: height budget+1
		{3, 2, 5, 6},   // less budget: kept
		{5, 6, 5, 6},
		{9, 4, 9, 4},
		{0, 1, 9, 4},
		{1 << 30, 7, 1 << 30, 7},
	}
	for i, s := range steps {
		if s.budget >= -1 {
			e.publish(s.budget, s.height)
		}
		if b, h := e.completed(); b != s.wantBudget || h != s.wantHeight {
			t.Errorf("step %d: completed (%d, %d), want (%d, %d)", i, b, h, s.wantBudget, s.wantHeight)
		}
	}
}

// TestSharedVisitedAllocs checks that looking up states already stored, the
// search's hot path, allocates nothing, and neither does storing new ones once
// the blocks have grown (a chunk or a block now and then).
func TestSharedVisitedAllocs(t *testing.T) {
	v := newSharedVisited[struct{}](1)
	checkStoreAllocs(t, func(s ir.State) { v.visit(s, 0) })
}

// checkStoreAllocs stores 4096 states with visit, then checks that visiting
// them again allocates nothing and that storing new ones allocates only now
// and then.
func checkStoreAllocs(t *testing.T, visit func(ir.State)) {
	t.Helper()
	states := make([]ir.State, 4096)
	for i := range states {
		states[i] = ir.State{int64(i), int64(i) * 3, 7}
		visit(states[i])
	}
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		visit(states[i%len(states)])
		i++
	}); n != 0 {
		t.Errorf("looking up a stored state: %v allocations", n)
	}
	s := ir.State{0, 0, 0}
	j := int64(1 << 20)
	if n := testing.AllocsPerRun(1000, func() {
		s[0] = j
		j++
		visit(s)
	}); n > 0.1 {
		t.Errorf("storing a state: %v allocations on average", n)
	}
}

// A packed state is equal to the state it packs and to no other, unpacks to it,
// and takes the least width and its header's bytes; the cases sit on each
// width's edges and on the header's. The states are packed one after another
// into one stateBlocks, so that each is read back among its neighbours.
func TestPackedState(t *testing.T) {
	long := make(ir.State, 40) // 160 + 0: a header of two bytes
	for i := range long {
		long[i] = int64(i)
	}
	cases := []struct {
		state       ir.State
		width, head int
	}{
		{ir.State{}, 1, 1},
		{ir.State{0, 1, 127, -128, -1}, 1, 1},
		{ir.State{0, 128}, 2, 1},
		{ir.State{-129, 5}, 2, 1},
		{ir.State{32767, -32768}, 2, 1},
		{ir.State{32768}, 4, 1},
		{ir.State{-32769, 0}, 4, 1},
		{ir.State{math.MaxInt32, math.MinInt32}, 4, 1},
		{ir.State{math.MaxInt32 + 1}, 8, 1},
		{ir.State{math.MinInt64, math.MaxInt64, 0}, 8, 1},
		{long, 1, 2},
	}
	var b stateBlocks
	refs := make([]stateRef, len(cases))
	for i, tc := range cases {
		refs[i] = b.pack(tc.state)
	}
	for i, tc := range cases {
		p := b.packed(refs[i])
		n, w, c := p.header()
		if n != len(tc.state) || w != tc.width || len(c) != tc.width*len(tc.state) {
			t.Errorf("%v: %d cells of width %d; want width %d", tc.state, n, w, tc.width)
		}
		if i+1 < len(refs) && refs[i+1].block == refs[i].block && int(refs[i+1].at-refs[i].at) != tc.head+len(c) {
			t.Errorf("%v: %d bytes, want %d", tc.state, refs[i+1].at-refs[i].at, tc.head+len(c))
		}
		if !p.equal(tc.state) {
			t.Errorf("%v: not equal to its packing", tc.state)
		}
		if got := p.unpack(nil); !got.Equal(tc.state) {
			t.Errorf("%v: unpacks to %v", tc.state, got)
		}
		// Every state one cell off, or one cell longer or shorter, differs.
		for i := range tc.state {
			for _, d := range []int64{1, -1, 1 << 8, 1 << 16, 1 << 32} {
				o := tc.state.Clone()
				o[i] += d
				if p.equal(o) {
					t.Errorf("%v: equal to %v", tc.state, o)
				}
			}
		}
		if p.equal(append(tc.state.Clone(), 0)) {
			t.Errorf("%v: equal to itself with one more cell", tc.state)
		}
		if len(tc.state) > 0 && p.equal(tc.state[1:]) {
			t.Errorf("%v: equal to itself without its first cell", tc.state)
		}
	}
}

// Blocks grow as states are packed, and every state stays where it was packed;
// a state dropped right after it was packed makes room for the next.
func TestStateBlocksGrow(t *testing.T) {
	var b stateBlocks
	state := func(i int) ir.State { return ir.State{int64(i), int64(i * 1000), -int64(i)} }
	const n = 100000
	refs := make([]stateRef, n)
	for i := range n {
		refs[i] = b.pack(state(i))
		if i%7 == 3 { // dropped and packed again at the same place
			b.drop(refs[i])
			if again := b.pack(state(i)); again != refs[i] {
				t.Fatalf("state %d: packed at %v after a drop, first at %v", i, again, refs[i])
			}
		}
	}
	for i := range n {
		if got := b.packed(refs[i]).unpack(nil); !got.Equal(state(i)) {
			t.Fatalf("state %d: reads back as %v", i, got)
		}
	}
	if d := *b.dir.Load(); len(d) < 2 {
		t.Errorf("%d blocks for %d states: the test does not reach a second block", len(d), n)
	}
}

// A sequential store finds every state it stored, with its own record, across
// the index's growths (which hash the stored states again), and no other.
func TestVisitedStoreGrows(t *testing.T) {
	v := newVisitedStore[int32](storeMode{})
	state := func(i int) ir.State { return ir.State{int64(i % 100), int64(i / 100), int64(i) * 1000003} }
	const n = 50000
	for i := range n {
		e, fresh := v.visit(state(i))
		if !fresh {
			t.Fatalf("state %d: not new", i)
		}
		e.own = int32(i)
	}
	for i := range n {
		if e := v.lookup(state(i)); e == nil || e.own != int32(i) {
			t.Fatalf("state %d: record %v", i, e)
		}
	}
	if e := v.lookup(state(n)); e != nil {
		t.Errorf("a state never stored has record %+v", *e)
	}
	if len(v.index) < n*4/3 {
		t.Errorf("%d slots for %d states", len(v.index), n)
	}
}

// A record's ref names its owner and its number in a slot's bits whatever
// the number of owners: states stored by owners far apart are found again
// with their records, after the shards' indexes have grown.
func TestSharedVisitedOwners(t *testing.T) {
	for _, owners := range []int{1, 2, 3, 64, 65, 1000} {
		t.Run(fmt.Sprint(owners), func(t *testing.T) {
			v := newSharedVisited[int32](owners)
			state := func(i int) ir.State { return ir.State{int64(i), -int64(i), 42} }
			const n = 20000
			for i := range n {
				e, fresh := v.visit(state(i), (i*7919)%owners)
				if !fresh {
					t.Fatalf("state %d: not new", i)
				}
				e.own = int32(i)
			}
			for i := range n {
				e, fresh := v.visit(state(i), 0)
				if fresh || e.own != int32(i) || v.lookup(state(i)) != e {
					t.Fatalf("state %d again: fresh %v, record of %d", i, fresh, e.own)
				}
			}
			seen := 0
			v.each(func(s ir.State) {
				if len(s) != 3 || s[1] != -s[0] || s[2] != 42 {
					t.Errorf("each: %v was never stored", s)
				}
				seen++
			})
			if seen != n || v.len() != n {
				t.Errorf("each gave %d states, len %d; want %d", seen, v.len(), n)
			}
		})
	}
}

// The sequential store, in every mode, allocates nothing to look up a stored
// state, and storing new ones allocates only now and then (a chunk, a block,
// a larger index).
func TestVisitedStoreAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode storeMode
	}{{"exact", storeMode{}}, {"hash-compact", storeMode{kind: hashCompactStore}}, {"bitstate", storeMode{kind: bitStateStore, bits: 1 << 16}}} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVisitedStore[int32](tc.mode)
			checkStoreAllocs(t, func(s ir.State) { v.visit(s) })
		})
	}
}

// An index grows by its slots' hash bits where they give the new positions,
// and by the states' hashes where they are too few (a format with few hash
// bits); either way every record is found again, and no other.
func TestRegrow(t *testing.T) {
	hash := func(ref uint64) uint64 { return (ref*0x9e3779b97f4a7c15 ^ ref>>7) * 0xff51afd7ed558ccd }
	for _, tc := range []struct {
		name string
		f    slotFormat
	}{{"hash bits", seqSlots}, {"too few hash bits", 60}} {
		t.Run(tc.name, func(t *testing.T) {
			slots := newIndex(64)
			const n = 40
			for ref := uint64(1); ref <= n; ref++ {
				h := hash(ref)
				if r, i := probe(slots, h, tc.f, func(uint64) bool { return false }); r == 0 {
					slots[i].set(tc.f.word(h, ref))
				}
			}
			for size := 128; size <= 1024; size *= 2 {
				hashed := 0
				g := newIndex(size)
				regrow(slots, g, tc.f, func(ref uint64) uint64 { hashed++; return hash(ref) })
				if want := !tc.f.gives(size); (hashed > 0) != want {
					t.Errorf("size %d: %d states hashed again, want some: %v", size, hashed, want)
				}
				slots = g
				for ref := uint64(1); ref <= n+1; ref++ {
					got, _ := probe(slots, hash(ref), tc.f, func(r uint64) bool { return r == ref })
					want := ref
					if ref > n { // never stored
						want = 0
					}
					if got != want {
						t.Fatalf("size %d: ref %d found as %d", size, ref, got)
					}
				}
			}
		})
	}
}
