package detect

import (
	"context"
	"os"
	"slices"
	"testing"
)

// readC0 reads Fig. 1's computation c_0 of Stoller, Unnikrishnan and Liu. The
// figure itself is not in the text; it follows from the transitions of §4's
// example: P1 goes X → Y (sending to P2) → Z (receiving from P2), and P2 goes
// A → B (receiving P1's message) → C (sending to P1) → D.
func readC0(t *testing.T) *Computation {
	t.Helper()
	data, err := os.ReadFile("testdata/c0.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadJSON(File{Name: "c0.json", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestC0ConsistentStates checks the CGSs §2 lists: {s11, s21, s22, s23, s33, s24,
// s34}, where s_{k1,k2} is the k1-th local state of P1 with the k2-th of P2
// (from 1; kbmc counts events, from 0).
func TestC0ConsistentStates(t *testing.T) {
	c := readC0(t)
	want := [][]int{{0, 0}, {1, 0}, {1, 1}, {1, 2}, {2, 2}, {1, 3}, {2, 3}}
	var got [][]int
	for a := 0; a <= 2; a++ {
		for b := 0; b <= 3; b++ {
			if c.Consistent([]int{a, b}) {
				got = append(got, []int{a, b})
			}
		}
	}
	slices.SortFunc(want, slices.Compare)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("consistent states %v, want %v", got, want)
	}
}

// TestC0Properties checks the four properties §2 states about c_0. (The text
// of the paper we have garbles the second: it reads "c0 ⊨ Def(p1 = Y ∧ p2 = B),
// c0 ⊭ Def(p1 = Y ∧ p2 = B)"; the lattice s11 s21 s22 s23 {s33 | s24} s34 makes
// every history pass s22 = (Y, B), and §5's example shows Def(p1 = Y ∧ p2 = D)
// failing, so the two are Def(Y ∧ B) holds and Def(Y ∧ D) fails.)
func TestC0Properties(t *testing.T) {
	c := readC0(t)
	tests := []struct {
		m    Modality
		pred string
		want Verdict
	}{
		{Possibly, "P1.p == Y && P2.p == D", Yes},
		{Definitely, "P1.p == Y && P2.p == B", Yes},
		{Definitely, "P1.p == Y && P2.p == D", No},
		{Possibly, "P1.p == X && P2.p == B", No},
	}
	for _, tc := range tests {
		phi, err := CompilePredicate("predicate", tc.pred, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range allOptions {
			res, err := Detect(context.Background(), c, phi, tc.m, opts)
			if err != nil {
				t.Fatalf("%s %s %s: %v", tc.m, tc.pred, optName(opts), err)
			}
			if res.Verdict != tc.want {
				t.Errorf("%s %s %s: %s, want %s", tc.m, tc.pred, optName(opts), res.Verdict, tc.want)
			}
			if (res.Witness != nil) != (tc.want == map[Modality]Verdict{Possibly: Yes, Definitely: No}[tc.m]) {
				t.Errorf("%s %s %s: witness %v", tc.m, tc.pred, optName(opts), res.Witness)
			}
		}
	}
}

// TestC0Examples follows the examples of §4 and §5 step by step.
func TestC0Examples(t *testing.T) {
	c := readC0(t)
	run := func(m Modality, pred string, opts Options) *Result {
		phi, err := CompilePredicate("predicate", pred, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Detect(context.Background(), c, phi, m, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// §4: for Poss(p1 = X ∧ p2 = B), PS_Poss executes t11, t21, t22 and then one of
	// t12, t23: s24 or s33 is never visited, and nor is s34. The lattice visits all
	// seven states.
	if res := run(Possibly, "P1.p == X && P2.p == B", Options{Algorithm: Persistent}); res.Stats.States != 5 || res.Stats.Transitions != 4 {
		t.Errorf("§4 example: N_S %d, N_T %d; want 5 and 4", res.Stats.States, res.Stats.Transitions)
	}
	if res := run(Possibly, "P1.p == X && P2.p == B", Options{Algorithm: Lattice}); res.Stats.States != 7 {
		t.Errorf("lattice: N_S %d, want all 7 CGSs", res.Stats.States)
	}
	// §5: for Def(p1 = Y ∧ p2 = D), PS_Def executes t11, t21, t22; t23 would make Φ
	// true, so PS_Def(s23) is {t12}; then t23 reaches the final state, avoiding Φ.
	res := run(Definitely, "P1.p == Y && P2.p == D", Options{Algorithm: Persistent})
	want := []int{0, 1, 1, 0, 1} // t11 t21 t22 t12 t23
	if res.Witness == nil || !slices.Equal(res.Witness.History, want) {
		t.Errorf("§5 example: history %v, want %v", res.Witness, want)
	}
}

// allOptions are the searches every test compares.
var allOptions = []Options{
	{Algorithm: Lattice},
	{Algorithm: Lattice, Sleep: true},
	{Algorithm: Persistent},
	{Algorithm: Persistent, Sleep: true},
}

func optName(o Options) string {
	s := string(o.Algorithm)
	if o.Sleep {
		s += "+sleep"
	}
	return s
}
