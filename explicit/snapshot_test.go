package explicit

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// A refactoring of the explicit engine must not change what any algorithm answers
// or how much it explores. TestSnapshot writes, for every algorithm variant of the
// differential tests, its verdict, violation kind and counters on every testdata
// program, on the benchmark families (each N up to the first that takes longer
// than -snapshot.limit), and on generated programs, one line each; two snapshots,
// before and after a change, are compared with diff:
//
//	go test ./explicit -run TestSnapshot -snapshot=/tmp/before.txt
//	... change ...
//	go test ./explicit -run TestSnapshot -snapshot=/tmp/after.txt
//	diff /tmp/before.txt /tmp/after.txt
var (
	snapshotOut   = flag.String("snapshot", "", "TestSnapshot writes every algorithm's verdicts and counters to this file")
	snapshotSeeds = flag.Int("snapshot.seeds", 3000, "TestSnapshot: generated programs of seeds 0..N-1")
	snapshotLimit = flag.Duration("snapshot.limit", 10*time.Second, "TestSnapshot: a family's N grows while a run takes less than this")
)

func TestSnapshot(t *testing.T) {
	if *snapshotOut == "" {
		t.Skip("writes a snapshot only when asked: -snapshot=FILE")
	}
	f, err := os.Create(*snapshotOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()

	variants := snapshotVariants()
	line := func(name string, v variant, r *verify.Result, err error) {
		fmt.Fprintf(w, "%s\t%s/%s\t%s\n", name, v.algo, v.name, snapshotEntry(r, err))
	}
	run := func(v variant, p *ir.Program, o Options, timeout time.Duration) (*verify.Result, error, time.Duration) {
		v.set(&o)
		eng, err := New(v.algo, o)
		if err != nil {
			return nil, err, 0
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		start := time.Now()
		r, err := eng.Check(ctx, p)
		return r, err, time.Since(start)
	}

	for _, td := range readTestdata(t) {
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			r, err, _ := run(v, p, td.opts, time.Minute)
			line("testdata/"+filepath.Base(td.path), v, r, err)
		}
	}

	for _, fam := range []string{"readers-writers", "indexer", "indexer-small", "branching", "peterson",
		"dekker", "bakery", "philosophers", "philosophers-fixed", "fib-bench", "producer-consumer", "spinlock"} {
		for _, v := range variants {
			for n := int64(1); n <= 12; n++ {
				p := loadFamily(t, fam, n, false)
				var o Options
				o.Depth = verify.DefaultDepth
				r, err, d := run(v, p, o, 3**snapshotLimit)
				if r != nil && r.Verdict == verify.Unknown {
					break // too slow to compare: timing would decide the line
				}
				line(fmt.Sprintf("bench/%s N=%d", fam, n), v, r, err)
				if d > *snapshotLimit {
					break
				}
			}
		}
	}

	for seed := range uint64(*snapshotSeeds) {
		c, err := newCase(seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, v := range variants {
			for _, nd := range []bool{false, true} {
				r, err, _ := run(v, c.p, c.options(nd), time.Minute)
				line(fmt.Sprintf("seed %d nodeadlock=%v", seed, nd), v, r, err)
			}
		}
	}
}

// snapshotVariants is every variant the differential tests check, plus the
// stateless reference DFS.
func snapshotVariants() []variant {
	vs := []variant{{name: "stateless", algo: "dfs", set: func(*Options) {}}}
	for _, algo := range Algorithms() {
		for _, v := range variantsOf(algo) {
			if v.available != nil && v.available() != nil {
				continue
			}
			vs = append(vs, v)
		}
	}
	return vs
}

func snapshotEntry(r *verify.Result, err error) string {
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	kind := "-"
	if r.Violation != nil {
		kind = r.Violation.Kind.String()
	}
	s := r.Stats
	return fmt.Sprintf("%s %s executions=%d transitions=%d states=%d sleep_blocked=%d tcs=%d/%d/%d",
		r.Verdict, kind, s.Executions, s.Transitions, s.States, s.SleepBlocked, s.TCSBuilt, s.TCSSolved, s.TCSUnsat)
}
