package portfolio

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kbmc/solver"
)

// Member is one backend of a portfolio and the name the portfolio reports it by.
type Member struct {
	Name    string
	Backend solver.Backend
}

// ErrDisagree marks a check that two members answered differently, one sat and
// the other unsat: one of the solvers is wrong, an internal error.
var ErrDisagree = errors.New("portfolio: the solvers disagree")

// AnsweredCounter is the key of Stats.Counters that counts the checks the member
// called name answered first (its answer was the portfolio's).
func AnsweredCounter(name string) string { return "answered by " + name }

// backend implements solver.Backend by racing its members.
type backend struct {
	members []Member
	winner  int     // the member whose answer the last Check returned, or -1
	answers []int64 // per member: the checks it answered first

	// broken is set when the members are no longer in lockstep (one took an
	// assertion another refused); every later call returns it.
	broken error

	stats  solver.Stats // the portfolio's own Assertions, Checks, SolveTime
	final  solver.Stats // Stats at Close
	closed bool
}

// New returns a portfolio of the given backends, which it owns: Close closes
// them. The members must decide formulas of one Builder.
func New(members ...Member) (solver.Backend, error) {
	if len(members) == 0 {
		return nil, errors.New("portfolio: no members")
	}
	seen := make(map[string]bool)
	for _, m := range members {
		if m.Backend == nil {
			return nil, fmt.Errorf("portfolio: member %q has no backend", m.Name)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("portfolio: two members called %q", m.Name)
		}
		seen[m.Name] = true
	}
	return &backend{
		members: append([]Member(nil), members...),
		winner:  -1,
		answers: make([]int64, len(members)),
	}, nil
}

func (p *backend) usable() error {
	if p.closed {
		return solver.ErrClosed
	}
	return p.broken
}

// Assert implements solver.Backend: every member takes the assertion. A term
// that every member refuses (say, of the wrong sort) leaves them in lockstep; one
// that only some refuse does not.
func (p *backend) Assert(t *solver.Term) error {
	if err := p.usable(); err != nil {
		return err
	}
	var errs []error
	for _, m := range p.members {
		if err := m.Backend.Assert(t); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.Name, err))
		}
	}
	switch {
	case len(errs) == 0:
		p.stats.Assertions++
		return nil
	case len(errs) < len(p.members):
		p.broken = fmt.Errorf("portfolio: the solvers are out of step after an assertion only some took: %w", errors.Join(errs...))
		return p.broken
	}
	return fmt.Errorf("portfolio: assert: %w", errs[0])
}

// answer is one member's result of a Check.
type answer struct {
	member int
	status solver.Status
	err    error
}

// Check implements solver.Backend: the members race, the first sat or unsat
// wins, and the others are cancelled and waited for.
func (p *backend) Check(ctx context.Context, assumptions ...*solver.Term) (solver.Status, error) {
	if err := p.usable(); err != nil {
		return solver.Unknown, err
	}
	start := time.Now()
	p.stats.Checks++
	p.winner = -1
	defer func() { p.stats.SolveTime += time.Since(start) }()

	race, cancel := context.WithCancel(ctx)
	defer cancel()
	// Buffered for every member, so that none blocks on its send when the
	// loop below stops reading early (it never does, but a member must not
	// outlive Check because of it).
	answers := make(chan answer, len(p.members))
	for i, m := range p.members {
		go func() {
			st, err := m.Backend.Check(race, assumptions...)
			answers <- answer{member: i, status: st, err: err}
		}()
	}
	// Every member is waited for, the losers after their cancellation: a
	// backend is not safe for concurrent use, and the next call may touch it.
	got := make([]answer, len(p.members))
	first := -1
	var failed error
	for range p.members {
		a := <-answers
		got[a.member] = a
		switch {
		case a.err != nil:
			if failed == nil {
				failed = fmt.Errorf("portfolio: %s: %w", p.members[a.member].Name, a.err)
			}
			cancel()
		case a.status != solver.Unknown && first < 0:
			first = a.member
			cancel()
		}
	}
	if failed != nil {
		return solver.Unknown, failed
	}
	if first < 0 {
		// Members answer Unknown only when the context ends, and the race's
		// context ended only through the caller's: a time limit or an
		// interrupt, which the caller reads from ctx.
		return solver.Unknown, nil
	}
	for i, a := range got {
		if a.status != solver.Unknown && a.status != got[first].status {
			return solver.Unknown, fmt.Errorf("%w: %s says %v, %s says %v",
				ErrDisagree, p.members[first].Name, got[first].status, p.members[i].Name, a.status)
		}
	}
	p.winner = first
	p.answers[first]++
	return got[first].status, nil
}

// won returns the member whose answer the last Check returned, or noAnswer when
// there is none (no Check yet, or it ended without an answer).
func (p *backend) won(noAnswer error) (solver.Backend, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if p.winner < 0 {
		return nil, noAnswer
	}
	return p.members[p.winner].Backend, nil
}

// BoolValue implements solver.Backend with the winner's model.
func (p *backend) BoolValue(t *solver.Term) (bool, error) {
	be, err := p.won(solver.ErrNoModel)
	if err != nil {
		return false, err
	}
	return be.BoolValue(t)
}

// BVValue implements solver.Backend with the winner's model.
func (p *backend) BVValue(t *solver.Term) (uint64, error) {
	be, err := p.won(solver.ErrNoModel)
	if err != nil {
		return 0, err
	}
	return be.BVValue(t)
}

// FailedAssumptions implements solver.Backend with the winner's core.
func (p *backend) FailedAssumptions() ([]*solver.Term, error) {
	be, err := p.won(solver.ErrNoCore)
	if err != nil {
		return nil, err
	}
	return be.FailedAssumptions()
}

// Stats implements solver.Backend. Vars, Clauses and Conflicts are one member's:
// the members decide the same formulas, and their figures measure different
// encodings of them, which a sum or a mix would not describe. The member is the
// one that answered the last Check (the first before any answer): one that
// lost the race may have been stopped before it had even encoded the formula,
// and its figures would say "0 clauses".
func (p *backend) Stats() solver.Stats {
	if p.closed {
		return p.final
	}
	st := p.stats
	st.Conflicts = -1
	st.Counters = make(map[string]float64)
	sizes := max(p.winner, 0)
	for i, m := range p.members {
		ms := m.Backend.Stats()
		if i == sizes {
			st.Vars, st.Clauses, st.Conflicts = ms.Vars, ms.Clauses, ms.Conflicts
		}
		for k, v := range ms.Counters {
			st.Counters[m.Name+": "+k] = v
		}
		st.Counters[m.Name+": solve seconds"] = ms.SolveTime.Seconds()
		st.Counters[AnsweredCounter(m.Name)] = float64(p.answers[i])
	}
	return st
}

// Close implements solver.Backend: it closes every member.
func (p *backend) Close() error {
	if p.closed {
		return nil
	}
	p.final = p.Stats()
	p.closed = true
	var errs []error
	for _, m := range p.members {
		if err := m.Backend.Close(); err != nil {
			errs = append(errs, fmt.Errorf("portfolio: close %s: %w", m.Name, err))
		}
	}
	return errors.Join(errs...)
}
