package symbolic

import (
	"context"
	"flag"
	"regexp"
	"slices"
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
)

// TestRandom compares verdict and violation kind with the reference DFS on seeded
// random programs (internal/progen), on every solver × reduction combination.
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
	ran := 0
	for seed := *firstSeed; seed < *firstSeed+uint64(n); seed++ {
		// Mostly the default programs; every fifth lowered with one transition
		// per statement; some with 8-bit integers (where arithmetic wraps
		// around), 16-bit or 64-bit ones.
		cfg := progen.DefaultConfig()
		cfg.NoFold = seed%5 == 0
		switch {
		case seed%7 == 0:
			cfg.Width = 8
		case seed%11 == 0:
			cfg.Width = 16
		case seed%13 == 0:
			cfg.Width = 64
		}
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
