package symbolic

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"kbmc/lang"
	"kbmc/verify"
)

var (
	benchProgram = flag.String("symbolic.bench", "peterson:2:20", "BenchmarkFamily: family:N:depth of a bench/programs program")
	benchWidth   = flag.Int("symbolic.width", 0, "BenchmarkFamily: integer width (0: the default)")
)

// BenchmarkFamily checks one bench/programs instance with the default engine,
// for profiling: go test ./symbolic -run '^$' -bench Family -cpuprofile cpu.out
// -symbolic.bench fib-bench-safe:5:100.
func BenchmarkFamily(b *testing.B) {
	var fam string
	var n, depth int64
	if _, err := sscanBench(*benchProgram, &fam, &n, &depth); err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "bench", "programs", fam+".kb"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := lang.Compile(fam+".kb", src, lang.Config{Width: *benchWidth, Defines: map[string]int64{"N": n}})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Engine{Options: verify.Options{Depth: int(depth)}}.Check(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Stats.SolverCalls), "calls")
	}
}

func sscanBench(s string, fam *string, n, depth *int64) (int, error) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			s = s[:i] + " " + s[i+1:]
		}
	}
	return fmt.Sscan(s, fam, n, depth)
}
