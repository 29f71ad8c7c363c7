package explicit

import "math/bits"

// bitSet is a set of small non-negative integers: threads, shared cells, locks or
// the events of a trace constraint system.
type bitSet []uint64

func newBitSet(n int) bitSet { return make(bitSet, (n+63)/64) }

// resetBitSet returns an empty set for n members, reusing b's storage.
func resetBitSet(b bitSet, n int) bitSet {
	w := (n + 63) / 64
	if cap(b) < w {
		return make(bitSet, w)
	}
	b = b[:w]
	clear(b)
	return b
}

func (b bitSet) has(t int) bool    { return b[t>>6]&(1<<(t&63)) != 0 }
func (b bitSet) add(t int)         { b[t>>6] |= 1 << (t & 63) }
func (b bitSet) clear()            { clear(b) }
func (b bitSet) remove(t int)      { b[t>>6] &^= 1 << (t & 63) }
func (b bitSet) copyFrom(o bitSet) { copy(b, o) }

func (b bitSet) and(o bitSet) {
	for i := range b {
		b[i] &= o[i]
	}
}

func (b bitSet) or(o bitSet) {
	for i := range b {
		b[i] |= o[i]
	}
}

func (b bitSet) andNot(o bitSet) {
	for i := range b {
		b[i] &^= o[i]
	}
}

func (b bitSet) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

func (b bitSet) subsetOf(o bitSet) bool {
	for i, w := range b {
		if w&^o[i] != 0 {
			return false
		}
	}
	return true
}

// intersectsOutside reports whether b and o have a member in common that is
// not in outside.
func (b bitSet) intersectsOutside(o, outside bitSet) bool {
	for i, w := range b {
		if w&o[i]&^outside[i] != 0 {
			return true
		}
	}
	return false
}

func (b bitSet) intersects(o bitSet) bool {
	for i, w := range b {
		if w&o[i] != 0 {
			return true
		}
	}
	return false
}

func (b bitSet) count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

func (b bitSet) countAnd(o bitSet) int {
	c := 0
	for i, w := range b {
		c += bits.OnesCount64(w & o[i])
	}
	return c
}

// next returns the smallest member >= t, or -1.
func (b bitSet) next(t int) int {
	for i := t >> 6; i < len(b); i++ {
		w := b[i]
		if i == t>>6 {
			w &= ^uint64(0) << (t & 63)
		}
		if w != 0 {
			return i<<6 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// prev returns the largest member <= t, or -1.
func (b bitSet) prev(t int) int {
	for i := min(t>>6, len(b)-1); i >= 0; i-- {
		w := b[i]
		if i == t>>6 {
			w &= ^uint64(0) >> (63 - t&63)
		}
		if w != 0 {
			return i<<6 + 63 - bits.LeadingZeros64(w)
		}
	}
	return -1
}

// step returns the member after t: the next larger one, or with down the next
// smaller one; -1 if none.
func (b bitSet) step(t int, down bool) int {
	if down {
		return b.prev(t - 1)
	}
	return b.next(t + 1)
}

// firstOf returns the smallest thread in in and alsoIn (nil: no restriction) and
// in neither notIn nor notIn2 (nil: empty), or -1.
func firstOf(in, alsoIn, notIn, notIn2 bitSet) int {
	for i, w := range in {
		if alsoIn != nil {
			w &= alsoIn[i]
		}
		if notIn != nil {
			w &^= notIn[i]
		}
		if notIn2 != nil {
			w &^= notIn2[i]
		}
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}
