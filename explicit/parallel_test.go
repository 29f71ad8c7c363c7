package explicit

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kbmc/lang"
	"kbmc/verify"
)

// TestWorkersAndShardsOnTestdata runs every algorithm on every testdata program three ways —
// sequentially, on two workers, and split into three shards combined as kbmc merge
// combines them — and requires one verdict from all three, and for the stateless
// dfs the very same executions (its subtrees are disjoint: their number and the
// longest); the bounded
// algorithms may say bounded-safe where the sequential run says safe. The
// differential test does the same on generated programs, with terminal states.
func TestWorkersAndShardsOnTestdata(t *testing.T) {
	type way struct {
		name string
		mk   func(algo string, o Options) (verify.Engine, error)
	}
	ways := []way{
		{"workers=2", func(algo string, o Options) (verify.Engine, error) { o.Workers = 2; return New(algo, o) }},
		{"shards=3", func(algo string, o Options) (verify.Engine, error) { return shardedMaker(algo, 3)(o) }},
	}
	bounded := map[string]bool{"bpor-preempt": true, "bpor-fair": true}
	for _, td := range readTestdata(t) {
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatalf("%s: %v", td.path, err)
		}
		for _, algo := range []string{"dfs", "dpor", "lazypor", "persistent", "process-local", "bpor-preempt", "bpor-fair"} {
			name := filepath.Base(td.path) + "/" + algo
			check := func(eng verify.Engine) *verify.Result {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				r, err := eng.Check(ctx, p)
				if err != nil {
					if _, unsupported := err.(*verify.UnsupportedError); !unsupported {
						t.Errorf("%s: %v", name, err)
					}
					return nil
				}
				return r
			}
			seq, err := New(algo, td.opts)
			if err != nil {
				t.Fatal(err)
			}
			ref := check(seq)
			if ref == nil || ref.Verdict == verify.Unknown {
				continue
			}
			for _, w := range ways {
				eng, err := w.mk(algo, td.opts)
				if err != nil {
					t.Fatal(err)
				}
				got := check(eng)
				switch {
				case got == nil:
				case got.Verdict == verify.Unknown:
					t.Logf("%s %s: %s (sequential: %s)", name, w.name, verdictString(got), verdictString(ref))
				case bounded[algo] && got.Verdict == verify.BoundedSafe && ref.Verdict == verify.Safe:
					// The frontier cuts every prefix past the preemption bound;
					// the sequential search knows when the cut one was redundant.
					// Weaker, never wrong.
				case got.Verdict != ref.Verdict:
					t.Errorf("%s %s: %s; sequential: %s", name, w.name, verdictString(got), verdictString(ref))
				case algo == "dfs" && got.Verdict != verify.Unsafe && got.Stats.Executions != ref.Stats.Executions:
					t.Errorf("%s %s: %d executions; sequential: %d", name, w.name, got.Stats.Executions, ref.Stats.Executions)
				case algo == "dfs" && got.Verdict != verify.Unsafe && got.Stats.Longest != ref.Stats.Longest:
					t.Errorf("%s %s: the longest execution has %d steps; sequential: %d", name, w.name, got.Stats.Longest, ref.Stats.Longest)
				}
			}
		}
	}
}
