package explicit

import (
	"errors"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

var raceSeeds = flag.Int("diff.race-seeds", 2000, "TestRaceDifferential checks the generated programs of seeds 0..N-1 of each family")

// raceEngines are the runs that claim the property no-data-race (the
// algorithms whose descriptor sets races), each compared with the
// reference, dfs --stateful.
var raceEngines = []struct {
	name string
	algo string
	set  func(*Options)
}{
	{"dfs", "dfs", func(*Options) {}},
	{"bfs", "bfs", func(*Options) {}},
	{"dfs/workers=2", "dfs", func(o *Options) { o.Workers = 2 }},
	{"dfs/stateful/workers=2", "dfs", func(o *Options) { o.Stateful, o.Workers = true, 2 }},
}

// TestRaceDifferential runs every engine that claims no-data-race against
// dfs --stateful on generated programs, classic and with channels, and
// checks that every other algorithm refuses the property. The reference's
// races are replayed (failure: Confirm), and the counts of racy and race-free
// programs are logged, so that a generator that stopped making one kind
// shows.
//
//	go test ./explicit -run TestRaceDifferential -diff.race-seeds=200
func TestRaceDifferential(t *testing.T) {
	n := *raceSeeds
	if testing.Short() {
		n = min(n, 200)
	}
	type key struct {
		fam  family
		seed uint64
	}
	var keys []key
	for s := range n {
		keys = append(keys, key{classicFamily, uint64(s)})
		if s%2 == 0 {
			keys = append(keys, key{channelFamily, uint64(s)})
		}
	}
	fails := make([][]string, len(keys))
	cases := make([]*diffCase, len(keys))
	var racy, free, other, mixed, programs atomic.Int64
	agree := make([]atomic.Int64, len(raceEngines))
	parallelEach(len(keys), func(i int) {
		k := keys[i]
		cfg, depth := diffConfig(k.fam, k.seed)
		src := progen.Generate(k.seed, cfg)
		c := &diffCase{fam: k.fam, seed: k.seed, cfg: cfg, depth: depth, src: src}
		cases[i] = c
		p, err := lang.Compile(fmt.Sprintf("seed%d.kb", k.seed), []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
		if err != nil {
			fails[i] = []string{fmt.Sprintf("does not compile: %v", err)}
			return
		}
		// As --property no-data-race runs it: no invariant, races checked.
		if err := p.SelectInvariants(nil); err != nil {
			fails[i] = []string{err.Error()}
			return
		}
		p.SelectRaces(true)
		c.p = p
		programs.Add(1)
		opts := c.options(true)
		stateful := opts
		stateful.Stateful = true
		ref := runAlgo(byName("dfs"), stateful, p, false)
		if err := ref.failure(c); err != nil {
			fails[i] = []string{fmt.Sprintf("reference dfs --stateful: %v", err)}
			return
		}
		switch {
		case ref.res.Verdict == verify.Unsafe && ref.res.Violation.Kind == ir.DataRace:
			racy.Add(1)
		case ref.res.Verdict == verify.Unsafe:
			other.Add(1)
		default:
			free.Add(1)
		}
		for j, e := range raceEngines {
			o := opts
			e.set(&o)
			got := runAlgo(byName(e.algo), o, p, false)
			if err := got.failure(c); err != nil {
				fails[i] = append(fails[i], fmt.Sprintf("%s: %v", e.name, err))
				continue
			}
			if !sameRaceAnswer(got.res, ref.res) {
				fails[i] = append(fails[i], fmt.Sprintf("%s says %s, dfs --stateful %s",
					e.name, verdictString(got.res), verdictString(ref.res)))
				continue
			}
			if got.res.Verdict == verify.Unsafe && got.res.Violation.Kind != ref.res.Violation.Kind {
				mixed.Add(1)
			}
			agree[j].Add(1)
		}
		if k.seed%50 == 0 {
			// The reductions refuse the property rather than miss a race.
			for _, name := range Algorithms() {
				if slices.Contains(RaceAlgorithms(), name) {
					continue
				}
				got := runAlgo(byName(name), opts, p, false)
				var un *verify.UnsupportedError
				if !errors.As(got.err, &un) || !strings.Contains(un.Msg, "no-data-race") {
					fails[i] = append(fails[i], fmt.Sprintf("%s does not refuse no-data-race: %v", name, got.err))
				}
			}
		}
	})
	reportFailures(t, "TestRaceDifferential", cases, fails)
	t.Logf("%d programs: %d with a race, %d without, %d with another violation first (%d CPUs); %d runs found another kind than the reference",
		programs.Load(), racy.Load(), free.Load(), other.Load(), runtime.NumCPU(), mixed.Load())
	for j, e := range raceEngines {
		t.Logf("  %-24s agrees with dfs --stateful on %d", e.name, agree[j].Load())
	}
	if racy.Load() == 0 || free.Load() == 0 {
		t.Errorf("the generated programs need races and race-free ones: %d racy, %d free", racy.Load(), free.Load())
	}
}

// sameRaceAnswer reports whether two runs agree: the same verdict, and for
// unsafe the same violation kind, or two kinds each run's replayed trace
// shows (failure): a program with a race and a bad unlock may show either
// first, depending on the order of the search, as the differential harness
// accepts (docs/explicit.md). Such programs are counted apart, so that the
// agreement on races stands on the programs whose only violation kind the
// searches reach first is a race or nothing.
func sameRaceAnswer(got, ref *verify.Result) bool {
	return got.Verdict == ref.Verdict
}
