package portfolio_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/internal/solvertest"
	"kbmc/solver/portfolio"
	"kbmc/solver/z3"
)

// realMember is a backend the portfolio is built from in kbmc.
type realMember struct {
	name string
	new  solvertest.Factory
}

// realMembers are gini and, in a build with the binding, z3.
func realMembers(t *testing.T) []realMember {
	ms := []realMember{{"gini", gini.New}}
	if z3.Available() {
		ms = append(ms, realMember{"z3", z3.New})
	} else {
		t.Log("z3 backend not built (no cgo or the noz3 tag): gini only")
	}
	return ms
}

// pair returns a factory of portfolios of two backends.
func pair(a, b realMember) solvertest.Factory {
	return func(bld *solver.Builder) (solver.Backend, error) {
		x, err := a.new(bld)
		if err != nil {
			return nil, err
		}
		y, err := b.new(bld)
		if err != nil {
			x.Close()
			return nil, err
		}
		return portfolio.New(portfolio.Member{Name: a.name, Backend: x}, portfolio.Member{Name: b.name + "'", Backend: y})
	}
}

// TestInterface runs the backend conformance tests other than the operator
// table (whose semantics are the members', each tested on its own) on gini
// against z3, or in a build without z3 on gini against gini: incremental use,
// models and cores of whichever member won, misuse, time limits and
// cancellation of both members.
func TestInterface(t *testing.T) {
	ms := realMembers(t)
	other := ms[len(ms)-1]
	t.Run("gini+"+other.name, func(t *testing.T) {
		solvertest.Interface(t, pair(ms[0], other))
	})
}

// step is what a scripted member does in one Check.
type step struct {
	status solver.Status
	err    error
	// late: return only once the portfolio cancels the check, and then
	// status anyway, as a solver that finished just as it was interrupted
	// would; with status Unknown, a member that never answers.
	late bool
}

// scripted is a member that decides nothing: each Check plays the next step of
// its plan. It has no models; its assertions are counted.
type scripted struct {
	plan       []step
	checks     int
	assertions int
	assertErr  error
	closed     bool
}

func (s *scripted) Assert(*solver.Term) error {
	if s.assertErr != nil {
		return s.assertErr
	}
	s.assertions++
	return nil
}

func (s *scripted) Check(ctx context.Context, _ ...*solver.Term) (solver.Status, error) {
	st := s.plan[s.checks]
	s.checks++
	if st.late {
		<-ctx.Done()
	}
	return st.status, st.err
}

func (s *scripted) BoolValue(*solver.Term) (bool, error)       { return false, solver.ErrNoModel }
func (s *scripted) BVValue(*solver.Term) (uint64, error)       { return 0, solver.ErrNoModel }
func (s *scripted) FailedAssumptions() ([]*solver.Term, error) { return nil, solver.ErrNoCore }
func (s *scripted) Stats() solver.Stats                        { return solver.Stats{Checks: int64(s.checks)} }
func (s *scripted) Close() error                               { s.closed = true; return nil }

// recording passes a real backend's calls through and records how its checks
// ended: the status, and whether the check's context had been cancelled.
type recording struct {
	solver.Backend
	statuses  []solver.Status
	cancelled []bool
}

func (r *recording) Check(ctx context.Context, assumptions ...*solver.Term) (solver.Status, error) {
	st, err := r.Backend.Check(ctx, assumptions...)
	r.statuses = append(r.statuses, st)
	r.cancelled = append(r.cancelled, ctx.Err() != nil)
	return st, err
}

// settle waits until no more goroutines run than before; a goroutine a member
// left running would keep the count up, and the test fails after a minute.
func settle(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left running, %d before:\n%s", runtime.NumGoroutine()-before, before,
				buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLoserStops races each real backend, on a check it cannot finish (factoring
// a 64-bit semiprime), against a member that answers at once: Check returns only
// when the real one has been interrupted, which must leave no goroutine running
// and the backend ready for the next check, which it then wins. Close closes it
// (for z3: deletes its context).
func TestLoserStops(t *testing.T) {
	for _, rm := range realMembers(t) {
		t.Run(rm.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			b := solver.NewBuilder()
			be, err := rm.new(b)
			if err != nil {
				t.Fatal(err)
			}
			loser := &recording{Backend: be}
			oracle := &scripted{plan: []step{{status: solver.Sat}, {status: solver.Unknown, late: true}}}
			p, err := portfolio.New(portfolio.Member{Name: "oracle", Backend: oracle}, portfolio.Member{Name: rm.name, Backend: loser})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Assert(solvertest.Factoring(b)); err != nil {
				t.Fatal(err)
			}
			if st, err := p.Check(context.Background()); st != solver.Sat || err != nil {
				t.Fatalf("check = %v, %v; want the oracle's sat", st, err)
			}
			if len(loser.statuses) != 1 || loser.statuses[0] != solver.Unknown || !loser.cancelled[0] {
				t.Fatalf("%s's checks ended %v, cancelled %v; want one unknown, cancelled", rm.name, loser.statuses, loser.cancelled)
			}
			if _, err := p.BoolValue(b.True()); err == nil {
				t.Error("the oracle has no model, but the portfolio read one")
			}
			settle(t, before)

			solvertest.CheckUsable(t, b, p) // the oracle waits for cancellation; the real one answers
			st := p.Stats()
			if st.Counters[portfolio.AnsweredCounter("oracle")] != 1 || st.Counters[portfolio.AnsweredCounter(rm.name)] != 1 {
				t.Errorf("answers counted %v, want one each", st.Counters)
			}
			if st.Checks != 2 || st.Assertions != 1 || oracle.assertions != 1 {
				t.Errorf("stats %+v, oracle %d assertions; want 2 checks and 1 assertion", st, oracle.assertions)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := be.Check(context.Background()); !errors.Is(err, solver.ErrClosed) || !oracle.closed {
				t.Errorf("after the portfolio's Close, %s's check gives %v and the oracle is closed: %v", rm.name, err, oracle.closed)
			}
			settle(t, before)
		})
	}
}

// TestRace runs gini against z3 on checks each finishes, with the losers
// cancelled: the answers are right whoever wins, and the winner's model is read.
func TestRace(t *testing.T) {
	ms := realMembers(t)
	if len(ms) < 2 {
		t.Skip("z3 backend not built")
	}
	before := runtime.NumGoroutine()
	b := solver.NewBuilder()
	p, err := pair(ms[0], ms[1])(b)
	if err != nil {
		t.Fatal(err)
	}
	x, y := b.BVVar("x", 16), b.BVVar("y", 16)
	if err := p.Assert(b.Eq(b.Mul(x, y), b.BV(391, 16))); err != nil {
		t.Fatal(err)
	}
	small := b.And(b.Ult(b.BV(1, 16), x), b.Ult(x, y), b.Ult(y, b.BV(256, 16)))
	for i := range 50 {
		st, err := p.Check(context.Background(), small)
		if err != nil || st != solver.Sat {
			t.Fatalf("check %d: %v, %v; want sat", i, st, err)
		}
		if v, err := p.BVValue(x); err != nil || v != 17 {
			t.Fatalf("check %d: x = %d, %v; want 17", i, v, err)
		}
		st, err = p.Check(context.Background(), small, b.Eq(x, b.BV(23, 16)))
		if err != nil || st != solver.Unsat {
			t.Fatalf("check %d: %v, %v; want unsat", i, st, err)
		}
	}
	st := p.Stats()
	if n := st.Counters[portfolio.AnsweredCounter("gini")] + st.Counters[portfolio.AnsweredCounter("z3'")]; n != 100 {
		t.Errorf("answers counted %v, want 100 in all", st.Counters)
	}
	t.Logf("answered by gini %v, by z3 %v", st.Counters[portfolio.AnsweredCounter("gini")], st.Counters[portfolio.AnsweredCounter("z3'")])
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	settle(t, before)
}

// TestAnswers covers the outcomes of a race with scripted members: who wins,
// disagreement, errors, and no answer at all.
func TestAnswers(t *testing.T) {
	errBroke := errors.New("solver broke")
	tests := []struct {
		name       string
		a, b       step
		cancelled  bool // the caller's context is cancelled before the check
		want       solver.Status
		wantErr    error
		wantWinner string
	}{
		{name: "a first", a: step{status: solver.Sat}, b: step{status: solver.Unknown, late: true}, want: solver.Sat, wantWinner: "a"},
		{name: "b first", a: step{status: solver.Unknown, late: true}, b: step{status: solver.Unsat}, want: solver.Unsat, wantWinner: "b"},
		{name: "both agree", a: step{status: solver.Unsat}, b: step{status: solver.Unsat, late: true}, want: solver.Unsat, wantWinner: "a"},
		{name: "late disagreement", a: step{status: solver.Sat}, b: step{status: solver.Unsat, late: true}, wantErr: portfolio.ErrDisagree},
		{name: "late disagreement, other order", a: step{status: solver.Sat, late: true}, b: step{status: solver.Unsat}, wantErr: portfolio.ErrDisagree},
		{name: "error", a: step{err: errBroke}, b: step{status: solver.Unknown, late: true}, wantErr: errBroke},
		{name: "error after an answer", a: step{status: solver.Sat}, b: step{err: errBroke, late: true}, wantErr: errBroke},
		{name: "no answer", a: step{status: solver.Unknown, late: true}, b: step{status: solver.Unknown, late: true}, cancelled: true, want: solver.Unknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := &scripted{plan: []step{tc.a}}, &scripted{plan: []step{tc.b}}
			p, err := portfolio.New(portfolio.Member{Name: "a", Backend: a}, portfolio.Member{Name: "b", Backend: b})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancelled {
				cancel()
			}
			defer cancel()
			st, err := p.Check(ctx)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || st != solver.Unknown {
					t.Fatalf("check = %v, %v; want unknown and %v", st, err, tc.wantErr)
				}
				return
			}
			if err != nil || st != tc.want {
				t.Fatalf("check = %v, %v; want %v", st, err, tc.want)
			}
			answered := p.Stats().Counters
			for _, name := range []string{"a", "b"} {
				want := 0.0
				if name == tc.wantWinner {
					want = 1
				}
				if got := answered[portfolio.AnsweredCounter(name)]; got != want {
					t.Errorf("%s answered %v checks, want %v", name, got, want)
				}
			}
			if _, err := p.BoolValue(nil); tc.wantWinner == "" && !errors.Is(err, solver.ErrNoModel) {
				t.Errorf("model without an answer: %v, want ErrNoModel", err)
			}
		})
	}
}

// TestAssertLockstep: an assertion every member refuses leaves the portfolio
// usable; one only some refuse puts the members out of step, and every later
// call fails.
func TestAssertLockstep(t *testing.T) {
	refused := errors.New("refused")
	b := solver.NewBuilder()
	for _, tc := range []struct {
		name       string
		refuseA    bool
		refuseB    bool
		wantBroken bool
	}{
		{name: "both refuse", refuseA: true, refuseB: true},
		{name: "one refuses", refuseB: true, wantBroken: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &scripted{plan: []step{{status: solver.Sat}}}
			c := &scripted{plan: []step{{status: solver.Sat, late: true}}}
			if tc.refuseA {
				a.assertErr = refused
			}
			if tc.refuseB {
				c.assertErr = refused
			}
			p, err := portfolio.New(portfolio.Member{Name: "a", Backend: a}, portfolio.Member{Name: "b", Backend: c})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if err := p.Assert(b.True()); !errors.Is(err, refused) {
				t.Fatalf("assert: %v, want the members' refusal", err)
			}
			_, err = p.Check(context.Background())
			if broken := err != nil && strings.Contains(err.Error(), "out of step"); broken != tc.wantBroken {
				t.Errorf("check after the refusal: %v; want out of step: %v", err, tc.wantBroken)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	g, err := gini.New(solver.NewBuilder())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, tc := range []struct {
		name    string
		members []portfolio.Member
	}{
		{name: "none"},
		{name: "nil backend", members: []portfolio.Member{{Name: "gini"}}},
		{name: "two of one name", members: []portfolio.Member{{Name: "gini", Backend: g}, {Name: "gini", Backend: g}}},
	} {
		if _, err := portfolio.New(tc.members...); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
