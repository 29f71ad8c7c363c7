package gini_test

import (
	"fmt"
	"testing"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/internal/solvertest"
)

// BenchmarkDistributivity proves x*(y+z) = x*y + x*z by bit-blasting. The
// miter is exponentially hard for CDCL: width 6 takes about a second and
// width 8 did not finish in ten minutes, so the widths stop at 6.
func BenchmarkDistributivity(b *testing.B) {
	for _, w := range []int{4, 6} {
		b.Run(fmt.Sprint("w", w), func(b *testing.B) {
			solvertest.Bench(b, gini.New, solver.Unsat, func(bld *solver.Builder) *solver.Term {
				return solvertest.Distributivity(bld, w)
			})
		})
	}
}

// BenchmarkChainedAdditions100 solves 100 chained 32-bit additions.
func BenchmarkChainedAdditions100(b *testing.B) {
	solvertest.Bench(b, gini.New, solver.Sat, func(bld *solver.Builder) *solver.Term {
		return solvertest.ChainedAdditions(bld, 100)
	})
}

// BenchmarkFactor32 factors a 32-bit product of two 16-bit primes.
func BenchmarkFactor32(b *testing.B) {
	solvertest.Bench(b, gini.New, solver.Sat, solvertest.Factor32)
}

// BenchmarkIncremental measures a small check on a warm backend, without
// and with a deadline on the context.
func BenchmarkIncremental(b *testing.B) {
	b.Run("background", func(b *testing.B) { solvertest.BenchIncremental(b, gini.New, false) })
	b.Run("deadline", func(b *testing.B) { solvertest.BenchIncremental(b, gini.New, true) })
}
