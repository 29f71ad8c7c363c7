package symbolic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"kbmc/lang"
	"kbmc/solver/z3"
	"kbmc/verify"
)

// TestPortfolioAnswers checks the portfolio's statistics on both encodings: every
// solver call was answered by gini or by Z3, and the counts are among the
// reported keys. Without Z3 in the build, the portfolio is an error that says so.
func TestPortfolioAnswers(t *testing.T) {
	p := compileSrc(t, lostUpdate, lang.Config{})
	for _, enc := range Encodings() {
		r, err := Engine{Solver: "portfolio", Encoding: enc}.Check(context.Background(), p)
		if !z3.Available() {
			if err == nil || !strings.Contains(err.Error(), "z3 backend unavailable") {
				t.Fatalf("%s: portfolio without z3: %v, %v", enc, r, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if r.Verdict != verify.Unsafe || r.Solver != "portfolio" {
			t.Errorf("%s: %s by %q, want unsafe by the portfolio", enc, r.Verdict, r.Solver)
		}
		s := r.Stats
		if s.SolverCalls == 0 || s.GiniAnswers+s.Z3Answers != s.SolverCalls {
			t.Errorf("%s: %d solver calls, %d answered by gini and %d by z3", enc, s.SolverCalls, s.GiniAnswers, s.Z3Answers)
		}
		if !slices.Contains(r.StatKeys, "gini_answers") || !slices.Contains(r.StatKeys, "z3_answers") {
			t.Errorf("%s: stat keys %v lack the answer counts", enc, r.StatKeys)
		}
	}
}
