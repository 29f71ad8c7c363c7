package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/internal/solvertest"
	"kbmc/solver/z3"
)

// batchSize formulas share a Builder and a pair of backends, checked one
// after another under assumptions: this exercises incremental use, and
// spares a Z3 context per formula (about 12 ms each).
const batchSize = 25

type namedBackend struct {
	name string
	new  solvertest.Factory
}

func backends(t *testing.T) []namedBackend {
	bs := []namedBackend{{"gini", gini.New}}
	if z3.Available() {
		bs = append(bs, namedBackend{"z3", z3.New})
	} else {
		t.Log("z3 backend not built (no cgo or the noz3 tag): checking gini against the evaluator only")
	}
	return bs
}

// TestRandomFormulas is the differential test of the backends: for seeded
// random formulas both backends must agree on sat or unsat, every model
// must satisfy the formula when evaluated in Go, model values of random
// subterms must match the evaluator, and unsat cores must be the formula
// assumed. -solver.formulas and -solver.seed set the amount and the seed.
func TestRandomFormulas(t *testing.T) {
	n := *solvertest.Formulas
	wide := max(300, n*15/100)
	seed := *solvertest.Seed
	t.Logf("seed %d: %d formulas at widths 1-16, %d at width 32", seed, n, wide)
	bs := backends(t)
	tally := tally{solveTime: make(map[string]time.Duration)}
	r := rand.New(rand.NewPCG(seed, 0x6b626d63))
	for done := 0; done < n; done += batchSize {
		w := 1 + r.IntN(16)
		runBatch(t, r, bs, w, 3, false, min(batchSize, n-done), &tally)
	}
	for done := 0; done < wide; done += batchSize {
		runBatch(t, r, bs, 32, 3, true, min(batchSize, wide-done), &tally)
	}
	t.Logf("%d formulas: %d sat, %d unsat, %d unknown (time limit), %d background assertions",
		tally.formulas, tally.sat, tally.unsat, tally.unknown, tally.background)
	for _, nb := range bs {
		t.Logf("%s: %v in checks", nb.name, tally.solveTime[nb.name])
	}
	if tally.unknown*100 > tally.formulas {
		t.Errorf("%d of %d checks hit the time limit", tally.unknown, tally.formulas)
	}
	if tally.sat == 0 || tally.unsat == 0 {
		t.Errorf("the generator produced %d sat and %d unsat formulas; want both", tally.sat, tally.unsat)
	}
}

type tally struct {
	formulas, sat, unsat, unknown, background int
	solveTime                                 map[string]time.Duration // by backend
}

// checkTimeout bounds a single check; a formula that hits it on either
// backend is counted and skipped rather than compared.
const checkTimeout = 20 * time.Second

func runBatch(t *testing.T, r *rand.Rand, bs []namedBackend, width, depth int, hard bool, count int, tl *tally) {
	t.Helper()
	b := solver.NewBuilder()
	g := solvertest.NewGen(r, b, width)
	g.Hard = hard
	ss := make([]solver.Backend, len(bs))
	for i, nb := range bs {
		s, err := nb.new(b)
		if err != nil {
			t.Fatalf("%s: %v", nb.name, err)
		}
		defer func() {
			tl.solveTime[nb.name] += s.Stats().SolveTime
			s.Close()
		}()
		ss[i] = s
	}

	// A background assertion, kept when satisfiable, so that checks mix
	// permanent assertions with assumptions.
	var background []*solver.Term
	bg := g.Formula(2)
	if st := agree(t, bs, ss, "background "+bg.String(), bg); st == solver.Sat {
		for i, s := range ss {
			if err := s.Assert(bg); err != nil {
				t.Fatalf("%s: assert: %v", bs[i].name, err)
			}
		}
		background = append(background, bg)
		tl.background++
	}

	for range count {
		f := g.Constraint(depth)
		tl.formulas++
		desc := fmt.Sprintf("w=%d formula %v", width, f)
		st := agree(t, bs, ss, desc, f)
		switch st {
		case solver.Unknown:
			tl.unknown++
			continue
		case solver.Unsat:
			tl.unsat++
			for i, s := range ss {
				core, err := s.FailedAssumptions()
				if err != nil {
					t.Fatalf("%s: %s: failed assumptions: %v", bs[i].name, desc, err)
				}
				if !slices.Equal(core, []*solver.Term{f}) {
					t.Errorf("%s: %s: failed assumptions %v, want the formula", bs[i].name, desc, core)
				}
			}
			continue
		}
		tl.sat++
		sub := randomSubterm(r, f)
		for i, s := range ss {
			checkModel(t, bs[i].name, s, desc, append(background, f), sub)
		}
	}
	asserted(t, r, bs, ss, g, b, background, max(1, count/5), tl)
}

// asserted checks formulas asserted under an activation literal, act → f,
// as the encodings assert theirs (gini turns the top-level structure of an
// assertion into clauses of its own, not a circuit), against the same
// formula assumed, and the models of the assertions.
func asserted(t *testing.T, r *rand.Rand, bs []namedBackend, ss []solver.Backend, g *solvertest.Gen, b *solver.Builder, background []*solver.Term, count int, tl *tally) {
	t.Helper()
	for n := range count {
		f := g.Constraint(3)
		desc := fmt.Sprintf("asserted formula %v", f)
		st := agree(t, bs, ss, desc, f)
		if st == solver.Unknown {
			continue
		}
		act := b.BoolVar(fmt.Sprintf("act%d", n))
		for i, s := range ss {
			if err := s.Assert(b.Implies(act, f)); err != nil {
				t.Fatalf("%s: assert: %v", bs[i].name, err)
			}
		}
		if got := agree(t, bs, ss, desc+" under "+act.Name(), act); got != st && got != solver.Unknown {
			t.Fatalf("%s: asserted under a literal: %v; assumed: %v", desc, got, st)
		} else if got == solver.Sat {
			for i, s := range ss {
				checkModel(t, bs[i].name, s, desc, append(background, f), randomSubterm(r, f))
			}
		}
		tl.formulas++
	}
}

// agree checks f on every backend and fails the test if the answers differ;
// it returns the common answer, or Unknown if some backend hit the limit.
func agree(t *testing.T, bs []namedBackend, ss []solver.Backend, desc string, f *solver.Term) solver.Status {
	t.Helper()
	sts := make([]solver.Status, len(ss))
	for i, s := range ss {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		st, err := s.Check(ctx, f)
		cancel()
		if err != nil {
			t.Fatalf("%s: %s: %v", bs[i].name, desc, err)
		}
		if st == solver.Unknown {
			t.Logf("%s: %s: unknown after %v", bs[i].name, desc, checkTimeout)
			return solver.Unknown
		}
		sts[i] = st
	}
	for i := 1; i < len(sts); i++ {
		if sts[i] != sts[0] {
			t.Fatalf("%s: %s says %v, %s says %v", desc, bs[0].name, sts[0], bs[i].name, sts[i])
		}
	}
	return sts[0]
}

// checkModel reads a model's values of the formulas' variables from s,
// evaluates the formulas under them in Go, and compares s's value of sub
// with the evaluator's.
func checkModel(t *testing.T, name string, s solver.Backend, desc string, fs []*solver.Term, sub *solver.Term) {
	t.Helper()
	a := solver.Assignment{}
	for _, v := range solver.Vars(append(fs, sub)...) {
		val, err := value(s, v)
		if err != nil {
			t.Fatalf("%s: %s: value of %s: %v", name, desc, v.Name(), err)
		}
		a[v] = val
	}
	for _, f := range fs {
		ok, err := solver.EvalBool(f, a)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%s: %s: model %v does not satisfy %v", name, desc, a, f)
		}
	}
	want, err := solver.Eval(sub, a)
	if err != nil {
		t.Fatal(err)
	}
	got, err := value(s, sub)
	if err != nil {
		t.Fatalf("%s: %s: value of %v: %v", name, desc, sub, err)
	}
	if got != want {
		t.Errorf("%s: %s: value of %v is %#x in the model, %#x by Eval", name, desc, sub, got, want)
	}
}

func value(s solver.Backend, t *solver.Term) (uint64, error) {
	if t.IsBool() {
		v, err := s.BoolValue(t)
		if v {
			return 1, err
		}
		return 0, err
	}
	return s.BVValue(t)
}

// randomSubterm picks a subterm of f by a random walk down from the root.
func randomSubterm(r *rand.Rand, f *solver.Term) *solver.Term {
	t := f
	for t.NumArgs() > 0 && r.IntN(4) != 0 {
		t = t.Arg(r.IntN(t.NumArgs()))
	}
	return t
}
