package z3_test

import (
	"fmt"
	"testing"

	"kbmc/solver"
	"kbmc/solver/internal/solvertest"
	"kbmc/solver/z3"
)

// BenchmarkDistributivity: Z3 proves x*(y+z) = x*y + x*z by rewriting
// before any bit-blasting (it reports no clauses), at every width; the
// figures show that, not bit-blasting speed (see BenchmarkFactor32).
func BenchmarkDistributivity(b *testing.B) {
	skipUnavailable(b)
	for _, w := range []int{4, 6, 16, 32, 64} {
		b.Run(fmt.Sprint("w", w), func(b *testing.B) {
			solvertest.Bench(b, z3.New, solver.Unsat, func(bld *solver.Builder) *solver.Term {
				return solvertest.Distributivity(bld, w)
			})
		})
	}
}

// BenchmarkChainedAdditions100 solves 100 chained 32-bit additions.
func BenchmarkChainedAdditions100(b *testing.B) {
	skipUnavailable(b)
	solvertest.Bench(b, z3.New, solver.Sat, func(bld *solver.Builder) *solver.Term {
		return solvertest.ChainedAdditions(bld, 100)
	})
}

// BenchmarkFactor32 factors a 32-bit product of two 16-bit primes.
func BenchmarkFactor32(b *testing.B) {
	skipUnavailable(b)
	solvertest.Bench(b, z3.New, solver.Sat, solvertest.Factor32)
}

// BenchmarkIncremental measures a small check on a warm backend, without
// and with a deadline on the context.
func BenchmarkIncremental(b *testing.B) {
	skipUnavailable(b)
	b.Run("background", func(b *testing.B) { solvertest.BenchIncremental(b, z3.New, false) })
	b.Run("deadline", func(b *testing.B) { solvertest.BenchIncremental(b, z3.New, true) })
}
