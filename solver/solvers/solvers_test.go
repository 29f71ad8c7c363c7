package solvers

import (
	"context"
	"strings"
	"testing"

	"kbmc/solver"
	"kbmc/solver/z3"
)

func TestNew(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			b := solver.NewBuilder()
			be, err := New(name, b)
			if name != "gini" && !z3.Available() {
				if err == nil || !strings.Contains(err.Error(), "z3 backend unavailable") {
					t.Fatalf("z3 is not compiled in, but New(%q) gives %v", name, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			x := b.BVVar("x", 8)
			if err := be.Assert(b.Eq(b.Add(x, b.BV(1, 8)), b.BV(0, 8))); err != nil {
				t.Fatal(err)
			}
			if st, err := be.Check(context.Background()); err != nil || st != solver.Sat {
				t.Fatalf("Check = %v, %v", st, err)
			}
			if v, err := be.BVValue(x); err != nil || v != 255 {
				t.Errorf("x = %d, %v; want 255", v, err)
			}
		})
	}
	if _, err := New("minisat", solver.NewBuilder()); err == nil || !strings.Contains(err.Error(), "gini, z3") {
		t.Errorf("New(minisat) = %v, want an error listing the solvers", err)
	}
}

func TestCheck(t *testing.T) {
	for _, name := range Names() {
		be, errNew := New(name, solver.NewBuilder())
		if errNew == nil {
			be.Close()
		}
		if err := Check(name); (err == nil) != (errNew == nil) {
			t.Errorf("Check(%q) = %v, but New gives %v", name, err, errNew)
		}
	}
	if err := Check("minisat"); err == nil {
		t.Error("Check accepted an unknown solver")
	}
}
