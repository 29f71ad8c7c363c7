package z3_test

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"kbmc/solver"
	"kbmc/solver/z3"
)

// rss returns the resident set size of the process in bytes, from
// /proc/self/statm (its second field, in pages).
func rss(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("cannot measure memory: %v", err)
	}
	fields := strings.Fields(string(data))
	pages, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		t.Fatalf("parse /proc/self/statm %q: %v", data, err)
	}
	return pages * int64(os.Getpagesize())
}

// TestNoLeak runs 10^5 small incremental checks on one backend, reading a
// value from every model and a core from every unsat answer, with every
// tenth check under a cancellable context and a backend created and closed
// every thousand checks. Memory that Z3 objects leaked would show as a
// steady growth of the resident set; the reference counting must keep it
// flat once the memo tables and Z3's caches are warm.
func TestNoLeak(t *testing.T) {
	skipUnavailable(t)
	// Z3 allocates with malloc, and glibc gives each OS thread its own
	// arena; a goroutine that wanders between threads spreads its
	// allocations over several arenas and the resident set grows with
	// fragmentation, which this test would mistake for a leak.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const checks = 100_000
	b := solver.NewBuilder()
	s, err := z3.New(b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x, y := b.BVVar("x", 16), b.BVVar("y", 16)
	if err := s.Assert(b.Ult(x, y)); err != nil {
		t.Fatal(err)
	}
	sum := b.Add(x, y)
	var assumptions []*solver.Term
	for i := range 10 {
		// Even i: x = i, satisfiable; odd i: y = 0, unsatisfiable.
		if i%2 == 0 {
			assumptions = append(assumptions, b.Eq(x, b.BV(uint64(i), 16)))
		} else {
			assumptions = append(assumptions, b.Eq(y, b.BV(0, 16)))
		}
	}

	run := func(n int) {
		for i := range n {
			ctx := context.Background()
			var cancel context.CancelFunc = func() {}
			if i%10 == 0 {
				ctx, cancel = context.WithTimeout(ctx, time.Minute)
			}
			st, err := s.Check(ctx, assumptions[i%len(assumptions)])
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			switch st {
			case solver.Sat:
				if _, err := s.BVValue(sum); err != nil {
					t.Fatal(err)
				}
			case solver.Unsat:
				if _, err := s.FailedAssumptions(); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatalf("check %d: %v", i, st)
			}
			if i%1000 == 999 {
				other, err := z3.New(b)
				if err != nil {
					t.Fatal(err)
				}
				if err := other.Assert(b.Ult(x, sum)); err != nil {
					t.Fatal(err)
				}
				if _, err := other.Check(context.Background()); err != nil {
					t.Fatal(err)
				}
				other.Close()
			}
		}
	}

	const warmup = 10_000
	run(warmup)
	// FreeOSMemory collects and returns the freed heap to the system, so
	// that what the package's other tests left behind, and the Go heap's
	// own growth, do not count: what stays is live memory, libz3's
	// included.
	debug.FreeOSMemory()
	before := rss(t)
	start := time.Now()
	run(checks)
	elapsed := time.Since(start)
	debug.FreeOSMemory()
	after := rss(t)
	t.Logf("RSS before %.1f MiB, after %d checks %.1f MiB (growth %.1f MiB) in %v",
		float64(before)/(1<<20), checks, float64(after)/(1<<20), float64(after-before)/(1<<20), elapsed)
	// A leaked model, value or core per check would cost at least a few
	// hundred bytes each, tens of MiB over the run.
	if growth := after - before; growth > 16<<20 {
		t.Errorf("resident memory grew by %d bytes over %d checks", growth, checks)
	}
}
