package solver_test

import (
	"fmt"
	"testing"

	"kbmc/solver"
	"kbmc/solver/internal/solvertest"
)

// TestEvalOperators checks the Go evaluator, on variables so nothing is
// folded away, against the math/big reference of every operator at the edge
// values of every tested width.
func TestEvalOperators(t *testing.T) {
	for _, w := range solvertest.Widths {
		b := solver.NewBuilder()
		x, y := b.BVVar("x", w), b.BVVar("y", w)
		vals := solvertest.EdgeValues(w)
		for _, op := range solvertest.Ops {
			term := op.Build(b, w, x, y)
			for _, a := range vals {
				for _, c := range vals {
					if op.Arity == 1 && c != vals[0] {
						continue
					}
					got, err := solver.Eval(term, solver.Assignment{x: a, y: c})
					if err != nil {
						t.Fatal(err)
					}
					if want := op.Ref(w, a, c); got != want {
						t.Errorf("w=%d %s(%#x, %#x) = %#x, want %#x", w, op.Name, a, c, got, want)
					}
				}
			}
		}
	}
}

// TestConstantFolding checks that the same operators applied to constants
// fold to the reference value: folding and evaluation share one semantics,
// but this also covers the simplifications that fire on constants.
func TestConstantFolding(t *testing.T) {
	for _, w := range solvertest.Widths {
		b := solver.NewBuilder()
		vals := solvertest.EdgeValues(w)
		for _, op := range solvertest.Ops {
			for _, a := range vals {
				for _, c := range vals {
					term := op.Build(b, w, b.BV(a, w), b.BV(c, w))
					if !term.IsConst() {
						t.Fatalf("w=%d %s of constants did not fold: %v", w, op.Name, term)
					}
					if got, want := term.Value(), op.Ref(w, a, c); got != want {
						t.Errorf("w=%d %s(%#x, %#x) folds to %#x, want %#x", w, op.Name, a, c, got, want)
					}
				}
			}
		}
	}
}

// TestDivisionConventions spells out the C and SMT-LIB conventions the
// backends must share, at 8 bits, as a readable table.
func TestDivisionConventions(t *testing.T) {
	b := solver.NewBuilder()
	x, y := b.BVVar("x", 8), b.BVVar("y", 8)
	tests := []struct {
		op   string
		term *solver.Term
		x, y int64
		want int64
	}{
		{"sdiv", b.SDiv(x, y), 7, 2, 3},
		{"sdiv", b.SDiv(x, y), -7, 2, -3},
		{"sdiv", b.SDiv(x, y), 7, -2, -3},
		{"sdiv", b.SDiv(x, y), -7, -2, 3},
		{"sdiv", b.SDiv(x, y), -128, -1, -128},
		{"sdiv", b.SDiv(x, y), 5, 0, -1},
		{"sdiv", b.SDiv(x, y), 0, 0, -1},
		{"sdiv", b.SDiv(x, y), -5, 0, 1},
		{"srem", b.SRem(x, y), 7, 2, 1},
		{"srem", b.SRem(x, y), -7, 2, -1},
		{"srem", b.SRem(x, y), 7, -2, 1},
		{"srem", b.SRem(x, y), -7, -2, -1},
		{"srem", b.SRem(x, y), -128, -1, 0},
		{"srem", b.SRem(x, y), -5, 0, -5},
		{"udiv", b.UDiv(x, y), 200, 0, -1},
		{"urem", b.URem(x, y), 200, 0, -56},
		{"shl", b.Shl(x, y), 1, 7, -128},
		{"shl", b.Shl(x, y), 1, 8, 0},
		{"lshr", b.LShr(x, y), -1, 8, 0},
		{"lshr", b.LShr(x, y), -1, 7, 1},
		{"ashr", b.AShr(x, y), -128, 7, -1},
		{"ashr", b.AShr(x, y), -128, 8, -1},
		{"ashr", b.AShr(x, y), -128, 100, -1},
		{"ashr", b.AShr(x, y), 127, 8, 0},
	}
	for _, tt := range tests {
		v, err := solver.Eval(tt.term, solver.Assignment{x: uint64(tt.x), y: uint64(tt.y)})
		if err != nil {
			t.Fatal(err)
		}
		if got := solver.Signed(v, 8); got != tt.want {
			t.Errorf("%s(%d, %d) = %d, want %d", tt.op, tt.x, tt.y, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	b := solver.NewBuilder()
	x := b.BVVar("x", 8)
	if _, err := solver.Eval(b.Add(x, b.BV(1, 8)), nil); err == nil {
		t.Error("Eval with an unassigned variable succeeded")
	}
	if _, err := solver.EvalBool(x, solver.Assignment{x: 1}); err == nil {
		t.Error("EvalBool of a bit-vector succeeded")
	}
	// Values wider than the variable are truncated.
	v, err := solver.Eval(x, solver.Assignment{x: 0x1ff})
	if err != nil || v != 0xff {
		t.Errorf("Eval(x) with x=0x1ff = %#x, %v; want 0xff", v, err)
	}
}

func TestVars(t *testing.T) {
	b := solver.NewBuilder()
	x, y, p := b.BVVar("x", 4), b.BVVar("y", 4), b.BoolVar("p")
	f := b.And(p, b.Ult(b.Add(y, x), x))
	got := fmt.Sprint(solver.Vars(f, f))
	if want := fmt.Sprint([]*solver.Term{x, y, p}); got != want {
		t.Errorf("Vars = %s, want %s", got, want)
	}
}
