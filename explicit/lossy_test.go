package explicit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// Hash compaction keeps a record per state and no state: distinct states
// (distinct hashes here) stay distinct, a state visited again finds its
// record, and nothing is packed.
func TestHashCompactStore(t *testing.T) {
	v := newVisitedStore[int32](storeMode{kind: hashCompactStore})
	const n = 5000
	state := func(i int) ir.State { return ir.State{int64(i), int64(i % 7), 300} }
	for i := range n {
		e, fresh := v.visit(state(i))
		if !fresh {
			t.Fatalf("state %d: not new", i)
		}
		e.own = int32(i)
	}
	for i := range n {
		e, fresh := v.visit(state(i))
		if fresh || e.own != int32(i) {
			t.Fatalf("state %d again: fresh %v, record of %d", i, fresh, e.own)
		}
		if v.lookup(state(i)) != e {
			t.Fatalf("state %d: lookup finds another record", i)
		}
	}
	if v.lookup(state(n)) != nil {
		t.Errorf("a state never stored is found")
	}
	if v.len() != n {
		t.Errorf("len %d, want %d", v.len(), n)
	}
	if b := v.blocks.bytes(); b != 0 {
		t.Errorf("%d bytes of packed states, want none", b)
	}
}

// A bitstate store says a state is new until its bits are set; a state seen
// before comes back with a record that decides it (any budget, on no path);
// and once the array is full every state looks seen: the store is lossy.
func TestBitstateStore(t *testing.T) {
	tests := []struct {
		name   string
		bits   int
		states int
		// wantAllNew: every distinct state is new (a large array, few
		// states); else the last states inserted are all taken for seen.
		wantAllNew bool
	}{
		{"roomy", 1 << 20, 1000, true},
		{"full", 64, 1000, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVisitedStore[int32](storeMode{kind: bitStateStore, bits: tc.bits})
			state := func(i int) ir.State { return ir.State{int64(i), int64(i * 31)} }
			fresh := 0
			lastFresh := false
			for i := range tc.states {
				e, f := v.visit(state(i))
				if f {
					fresh++
					if e.budget != -1 || e.active != 0 {
						t.Fatalf("state %d: new with record %+v", i, *e)
					}
					e.active, e.budget = 1, 10 // what a search writes into it
				}
				lastFresh = f
				if _, again := v.visit(state(i)); again {
					t.Fatalf("state %d: new twice", i)
				}
			}
			if tc.wantAllNew && fresh != tc.states {
				t.Errorf("%d of %d distinct states new", fresh, tc.states)
			}
			if !tc.wantAllNew && (lastFresh || fresh >= tc.states) {
				t.Errorf("a full array of %d bits took %d of %d states for new, the last one too: %v", tc.bits, fresh, tc.states, lastFresh)
			}
			if v.len() != fresh {
				t.Errorf("len %d, want %d", v.len(), fresh)
			}
			e := v.lookup(state(0))
			if e == nil || e.active != 0 || int(e.budget) < 1<<30 || e.height != 0 {
				t.Errorf("a state seen before: record %+v, want one on no path with any budget", e)
			}
		})
	}
}

func TestBitstateBits(t *testing.T) {
	for _, tc := range []struct{ mb, want int }{{1, 1 << 23}, {3, 1 << 24}, {64, 1 << 29}, {0, DefaultBitstateMB << 23}} {
		if got := bitstateBits(tc.mb); got != tc.want {
			t.Errorf("bitstateBits(%d) = %d, want %d", tc.mb, got, tc.want)
		}
	}
}

// With a lossy visited set, the stateful algorithms still find a reachable
// violation (replayed, so unsafe stays unsafe), and where they find none the
// verdict is unknown, saying why, never safe; on several workers the run is
// sequential.
func TestLossyModes(t *testing.T) {
	programs := []struct {
		name, src string
		verdict   verify.Verdict
	}{
		{"lost update", "shared int x;\nthread w[3] { int t = x; x = t + 1; }\nthread m { join(w); assert(x == 3); }\n", verify.Unsafe},
		{"abba", "mutex a; mutex b;\nthread one { lock(a); lock(b); unlock(b); unlock(a); }\nthread two { lock(b); lock(a); unlock(a); unlock(b); }\n", verify.Unsafe},
		{"atomic increments", "shared int x;\nthread w[3] { x++; x++; }\nthread m { join(w); assert(x == 6); }\n", verify.Safe},
	}
	modes := []struct {
		name string
		set  func(*Options)
	}{
		{"hash-compact", func(o *Options) { o.HashCompact = true }},
		{"bitstate", func(o *Options) { o.Bitstate, o.BitstateMB = true, 1 }},
	}
	for _, pr := range programs {
		p := porCompile(t, pr.name, pr.src, lang.Config{})
		for _, algo := range []string{"dfs/stateful", "persistent", "process-local"} {
			for _, workers := range []int{1, 2} {
				for _, m := range modes {
					t.Run(fmt.Sprintf("%s/%s/%s/w%d", pr.name, algo, m.name, workers), func(t *testing.T) {
						o := Options{Workers: workers}
						m.set(&o)
						name, err := ParseEngineName(algo, &o)
						if err != nil {
							t.Fatal(err)
						}
						e, err := New(name, o)
						if err != nil {
							t.Fatal(err)
						}
						r := porRun(t, e, p)
						if r.Workers > 1 {
							t.Errorf("ran on %d workers", r.Workers)
						}
						switch pr.verdict {
						case verify.Unsafe:
							if r.Verdict != verify.Unsafe {
								t.Fatalf("verdict %s (%s), want unsafe", r.Verdict, r.Note)
							}
							if _, _, err := p.Confirm(r.Trace, r.Violation.Kind); err != nil {
								t.Errorf("counterexample does not replay: %v", err)
							}
						default:
							if r.Verdict != verify.Unknown || r.Incomplete != m.name || !strings.Contains(r.Note, "explored part") {
								t.Errorf("verdict %s, incomplete %q (%s); want unknown, incomplete %q", r.Verdict, r.Incomplete, r.Note, m.name)
							}
							if r.Stats.States == 0 {
								t.Errorf("no states stored")
							}
						}
					})
				}
			}
		}
	}
}

// The options that cannot go with a lossy visited set are refused.
func TestLossyRefused(t *testing.T) {
	p := porCompile(t, "one", "shared int x;\nthread a { x = 1; }\n", lang.Config{})
	for _, tc := range []struct {
		algo string
		set  func(*Options)
		want string
	}{
		{"dfs", func(o *Options) { o.HashCompact = true }, "--stateful"},
		{"dpor", func(o *Options) { o.Bitstate = true }, "only to the stateful searches"},
		{"lazypor", func(o *Options) { o.HashCompact = true }, "only to the stateful searches"},
		{"persistent", func(o *Options) { o.HashCompact, o.Bitstate = true, true }, "choose one"},
		{"process-local", func(o *Options) { o.Bitstate, o.Shard = true, Shard{Index: 0, Count: 2} }, "sharded"},
		{"dfs/stateful", func(o *Options) { o.Bitstate, o.LocalDeadlock = true, true }, "--local-deadlock"},
		{"persistent", func(o *Options) { o.Bitstate, o.BitstateMB = true, -1 }, "--bitstate-mb"},
	} {
		o := Options{}
		tc.set(&o)
		name, err := ParseEngineName(tc.algo, &o)
		if err != nil {
			t.Fatal(err)
		}
		e, err := New(name, o)
		if err == nil {
			_, err = e.Check(context.Background(), p)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.algo, err, tc.want)
		}
	}
}
