package solver

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Status is the outcome of a satisfiability check.
type Status int

const (
	// Unknown means the check stopped before an answer: the context's
	// deadline passed or it was cancelled.
	Unknown Status = iota
	// Sat means the assertions and assumptions have a model.
	Sat
	// Unsat means they have none.
	Unsat
)

func (s Status) String() string {
	switch s {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Backend is an incremental decision procedure for formulas of one Builder.
//
// Assertions accumulate over the life of the Backend. Check decides whether
// they, together with the assumptions passed to that call only, are
// satisfiable; the symbolic engine deepens its bound by asserting the
// transition relation once per step and checking under an assumption that
// selects the current bound. A Backend is not safe for concurrent use,
// except that the context passed to Check may be cancelled from anywhere.
type Backend interface {
	// Assert adds the proposition t to the assertions permanently.
	Assert(t *Term) error

	// Check decides the assertions under the given assumptions, which are
	// propositions that hold for this call only. The context's deadline is
	// the time limit and its cancellation an interrupt: when either stops
	// the search, Check returns Unknown and a nil error (ctx.Err() tells
	// which). An error means the backend failed and the status is Unknown.
	Check(ctx context.Context, assumptions ...*Term) (Status, error)

	// BoolValue returns the value of any proposition, not only a variable,
	// in the model of the last Check, which must have returned Sat.
	// Variables the model leaves open take an arbitrary fixed value, the
	// same in every call until the next Check.
	BoolValue(t *Term) (bool, error)

	// BVValue is BoolValue for bit-vectors: the term's bits, zero-extended
	// to 64 (use Signed for the two's-complement reading).
	BVValue(t *Term) (uint64, error)

	// FailedAssumptions returns, after a Check that returned Unsat, a subset
	// of that call's assumptions that is unsatisfiable together with the
	// assertions (an unsat core over the assumptions; not necessarily
	// minimal). It is empty when the assertions alone are unsatisfiable.
	FailedAssumptions() ([]*Term, error)

	// Stats returns the backend's counters so far.
	Stats() Stats

	// Close releases the backend's resources; the Backend must not be
	// used afterwards. Closing twice is harmless.
	Close() error
}

// Stats are a backend's counters, cumulative over its life.
type Stats struct {
	// Vars is the number of propositional variables of the SAT problem
	// (after bit-blasting), as far as the backend reports it.
	Vars int64
	// Clauses is the number of clauses given to the SAT solver (for an SMT
	// solver: the clauses it reports having created).
	Clauses int64
	// Conflicts is the number of conflicts the search met, or -1 when the
	// backend does not report it.
	Conflicts int64
	// Assertions counts Assert calls, Checks Check calls.
	Assertions int64
	Checks     int64
	// SolveTime is the time spent inside Check.
	SolveTime time.Duration
	// Counters holds any further figures the solver reports, under its own
	// names; it may be nil.
	Counters map[string]float64
}

// ErrNoModel is returned when a value is asked for while the last Check
// did not return Sat.
var ErrNoModel = errors.New("solver: no model: the last check was not sat")

// ErrNoCore is returned by FailedAssumptions when the last Check did not
// return Unsat.
var ErrNoCore = errors.New("solver: no unsat core: the last check was not unsat")

// ErrClosed is returned by the methods of a closed backend.
var ErrClosed = errors.New("solver: backend is closed")

// ErrOutOfMemory is wrapped by the error of a backend that ran out of the
// memory it was allowed (Z3's memory limit): the run ends with verdict
// unknown, stopped by its memory limit, not with an internal error.
var ErrOutOfMemory = errors.New("solver: out of memory")

// CheckTerm returns an error unless t is a term of b of the wanted sort; the
// backends use it to turn misuse into errors at their API boundary.
func CheckTerm(b *Builder, t *Term, wantBool bool) error {
	switch {
	case t == nil:
		return errors.New("solver: nil term")
	case t.b != b:
		return fmt.Errorf("solver: term %d belongs to another Builder", t.id)
	case wantBool && !t.IsBool():
		return fmt.Errorf("solver: term of sort %s, want Bool", t.sort)
	case !wantBool && t.IsBool():
		return errors.New("solver: term of sort Bool, want a bit-vector")
	}
	return nil
}
