package symbolic

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

var (
	seeds     = flag.Int("symbolic.seeds", 100, "TestRandom: random programs per solver × reduction combination")
	chanSeeds = flag.Int("symbolic.chan-seeds", 300, "TestRandom: random distributed programs (processes and channels, progen.DistributedConfig) per combination")
	firstSeed = flag.Uint64("symbolic.from", 1, "TestRandom: the first seed")
	only      = flag.String("symbolic.combos", "", "TestRandom: run only the combinations whose name (solver/variant) matches this regular expression")
	allKinds  = flag.Bool("symbolic.chan-kinds", false, "TestRandom: every distributed program with selects, lossy and unordered channels (progen.ChannelKinds), not every third")
	goAll     = flag.Bool("symbolic.go", false, "TestRandom: every program with Go's constructs (asGo; distributed ones with progen.Close), not every fifth")
	features  = flag.String("symbolic.features", "", "TestRandom: the progen features the programs use, as names joined by | (default: progen.DefaultConfig's); any feature progen has, channels and processes included once it generates them")
)

// parseFeatures reads a -symbolic.features list by the names progen gives its
// features (progen.Feature.String), so that a feature progen adds can be
// asked for here without changing this file.
func parseFeatures(list string) (progen.Feature, error) {
	var out progen.Feature
	for _, name := range strings.Split(list, "|") {
		var found bool
		var known []string
		for _, f := range progen.FeatureList() {
			known = append(known, f.String())
			if f.String() == name {
				out |= f
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown progen feature %q (known: %s)", name, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// randomConfig is the generator configuration of one seed: the one place
// where TestRandom shapes its programs. Mostly the default programs; every
// fifth lowered with one transition per statement; some with 8-bit integers
// (where arithmetic wraps around), 16-bit or 64-bit ones. feats, when not
// zero, replaces the default features.
func randomConfig(seed uint64, feats progen.Feature) progen.Config {
	cfg := progen.DefaultConfig()
	if feats != 0 {
		cfg.Features = feats
	}
	cfg.NoFold = seed%5 == 0
	switch {
	case seed%7 == 0:
		cfg.Width = 8
	case seed%11 == 0:
		cfg.Width = 16
	case seed%13 == 0:
		cfg.Width = 64
	}
	if seed%10 == 2 {
		cfg.Invariants = 1 + int(seed/10)%2 // global invariants: the step encoding checks them
	}
	return cfg
}

// TestRandom compares verdict and violation kind with the reference DFS on seeded
// random programs (internal/progen), on every solver × reduction combination.
// Two families: the classic shared-memory programs (-symbolic.seeds) and the
// distributed ones with processes and channels (-symbolic.chan-seeds);
// -symbolic.features replaces both with programs of the features it names.
func TestRandom(t *testing.T) {
	n := *seeds
	if testing.Short() {
		n = min(n, 20)
	}
	cs := combos(t)
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			t.Fatalf("-symbolic.combos: %v", err)
		}
		cs = slices.DeleteFunc(cs, func(c combo) bool { return !re.MatchString(c.String()) })
		if len(cs) == 0 {
			t.Fatalf("-symbolic.combos %q matches no combination", *only)
		}
	}
	var feats progen.Feature
	if *features != "" {
		var err error
		if feats, err = parseFeatures(*features); err != nil {
			t.Fatalf("-symbolic.features: %v", err)
		}
	}
	nChan := *chanSeeds
	if testing.Short() {
		nChan = min(nChan, 20)
	}
	ran := 0
	var withSelect, withLossy, withUnordered int // distributed programs using each
	var withGo goUses                            // programs using each of Go's constructs
	var leaks int                                // programs dfs finds a goroutine leak in
	for _, family := range []struct {
		name   string
		n      int
		config func(seed uint64) progen.Config
	}{
		{"classic", n, func(seed uint64) progen.Config { return randomConfig(seed, feats) }},
		{"distributed", nChan, func(seed uint64) progen.Config {
			cfg := randomConfig(seed, feats)
			if feats == 0 {
				cfg.Features = progen.DistributedConfig().Features
				cfg.MaxInterleavings = progen.DistributedConfig().MaxInterleavings
				if seed%3 == 1 || *allKinds {
					// Every third: selects, lossy and unordered channels
					// (as the explicit engine's differential test).
					cfg.Features |= progen.ChannelKinds
				}
				if goSeed(seed) {
					cfg.Features |= progen.Close // close, ok-receives, guarded select cases
				}
			}
			return cfg
		}},
	} {
		if feats != 0 && family.name == "distributed" {
			continue // -symbolic.features chose the programs
		}
		for seed := *firstSeed; seed < *firstSeed+uint64(family.n); seed++ {
			cfg := family.config(seed)
			src := progen.Generate(seed, cfg)
			p, err := lang.Compile("gen.kb", []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
			if err != nil {
				t.Fatalf("%s seed %d: compile: %v\n%s", family.name, seed, err, src)
			}
			if goSeed(seed) {
				if err := asGo(p); err != nil {
					t.Fatalf("%s seed %d: %v\n%s", family.name, seed, err, src)
				}
			}
			sel, lossy, unordered := channelKinds(p)
			withSelect, withLossy, withUnordered = withSelect+b2i(sel), withLossy+b2i(lossy), withUnordered+b2i(unordered)
			uses := goUsesOf(p)
			withGo.add(uses)
			closable := uses.close > 0
			opts := verify.Options{}
			ref, err := dfs(context.Background(), p, opts)
			if err != nil {
				t.Fatalf("%s seed %d: dfs: %v\n%s", family.name, seed, err, src)
			}
			if ref.Violation != nil && ref.Violation.Kind == ir.Leak {
				leaks++
			}
			for _, c := range cs {
				if c.solver == "portfolio" && seed%4 != 0 && !*heavy {
					continue // a quarter of the seeds: both members are checked on all
				}
				if cfg.Invariants > 0 && c.encoding != "step" {
					continue // the partial-order encoding refuses invariants (TestInvariants)
				}
				r, err := symbolicRun(p, opts, c, 2*time.Minute)
				ran++
				var unsup *verify.UnsupportedError
				if (unordered || closable) && c.encoding == "partial-order" {
					// It refuses unordered and closed channels by name
					// (TestTestdata, TestSupportedGo).
					if !errors.As(err, &unsup) || !strings.Contains(unsup.Msg, "unordered") && !strings.Contains(unsup.Msg, "closed by a close") {
						t.Errorf("%s seed %d, %s: %v, %v; want the refusal of an unordered or closed channel\n%s", family.name, seed, c, r, err, src)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s seed %d, %s: %v\n%s", family.name, seed, c, err, src)
					continue
				}
				if err := agree(p, opts, c, ref, r, 2*time.Minute); err != nil {
					t.Errorf("%s seed %d, %s: %v\n%s", family.name, seed, c, err, src)
				}
			}
		}
	}
	t.Logf("%d classic and %d distributed seeds × %d combinations: %d runs", n, nChan, len(cs), ran)
	t.Logf("programs with select: %d, with a lossy channel: %d, with an unordered channel: %d", withSelect, withLossy, withUnordered)
	t.Logf("programs with close: %d, an ok flag: %d, a when: %d, Go's mutexes: %d, an entry goroutine: %d (a leak: %d)",
		withGo.close, withGo.ok, withGo.when, withGo.anyOwner, withGo.entry, leaks)
}

// goSeed reports whether seed's program uses Go's constructs: every fifth,
// or every one with -symbolic.go.
func goSeed(seed uint64) bool { return seed%5 == 4 || *goAll }

// asGo makes p a Go program as the Go front end lowers one, which .kb cannot
// write: its first template is the entry goroutine (a deadlocked end state
// once every instance of it has terminated is a leak), and its mutexes are
// Go's (ir.Node.AnyOwner: a relock waits, any thread may unlock, an unlock of
// an unlocked mutex panics). Finish lays the program out again.
func asGo(p *ir.Program) error {
	p.Entry = p.Templates[0]
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			if n.Op == ir.OpLock || n.Op == ir.OpUnlock {
				n.AnyOwner = true
			}
		}
	}
	if err := p.Finish(); err != nil {
		return fmt.Errorf("asGo: %w", err)
	}
	return nil
}

// goUses counts the Go constructs of programs (in nodes, for one program).
type goUses struct{ close, ok, when, anyOwner, entry int }

func (g *goUses) add(o goUses) {
	g.close, g.ok, g.when = g.close+b2i(o.close > 0), g.ok+b2i(o.ok > 0), g.when+b2i(o.when > 0)
	g.anyOwner, g.entry = g.anyOwner+b2i(o.anyOwner > 0), g.entry+o.entry
}

func goUsesOf(p *ir.Program) goUses {
	var g goUses
	g.entry = b2i(p.Entry != nil)
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			g.close += b2i(n.Op == ir.OpClose)
			g.ok += b2i(n.OK != nil)
			g.anyOwner += b2i(n.AnyOwner)
			for _, c := range n.Cases {
				g.ok += b2i(c.OK != nil)
				g.when += b2i(c.When != nil)
			}
		}
	}
	return g
}

// b2i counts a true as 1.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
