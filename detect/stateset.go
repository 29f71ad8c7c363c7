package detect

// stateSet is the visited set of the searches: global states (N int32 each) in
// one flat array, found through an open-addressing table of their numbers, with
// an optional sleep set (w words) per state. States are compared whole, never by
// hash alone, so a collision cannot hide an unexplored state.
type stateSet struct {
	n, w   int
	states []int32
	sleep  []uint64
	hashes []uint64
	slots  []int32 // state number + 1; 0 is empty
	count  int
}

func newStateSet(n, w int) *stateSet {
	return &stateSet{n: n, w: w, slots: make([]int32, 1024)}
}

// mix is the hash contribution of process i being at local state k; a state's
// hash is the xor over its processes, so a move updates it in O(1).
func mix(i int, k int32) uint64 {
	x := uint64(i)<<32 | uint64(uint32(k))
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func (t *stateSet) at(id int32) []int32 { return t.states[int(id)*t.n : int(id+1)*t.n] }

func (t *stateSet) sleepOf(id int32) []uint64 { return t.sleep[int(id)*t.w : int(id+1)*t.w] }

// find returns the number of st (whose hash is h), or -1.
func (t *stateSet) find(h uint64, st []int32) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1
		}
		if t.hashes[s-1] == h && equal(t.at(s-1), st) {
			return s - 1
		}
	}
}

// insert adds st (whose hash is h) unless it is there, and returns its number.
func (t *stateSet) insert(h uint64, st []int32) (id int32, added bool) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id = int32(t.count)
			t.slots[i] = id + 1
			t.count++
			t.states = append(t.states, st...)
			t.hashes = append(t.hashes, h)
			for range t.w {
				t.sleep = append(t.sleep, 0)
			}
			if 2*t.count > len(t.slots) {
				t.grow()
			}
			return id, true
		}
		if t.hashes[s-1] == h && equal(t.at(s-1), st) {
			return s - 1, false
		}
	}
}

func (t *stateSet) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, h := range t.hashes {
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(id) + 1
	}
}

func equal(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
