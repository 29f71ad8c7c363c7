package ir

import (
	"fmt"
	"math"
	"testing"
)

// TestIntervalsTyped checks that Eval's interval holds what ir computes for
// C's typed operators: x op c and op x for a variable x of each integer type
// whose values lie in an interval, on values sampled across it. Unsigned
// types wrap negations and complements, and a U64 holds values above 2^63 as
// negative int64s, which ir divides, shifts and compares as uint64.
func TestIntervalsTyped(t *testing.T) {
	u32max := int64(math.MaxUint32)
	types := []struct {
		t   Type
		ivs []Interval // intervals of x's values, as ir holds them
	}{
		{I8, []Interval{{-128, 127}, {-3, 5}, {0, 0}}},
		{U8, []Interval{{0, 255}, {0, 5}, {250, 255}}},
		{I32, []Interval{{math.MinInt32, math.MaxInt32}, {-7, 9}, {math.MinInt32, math.MinInt32 + 3}}},
		{U32, []Interval{{0, u32max}, {0, 9}, {u32max - 3, u32max}}},
		{I64, []Interval{{-7, 9}, {math.MinInt64, math.MinInt64 + 2}, {math.MaxInt64 - 2, math.MaxInt64}}},
		{U64, []Interval{{0, 9}, {-3, -1}, {-2, 2}, {math.MinInt64, math.MinInt64 + 2}}},
	}
	unary := []ExprOp{ENeg, ECompl}
	binary := []ExprOp{EAdd, ESub, EMul, EDiv, ERem, EShr, EAnd, EOr, EXor, ELt, ELe, EGt, EGe, EEq, ENe}
	consts := []int64{0, 1, 2, 3, 7, -1, -2, 100}
	for _, tt := range types {
		x := &Var{Name: "x", Type: tt.t, Shared: true}
		main := &Template{Name: "main", Nodes: []*Node{{Op: OpNop, Next: Exit, Cut: true}}}
		p := &Program{Width: 64, Shared: []*Var{x}, Templates: []*Template{main}}
		if err := p.Finish(); err != nil {
			t.Fatal(err)
		}
		vx := &Expr{Op: EVar, Type: tt.t, Var: x}
		var exprs []*Expr
		for _, op := range unary {
			exprs = append(exprs, &Expr{Op: op, Type: tt.t, X: vx})
		}
		for _, op := range binary {
			for _, c := range consts {
				y := &Expr{Op: EConst, Type: tt.t, Val: tt.t.Wrap(64, c)}
				rt := tt.t
				if op >= ELt && op <= ENe {
					rt = Bool
				}
				exprs = append(exprs, &Expr{Op: op, Type: rt, X: vx, Y: y}, &Expr{Op: op, Type: rt, X: y, Y: vx})
			}
		}
		for _, xi := range tt.ivs {
			iv := p.Intervals(Interval{}, func(v *Var) (Interval, bool) { return xi, v == x })
			for _, e := range exprs {
				got := iv.Eval(e)
				for _, v := range samples(xi) {
					s := p.Initial()
					s[x.Offset] = v
					m := p.newMachine(s, 0, nil, nil)
					r := m.eval(e)
					if m.failed {
						continue
					}
					if r < got.Lo || r > got.Hi {
						t.Errorf("%s: x = %d in [%d, %d]: %s is %d, outside [%d, %d]", tt.t, v, xi.Lo, xi.Hi, show(e), r, got.Lo, got.Hi)
					}
				}
			}
		}
	}
}

// samples are values of x: both ends, their neighbours, the middle.
func samples(x Interval) []int64 {
	out := []int64{x.Lo, x.Hi, x.Lo + (x.Hi-x.Lo)/2}
	if x.Lo < x.Hi {
		out = append(out, x.Lo+1, x.Hi-1)
	}
	return out
}

func show(e *Expr) string {
	switch e.Op {
	case EVar:
		return "x"
	case EConst:
		return fmt.Sprint(e.Val)
	case ENeg, ECompl:
		return fmt.Sprintf("%s%s", e.Op, show(e.X))
	}
	return fmt.Sprintf("(%s %s %s)", show(e.X), e.Op, show(e.Y))
}
