package gini

import (
	"context"
	"fmt"
	"runtime"
	"time"

	gosat "github.com/go-air/gini"
	"github.com/go-air/gini/z"

	"kbmc/solver"
)

// backend implements solver.Backend on one gini solver and one circuit.
type backend struct {
	b  *solver.Builder
	bl *blaster
	g  *gosat.Gini
	cl clauseCounter

	// mark records which circuit nodes have been given to the solver as
	// clauses (logic.C.CnfSince's bookkeeping); pending holds the clauses of
	// the assertions not yet given to the solver (clauses.go), each ended
	// by z.LitNull. Assert touches only the circuit, so the solver's model
	// and failed assumptions stay valid until the next Check.
	mark    []int8
	pending []z.Lit
	roots   []z.Lit // scratch: the literals of a batch of clauses

	status  solver.Status
	assumed []assumption // the last Check's assumptions
	values  []int8       // per variable: 0 not yet computed, 1 false, 2 true

	// refuted is set once gini has answered unsat with no failed
	// assumption: the clauses alone are unsatisfiable, and every later check
	// is unsat without asking gini. gini 1.0.4 keeps the conflict of such an
	// answer only until the next clause is added; a solve after that works
	// from its contradictory top-level assignment and ends the process in
	// its model check ("internal error in solve: sat model").
	refuted bool

	stats  solver.Stats
	closed bool
}

type assumption struct {
	t *solver.Term
	m z.Lit
}

// clauseCounter passes clauses to the solver and counts them.
type clauseCounter struct {
	g *gosat.Gini
	n int64
}

func (cc *clauseCounter) Add(m z.Lit) {
	if m == z.LitNull {
		cc.n++
	}
	cc.g.Add(m)
}

// New returns a gini backend for formulas built by b.
func New(b *solver.Builder) (solver.Backend, error) {
	if b == nil {
		return nil, fmt.Errorf("gini: nil Builder")
	}
	g := gosat.New()
	return &backend{
		b:  b,
		bl: newBlaster(),
		g:  g,
		cl: clauseCounter{g: g},
	}, nil
}

// Assert implements solver.Backend.
func (s *backend) Assert(t *solver.Term) error {
	if s.closed {
		return solver.ErrClosed
	}
	if err := solver.CheckTerm(s.b, t, true); err != nil {
		return fmt.Errorf("gini: assert: %w", err)
	}
	s.pending = s.bl.clauses(s.pending, t)
	s.stats.Assertions++
	return nil
}

// Check implements solver.Backend.
func (s *backend) Check(ctx context.Context, assumptions ...*solver.Term) (solver.Status, error) {
	if s.closed {
		return solver.Unknown, solver.ErrClosed
	}
	for _, t := range assumptions {
		if err := solver.CheckTerm(s.b, t, true); err != nil {
			return solver.Unknown, fmt.Errorf("gini: check: assumption: %w", err)
		}
	}
	start := time.Now()
	s.stats.Checks++
	s.status = solver.Unknown
	s.values = s.values[:0]
	s.assumed = s.assumed[:0]
	if s.refuted {
		s.pending = nil // unsatisfiable however many clauses join them
		s.status = solver.Unsat
		return s.status, nil
	}

	// Give the solver the clauses of every gate the new assertions' clauses
	// and the assumptions need that it does not have yet, then the
	// assertions' clauses. On an encoding of hundreds of threads that is
	// millions of clauses and seconds: the clauses go in batches, with a
	// look at ctx before each, and a stop leaves those not yet given
	// pending.
	for len(s.pending) > 0 {
		if ctx.Err() != nil {
			return solver.Unknown, nil
		}
		n, ends := 0, 0
		for n < len(s.pending) && ends < cnfBatch {
			if s.pending[n] == z.LitNull {
				ends++
			}
			n++
		}
		batch := s.pending[:n]
		s.roots = s.roots[:0]
		for _, m := range batch {
			if m != z.LitNull {
				s.roots = append(s.roots, m)
			}
		}
		s.mark, _ = s.bl.c.CnfSince(&s.cl, s.mark, s.roots...)
		for _, m := range batch {
			s.cl.Add(m)
		}
		s.pending = s.pending[n:]
	}
	s.pending = nil
	roots := make([]z.Lit, 0, len(assumptions))
	for _, t := range assumptions {
		m := s.bl.lit(t)
		s.assumed = append(s.assumed, assumption{t, m})
		roots = append(roots, m)
	}
	if ctx.Err() != nil {
		return solver.Unknown, nil
	}
	s.mark, _ = s.bl.c.CnfSince(&s.cl, s.mark, roots...)
	// gini keeps assumptions until its next solve: they are made only here,
	// past the last look at ctx, so that a check that ends before solving
	// does not constrain the next one.
	for _, a := range s.assumed {
		s.g.Assume(a.m)
	}

	res := s.solve(ctx)
	s.stats.SolveTime += time.Since(start)
	switch res {
	case 1:
		s.status = solver.Sat
	case -1:
		s.status = solver.Unsat
		s.refuted = len(s.g.Why(nil)) == 0
	}
	return s.status, nil
}

// cnfBatch is how many asserted clauses Check gives the solver between two
// looks at its context, with the gates they need: a clause's new gates take
// microseconds to a millisecond to write as clauses.
const cnfBatch = 64

// solve runs the solver until it answers or ctx is done, and returns gini's
// result: 1 sat, -1 unsat, 0 stopped.
//
// gini's own Try(duration) cannot be used: it leaves its deadline in the
// solver, where it cuts short every later Solve. Instead the solve runs in
// gini's background goroutine and is stopped through its handle when the
// context ends. That handle can only be polled for a result, so the poll
// starts by yielding (most incremental checks take microseconds) and backs
// off to sleeping.
func (s *backend) solve(ctx context.Context) int {
	if ctx.Done() == nil {
		return s.g.Solve()
	}
	// Even when ctx has just ended, the solve starts and is stopped at once:
	// only a solve clears the assumptions Check has made (Check does not make
	// them when ctx ended before).
	h := s.g.GoSolve()
	for range 64 {
		if res, done := h.Test(); done {
			return res
		}
		runtime.Gosched()
	}
	wait := 20 * time.Microsecond
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		if res, done := h.Test(); done {
			return res
		}
		select {
		case <-ctx.Done():
			return h.Stop()
		case <-timer.C:
		}
		wait = min(2*wait, 5*time.Millisecond)
		timer.Reset(wait)
	}
}

// BoolValue implements solver.Backend.
func (s *backend) BoolValue(t *solver.Term) (bool, error) {
	if err := s.model(t, true); err != nil {
		return false, err
	}
	return s.value(s.bl.lit(t)), nil
}

// BVValue implements solver.Backend.
func (s *backend) BVValue(t *solver.Term) (uint64, error) {
	if err := s.model(t, false); err != nil {
		return 0, err
	}
	var v uint64
	for i, m := range s.bl.bits(t) {
		if s.value(m) {
			v |= 1 << uint(i)
		}
	}
	return v, nil
}

func (s *backend) model(t *solver.Term, wantBool bool) error {
	switch {
	case s.closed:
		return solver.ErrClosed
	case s.status != solver.Sat:
		return solver.ErrNoModel
	}
	if err := solver.CheckTerm(s.b, t, wantBool); err != nil {
		return fmt.Errorf("gini: value: %w", err)
	}
	return nil
}

// value returns the value of a circuit literal in the model. Inputs and
// gates the solver has clauses for take the solver's values; gates built
// since (say, for a term that was never asserted) are computed from their
// inputs, and inputs the solver has never seen are false: they occur in no
// clause, so any value is consistent with the model.
func (s *backend) value(m z.Lit) bool {
	return s.varValue(m.Var()) == m.IsPos()
}

func (s *backend) varValue(v z.Var) bool {
	if v == 1 { // the circuit's constant: T is its positive literal
		return true
	}
	if int(v) >= len(s.values) {
		s.values = append(s.values, make([]int8, int(v)+1-len(s.values))...)
	}
	if x := s.values[v]; x != 0 {
		return x == 2
	}
	a, b := s.bl.c.Ins(v.Pos())
	input := a == z.LitNull && b == z.LitNull
	known := v <= s.g.MaxVar() && (input || (int(v) < len(s.mark) && s.mark[v] == 1))
	var val bool
	switch {
	case known:
		val = s.g.Value(v.Pos())
	case input:
		val = false
	default:
		val = s.value(a) && s.value(b)
	}
	s.values[v] = 1
	if val {
		s.values[v] = 2
	}
	return val
}

// FailedAssumptions implements solver.Backend.
func (s *backend) FailedAssumptions() ([]*solver.Term, error) {
	switch {
	case s.closed:
		return nil, solver.ErrClosed
	case s.status != solver.Unsat:
		return nil, solver.ErrNoCore
	}
	if s.refuted {
		return nil, nil
	}
	failed := make(map[z.Lit]bool)
	for _, m := range s.g.Why(nil) {
		failed[m] = true
	}
	var core []*solver.Term
	for _, a := range s.assumed {
		if failed[a.m] {
			core = append(core, a.t)
		}
	}
	return core, nil
}

// Stats implements solver.Backend. gini does not export its search
// statistics, so Conflicts is -1; Counters holds the circuit's size.
func (s *backend) Stats() solver.Stats {
	if s.closed {
		return s.stats
	}
	st := s.stats
	st.Vars = int64(s.g.MaxVar())
	st.Clauses = s.cl.n
	st.Conflicts = -1
	st.Counters = map[string]float64{"circuit nodes": float64(s.bl.c.Len())}
	return st
}

// Close implements solver.Backend. The solver is garbage-collected memory;
// Close only makes later use an error.
func (s *backend) Close() error {
	if s.closed {
		return nil
	}
	s.stats = s.Stats()
	s.closed = true
	s.bl = nil
	s.g = nil
	return nil
}
