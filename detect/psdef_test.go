package detect

import (
	"context"
	"testing"
)

// build makes a computation of independent processes (no messages) whose
// variable f takes the given values: f[i][k] in local state k of process i.
func independent(t *testing.T, f [][]bool) *Computation {
	t.Helper()
	names := make([]string, len(f))
	for i := range f {
		names[i] = string(rune('a' + i))
	}
	b := NewBuilder("independent", nil, names)
	for i, vals := range f {
		b.Set(i, "f", BoolVal(vals[0]), Pos{})
		for k, v := range vals[1:] {
			clock := make([]int64, len(f))
			clock[i] = int64(k + 1)
			b.Event(i, Local, "", Pos{}, clock)
			b.Set(i, "f", BoolVal(v), Pos{})
		}
	}
	c, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPSDefWithoutStayfalse is the computation on which Stoller's Fig. 3 is
// undefined: φ_a is false, true, false and φ_b true, false, true, so in the
// initial state no process has stayfalse (φ false now and next), yet the history
// b, a, a, b avoids Φ = φ_a ∧ φ_b and Def Φ fails. kbmc's PS_Def must find it,
// and it must find it on one path (cases 2 and 3 of psDef).
func TestPSDefWithoutStayfalse(t *testing.T) {
	c := independent(t, [][]bool{{false, true, false}, {true, false, true}})
	phi, err := CompilePredicate("predicate", "a.f && b.f", c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range allOptions {
		res, err := Detect(context.Background(), c, phi, Definitely, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != No {
			t.Errorf("%s: Def Φ %s, want no", optName(opts), res.Verdict)
		}
	}
}

// TestPSDefBranches covers case 4 of psDef: every enabled transition turns a
// false φ true. With φ_a and φ_b both false then true, either may go first, and
// the other then cannot; only exploring both finds that both orders end in a
// dead end (Def Φ holds) — and with a third process whose φ is false then true
// then false, one order gets through.
func TestPSDefBranches(t *testing.T) {
	tests := []struct {
		f    [][]bool
		want Verdict
	}{
		{[][]bool{{false, true}, {false, true}}, Yes},
		{[][]bool{{false, true}, {false, true}, {false, true, false}}, No},
		{[][]bool{{false, true, false}, {false, true}, {false, true}}, No},
	}
	for _, tc := range tests {
		c := independent(t, tc.f)
		src := "a.f && b.f"
		if len(tc.f) == 3 {
			src += " && c.f"
		}
		phi, err := CompilePredicate("predicate", src, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range allOptions {
			res, err := Detect(context.Background(), c, phi, Definitely, opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.want {
				t.Errorf("%v, %s: Def Φ %s, want %s", tc.f, optName(opts), res.Verdict, tc.want)
			}
		}
	}
}
