package detect

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kbmc/lang/syntax"
)

// predicateComputation has processes node[0], node[1], "client-1" and "10.0.0.7:80"
// with variables of every kind, and one variable whose kinds are mixed.
func predicateComputation(t *testing.T) *Computation {
	t.Helper()
	names := []string{"node[0]", "node[1]", "client-1", "10.0.0.7:80"}
	b := NewBuilder("c.json", []string{"c.json"}, names)
	for i := range names {
		b.Set(i, "leader", IntVal(-1), Pos{})
		b.Set(i, "up", BoolVal(true), Pos{})
		b.Set(i, "state", WordVal("idle"), Pos{})
		b.Set(i, "slot[0]", IntVal(int64(10*i)), Pos{})
		b.Set(i, "slot[1]", IntVal(int64(10*i+1)), Pos{})
	}
	clock := make([]int64, len(names))
	clock[0] = 1
	b.Event(0, Local, "", Pos{Line: 3}, clock)
	b.Set(0, "leader", IntVal(1), Pos{})
	b.Set(0, "state", WordVal("commit"), Pos{})
	b.Set(0, "mixed", IntVal(1), Pos{Line: 3})
	clock[0] = 2
	b.Event(0, Local, "", Pos{Line: 7}, clock)
	b.Set(0, "mixed", WordVal("one"), Pos{Line: 7})
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPredicateValues(t *testing.T) {
	c := predicateComputation(t)
	tests := []struct {
		src  string
		cut  []int
		want bool
	}{
		{"node[0].leader == -1 && node[1].up", []int{0, 0, 0, 0}, true},
		{"node[0].leader == 1", []int{1, 0, 0, 0}, true},
		{"node[N].state == idle && node[N-1].state == commit", []int{1, 0, 0, 0}, true},
		{"node[0].state != node[1].state", []int{2, 0, 0, 0}, true},
		{"node[0].state == nosuchword", []int{2, 0, 0, 0}, false},
		{"node[0].state != nosuchword", []int{2, 0, 0, 0}, true},
		{`client_1.up && "client-1".up && "10.0.0.7:80".slot[1] == 31`, []int{0, 0, 0, 0}, true},
		{"node[1].slot[N] + node[1].slot[N-1] == 21", []int{0, 0, 0, 0}, true},
		{"(node[0].leader > 0 ? node[0].leader : 7) == 1", []int{1, 0, 0, 0}, true},
		{"-9223372036854775807 - 2 == 9223372036854775807", []int{0, 0, 0, 0}, true},
		{"(1 << 62) * 4 == 0 && 7 / -2 == -3 && -7 % 2 == -1 && ((6 ^ 3 | 8) & ~1) == 12", []int{0, 0, 0, 0}, true},
		{"foo == foo && foo != bar", []int{0, 0, 0, 0}, true},
		{"/* comment */ node[0].up // trailing\n", []int{0, 0, 0, 0}, true},
	}
	for _, tc := range tests {
		p, err := CompilePredicate("predicate", tc.src, c, map[string]int64{"N": 1})
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		got, err := p.Holds(tc.cut)
		if err != nil || got != tc.want {
			t.Errorf("%q at %v: %v, %v; want %v", tc.src, tc.cut, got, err, tc.want)
		}
	}
}

func TestPredicateConjuncts(t *testing.T) {
	c := predicateComputation(t)
	p, err := CompilePredicate("predicate", "node[0].up && (node[1].leader > 0 && (node[0].up || node[1].up)) && 1 < 2", c, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Conjuncts(), " | ")
	if want := "node[0].up | node[1].leader > 0 | node[0].up || node[1].up | 1 < 2"; got != want {
		t.Errorf("conjuncts %q, want %q", got, want)
	}
	if p.OneLocal() {
		t.Error("a conjunct reads two processes, yet OneLocal")
	}
}

// TestPredicateErrors checks that predicate errors are positioned like the
// compiler's, with the line as written and a caret.
func TestPredicateErrors(t *testing.T) {
	c := predicateComputation(t)
	tests := []struct {
		src, want string
	}{
		{"node[0].leader = 1", "predicate:1:16: expected end of expression, found \"=\"\nnode[0].leader = 1\n               ^"},
		{"node[0].leader +", "predicate:1:17: expected expression, found end of file"},
		{"nod[0].leader == 1", `predicate:1:1: no process "nod[0]" in c.json (processes: node[0], node[1], client-1, 10.0.0.7:80)`},
		{"node[7].leader == 1", `predicate:1:1: no process "node[7]"`},
		{"node[0].leadr == 1", `predicate:1:1: node[0] has no variable "leadr" (its variables: leader, mixed, slot[0], slot[1], state, up)`},
		{"node[0].up && node[0].mixed == 1", "predicate:1:15: node[0].mixed has values of different kinds (set at c.json:3 and at c.json:7)"},
		{"node[0].leader == commit", "predicate:1:16: mismatched types: int == word commit (no -D constant is called commit)"},
		{"node[0].state < commit", "predicate:1:15: operator < needs ints, not word and word commit"},
		{"node[0].leader", "predicate:1:1: the predicate must be a condition (bool), not int"},
		{"node[0].up && !node[0].leader", "predicate:1:15: operator ! needs a bool, not int"},
		{"node[M].up", "predicate:1:6: the index of node must be an int, not word M"},
		{"node[node[1].leader].up", "predicate:1:6: the index of node must be a constant"},
		{"node[0].slot[node[0].leader] == 1", "predicate:1:14: the index of node[0].slot must be a constant"},
		{"x[1] == 2", "predicate:1:1: only a process instance and its variables can be indexed here"},
		{"f(1)", "predicate:1:1: a call is not allowed in a predicate"},
		{"nondet(0, 1) == 1", "predicate:1:1: nondet is not allowed"},
		{"tid == 0", "predicate:1:1: tid is not allowed"},
		{"node[0].up &&\n  1 / 0 == 1", "predicate:2:5: division by zero\n  1 / 0 == 1\n    ^"},
		{"node[0].up && 99999999999999999999 > 1", "predicate:1:15: integer 99999999999999999999 out of range"},
		{"node[0].up && node[0\n].up", "predicate:1:15: a reference P.x must be on one line"},
		{"node[0].up && a.b.c", "predicate:1:15: not a process's variable of the computation"},
		{"forall i in 0..1: node[i].up", "predicate:1:1: forall and exists are not allowed in a predicate"},
	}
	for _, tc := range tests {
		_, err := CompilePredicate("predicate", tc.src, c, nil)
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.src, tc.want)
			continue
		}
		var list syntax.ErrorList
		if !errors.As(err, &list) {
			t.Errorf("%q: %T is not a syntax.ErrorList", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n%v\nwant:\n%s", tc.src, err, tc.want)
		}
	}
}

// TestPredicateRunTimeError: a predicate without a value in a state the search
// visits is an error naming the position and the state.
func TestPredicateRunTimeError(t *testing.T) {
	c := predicateComputation(t)
	for _, src := range []string{"node[1].leader / (node[0].leader + 1) == 0", "node[0].leader << (node[0].leader + 64) == 0"} {
		p, err := CompilePredicate("predicate", src, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range allOptions {
			_, err = Detect(context.Background(), c, p, Possibly, opts)
			var ee *EvalError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), "predicate:1:") || !strings.Contains(err.Error(), "node[0] after 0 events") {
				t.Errorf("%q, %s: error %v", src, optName(opts), err)
			}
		}
	}
}

func TestDetectTimeout(t *testing.T) {
	c := predicateComputation(t)
	p, err := CompilePredicate("predicate", "node[0].leader == 5", c, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Small searches may finish before they first look at the context; a
	// cancelled one must then still answer correctly, and a stopped one say so.
	for _, opts := range allOptions {
		res, err := Detect(ctx, c, p, Possibly, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict == Unknown && !strings.Contains(res.Note, "canceled") || res.Verdict == Yes {
			t.Errorf("%s: %s (%s)", optName(opts), res.Verdict, res.Note)
		}
	}
}

// TestVerdict checks the one place a search's answer is decided: a witness
// settles it, a stopped search without one knows nothing, and a search that
// ran out without one has shown there is none.
func TestVerdict(t *testing.T) {
	w := &Witness{}
	tests := []struct {
		m       Modality
		w       *Witness
		stopped bool
		want    Verdict
	}{
		{Possibly, w, false, Yes},
		{Definitely, w, false, No},
		{Possibly, nil, false, No},
		{Definitely, nil, false, Yes},
		{Possibly, nil, true, Unknown},
		{Definitely, nil, true, Unknown},
	}
	for _, tt := range tests {
		if got := verdict(tt.m, tt.w, tt.stopped); got != tt.want {
			t.Errorf("verdict(%v, witness %v, stopped %v) = %v, want %v", tt.m, tt.w != nil, tt.stopped, got, tt.want)
		}
	}
}
