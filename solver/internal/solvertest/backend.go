package solvertest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"kbmc/solver"
)

// Flags shared by every test binary of the solver packages, so that
// "go test ./solver/... -solver.formulas=N" is accepted by all of them.
var (
	Formulas = flag.Int("solver.formulas", 2000, "random formulas of widths 1-16 in the differential test (plus 300 or 15% more at width 32)")
	Seed     = flag.Uint64("solver.seed", 1, "seed of the random formula generator")
)

// Factory makes a backend for a Builder; z3.New and gini.New are factories.
type Factory func(*solver.Builder) (solver.Backend, error)

// Conformance runs the tests every Backend must pass, as subtests of t.
func Conformance(t *testing.T, newBackend Factory) {
	t.Run("Operators", func(t *testing.T) { testOperators(t, newBackend) })
	Interface(t, newBackend)
}

// Interface runs the conformance tests other than the operator table, which
// takes most of Conformance's time: incremental use, model values, misuse,
// time limits and cancellation. A backend that delegates the solving to others
// (the portfolio), whose operators are theirs, runs these by default.
func Interface(t *testing.T, newBackend Factory) {
	t.Run("Incremental", func(t *testing.T) { testIncremental(t, newBackend) })
	t.Run("Values", func(t *testing.T) { testValues(t, newBackend) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, newBackend) })
	t.Run("TimeLimit", func(t *testing.T) { testTimeLimit(t, newBackend) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, newBackend) })
}

func mustNew(t testing.TB, newBackend Factory, b *solver.Builder) solver.Backend {
	t.Helper()
	s, err := newBackend(b)
	if err != nil {
		t.Fatalf("new backend: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func check(t testing.TB, s solver.Backend, want solver.Status, assumptions ...*solver.Term) {
	t.Helper()
	got, err := s.Check(context.Background(), assumptions...)
	if err != nil {
		t.Fatalf("check %v: %v", assumptions, err)
	}
	if got != want {
		t.Fatalf("check %v = %v, want %v", assumptions, got, want)
	}
}

// BackendWidths are the widths the backends' operator test covers.
var BackendWidths = []int{1, 3, 8, 16, 32, 64}

// testOperators fixes the operands with assumptions x = a and y = c and
// checks, for every operator and pair of edge values, that the model gives
// the operator the reference value and that any other value is
// unsatisfiable. One backend per width serves all cases incrementally.
func testOperators(t *testing.T, newBackend Factory) {
	for _, w := range BackendWidths {
		t.Run(fmt.Sprint("w", w), func(t *testing.T) {
			var st solver.Stats
			for _, op := range Ops {
				// A backend per operator keeps each check's problem small:
				// a check costs in proportion to all clauses so far.
				b := solver.NewBuilder()
				s := mustNew(t, newBackend, b)
				x, y := b.BVVar("x", w), b.BVVar("y", w)
				vals := BackendEdgeValues(w)
				term := op.Build(b, w, x, y)
				for _, a := range vals {
					for _, c := range vals {
						if op.Arity == 1 && c != vals[0] {
							continue
						}
						want := op.Ref(w, a, c)
						fix := []*solver.Term{b.Eq(x, b.BV(a, w)), b.Eq(y, b.BV(c, w))}
						check(t, s, solver.Sat, fix...)
						var got uint64
						var other *solver.Term
						if op.Bool {
							v, err := s.BoolValue(term)
							if err != nil {
								t.Fatal(err)
							}
							got = boolToU(v)
							other = b.Eq(term, b.Bool(want == 0))
						} else {
							v, err := s.BVValue(term)
							if err != nil {
								t.Fatal(err)
							}
							got = v
							other = b.Distinct(term, b.BV(want, term.Width()))
						}
						if got != want {
							t.Errorf("%s(%#x, %#x) = %#x in the model, want %#x", op.Name, a, c, got, want)
							continue
						}
						check(t, s, solver.Unsat, append(fix, other)...)
					}
				}
				ost := s.Stats()
				st.Checks += ost.Checks
				st.Vars += ost.Vars
				st.Clauses += ost.Clauses
				st.SolveTime += ost.SolveTime
			}
			t.Logf("%d checks, vars %d, clauses %d, solve time %v (sums over the operators)",
				st.Checks, st.Vars, st.Clauses, st.SolveTime)
		})
	}
}

func boolToU(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// testIncremental checks that assertions accumulate, assumptions last one
// call, and failed assumptions name the culprits.
func testIncremental(t *testing.T, newBackend Factory) {
	b := solver.NewBuilder()
	s := mustNew(t, newBackend, b)
	p, q, r := b.BoolVar("p"), b.BoolVar("q"), b.BoolVar("r")
	x := b.BVVar("x", 8)
	notP, notQ := b.Not(p), b.Not(q)
	big := b.Ult(b.BV(100, 8), x)

	if err := s.Assert(b.Or(p, q)); err != nil {
		t.Fatal(err)
	}
	check(t, s, solver.Sat, notP)
	if v, err := s.BoolValue(q); err != nil || !v {
		t.Errorf("q = %v, %v under not p; want true", v, err)
	}
	check(t, s, solver.Unsat, r, notP, big, notQ)
	core, err := s.FailedAssumptions()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(core, notP) || !slices.Contains(core, notQ) {
		t.Errorf("failed assumptions %v, want both %v and %v", core, notP, notQ)
	}
	for _, c := range core {
		if c != r && c != notP && c != big && c != notQ {
			t.Errorf("failed assumption %v was not assumed", c)
		}
	}
	check(t, s, solver.Unsat, core...) // a core is itself unsatisfiable

	// The assumptions are gone; the assertion stays.
	check(t, s, solver.Sat)
	if err := s.Assert(notQ); err != nil {
		t.Fatal(err)
	}
	check(t, s, solver.Sat, big)
	if v, err := s.BoolValue(p); err != nil || !v {
		t.Errorf("p = %v, %v after asserting not q; want true", v, err)
	}
	if v, err := s.BVValue(x); err != nil || v <= 100 {
		t.Errorf("x = %v, %v under 100 < x", v, err)
	}
	// A constant false assumption fails by itself.
	check(t, s, solver.Unsat, b.False(), p)
	if core, err := s.FailedAssumptions(); err != nil || !slices.Contains(core, b.False()) {
		t.Errorf("failed assumptions %v, %v; want false among them", core, err)
	}
	if err := s.Assert(notP); err != nil {
		t.Fatal(err)
	}
	check(t, s, solver.Unsat, big)
	check(t, s, solver.Unsat)
	if core, err := s.FailedAssumptions(); err != nil || len(core) != 0 {
		t.Errorf("failed assumptions %v, %v with contradictory assertions; want none", core, err)
	}
	st := s.Stats()
	if st.Assertions != 3 || st.Checks != 8 {
		t.Errorf("stats count %d assertions and %d checks, want 3 and 8", st.Assertions, st.Checks)
	}

	// Constant assertions, which bit-blast to the circuit's constants.
	for _, c := range []bool{true, false} {
		s := mustNew(t, newBackend, b)
		if err := s.Assert(b.Bool(c)); err != nil {
			t.Fatal(err)
		}
		if c {
			check(t, s, solver.Sat, p)
			continue
		}
		check(t, s, solver.Unsat, p)
		if core, err := s.FailedAssumptions(); err != nil || len(core) != 0 {
			t.Errorf("failed assumptions %v, %v after asserting false; want none", core, err)
		}
	}

	// Assertions that are unsatisfiable by themselves, found so only by
	// search (no unit clause decides them), stay unsatisfiable as more are
	// asserted. gini 1.0.4 forgets the conflict when clauses are added after
	// such an answer, and its next solve ends the process ("internal error in
	// solve: sat model").
	u := mustNew(t, newBackend, b)
	a, c := b.BoolVar("ua"), b.BoolVar("uc")
	for _, f := range []*solver.Term{b.Or(a, c), b.Or(b.Not(a), c), b.Or(a, b.Not(c)), b.Or(b.Not(a), b.Not(c))} {
		if err := u.Assert(f); err != nil {
			t.Fatal(err)
		}
	}
	check(t, u, solver.Unsat)
	if err := u.Assert(b.Or(p, r)); err != nil {
		t.Fatal(err)
	}
	check(t, u, solver.Unsat)
	check(t, u, solver.Unsat, p)
	if core, err := u.FailedAssumptions(); err != nil || len(core) != 0 {
		t.Errorf("failed assumptions %v, %v with unsatisfiable assertions; want none", core, err)
	}
}

// testValues evaluates terms that were never asserted, and checks a model
// against the Go evaluator.
func testValues(t *testing.T, newBackend Factory) {
	b := solver.NewBuilder()
	s := mustNew(t, newBackend, b)
	x, y := b.BVVar("x", 32), b.BVVar("y", 32)
	z := b.BVVar("z", 16) // in no assertion
	p := b.BoolVar("p")   // in no assertion
	f := b.And(b.Eq(b.Mul(x, y), b.BV(391, 32)), b.Ult(b.BV(1, 32), x), b.Ult(x, y), b.Ult(y, b.BV(1000, 32)))
	if err := s.Assert(f); err != nil {
		t.Fatal(err)
	}
	check(t, s, solver.Sat)
	a := solver.Assignment{}
	for _, v := range []*solver.Term{x, y, z} {
		val, err := s.BVValue(v)
		if err != nil {
			t.Fatal(err)
		}
		a[v] = val
	}
	pv, err := s.BoolValue(p)
	if err != nil {
		t.Fatal(err)
	}
	a[p] = boolToU(pv)
	if a[x] != 17 || a[y] != 23 {
		t.Errorf("model x=%d y=%d, want 17 and 23", a[x], a[y])
	}
	terms := []*solver.Term{
		f,
		b.Add(b.Mul(x, y), b.BV(3, 32)),
		b.SDiv(b.Neg(y), x),
		b.Concat(z, b.Extract(x, 15, 0)),
		b.Ite(p, b.ZeroExtend(z, 32), y),
		b.Slt(b.SignExtend(z, 32), x),
		b.Xor(p, b.Eq(z, b.BV(7, 16))),
	}
	for _, term := range terms {
		want, err := solver.Eval(term, a)
		if err != nil {
			t.Fatal(err)
		}
		var got uint64
		if term.IsBool() {
			v, err := s.BoolValue(term)
			if err != nil {
				t.Fatal(err)
			}
			got = boolToU(v)
		} else if got, err = s.BVValue(term); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("value of %v = %#x, Eval gives %#x", term, got, want)
		}
	}
}

func testErrors(t *testing.T, newBackend Factory) {
	b, other := solver.NewBuilder(), solver.NewBuilder()
	s, err := newBackend(b)
	if err != nil {
		t.Fatal(err)
	}
	x, p := b.BVVar("x", 8), b.BoolVar("p")
	if err := s.Assert(other.BoolVar("p")); err == nil {
		t.Error("Assert of another Builder's term succeeded")
	}
	if err := s.Assert(x); err == nil {
		t.Error("Assert of a bit-vector succeeded")
	}
	if _, err := s.Check(context.Background(), x); err == nil {
		t.Error("Check assuming a bit-vector succeeded")
	}
	if _, err := s.BVValue(x); !errors.Is(err, solver.ErrNoModel) {
		t.Errorf("BVValue before Check: %v, want ErrNoModel", err)
	}
	check(t, s, solver.Sat, p)
	if _, err := s.FailedAssumptions(); !errors.Is(err, solver.ErrNoCore) {
		t.Errorf("FailedAssumptions after sat: %v, want ErrNoCore", err)
	}
	if _, err := s.BVValue(p); err == nil {
		t.Error("BVValue of a proposition succeeded")
	}
	if _, err := s.BoolValue(x); err == nil {
		t.Error("BoolValue of a bit-vector succeeded")
	}
	if _, err := s.BoolValue(other.BoolVar("q")); err == nil {
		t.Error("BoolValue of another Builder's term succeeded")
	}
	check(t, s, solver.Unsat, p, b.Not(p))
	if _, err := s.BoolValue(p); !errors.Is(err, solver.ErrNoModel) {
		t.Errorf("BoolValue after unsat: %v, want ErrNoModel", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Assert(p); !errors.Is(err, solver.ErrClosed) {
		t.Errorf("Assert after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Check(context.Background()); !errors.Is(err, solver.ErrClosed) {
		t.Errorf("Check after Close: %v, want ErrClosed", err)
	}
	_ = s.Stats() // still allowed
}

// Factoring returns a formula that is satisfiable but hard for every
// bit-blasting solver: x*y = p*q with 1 < x, y < 2^32, at 64 bits so the
// product cannot wrap. p and q are the primes following two fixed 32-bit
// numbers with irregular bit patterns: primes just below 2^32 are mostly
// ones, which a solver that guesses true first finds at once.
func Factoring(b *solver.Builder) *solver.Term {
	p, q := FactoringPrimes()
	return factorProduct(b, 64, "fx", "fy", p*q)
}

// FactoringPrimes returns the factors of Factoring's product.
func FactoringPrimes() (p, q uint64) { return nextPrime(0xb504f32d), nextPrime(0xc90fdaa3) }

func nextPrime(n uint64) uint64 {
	for !new(big.Int).SetUint64(n).ProbablyPrime(32) {
		n++
	}
	return n
}

// testTimeLimit checks that a deadline of one second stops a hard check
// with Unknown, and that the backend still answers afterwards.
func testTimeLimit(t *testing.T, newBackend Factory) {
	b := solver.NewBuilder()
	s := mustNew(t, newBackend, b)
	if err := s.Assert(Factoring(b)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	st, err := s.Check(ctx)
	elapsed := time.Since(start)
	t.Logf("1 s limit: %v after %v", st, elapsed)
	if err != nil {
		t.Fatal(err)
	}
	if st != solver.Unknown {
		t.Errorf("factoring a 64-bit semiprime in a second: %v, want unknown", st)
	}
	if elapsed > 5*time.Second {
		t.Errorf("a 1 s limit stopped the check after %v", elapsed)
	}
	// An already expired context stops at once.
	st, err = s.Check(ctx)
	if err != nil || st != solver.Unknown {
		t.Errorf("check with an expired context: %v, %v; want unknown", st, err)
	}
	CheckUsable(t, b, s)
}

// testCancel cancels a hard check from another goroutine.
func testCancel(t *testing.T, newBackend Factory) {
	b := solver.NewBuilder()
	s := mustNew(t, newBackend, b)
	if err := s.Assert(Factoring(b)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(200*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	st, err := s.Check(ctx, b.BoolVar("unused"))
	elapsed := time.Since(start)
	t.Logf("cancelled after 200 ms: %v after %v", st, elapsed)
	if err != nil {
		t.Fatal(err)
	}
	if st != solver.Unknown {
		t.Errorf("cancelled check: %v, want unknown", st)
	}
	if elapsed > 5*time.Second {
		t.Errorf("cancellation took %v", elapsed)
	}
	CheckUsable(t, b, s)
}

// CheckUsable checks that a backend whose check of Factoring was interrupted
// answers the next check.
func CheckUsable(t *testing.T, b *solver.Builder, s solver.Backend) {
	t.Helper()
	fx := b.BVVar("fx", 64)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// With one factor given, the other follows.
	p, q := FactoringPrimes()
	st, err := s.Check(ctx, b.Eq(fx, b.BV(p, 64)))
	if err != nil || st != solver.Sat {
		t.Fatalf("check after an interrupted one: %v, %v; want sat", st, err)
	}
	if v, err := s.BVValue(b.BVVar("fy", 64)); err != nil || v != q {
		t.Errorf("fy = %d, %v; want %d", v, err, q)
	}
}
