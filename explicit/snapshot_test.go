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
// program, on generated programs, and on the benchmark families (each N up to the
// first that does not end within -snapshot.limit), one line each; two snapshots,
// before and after a change, are compared with diff:
//
//	go test ./explicit -run TestSnapshot -snapshot=/tmp/before.txt
//	... change ...
//	go test ./explicit -run TestSnapshot -snapshot=/tmp/after.txt
//	diff /tmp/before.txt /tmp/after.txt
var (
	snapshotOut   = flag.String("snapshot", "", "TestSnapshot writes every algorithm's verdicts and counters to this file")
	snapshotSeeds = flag.Int("snapshot.seeds", 3000, "TestSnapshot: generated programs of seeds 0..N-1")
	snapshotLimit = flag.Duration("snapshot.limit", 10*time.Second, "TestSnapshot: a thesis family's N grows while a run ends within this")
	snapshotParts = flag.String("snapshot.parts", "testdata,seeds,chan-seeds,thesis,classic,distributed", "TestSnapshot: which programs (testdata, classic and channel seeds, thesis, classic and distributed benchmark families)")
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
	run := func(v variant, p *ir.Program, o Options, timeout time.Duration) (*verify.Result, error) {
		v.set(&o)
		eng, err := New(v.algo, o)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return eng.Check(ctx, p)
	}

	parts := map[string]bool{}
	for _, p := range strings.Split(*snapshotParts, ",") {
		parts[p] = true
	}
	if parts["testdata"] {
		for _, td := range readTestdata(t) {
			p, err := lang.Compile(td.path, td.src, td.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range variants {
				r, err := run(v, p, td.opts, time.Minute)
				line("testdata/"+filepath.Base(td.path), v, r, err)
			}
		}
	}
	if parts["seeds"] {
		for seed := range uint64(*snapshotSeeds) {
			c, err := newCase(classicFamily, seed)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for _, v := range variants {
				for _, nd := range []bool{false, true} {
					r, err := run(v, c.p, c.options(nd), time.Minute)
					line(fmt.Sprintf("seed %d nodeadlock=%v", seed, nd), v, r, err)
				}
			}
		}
	}
	if parts["chan-seeds"] {
		for seed := range uint64(*snapshotSeeds) {
			c, err := newCase(channelFamily, seed)
			if err != nil {
				t.Fatalf("channel seed %d: %v", seed, err)
			}
			for _, v := range variants {
				for _, nd := range []bool{false, true} {
					r, err := run(v, c.p, c.options(nd), time.Minute)
					line(fmt.Sprintf("channel seed %d nodeadlock=%v", seed, nd), v, r, err)
				}
			}
		}
	}
	// Families: N grows until a run does not end within the limit (a tenth of it
	// for the classic and distributed ones); that run is left out, since timing
	// decided it.
	families := map[string][]string{
		"thesis": {"readers-writers", "indexer", "indexer-small", "branching"},
		"classic": {"peterson", "dekker", "bakery", "philosophers", "philosophers-fixed",
			"fib-bench", "producer-consumer", "spinlock"},
		"distributed": {"two-phase-commit", "ring-election", "token-ring", "database-partitioning",
			"primary-secondary"},
	}
	for _, part := range []string{"thesis", "classic", "distributed"} {
		if !parts[part] {
			continue
		}
		limit := *snapshotLimit
		if part != "thesis" {
			limit /= 10
		}
		for _, fam := range families[part] {
			for _, v := range variants {
				for n := int64(1); n <= 20; n++ {
					var o Options
					o.Depth = verify.DefaultDepth
					r, err := run(v, loadFamily(t, fam, n, false), o, limit)
					if r != nil && r.Verdict == verify.Unknown {
						break
					}
					line(fmt.Sprintf("bench/%s N=%d", fam, n), v, r, err)
				}
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
