package svcomp

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kbmc/cfront"
	"kbmc/ir"
	"kbmc/verify"
)

func TestScore(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		a        Answer
		expected *bool
		score    int
	}{
		{True, &yes, 2}, {False, &no, 1}, {True, &no, -32}, {False, &yes, -16},
		{Unknown, &yes, 0}, {Unknown, &no, 0}, {True, nil, 0}, {False, nil, 0},
	}
	for _, tt := range tests {
		if got := Score(tt.a, tt.expected); got != tt.score {
			t.Errorf("Score(%v, %v) = %d, want %d", tt.a, tt.expected, got, tt.score)
		}
		if got := Correct(tt.a, tt.expected); got != (tt.score > 0) {
			t.Errorf("Correct(%v, %v) = %v", tt.a, tt.expected, got)
		}
	}
}

func TestJudge(t *testing.T) {
	reach := &ir.Violation{Kind: ir.ReachError, Msg: "reach_error() called"}
	deref := &ir.Violation{Kind: ir.InvalidDeref, Msg: "null pointer"}
	race := &ir.Violation{Kind: ir.DataRace, Msg: "data race on x"}
	over := &ir.Violation{Kind: ir.Overflow, Msg: "signed overflow"}
	panics := &ir.Violation{Kind: ir.Panic, Msg: "send on closed channel"}
	free := &ir.Violation{Kind: ir.InvalidFree, Msg: "double free"}
	tests := []struct {
		name   string
		prop   string
		r      verify.Result
		closed bool
		answer Answer
		reason string
		sub    string
	}{
		{"reach_error", "unreach-call", verify.Result{Verdict: verify.Unsafe, Violation: reach}, false, False, "", ""},
		{"another violation", "unreach-call", verify.Result{Verdict: verify.Unsafe, Violation: deref}, false, Unknown, "does not cover", ""},
		{"safe", "unreach-call", verify.Result{Verdict: verify.Safe}, false, True, "", ""},
		{"bounded, open", "unreach-call", verify.Result{Verdict: verify.BoundedSafe, Note: "depth 20"}, false, Unknown, "the bound cut", ""},
		{"bounded, closed", "unreach-call", verify.Result{Verdict: verify.BoundedSafe}, true, True, "", ""},
		{"pool cut", "unreach-call", verify.Result{Verdict: verify.BoundedSafe, ModelCut: true}, true, Unknown, "pool of the model ran out (raise --pool)", ""},
		{"pool cut, the engine says so", "unreach-call", verify.Result{Verdict: verify.BoundedSafe, ModelCut: true, Note: "t's pool of 3 ran out"}, true, Unknown, "t's pool of 3 ran out", ""},
		{"unknown", "unreach-call", verify.Result{Verdict: verify.Unknown, Note: "time limit"}, true, Unknown, "time limit", ""},
		{"a data race", "no-data-race", verify.Result{Verdict: verify.Unsafe, Violation: race}, false, False, "", ""},
		{"another violation under no-data-race", "no-data-race", verify.Result{Verdict: verify.Unsafe, Violation: deref}, false, Unknown, "does not cover", ""},
		{"a data race under unreach-call", "unreach-call", verify.Result{Verdict: verify.Unsafe, Violation: race}, false, Unknown, "does not cover", ""},
		{"race-free, closed", "no-data-race", verify.Result{Verdict: verify.BoundedSafe}, true, True, "", ""},
		{"an overflow", "no-overflow", verify.Result{Verdict: verify.Unsafe, Violation: over}, false, False, "", ""},
		{"an overflow under unreach-call", "unreach-call", verify.Result{Verdict: verify.Unsafe, Violation: over}, false, Unknown, "does not cover", ""},
		{"no overflow, complete", "no-overflow", verify.Result{Verdict: verify.Safe}, false, True, "", ""},
		{"a Go panic under unreach-call", "unreach-call", verify.Result{Verdict: verify.Unsafe, Violation: panics}, false, Unknown, "does not cover", ""},
		{"unsupported property", "termination", verify.Result{Verdict: verify.Safe}, true, Unknown, "not supported", ""},
		{"an invalid dereference", "valid-memsafety", verify.Result{Verdict: verify.Unsafe, Violation: deref}, false, False, "", "valid-deref"},
		{"an invalid free", "valid-memsafety", verify.Result{Verdict: verify.Unsafe, Violation: free}, false, False, "", "valid-free"},
		{"reach_error under valid-memsafety", "valid-memsafety", verify.Result{Verdict: verify.Unsafe, Violation: reach}, false, Unknown, "does not cover", ""},
		{"memory-safe, complete", "valid-memsafety", verify.Result{Verdict: verify.Safe}, false, Unknown, "valid-memtrack", ""},
		{"memory-safe, closed", "valid-memsafety", verify.Result{Verdict: verify.BoundedSafe}, true, Unknown, "valid-memtrack", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, sub, why := Judge(tt.prop, &tt.r, tt.closed)
			if a != tt.answer || sub != tt.sub || !strings.Contains(why, tt.reason) {
				t.Errorf("Judge = %v %q %q, want %v %q %q", a, sub, why, tt.answer, tt.sub, tt.reason)
			}
		})
	}
}

// TestGrade: a false answer to valid-memsafety counts only with the expected
// sub-property.
func TestGrade(t *testing.T) {
	no, yes := false, true
	for _, tt := range []struct {
		a       Answer
		sub     string
		p       Property
		score   int
		correct bool
	}{
		{False, "valid-deref", Property{Name: ValidMemsafety, Expected: &no, Sub: "valid-deref"}, 1, true},
		{False, "valid-deref", Property{Name: ValidMemsafety, Expected: &no, Sub: "valid-free"}, -16, false},
		{False, "valid-deref", Property{Name: ValidMemsafety, Expected: &yes}, -16, false},
		{False, "", Property{Name: UnreachCall, Expected: &no}, 1, true},
		{True, "", Property{Name: UnreachCall, Expected: &yes}, 2, true},
		{Unknown, "", Property{Name: ValidMemsafety, Expected: &no, Sub: "valid-memtrack"}, 0, false},
	} {
		if score, correct := Grade(tt.a, tt.sub, tt.p); score != tt.score || correct != tt.correct {
			t.Errorf("Grade(%v, %q, %+v) = %d %v, want %d %v", tt.a, tt.sub, tt.p, score, correct, tt.score, tt.correct)
		}
	}
}

// Choose plans the explicit searches, persistent first for half the time, for
// a program whose values it can enumerate, and the symbolic engine for one
// with a full-range nondet.
func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		property  ir.ViolationKind // what the program looks for beyond the default
		want      []Attempt
	}{
		{"narrow values", "_Bool __VERIFIER_nondet_bool(void);\nint x;\nint main(void) { x = __VERIFIER_nondet_bool(); return 0; }\n", ir.ReachError,
			[]Attempt{{"explicit/persistent", UnboundedDepth, true, 0.5}, {"explicit/dfs/stateful", UnboundedDepth, true, 0}}},
		{"a full-range int", "int __VERIFIER_nondet_int(void);\nint x;\nint main(void) { x = __VERIFIER_nondet_int(); return 0; }\n", ir.ReachError,
			[]Attempt{{"symbolic/gini", verify.DefaultDepth, false, 0}}},
		// Races: the plain stateful search alone, or the symbolic engine
		// for what it cannot enumerate.
		{"races, narrow values", "_Bool __VERIFIER_nondet_bool(void);\nint x;\nint main(void) { x = __VERIFIER_nondet_bool(); return 0; }\n", ir.DataRace,
			[]Attempt{{"explicit/dfs/stateful", UnboundedDepth, true, 0}}},
		{"races, a full-range int", "int __VERIFIER_nondet_int(void);\nint x;\nint main(void) { x = __VERIFIER_nondet_int(); return 0; }\n", ir.DataRace,
			[]Attempt{{"symbolic/gini", verify.DefaultDepth, false, 0}}},
		// Overflow: the explicit searches, or nothing but the hunt.
		{"overflow, narrow values", "_Bool __VERIFIER_nondet_bool(void);\nint x;\nint main(void) { x = __VERIFIER_nondet_bool(); return 0; }\n", ir.Overflow,
			[]Attempt{{"explicit/persistent", UnboundedDepth, true, 0.5}, {"explicit/dfs/stateful", UnboundedDepth, true, 0}}},
		{"overflow, a full-range int", "int __VERIFIER_nondet_int(void);\nint x;\nint main(void) { x = __VERIFIER_nondet_int(); return 0; }\n", ir.Overflow, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := cfront.Compile(filepath.Join(t.TempDir(), "p.i"), []byte(tc.src), cfront.Config{})
			if err != nil {
				t.Fatal(err)
			}
			p.SelectProperty(tc.property)
			if got := Choose(p, 256); !slices.Equal(got, tc.want) {
				t.Errorf("Choose = %+v, want %+v", got, tc.want)
			}
		})
	}
}
