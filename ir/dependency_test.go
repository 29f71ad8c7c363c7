package ir

import (
	"math/rand"
	"testing"
)

// TestConflictSummary: Conflict and OnlyEnables answer on long access lists,
// where they first compare summaries of the two lists (mayConflict), as the
// pairwise comparison of every access does.
func TestConflictSummary(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	p := &Program{} // no threads, no shared cells: no location is set once
	list := func(n, locs int) []Access {
		l := make([]Access, n)
		for i := range l {
			l[i] = Access{Loc: rng.Intn(locs), Kind: AccessKind(rng.Intn(2))}
		}
		return l
	}
	for _, tc := range []struct{ la, lb, locs int }{
		{1, 1, 4}, {2, 40, 200}, {45, 3, 80}, {45, 15, 80}, {100, 100, 1000}, {64, 64, 64}, {30, 2, 130},
	} {
		for range 2000 {
			a, b := list(tc.la, tc.locs), list(tc.lb, tc.locs)
			want := false
			for i := range a {
				for j := range b {
					if a[i].Loc == b[j].Loc && Conflicts(a[i].Kind, b[j].Kind) {
						want = true
					}
				}
			}
			if got := Conflict(a, b); got != want {
				t.Fatalf("Conflict(%v, %v) = %v, want %v", a, b, got, want)
			}
			if got := p.OnlyEnables(a, b); got != !want {
				t.Fatalf("OnlyEnables(%v, %v) = %v, want %v", a, b, got, !want)
			}
		}
	}
}
