package ir

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// A State is a whole program state as one flat vector, so that copying is one copy()
// and hashing one pass: shared cells [0, SharedSize), lock owners (thread+1, 0 = free)
// [MutexBase, MutexBase+NumLocks), the channels' queues, then per thread its control
// location and locals, then the channels' heads [HeadBase, StateSize).
type State []int64

// Initial returns the initial state: every thread at its entry, shared variables at
// their initial values, locals zero, every mutex free.
func (p *Program) Initial() State {
	s := make(State, p.StateSize)
	for _, v := range p.Shared {
		copy(s[v.Offset:v.Offset+v.Cells()], v.Init)
	}
	for _, th := range p.Threads {
		s[th.Base] = int64(th.Template.Loc(th.Template.Entry))
	}
	return s
}

// IdentityCells returns the cells of s that decide its future runs: all but
// the channels' heads (HeadBase), which only number message slots. A stateful
// search keeps and compares these; a state it restores from them has its heads
// at 0, which renames the slots of each channel alike.
func (p *Program) IdentityCells(s State) State { return s[:p.HeadBase] }

// Clone returns a copy of s.
func (s State) Clone() State { return append(State(nil), s...) }

// Hash is a 64-bit hash of the state: four interleaved lanes, each folding two
// words at a time into its value with a 64×64→128-bit multiplication whose
// halves are xored (the mixing step of wyhash), then a final mix. Four lanes,
// not one, so that the multiplications do not wait for each other, and two
// words a multiplication, not one (as FNV-1a's did, at twice the time):
// hashing is much of what a stateful search spends per state, and states are
// long (every thread's frame and channels; 390 cells on primary-secondary
// N = 8, hashed once for every transition the search takes).
func (s State) Hash() uint64 {
	h0, h1, h2, h3 := hashSeeds()
	i := 0
	for ; i+8 <= len(s); i += 8 {
		c := s[i : i+8 : i+8] // one bounds check
		h0 = foldMix(h0^uint64(c[0]), uint64(c[1])^hashK0)
		h1 = foldMix(h1^uint64(c[2]), uint64(c[3])^hashK1)
		h2 = foldMix(h2^uint64(c[4]), uint64(c[5])^hashK2)
		h3 = foldMix(h3^uint64(c[6]), uint64(c[7])^hashK3)
	}
	for ; i < len(s); i++ {
		h0 = foldMix(h0^uint64(s[i]), hashK0)
	}
	return hashFinish(h0, h1, h2, h3, len(s))
}

// HashBytes is Hash over bytes, read as little-endian words (the last one
// padded with zeros), for stores that keep states packed into bytes.
func HashBytes(b []byte) uint64 {
	h0, h1, h2, h3 := hashSeeds()
	le := binary.LittleEndian
	i := 0
	for ; i+64 <= len(b); i += 64 {
		c := b[i : i+64 : i+64]
		h0 = foldMix(h0^le.Uint64(c[0:]), le.Uint64(c[8:])^hashK0)
		h1 = foldMix(h1^le.Uint64(c[16:]), le.Uint64(c[24:])^hashK1)
		h2 = foldMix(h2^le.Uint64(c[32:]), le.Uint64(c[40:])^hashK2)
		h3 = foldMix(h3^le.Uint64(c[48:]), le.Uint64(c[56:])^hashK3)
	}
	for ; i+8 <= len(b); i += 8 {
		h0 = foldMix(h0^le.Uint64(b[i:]), hashK0)
	}
	if i < len(b) {
		var w uint64
		for j := len(b) - 1; j >= i; j-- {
			w = w<<8 | uint64(b[j])
		}
		h0 = foldMix(h0^w, hashK0)
	}
	return hashFinish(h0, h1, h2, h3, len(b))
}

// The multipliers of Hash's and HashBytes' four lanes (wyhash's).
const hashK0, hashK1, hashK2, hashK3 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3, 0x589965cc75374cc3

// hashSeeds are the lanes' starting values.
func hashSeeds() (h0, h1, h2, h3 uint64) {
	return 14695981039346656037, 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9
}

// hashFinish combines the four lanes and the length n, and mixes the result.
func hashFinish(h0, h1, h2, h3 uint64, n int) uint64 {
	h := h0 ^ bits.RotateLeft64(h1, 16) ^ bits.RotateLeft64(h2, 32) ^ bits.RotateLeft64(h3, 48) ^ uint64(n)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// foldMix multiplies a and b into 128 bits and xors the halves.
func foldMix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// Equal reports whether two states are the same.
func (s State) Equal(o State) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// Location returns thread t's control location: an index into its template's
// Transitions, or Terminated().
func (p *Program) Location(s State, t int) int { return int(s[p.Threads[t].Base]) }

// Done reports whether thread t has terminated.
func (p *Program) Done(s State, t int) bool {
	th := p.Threads[t]
	return int(s[th.Base]) == th.Template.Terminated()
}

// Transition returns the transition thread t would execute next, or nil if it has
// terminated.
func (p *Program) Transition(s State, t int) *Transition {
	th := p.Threads[t]
	l := int(s[th.Base])
	if l >= len(th.Template.Transitions) {
		return nil
	}
	return th.Template.Transitions[l]
}

// Format renders a value of type t.
func Format(t Type, v int64) string {
	if t == Bool {
		if v != 0 {
			return "true"
		}
		return "false"
	}
	return fmt.Sprint(v)
}

// Describe renders the shared part of a state, for debugging and for tests.
func (p *Program) Describe(s State) string {
	var b strings.Builder
	for _, v := range p.Shared {
		if v.Len == 0 {
			fmt.Fprintf(&b, "%s=%s ", v.Name, Format(v.Type, s[v.Offset]))
			continue
		}
		fmt.Fprintf(&b, "%s={", v.Name)
		for i := 0; i < v.Len; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(Format(v.Type, s[v.Offset+i]))
		}
		b.WriteString("} ")
	}
	for _, th := range p.Threads {
		fmt.Fprintf(&b, "%s@%d ", th.Name, s[th.Base])
	}
	return strings.TrimSpace(b.String())
}

// LocalName renders a cell of the template's frame as the user wrote it: "l", "buf[2]".
func (t *Template) LocalName(cell int) string {
	for _, v := range t.Locals {
		if cell >= v.Offset && cell < v.Offset+v.Cells() {
			if v.Len == 0 {
				return v.Name
			}
			return fmt.Sprintf("%s[%d]", v.Name, cell-v.Offset)
		}
	}
	return fmt.Sprintf("local(%d)", cell)
}
