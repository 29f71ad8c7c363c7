package solvertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kbmc/solver"
)

// Distributivity returns the negation of x*(y+z) = x*y + x*z at the given
// width: an unsatisfiable miter of two multiplier circuits that share
// nothing, the classic hard case for bit-blasting. (Commutativity x*y = y*x
// cannot serve: the Builder orders the operands of commutative operators,
// so both sides are one term and the formula folds to false.)
func Distributivity(b *solver.Builder, width int) *solver.Term {
	x, y, z := b.BVVar("x", width), b.BVVar("y", width), b.BVVar("z", width)
	return b.Distinct(b.Mul(x, b.Add(y, z)), b.Add(b.Mul(x, y), b.Mul(x, z)))
}

// Factor32 returns a satisfiable 32-bit multiplication problem: x*y = p*q
// with 1 < x, y < 2^16 for primes p and q just above 0xb504 and 0xc90f,
// whose only solutions are the two orders of the factors. Unlike
// Distributivity, no rewriting can shortcut it; both backends must search.
func Factor32(b *solver.Builder) *solver.Term {
	return factorProduct(b, 32, "x", "y", nextPrime(0xb504)*nextPrime(0xc90f))
}

// factorProduct is x*y = n over variables of the given width, with 1 < x, y <
// 2^(width/2) so that the product cannot wrap: its models are the
// factorisations of n into two such factors.
func factorProduct(b *solver.Builder, width int, xName, yName string, n uint64) *solver.Term {
	x, y := b.BVVar(xName, width), b.BVVar(yName, width)
	one, limit := b.BV(1, width), b.BV(1<<(width/2), width)
	return b.And(
		b.Eq(b.Mul(x, y), b.BV(n, width)),
		b.Ult(one, x), b.Ult(one, y), b.Ult(x, limit), b.Ult(y, limit))
}

// ChainedAdditions returns a satisfiable formula over n 32-bit variables:
// x1 + ... + xn = 500·n + 7 with every xi < 1000, which takes n-1
// chained adders and n comparators.
func ChainedAdditions(b *solver.Builder, n int) *solver.Term {
	const w = 32
	limit := b.BV(1000, w)
	sum := b.BV(0, w)
	var fs []*solver.Term
	for i := range n {
		x := b.BVVar(fmt.Sprint("x", i), w)
		fs = append(fs, b.Ult(x, limit))
		sum = b.Add(sum, x)
	}
	return b.And(append(fs, b.Eq(sum, b.BV(uint64(500*n+7), w)))...)
}

// Bench solves the formula made by build in a fresh backend per iteration
// and reports the solver's size figures per check: vars and clauses (for
// gini those of the CNF; for Z3 the Boolean variables and clauses its SMT
// core reports creating) and conflicts where the backend counts them.
func Bench(b *testing.B, newBackend Factory, want solver.Status, build func(*solver.Builder) *solver.Term) {
	var st solver.Stats
	for b.Loop() {
		bld := solver.NewBuilder()
		s, err := newBackend(bld)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Assert(build(bld)); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		got, err := s.Check(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		if got != want {
			b.Fatalf("check = %v, want %v", got, want)
		}
		st = s.Stats()
		s.Close()
	}
	b.ReportMetric(float64(st.Vars), "vars")
	b.ReportMetric(float64(st.Clauses), "clauses")
	if st.Conflicts >= 0 {
		b.ReportMetric(float64(st.Conflicts), "conflicts")
	}
}

// BenchIncremental measures one small check on a warm backend: an
// assertion made once, then a check per iteration under an assumption
// that fixes one operand, as the symbolic engine's deepening does. With
// deadline set every check runs under a context with a time limit, which
// costs a watcher (z3) or a background solve (gini) per check.
func BenchIncremental(b *testing.B, newBackend Factory, deadline bool) {
	bld := solver.NewBuilder()
	s, err := newBackend(bld)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	x, y := bld.BVVar("x", 32), bld.BVVar("y", 32)
	if err := s.Assert(bld.Ult(bld.Add(x, bld.BV(7, 32)), y)); err != nil {
		b.Fatal(err)
	}
	var fix []*solver.Term
	for i := range 100 {
		fix = append(fix, bld.Eq(x, bld.BV(uint64(i), 32)))
	}
	ctx := context.Background()
	if deadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Hour)
		defer cancel()
	}
	i := 0
	for b.Loop() {
		if st, err := s.Check(ctx, fix[i%len(fix)]); err != nil || st != solver.Sat {
			b.Fatalf("check: %v, %v", st, err)
		}
		i++
	}
}
