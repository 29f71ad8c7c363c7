package ir

import (
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

// Hash is a 64-bit hash of the state: FNV-1a over words in four interleaved
// lanes, combined with a final mix. Four lanes, not one, so that the
// multiplications do not wait for each other: hashing is most of what a
// stateful search spends per state, and C programs' states are long (every
// thread's frame, every slot's start cells).
func (s State) Hash() uint64 {
	const prime = 1099511628211
	h0, h1 := uint64(14695981039346656037), uint64(0x9e3779b97f4a7c15)
	h2, h3 := uint64(0xc2b2ae3d27d4eb4f), uint64(0x165667b19e3779f9)
	i := 0
	for ; i+4 <= len(s); i += 4 {
		h0 = bits.RotateLeft64((h0^uint64(s[i]))*prime, 29)
		h1 = bits.RotateLeft64((h1^uint64(s[i+1]))*prime, 29)
		h2 = bits.RotateLeft64((h2^uint64(s[i+2]))*prime, 29)
		h3 = bits.RotateLeft64((h3^uint64(s[i+3]))*prime, 29)
	}
	for ; i < len(s); i++ {
		h0 = bits.RotateLeft64((h0^uint64(s[i]))*prime, 29)
	}
	h := h0 ^ bits.RotateLeft64(h1, 16) ^ bits.RotateLeft64(h2, 32) ^ bits.RotateLeft64(h3, 48) ^ uint64(len(s))
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
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
