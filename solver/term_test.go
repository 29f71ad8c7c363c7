package solver_test

import (
	"fmt"
	"strings"
	"testing"

	"kbmc/solver"
)

func TestHashConsing(t *testing.T) {
	b := solver.NewBuilder()
	x, y := b.BVVar("x", 16), b.BVVar("y", 16)
	if b.BVVar("x", 16) != x {
		t.Error("BVVar twice gave two terms")
	}
	pairs := []struct {
		name string
		s, u *solver.Term
	}{
		{"same construction", b.Sub(x, y), b.Sub(x, y)},
		{"commuted add", b.Add(x, y), b.Add(y, x)},
		{"commuted mul", b.Mul(x, y), b.Mul(y, x)},
		{"commuted bvand", b.BVAnd(x, y), b.BVAnd(y, x)},
		{"commuted eq", b.Eq(x, y), b.Eq(y, x)},
		{"ugt is swapped ult", b.Ugt(x, y), b.Ult(y, x)},
		{"sge is swapped sle", b.Sge(x, y), b.Sle(y, x)},
		{"constants", b.BV(0xffff, 16), b.BV(^uint64(0), 16)},
		{"and order", b.And(b.Ult(x, y), b.Slt(x, y)), b.And(b.Slt(x, y), b.Ult(x, y))},
		{"nested and flattens", b.And(b.Ult(x, y), b.And(b.Slt(x, y), b.Eq(x, y))),
			b.And(b.Eq(x, y), b.Ult(x, y), b.Slt(x, y))},
	}
	for _, p := range pairs {
		if p.s != p.u {
			t.Errorf("%s: %v and %v are different terms", p.name, p.s, p.u)
		} else if p.s.ID() != p.u.ID() {
			t.Errorf("%s: same term, different IDs", p.name)
		}
	}
	if b.Sub(x, y) == b.Sub(y, x) {
		t.Error("x-y and y-x are one term")
	}
	if b.BVVar("z", 8).ID() >= b.Len() {
		t.Error("ID not below Len")
	}
}

func TestSimplifications(t *testing.T) {
	b := solver.NewBuilder()
	x, y := b.BVVar("x", 8), b.BVVar("y", 8)
	p, q := b.BoolVar("p"), b.BoolVar("q")
	zero, one, ones := b.BV(0, 8), b.BV(1, 8), b.BV(0xff, 8)
	tests := []struct {
		name      string
		got, want *solver.Term
	}{
		{"p and true", b.And(p, b.True()), p},
		{"p and false", b.And(p, b.False()), b.False()},
		{"p or true", b.Or(p, b.True()), b.True()},
		{"p or false", b.Or(p, b.False()), p},
		{"p and not p", b.And(q, p, b.Not(p)), b.False()},
		{"p or not p", b.Or(b.Not(p), q, p), b.True()},
		{"and of nothing", b.And(), b.True()},
		{"or of nothing", b.Or(), b.False()},
		{"p and p", b.And(p, p), p},
		{"not not p", b.Not(b.Not(p)), p},
		{"p xor p", b.Xor(p, p), b.False()},
		{"p xor true", b.Xor(p, b.True()), b.Not(p)},
		{"p implies p", b.Implies(p, p), b.True()},
		{"false implies q", b.Implies(b.False(), q), b.True()},
		{"ite true", b.Ite(b.True(), x, y), x},
		{"ite false", b.Ite(b.False(), x, y), y},
		{"ite same", b.Ite(p, x, x), x},
		{"ite not", b.Ite(b.Not(p), x, y), b.Ite(p, y, x)},
		{"ite bool", b.Ite(p, b.True(), b.False()), p},
		{"eq self", b.Eq(x, x), b.True()},
		{"eq true", b.Eq(p, b.True()), p},
		{"eq false", b.Eq(b.False(), p), b.Not(p)},
		{"x+0", b.Add(x, zero), x},
		{"0+x", b.Add(zero, x), x},
		{"x-0", b.Sub(x, zero), x},
		{"x-x", b.Sub(x, x), zero},
		{"x*1", b.Mul(x, one), x},
		{"x*0", b.Mul(zero, x), zero},
		{"--x", b.Neg(b.Neg(x)), x},
		{"~~x", b.BVNot(b.BVNot(x)), x},
		{"x&0", b.BVAnd(x, zero), zero},
		{"x&ones", b.BVAnd(ones, x), x},
		{"x|ones", b.BVOr(x, ones), ones},
		{"x^x", b.BVXor(x, x), zero},
		{"x/1", b.SDiv(x, one), x},
		{"x%1", b.SRem(x, one), zero},
		{"x%-1", b.SRem(x, ones), zero},
		{"x%0", b.URem(x, zero), x},
		{"x<<0", b.Shl(x, zero), x},
		{"x<<8", b.Shl(x, b.BV(8, 8)), zero},
		{"x>>200", b.LShr(x, b.BV(200, 8)), zero},
		{"x<x", b.Slt(x, x), b.False()},
		{"x<=x", b.Ule(x, x), b.True()},
		{"x<0u", b.Ult(x, zero), b.False()},
		{"0<=x u", b.Ule(zero, x), b.True()},
		{"full extract", b.Extract(x, 7, 0), x},
		{"extract of extract", b.Extract(b.Extract(x, 6, 2), 3, 1), b.Extract(x, 5, 3)},
		{"extract of zext", b.Extract(b.ZeroExtend(x, 32), 5, 1), b.Extract(x, 5, 1)},
		{"extend to same width", b.SignExtend(x, 8), x},
		{"concat of constants", b.Concat(b.BV(0xa, 4), b.BV(0x5, 4)), b.BV(0xa5, 8)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestMisusePanics checks that sort errors are caught at construction, the
// documented contract for programmer errors.
func TestMisusePanics(t *testing.T) {
	b, other := solver.NewBuilder(), solver.NewBuilder()
	x8, x16, p := b.BVVar("x", 8), b.BVVar("y", 16), b.BoolVar("p")
	tests := []struct {
		name string
		f    func()
	}{
		{"width 0", func() { b.BVVar("z", 0) }},
		{"width 65", func() { b.BV(0, 65) }},
		{"add widths", func() { b.Add(x8, x16) }},
		{"and of bv", func() { b.And(p, x8) }},
		{"add of bool", func() { b.Add(p, p) }},
		{"eq sorts", func() { b.Eq(p, x8) }},
		{"ite sorts", func() { b.Ite(p, x8, x16) }},
		{"extract range", func() { b.Extract(x8, 8, 0) }},
		{"extract reversed", func() { b.Extract(x8, 1, 2) }},
		{"narrowing extend", func() { b.ZeroExtend(x16, 8) }},
		{"wide concat", func() { b.Concat(b.BVVar("w", 60), x8) }},
		{"foreign term", func() { b.Not(other.BoolVar("p")) }},
		{"nil term", func() { b.Not(nil) }},
		{"name reused", func() { b.BoolVar("x") }},
	}
	for _, tt := range tests {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tt.name)
				}
			}()
			tt.f()
		}()
	}
}

func TestString(t *testing.T) {
	b := solver.NewBuilder()
	x := b.BVVar("x", 8)
	got := b.Slt(b.SignExtend(b.Extract(x, 3, 0), 8), b.BV(5, 8)).String()
	want := "(bvslt ((_ sign_extend 4) ((_ extract 3 0) x)) (_ bv5 8))"
	if got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	// A DAG with heavy sharing prints cut off rather than exponentially.
	s := x
	for range 64 {
		s = b.Add(s, s)
	}
	if out := s.String(); len(out) > 5000 || !strings.HasSuffix(out, "...") {
		t.Errorf("String of a deep DAG has length %d", len(out))
	}
}

func TestSorts(t *testing.T) {
	if !solver.BoolSort.IsBool() || solver.BVSort(3).IsBool() || solver.BVSort(3).Width() != 3 {
		t.Error("sort predicates")
	}
	if got := solver.BVSort(64).String(); got != "(_ BitVec 64)" {
		t.Errorf("BVSort(64) = %s", got)
	}
	if solver.Signed(0x80, 8) != -128 || solver.Signed(1, 1) != -1 || solver.Signed(0x7f, 8) != 127 {
		t.Error("Signed")
	}
	if solver.Mask(64) != ^uint64(0) || solver.Mask(1) != 1 {
		t.Error("Mask")
	}
}

func TestLargeJunctions(t *testing.T) {
	b := solver.NewBuilder()
	var ps, rev []*solver.Term
	for i := range 40 {
		ps = append(ps, b.BoolVar(fmt.Sprint("p", i)))
	}
	for i := range ps {
		rev = append(rev, ps[len(ps)-1-i])
	}
	and := b.And(ps...)
	if and != b.And(rev...) || and.NumArgs() != 40 {
		t.Errorf("And of 40 operands: %d operands, order-dependent %v", and.NumArgs(), and != b.And(rev...))
	}
	if b.And(ps[:39]...) == and {
		t.Error("And of 39 and of 40 operands are one term")
	}
	if got := b.And(append(ps, b.Not(ps[17]))...); got != b.False() {
		t.Errorf("And with a complement = %v, want false", got)
	}
	if got := b.Or(append(rev, b.Not(ps[3]))...); got != b.True() {
		t.Errorf("Or with a complement = %v, want true", got)
	}
}
