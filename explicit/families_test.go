package explicit

import (
	"fmt"
	"os"
	"testing"

	"kbmc/lang"
	"kbmc/verify"
)

// TestDistributedFamilies checks every algorithm variant of the differential tests
// on the protocol families of the distributed benchmark suite, at small sizes: each
// family is safe (its header comment says why), so the algorithms that explore a
// representative of every trace must say safe, and the bounded ones must find no
// violation. The reference is the stateful DFS (the stateless one explodes on these
// protocols from N = 2 on). On the two larger cases the variants without sleep
// sets, dpor/no-sleep and bpor-fair (whose bound cuts only spinning, absent here),
// explore nearly every interleaving, hundreds of thousands: they are checked on the
// smaller cases only, and so are the parallel and sharded stateless dfs.
func TestDistributedFamilies(t *testing.T) {
	heavy := map[string]bool{"dpor/no-sleep": true, "bpor-fair/unbounded": true,
		"bpor-fair/c=0": true, "bpor-fair/c=1": true, "bpor-fair/c=2": true,
		"bpor-fair/workers=2": true, "bpor-fair/c=2/workers=2": true, "dfs/workers=2": true,
		"dfs/shards=3": true, "bpor-fair/shards=3": true, "bpor-fair/workers=4": true,
		"bpor-fair/workers=3/eager": true, "bpor-fair/shards=3/workers=2": true,
		"bpor-fair/shards=3/eager": true}
	for _, tc := range []struct {
		family  string
		defines map[string]int64
		large   bool // leave out the heavy variants
	}{
		{"two-phase-commit", map[string]int64{"N": 1}, false},
		{"two-phase-commit", map[string]int64{"N": 2}, false},
		{"ring-election", map[string]int64{"N": 2}, false},
		{"token-ring", map[string]int64{"N": 1}, false},
		{"token-ring", map[string]int64{"N": 2, "ROUNDS": 1}, true},
		{"database-partitioning", map[string]int64{"N": 2}, true},
		{"primary-secondary", map[string]int64{"N": 2}, false},
	} {
		name := tc.family
		for k, v := range tc.defines {
			name += fmt.Sprintf(" %s=%d", k, v)
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile("../bench/programs/" + tc.family + ".kb")
			if err != nil {
				t.Fatal(err)
			}
			p := porCompile(t, tc.family, string(src), lang.Config{Defines: tc.defines})
			var o Options
			o.Depth = 200
			ref := o
			ref.Stateful = true
			if r := porCheck(t, DFS{Options: ref}, p); r.Verdict != verify.Safe {
				t.Fatalf("stateful dfs: %s, want safe", verdictString(r))
			}
			for _, algo := range Algorithms() {
				for _, v := range variantsOf(algo) {
					if v.available != nil && v.available() != nil || tc.large && heavy[algo+"/"+v.name] {
						continue
					}
					vo := o
					v.set(&vo)
					eng, err := New(v.algo, vo)
					if err != nil {
						t.Fatal(err)
					}
					r := porCheck(t, eng, p)
					switch {
					case r.Verdict == verify.Unsafe:
						t.Errorf("%s/%s: %s, want no violation", algo, v.name, verdictString(r))
					case v.class == traceComplete && r.Verdict != verify.Safe:
						t.Errorf("%s/%s: %s, want safe", algo, v.name, verdictString(r))
					}
				}
			}
		})
	}
}

// TestChannelsCommute: on ring-election every channel has one sender and one
// receiver, so a send and a recv on it commute whenever both can go, and every
// other conflict between two nodes is a message passed from one to the other
// (ir.OrderedOnly), never a race. DPOR then explores a single execution at
// every size; with one location per channel it explored 2^(N(N-1)/2).
func TestChannelsCommute(t *testing.T) {
	src, err := os.ReadFile("../bench/programs/ring-election.kb")
	if err != nil {
		t.Fatal(err)
	}
	for n := int64(2); n <= 7; n++ {
		p := porCompile(t, "ring-election", string(src), lang.Config{Defines: map[string]int64{"N": n}})
		var o Options
		o.Depth = 400
		o.Workers = 1
		r := porCheck(t, DPOR{Options: o}, p)
		if r.Verdict != verify.Safe || r.Stats.Executions != 1 {
			t.Errorf("N = %d: dpor says %s after %d executions, want safe after 1", n, verdictString(r), r.Stats.Executions)
		}
	}
}
