package explicit

import (
	"context"
	"fmt"
	"testing"

	"kbmc/verify"
)

// BenchmarkPersistent runs the persistent-set search on benchmark families and
// reports its counters next to the time:
//
//	go test ./explicit -run '^$' -bench Persistent
func BenchmarkPersistent(b *testing.B) {
	for _, bc := range []struct {
		family string
		n      int64
		depth  int
	}{
		{"readers-writers", 4, 100},
		{"indexer", 3, 100},
		{"indexer-small", 4, 100},
		{"branching", 4, 100},
		{"philosophers", 4, 100},
		{"producer-consumer", 3, 100},
		{"peterson", 2, 30},
		{"spinlock", 3, 30},
	} {
		p := loadFamily(b, bc.family, bc.n, false)
		for _, algo := range []struct {
			name string
			eng  func(Options) verify.Engine
		}{
			{"persistent", func(o Options) verify.Engine { return Persistent{Options: o} }},
			{"persistent-nosleep", func(o Options) verify.Engine { o.NoSleep = true; return Persistent{Options: o} }},
		} {
			b.Run(fmt.Sprintf("%s/N=%d/%s", bc.family, bc.n, algo.name), func(b *testing.B) {
				var o Options
				o.Depth = bc.depth
				e := algo.eng(o)
				var r *verify.Result
				for b.Loop() {
					var err error
					if r, err = e.Check(context.Background(), p); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Stats.States), "states")
				b.ReportMetric(float64(r.Stats.Transitions), "transitions")
				b.ReportMetric(float64(r.Stats.Executions), "executions")
			})
		}
	}
}

// BenchmarkPersistentProtocols is BenchmarkPersistent on the protocol families,
// on one worker, the default algorithm for programs with processes:
//
//	go test ./explicit -run '^$' -bench PersistentProtocols
func BenchmarkPersistentProtocols(b *testing.B) {
	for _, bc := range []struct {
		family string
		n      int64
	}{
		// SPIN's largest N within 60 s (docs/bench-distributed.md) where
		// a run is short enough for a benchmark.
		{"ring-election", 40},
		{"two-phase-commit", 7},
		{"primary-secondary", 6},
		{"token-ring", 8},
		{"database-partitioning", 3},
	} {
		p := loadFamily(b, bc.family, bc.n, false)
		b.Run(fmt.Sprintf("%s/N=%d", bc.family, bc.n), func(b *testing.B) {
			var o Options
			o.Depth = 3000 // ring-election N = 40 runs 2,660 steps
			o.Workers = 1
			var r *verify.Result
			for b.Loop() {
				var err error
				if r, err = (Persistent{Options: o}).Check(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Stats.States), "states")
			b.ReportMetric(float64(r.Stats.Transitions), "transitions")
			b.ReportMetric(float64(r.Stats.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}
