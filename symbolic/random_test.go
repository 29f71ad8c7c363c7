package symbolic

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/internal/progen"
	"kbmc/lang"
	"kbmc/verify"
)

var (
	seeds     = flag.Int("symbolic.seeds", 100, "TestRandom: random programs per solver × reduction combination")
	firstSeed = flag.Uint64("symbolic.from", 1, "TestRandom: the first seed")
	only      = flag.String("symbolic.combos", "", "TestRandom: run only the combinations whose name (solver/variant) matches this regular expression")
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
	return cfg
}

// TestRandom compares verdict and violation kind with the reference DFS on seeded
// random programs (internal/progen), on every solver × reduction combination.
// -symbolic.features chooses the constructs (randomConfig): the channel
// programs of progen, once it generates them, are checked by naming their
// features there.
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
	ran := 0
	for seed := *firstSeed; seed < *firstSeed+uint64(n); seed++ {
		cfg := randomConfig(seed, feats)
		src := progen.Generate(seed, cfg)
		p, err := lang.Compile("gen.kb", []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
		if err != nil {
			t.Fatalf("seed %d: compile: %v\n%s", seed, err, src)
		}
		opts := verify.Options{}
		ref, err := dfs(context.Background(), p, opts)
		if err != nil {
			t.Fatalf("seed %d: dfs: %v\n%s", seed, err, src)
		}
		for _, c := range cs {
			r, err := symbolicRun(p, opts, c, 2*time.Minute)
			ran++
			if err != nil {
				t.Errorf("seed %d, %s: %v\n%s", seed, c, err, src)
				continue
			}
			if err := agree(p, opts, c, ref, r, 2*time.Minute); err != nil {
				t.Errorf("seed %d, %s: %v\n%s", seed, c, err, src)
			}
		}
	}
	t.Logf("%d seeds × %d combinations: %d runs", n, len(cs), ran)
}
