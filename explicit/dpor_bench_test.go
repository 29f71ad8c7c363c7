package explicit

import (
	"context"
	"fmt"
	"testing"

	"kbmc/lang"
	"kbmc/verify"
)

// Benchmarks of the dynamic partial-order reductions on the families of the
// thesis "Lazy POR for the Verification of Distributed Programs" (§6.3) and two
// classic ones, beside plain DFS:
//
//	go test ./explicit -run '^$' -bench 'DPOR|BPOR' -benchmem
//
// Each reports the executions and transitions of one search as metrics, so that the
// reduction and the cost per execution can be read off together.

var porBenchPrograms = []struct {
	name    string
	n, dfsN int64 // N for the reductions, and a smaller one DFS can finish
	src     string
}{
	{"readers-writers", 6, 3, `
const N = 2;
shared int x = 0;
shared int l[N];
thread writer { x = 42; }
thread reader[N] { int a = l[tid]; int b = x; assert(a == 0 && (b == 0 || b == 42)); }`},
	{"indexer", 3, 2, `
const N = 2;
const SIZE = 128;
const MAX = 4;
shared int table[SIZE];
func hash(int w) int { return (w * 7) % SIZE; }
thread indexer[N] {
    int m = 0;
    int w = 0;
    int h = 0;
    while (m < MAX) {
        m++;
        w = m * 11 + tid;
        h = hash(w);
        while (!cas(table[h], 0, w)) { h = (h + 1) % SIZE; }
    }
}`},
	{"indexer-small", 4, 2, `
const N = 2;
const SIZE = 128;
const MAX = 2;
shared int table[SIZE];
func hash(int w) int { return (w * 7) % SIZE; }
thread indexer[N] {
    int m = 0;
    int w = 0;
    int h = 0;
    while (m < MAX) {
        m++;
        w = m * 2 + tid;
        h = hash(w);
        while (!cas(table[h], 0, w)) { h = (h + 1) % SIZE; }
    }
}`},
	{"branching", 3, 3, `
const N = 2;
shared int x[N];
thread b[N] {
    if (x[tid] == 0) { x[(tid + 1) % N] = 1; }
    if (x[tid] == 0) { x[(tid + 1) % N] = 1; }
}`},
	{"philosophers", 4, 3, `
const N = 3;
mutex fork[N];
shared int meals = 0;
thread phil[N] {
    lock(fork[tid < (tid + 1) % N ? tid : (tid + 1) % N]);
    lock(fork[tid < (tid + 1) % N ? (tid + 1) % N : tid]);
    meals++;
    unlock(fork[tid < (tid + 1) % N ? (tid + 1) % N : tid]);
    unlock(fork[tid < (tid + 1) % N ? tid : (tid + 1) % N]);
}`},
	{"producer-consumer", 2, 1, `
const N = 2;
shared int buf = 0;
shared int full = 0;
shared int sum = 0;
thread producer[N] { for (int i = 1; i <= 2; i++) { atomic { await(full == 0); buf = i; full = 1; } } }
thread consumer[N] { for (int i = 0; i < 2; i++) { atomic { await(full == 1); sum += buf; full = 0; } } }`},
}

func benchmarkPOR(b *testing.B, algo string, mk func(Options) verify.Engine) {
	for _, bp := range porBenchPrograms {
		n := bp.n
		if algo == "dfs" {
			n = bp.dfsN
		}
		p, err := lang.Compile(bp.name+".kb", []byte(bp.src), lang.Config{Defines: map[string]int64{"N": n}})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/N=%d", bp.name, n), func(b *testing.B) {
			var r *verify.Result
			for b.Loop() {
				r, err = mk(Options{}).Check(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
			}
			if r.Verdict != verify.Safe && r.Verdict != verify.BoundedSafe {
				b.Fatalf("%s: %s %s", algo, r.Verdict, r.Note)
			}
			b.ReportMetric(float64(r.Stats.Executions), "executions")
			b.ReportMetric(float64(r.Stats.Transitions), "transitions")
		})
	}
}

func BenchmarkDPOR(b *testing.B) {
	benchmarkPOR(b, "dpor", func(o Options) verify.Engine { return DPOR{Options: o} })
}

func BenchmarkDPORNoSleep(b *testing.B) {
	benchmarkPOR(b, "dpor", func(o Options) verify.Engine { o.NoSleep = true; return DPOR{Options: o} })
}

func BenchmarkBPORPreempt(b *testing.B) {
	benchmarkPOR(b, "bpor-preempt", func(o Options) verify.Engine { o.Preemptions = 2; return BPORPreempt{Options: o} })
}

func BenchmarkBPORFair(b *testing.B) {
	benchmarkPOR(b, "bpor-fair", func(o Options) verify.Engine { o.Fair = 1; return BPORFair{Options: o} })
}

// BenchmarkDFSBaseline is plain DFS on the same programs, for comparison.
func BenchmarkDFSBaseline(b *testing.B) {
	benchmarkPOR(b, "dfs", func(o Options) verify.Engine { return DFS{Options: o} })
}
