package explicit

import (
	"context"
	"fmt"
	"io"
	"testing"

	"kbmc/verify"
)

// benchLazyPOR runs LazyPOR on a family and reports executions and executions per
// second.
func benchLazyPOR(b *testing.B, family string, n, depth int) {
	var o Options
	o.Depth = depth
	benchLazyPOROptions(b, family, n, o)
}

func benchLazyPOROptions(b *testing.B, family string, n int, o Options) {
	p := loadFamily(b, family, int64(n), false)
	var r *verify.Result
	b.ReportAllocs()
	for b.Loop() {
		var err error
		r, err = LazyPOR{Options: o}.Check(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		if r.Verdict == verify.Unsafe || r.Verdict == verify.Unknown {
			b.Fatalf("%s N=%d: %s", family, n, r.Verdict)
		}
	}
	b.ReportMetric(float64(r.Stats.Executions), "executions")
	b.ReportMetric(float64(r.Stats.Executions)*float64(b.N)/b.Elapsed().Seconds(), "executions/s")
}

// BenchmarkLazyPORReadersWriters is the thesis's first experiment (§6.3.1): 2^N
// executions with N readers.
func BenchmarkLazyPORReadersWriters(b *testing.B) {
	for _, n := range []int{8, 12, 16} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchLazyPOR(b, "readers-writers", n, verify.DefaultDepth) })
	}
}

// BenchmarkLazyPORIndexer is the thesis's indexer (§6.3.2); collisions start at 12
// threads. Each thread takes about 10 steps, so the depth is 12*N.
func BenchmarkLazyPORIndexer(b *testing.B) {
	for _, n := range []int{4, 11, 12} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchLazyPOR(b, "indexer", n, 12*n) })
	}
}

// BenchmarkLazyPORIndexerSmall is the thesis's indexer-small (§6.3.3).
func BenchmarkLazyPORIndexerSmall(b *testing.B) {
	for _, n := range []int{3, 5, 7} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchLazyPOR(b, "indexer-small", n, 8*n) })
	}
}

// BenchmarkLazyPORBranching is the thesis's branching example (§6.3.4), on which
// the thesis's algorithm diverges without its visited-state check.
func BenchmarkLazyPORBranching(b *testing.B) {
	for _, n := range []int{2, 3, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchLazyPOR(b, "branching", n, verify.DefaultDepth) })
	}
}

// BenchmarkLazyPORPhilosophers is lock-heavy: many variations of a run order lock
// operations in ways no execution realises.
func BenchmarkLazyPORPhilosophers(b *testing.B) {
	for _, n := range []int{3, 4} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchLazyPOR(b, "philosophers-fixed", n, verify.DefaultDepth) })
	}
}

// BenchmarkLazyPORTCSSolvers compares the trace constraint solvers: topo (Listing
// 5.1) against gini and z3 deciding each system (the executions are the same).
func BenchmarkLazyPORTCSSolvers(b *testing.B) {
	for _, tcs := range TCSSolvers() {
		for _, fam := range []struct {
			name  string
			n     int
			depth int
		}{{"readers-writers", 8, verify.DefaultDepth}, {"indexer-small", 5, 40}} {
			b.Run(fmt.Sprintf("%s/%s/N=%d", tcs, fam.name, fam.n), func(b *testing.B) {
				var o Options
				o.Depth, o.TCSSolver = fam.depth, tcs
				s, err := NewTCSSolver(tcs)
				if err != nil {
					b.Skip(err) // z3 in a build without it
				}
				if c, ok := s.(io.Closer); ok {
					c.Close()
				}
				benchLazyPOROptions(b, fam.name, fam.n, o)
			})
		}
	}
}
