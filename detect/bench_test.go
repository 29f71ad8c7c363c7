package detect_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"kbmc/detect"
	"kbmc/internal/compgen"
)

// The benchmarks set kbmc's N_T and N_S beside Stoller §6 and measure the
// searches at scale. They report N_T and N_S as metrics, found (1 if Poss Φ holds
// or Def Φ fails), and the usual time and allocation per search; generating the
// computation is not timed. docs/bench-detect.md has the commands and results;
// scripts/detect-table turns the output into its tables.

var benchSeeds = flag.Int("detect.seeds", 3, "seeds per configuration in BenchmarkStoller and BenchmarkStollerGrowth")

// levels are Stoller's four levels of optimisation.
var levels = []struct {
	name string
	opts detect.Options
}{
	{"none", detect.Options{Algorithm: detect.Lattice}},
	{"sleep", detect.Options{Algorithm: detect.Lattice, Sleep: true}},
	{"persistent", detect.Options{Algorithm: detect.Persistent}},
	{"persistent+sleep", detect.Options{Algorithm: detect.Persistent, Sleep: true}},
}

// example generates one of §6's computations and its Poss predicate.
func example(name string, n, s int, seed uint64) (*detect.Computation, string) {
	rng := rand.New(rand.NewPCG(seed, uint64(n*1000+s)))
	if name == "database" {
		return compgen.Database(rng, n, s), compgen.NotIdb(n)
	}
	return compgen.PrimarySecondary(rng, n, s), compgen.NotIpr(n)
}

func search(b *testing.B, c *detect.Computation, src string, m detect.Modality, opts detect.Options) {
	phi, err := detect.CompilePredicate("predicate", src, c, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var res *detect.Result
	for range b.N {
		if res, err = detect.Detect(context.Background(), c, phi, m, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	found := 0.0
	if res.Witness != nil {
		found = 1
	}
	b.ReportMetric(float64(res.Stats.Transitions), "N_T")
	b.ReportMetric(float64(res.Stats.States), "N_S")
	b.ReportMetric(found, "found")
	b.ReportMetric(float64(c.Events()), "events")
}

// BenchmarkStoller is §6's table: Poss ¬I_db on database partitioning with N = 5,
// S = 80, and Poss ¬I_pr on primary–secondary with N = 9, S = 60, at the four
// levels of optimisation, on -detect.seeds simulated computations each.
func BenchmarkStoller(b *testing.B) {
	for _, ex := range []struct {
		name string
		n, s int
	}{{"database", 5, 80}, {"primary-secondary", 9, 60}} {
		for seed := range uint64(*benchSeeds) {
			c, pred := example(ex.name, ex.n, ex.s, seed+1)
			for _, l := range levels {
				b.Run(fmt.Sprintf("%s/n=%d/s=%d/seed=%d/%s", ex.name, ex.n, ex.s, seed+1, l.name), func(b *testing.B) {
					search(b, c, pred, detect.Possibly, l.opts)
				})
			}
		}
	}
}

// BenchmarkStollerGrowth measures how N_T grows with S and with N (§6, Fig. 4):
// database partitioning at N = 5 for S from 10 to 80, and for N from 3 at S = 25
// without persistent sets (up to N = 6: at N = 7 the lattice already has 28
// million states) and at S = 50 with them (up to N = 8), as Fig. 4 (left) does;
// primary–secondary at N = 9 for S from 15 to 60, and for N from 3 to 8 at S = 60
// (Fig. 4, right; N = 9 is BenchmarkStoller's).
func BenchmarkStollerGrowth(b *testing.B) {
	type point struct {
		name   string
		n, s   int
		levels []int
	}
	all, plain, ps := []int{0, 1, 2, 3}, []int{0, 1}, []int{2, 3}
	var points []point
	for _, s := range []int{10, 20, 40, 80} {
		points = append(points, point{"database", 5, s, all})
	}
	for n := 3; n <= 8; n++ {
		if n <= 6 {
			points = append(points, point{"database", n, 25, plain})
		}
		points = append(points, point{"database", n, 50, ps})
	}
	for _, s := range []int{15, 30, 60} {
		points = append(points, point{"primary-secondary", 9, s, all})
	}
	for n := 3; n <= 8; n++ {
		points = append(points, point{"primary-secondary", n, 60, all})
	}
	for _, p := range points {
		for seed := range uint64(*benchSeeds) {
			c, pred := example(p.name, p.n, p.s, seed+1)
			for _, li := range p.levels {
				l := levels[li]
				b.Run(fmt.Sprintf("%s/n=%d/s=%d/seed=%d/%s", p.name, p.n, p.s, seed+1, l.name), func(b *testing.B) {
					search(b, c, pred, detect.Possibly, l.opts)
				})
			}
		}
	}
}

var (
	scaleOnce  sync.Mutex
	scaleCache = map[int]*detect.Computation{}
	scaleHeap  = map[int]float64{} // MB the computation occupies
)

// scaleComputation generates a computation of a million events once per n.
func scaleComputation(n int) *detect.Computation {
	scaleOnce.Lock()
	defer scaleOnce.Unlock()
	if c := scaleCache[n]; c != nil {
		return c
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := compgen.Scale(rand.New(rand.NewPCG(1, uint64(n))), n, 1_000_000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	scaleCache[n] = c
	scaleHeap[n] = float64(after.HeapAlloc-before.HeapAlloc) / 1e6
	return c
}

// BenchmarkScale decides conjunctions of 1-local predicates on computations of a
// million events with N = 10 and N = 100 processes, with the persistent search:
// Poss of all p[i].x == 0 (found early), Poss of all p[i].done (true only in the
// final state, so the whole computation is walked), and Def of all p[i].x == 0
// (fails, with a history of every event as the witness, which is checked).
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{10, 100} {
		for _, q := range []struct {
			name string
			m    detect.Modality
			pred string
		}{
			{"possibly-zero", detect.Possibly, compgen.AllZero(n)},
			{"possibly-done", detect.Possibly, compgen.AllDone(n)},
			{"definitely-zero", detect.Definitely, compgen.AllZero(n)},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, q.name), func(b *testing.B) {
				c := scaleComputation(n)
				search(b, c, q.pred, q.m, detect.Options{Algorithm: detect.Persistent})
				b.ReportMetric(scaleHeap[n], "computation-MB")
			})
		}
	}
}

var writeLogs = flag.String("detect.write-govector", "", "TestWriteScaleLogs: write the N = 10 scale computation as GoVector logs into this directory")

// TestWriteScaleLogs writes the million-event computation of BenchmarkScale with N
// = 10 as GoVector logs, so that kbmc detect can be timed on it end to end
// (docs/bench-detect.md). It does nothing unless -detect.write-govector is given.
func TestWriteScaleLogs(t *testing.T) {
	if *writeLogs == "" {
		t.Skip("no -detect.write-govector directory")
	}
	if err := compgen.WriteGoVector(scaleComputation(10), *writeLogs); err != nil {
		t.Fatal(err)
	}
}
