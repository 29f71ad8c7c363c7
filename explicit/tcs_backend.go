package explicit

import (
	"context"
	"fmt"

	"kbmc/encode"
	"kbmc/solver"
	"kbmc/solver/solvers"
)

// BackendTCSSolver decides trace constraint systems with a solver.Backend, the
// thesis's first variant (§5: "the first variant uses the SMT solver Z3"), here
// with Z3 or with gini after bit-blasting. encode.TraceOrder gives each event a
// position variable; program order and the dependency constraints are passed as
// assumptions, so one backend serves every system of a search and nothing is
// ever asserted.
//
// Solve finds the maximal satisfiable prefix of the system (thesis §3.1): the
// longest prefix of the dependency list that is satisfiable with program order.
// It checks the whole system first; while that is unsatisfiable, the unsat core
// names constraints that close a cycle, the latest of them bounds the prefix, and
// the prefix before it is checked next. Each round shortens the prefix, so the
// loop ends, and the first satisfiable prefix is maximal because every longer one
// contains a core. LazyPOR only asks about satisfiable systems (its enumeration
// drops a variation as soon as a prefix is cyclic), so there the prefix is the
// whole system; the tests exercise the unsatisfiable case directly.
//
// Z3 is slow here next to TopoSolver (the thesis dropped it for the same reason):
// every system costs a solver call with one assumption per constraint.
type BackendTCSSolver struct {
	b       *solver.Builder
	backend solver.Backend
	enc     encode.TraceOrder
	assume  []*solver.Term
	index   map[*solver.Term]int // constraint term → its first index in the list

	// Prefix is the length of the maximal satisfiable prefix the last Solve found.
	Prefix int
	// Checks counts the backend's satisfiability checks.
	Checks int64
}

// NewBackendTCSSolver returns a solver that decides systems with the backend
// called name ("gini" or "z3"). Close it when done.
func NewBackendTCSSolver(name string) (*BackendTCSSolver, error) {
	b := solver.NewBuilder()
	be, err := solvers.New(name, b)
	if err != nil {
		return nil, fmt.Errorf("trace-constraint solver %s: %w", name, err)
	}
	return &BackendTCSSolver{b: b, backend: be, index: map[*solver.Term]int{}}, nil
}

// Close releases the backend.
func (s *BackendTCSSolver) Close() error { return s.backend.Close() }

// Solve implements TCSSolver: order is a solution of the maximal satisfiable
// prefix of c, and ok reports whether that prefix is the whole system.
func (s *BackendTCSSolver) Solve(ctx context.Context, c *TCS) (order []int, ok bool, err error) {
	s.enc.Encode(s.b, c)
	indexed := false // s.index is built only when a core must be read
	k := len(s.enc.Constraints)
	for {
		s.assume = append(append(s.assume[:0], s.enc.ProgramOrder...), s.enc.Constraints[:k]...)
		s.Checks++
		st, err := s.backend.Check(ctx, s.assume...)
		switch {
		case err != nil:
			return nil, false, err
		case st == solver.Unknown:
			return nil, false, fmt.Errorf("stopped: %w", context.Cause(ctx))
		case st == solver.Sat:
			s.Prefix = k
			order, err := s.enc.Schedule(s.backend.BVValue)
			return order, k == len(s.enc.Constraints), err
		}
		core, err := s.backend.FailedAssumptions()
		if err != nil {
			return nil, false, err
		}
		if !indexed {
			clear(s.index)
			for i, t := range s.enc.Constraints {
				if _, dup := s.index[t]; !dup {
					s.index[t] = i
				}
			}
			indexed = true
		}
		latest := -1
		for _, t := range core {
			if i, isDep := s.index[t]; isDep && i < k {
				latest = max(latest, i)
			}
		}
		if latest < 0 {
			// Program order alone is always satisfiable (positions 0, 1, …).
			return nil, false, fmt.Errorf("the backend finds program order unsatisfiable")
		}
		k = latest
	}
}
