package encode

import (
	"fmt"

	"kbmc/solver"
)

// A Reduction adds partial-order constraints to each step of an Unrolling
// (docs/symbolic.md, "Peephole" and "Monotonic"). Extend calls Constrain once for
// every step, in order, after encoding the step; the constraints only restrict
// which interleavings are admitted, never a halted step. A Constrain whose work
// grows faster than the threads counts it with u.stop.stopped and returns early
// when that reports the context's end; Extend then returns the stop.
type Reduction interface {
	Name() string
	Constrain(u *Unrolling, i int) []*solver.Term
}

// NewReduction returns the reduction called name: "none" (nil), "peephole" or
// "monotonic".
func NewReduction(name string) (Reduction, error) {
	switch name {
	case "", "none":
		return nil, nil
	case "peephole":
		return Peephole{}, nil
	case "monotonic":
		return &Monotonic{}, nil
	}
	return nil, fmt.Errorf("unknown partial-order reduction %q (none, peephole, monotonic)", name)
}

// Peephole is the peephole partial-order reduction (Wang, Yang, Kahlon, Gupta,
// TACAS 2008) as docs/symbolic.md states it: of two consecutive non-halted steps,
// a higher-numbered thread's step may be followed by a lower-numbered thread's
// only when their footprints conflict:
//
//	(¬h^{i+1} ∧ sel^{i+1} < sel^i) → conflict(FP^i, FP^{i+1})
//
// The conflict is guarded: two accesses a[x] and a[y] conflict exactly when x = y
// in that execution. One interleaving per Mazurkiewicz class for two threads; at
// least one for more.
type Peephole struct{}

// Name implements Reduction.
func (Peephole) Name() string { return "peephole" }

// Constrain implements Reduction.
func (Peephole) Constrain(u *Unrolling, i int) []*solver.Term {
	if i == 0 {
		return nil
	}
	b := u.b
	swap := b.And(b.Not(u.Halt(i)), b.Ult(u.Sel(i), u.Sel(i-1)))
	return []*solver.Term{b.Implies(swap, u.Conflict(u.Footprint(i-1), u.Footprint(i)))}
}

// Monotonic is the monotonic partial-order reduction (Kahlon, Wang, Gupta, CAV
// 2009) as docs/symbolic.md states it: only quasi-monotonic interleavings are
// admitted, exactly one per Mazurkiewicz class. It keeps, per ordered pair of
// threads (i, l), the dependency-chain value DC_{i,l} ∈ {−1, 0, 1} as two
// propositions (nz: ≠ 0, one: = 1 when nz), and per thread the footprint of its
// latest step (LFP_l). A Monotonic serves one Unrolling: use a new one for each.
type Monotonic struct {
	u       *Unrolling
	nz, one [][]*solver.Term
	last    []Footprint
}

// Name implements Reduction.
func (*Monotonic) Name() string { return "monotonic" }

// Constrain implements Reduction. At step k with j = sel^k:
//
//	dep_l = (l = j) ∨ conflict(LFP_l, FP^k)
//	R_i = ∨_l (DC_{i,l} = 1 ∧ dep_l),  P_{i,j} = ∨_{l<j} DC_{i,l} = 1
//	for i > j:  (¬h^k ∧ sel^k = j) → (DC_{i,i} = 0 ∨ R_i ∨ P_{i,j})
//
// then DC_{j,j} = 1, DC_{j,l} = −1 (l ≠ j), DC_{i,j} = 0 if DC_{i,i} = 0 else
// (R_i ? 1 : −1) for i ≠ j, everything else unchanged, and LFP_j = FP^k. A halted
// step changes nothing.
func (m *Monotonic) Constrain(u *Unrolling, k int) []*solver.Term {
	b := u.b
	n := u.Threads()
	if m.u == nil {
		m.u = u
		m.nz = make([][]*solver.Term, n)
		m.one = make([][]*solver.Term, n)
		m.last = make([]Footprint, n)
		for i := 0; i < n; i++ {
			m.nz[i] = make([]*solver.Term, n)
			m.one[i] = make([]*solver.Term, n)
			for l := range m.nz[i] {
				m.nz[i][l], m.one[i][l] = b.False(), b.False()
			}
			m.last[i] = Footprint{Read: make([]*solver.Term, u.numLocs), Write: make([]*solver.Term, u.numLocs)}
			for c := range m.last[i].Read {
				m.last[i].Read[c], m.last[i].Write[c] = b.False(), b.False()
			}
		}
	} else if m.u != u {
		panic("encode: a Monotonic serves one Unrolling")
	}
	fp := u.Footprint(k)
	sel := make([]*solver.Term, n) // includes ¬h^k
	for j := range sel {
		sel[j] = u.Selects(k, j)
	}
	isOne := func(i, l int) *solver.Term { return b.And(m.nz[i][l], m.one[i][l]) }
	// On 1,024 threads a step's constraints are seconds of work: every loop
	// over threads counts with u.stop and returns early when the context has
	// ended (Extend then returns the stop, and the constraints are dropped).
	dep := make([]*solver.Term, n)
	for l := range dep {
		if u.stop.stopped(1 + len(fp.Read)/16) {
			return nil
		}
		dep[l] = b.Or(sel[l], u.Conflict(m.last[l], fp))
	}
	r := make([]*solver.Term, n)
	for i := range r {
		if u.stop.stopped(n) {
			return nil
		}
		var or []*solver.Term
		for l := 0; l < n; l++ {
			or = append(or, b.And(isOne(i, l), dep[l]))
		}
		r[i] = b.Or(or...)
	}
	var cs []*solver.Term
	for j := 0; j < n; j++ {
		for i := j + 1; i < n; i++ {
			if u.stop.stopped(j + 1) {
				return nil
			}
			var prefix []*solver.Term // P_{i,j}
			for l := 0; l < j; l++ {
				prefix = append(prefix, isOne(i, l))
			}
			cs = append(cs, b.Implies(sel[j], b.Or(b.Not(m.nz[i][i]), r[i], b.Or(prefix...))))
		}
	}
	nz := make([][]*solver.Term, n)
	one := make([][]*solver.Term, n)
	for i := 0; i < n; i++ {
		nz[i] = make([]*solver.Term, n)
		one[i] = make([]*solver.Term, n)
		for l := 0; l < n; l++ {
			if u.stop.stopped(8) {
				return nil
			}
			// Row of the moving thread i: 1 on the diagonal, −1 elsewhere.
			// Column of the moving thread l ≠ i: 0 if i has not moved, else R_i.
			nv := b.Ite(sel[l], m.nz[i][i], m.nz[i][l])
			ov := b.Ite(sel[l], r[i], m.one[i][l])
			if l == i {
				nv, ov = m.nz[i][l], m.one[i][l]
			}
			nv = b.Ite(sel[i], b.True(), nv)
			ov = b.Ite(sel[i], b.Bool(l == i), ov)
			nz[i][l] = u.fresh(fmt.Sprintf("#dc@%d.%d.%d.nz", k+1, i, l), nv, &cs)
			one[i][l] = u.fresh(fmt.Sprintf("#dc@%d.%d.%d.one", k+1, i, l), ov, &cs)
		}
	}
	m.nz, m.one = nz, one
	for l := 0; l < n; l++ {
		if u.stop.stopped(4 * len(fp.Read)) {
			return nil
		}
		old := m.last[l]
		nf := Footprint{Read: make([]*solver.Term, len(old.Read)), Write: make([]*solver.Term, len(old.Write))}
		for c := range old.Read {
			nf.Read[c] = u.fresh(fmt.Sprintf("#lfp@%d.%d.r%d", k+1, l, c), b.Ite(sel[l], fp.Read[c], old.Read[c]), &cs)
			nf.Write[c] = u.fresh(fmt.Sprintf("#lfp@%d.%d.w%d", k+1, l, c), b.Ite(sel[l], fp.Write[c], old.Write[c]), &cs)
		}
		m.last[l] = nf
	}
	return cs
}
