package progen

import (
	"errors"
	"flag"
	"regexp"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
)

// configs are the shapes the tests generate: the default and the distributed
// configuration, and the variations the differential test uses.
func configs() map[string]Config {
	noFold := DefaultConfig()
	noFold.NoFold = true
	narrow := DefaultConfig()
	narrow.Width = 8
	spin := DefaultConfig()
	spin.Features |= SpinLoops
	spin.MaxThreads, spin.MaxOps = 3, 3
	faulty := DefaultConfig()
	faulty.FaultRate = 0.5
	big := DefaultConfig() // far beyond what a search explores, to fuzz lang
	big.Features = AllFeatures
	big.MaxThreads, big.MaxOps, big.MaxInterleavings = 7, 12, 1e15
	bigClassic := big
	bigClassic.Features &^= Processes | Channels
	cs := map[string]Config{"default": DefaultConfig(), "no-fold": noFold, "width-8": narrow,
		"spin": spin, "faulty": faulty, "big": big, "big-classic": bigClassic, "dual-form": DualFormConfig(), "go-form": GoFormConfig()}
	// The same variations of distributed programs, and each of their two
	// features alone.
	for name, c := range map[string]Config{"no-fold": noFold, "width-8": narrow, "spin": spin, "faulty": faulty} {
		c.Features |= Processes | Channels
		c.MaxInterleavings = DistributedConfig().MaxInterleavings
		cs["distributed-"+name] = c
	}
	cs["distributed"] = DistributedConfig()
	channels := DistributedConfig()
	channels.Features &^= Processes
	processes := DistributedConfig()
	processes.Features &^= Channels
	cs["channels"], cs["processes"] = channels, processes
	return cs
}

func TestDeterministic(t *testing.T) {
	for name, cfg := range configs() {
		for seed := range uint64(50) {
			a, b := Generate(seed, cfg), Generate(seed, cfg)
			if a != b {
				t.Fatalf("%s, seed %d: two calls give different programs:\n%s\n---\n%s", name, seed, a, b)
			}
		}
	}
	if Generate(1, DefaultConfig()) == Generate(2, DefaultConfig()) {
		t.Error("seeds 1 and 2 give the same program")
	}
}

// TestCompiles checks that every generated program is valid: the generator is also
// a fuzzer for lang, and an invalid program would make the differential test
// report lang errors as disagreements.
func TestCompiles(t *testing.T) {
	for name, cfg := range configs() {
		n := uint64(300)
		if name == "default" || name == "distributed" {
			n = 2000
		}
		bad := 0
		for seed := range n {
			src := Generate(seed, cfg)
			_, err := lang.Compile("gen.kb", []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
			if err == nil {
				continue
			}
			var list lang.ErrorList
			if !errors.As(err, &list) {
				t.Errorf("%s, seed %d: not an input error: %v", name, seed, err)
			}
			if bad++; bad <= 3 {
				t.Errorf("%s, seed %d: %v\n%s", name, seed, err, src)
			}
		}
		if bad > 3 {
			t.Errorf("%s: %d of %d programs do not compile", name, bad, n)
		}
	}
}

// TestSize checks that programs stay within the interleaving bound that keeps an
// exhaustive search fast.
func TestSize(t *testing.T) {
	for name, cfg := range configs() {
		cfg = cfg.withDefaults()
		over := 0
		for seed := range uint64(1000) {
			if _, est := generate(seed, cfg); est > float64(cfg.MaxInterleavings) {
				over++
			}
		}
		// The bound is met by shrinking budgets and dropping planted scenarios;
		// only programs that cannot shrink further (the main thread's joins,
		// nondet everywhere) may stay above it.
		t.Logf("%s: %d of 1000 programs exceed the bound", name, over)
		if over > 10 {
			t.Errorf("%s: %d of 1000 programs exceed %d estimated interleavings", name, over, cfg.MaxInterleavings)
		}
	}
}

// TestFeatures checks that a feature left out of Config.Features does not appear,
// in classic and in distributed programs.
func TestFeatures(t *testing.T) {
	marks := map[Feature]*regexp.Regexp{
		Arrays:    regexp.MustCompile(`\b(a|seen)\[`),
		Mutexes:   regexp.MustCompile(`\b(lock\(|mutex )`),
		Cas:       regexp.MustCompile(`\bcas\(`),
		Await:     regexp.MustCompile(`\bawait\(`),
		Assume:    regexp.MustCompile(`\bassume\(`),
		Nondet:    regexp.MustCompile(`\bnondet\(`),
		Loops:     regexp.MustCompile(`\b(for|while) \(`),
		Branches:  regexp.MustCompile(`\bif \(`),
		Atomic:    regexp.MustCompile(`\batomic\b`),
		Templates: regexp.MustCompile(`\btid\b|thread \w+\[`),
		Join:      regexp.MustCompile(`\bjoin\(`),
		Yield:     regexp.MustCompile(`\byield\b`),
		Funcs:     regexp.MustCompile(`\bfunc `),
		Asserts:   regexp.MustCompile(`\bassert\(`),
		Consts:    regexp.MustCompile(`\bconst `),
		Processes: regexp.MustCompile(`\b(process|pid)\b`),
		Channels:  regexp.MustCompile(`\b(chan|send|recv|len)\b`),
	}
	for f, re := range marks {
		for _, base := range []Config{DefaultConfig(), DistributedConfig()} {
			cfg := base
			cfg.Features &^= f
			for seed := range uint64(200) {
				src := Generate(seed, cfg)
				body := src[strings.Index(src, "\n")+1:] // past the seed comment
				if m := re.FindString(body); m != "" {
					t.Fatalf("without %s, seed %d uses %q:\n%s", f, seed, m, src)
				}
			}
		}
	}
	cfg := DefaultConfig()
	cfg.Features = 0
	for seed := range uint64(200) {
		src := Generate(seed, cfg)
		if _, err := lang.Compile("gen.kb", []byte(src), lang.Config{}); err != nil {
			t.Fatalf("without features, seed %d: %v\n%s", seed, err, src)
		}
	}
}

func TestFeatureString(t *testing.T) {
	for _, tc := range []struct {
		f    Feature
		want string
	}{
		{0, "none"},
		{Mutexes, "mutexes"},
		{Cas | Await, "cas|await"},
		{SpinLoops, "spin-loops"},
		{SharedIndices | Join, "join|shared-indices"},
		{Channels | Processes, "processes|channels"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("%#x: %q, want %q", uint32(tc.f), got, tc.want)
		}
	}
	if n := len(FeatureList()); n != len(featureNames) || FeatureList()[n-1] != Close {
		t.Errorf("FeatureList() = %v", FeatureList())
	}
	if AllFeatures.String() != strings.Join(featureNames[:len(featureNames)-3], "|") {
		t.Errorf("AllFeatures = %s", AllFeatures)
	}
}

var patternSeeds = flag.Int("progen.pattern-seeds", 2000, "TestSharedIndexPattern counts the pattern in the default programs of seeds 0..N-1")

// TestSharedIndexPattern measures how often the default configuration produces a
// blocking operation whose target is chosen by a shared variable that another
// thread writes: lock(ms[x…]), join(t[x…]), or an await or assume (also an atomic
// block's guard) over a[x…]. A reduction that takes the waiting thread's target as
// fixed gives wrong "safe" verdicts exactly there, so the differential tests need
// the pattern often.
func TestSharedIndexPattern(t *testing.T) {
	cfg := DefaultConfig()
	found := 0
	for seed := range uint64(*patternSeeds) {
		p, err := lang.Compile("gen.kb", []byte(Generate(seed, cfg)), lang.Config{Width: cfg.Width})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if hasRedirectableWait(p) {
			found++
		}
	}
	t.Logf("%d of %d programs have a blocking operation whose target another thread can change", found, *patternSeeds)
	if found*10 < *patternSeeds {
		t.Errorf("only %d of %d programs have the pattern; want at least 10%%", found, *patternSeeds)
	}
}

// hasRedirectableWait reports whether some thread of p has a blocking operation
// whose index reads a shared variable that another thread may write.
func hasRedirectableWait(p *ir.Program) bool {
	for _, th := range p.Threads {
		for _, n := range th.Template.Nodes {
			for v := range indexReads(n) {
				for _, u := range p.Threads {
					if u != th && writes(u.Template, v) {
						return true
					}
				}
			}
		}
	}
	return false
}

// indexReads returns the shared variables the index of n's blocking target reads.
func indexReads(n *ir.Node) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	var reads func(e *ir.Expr)
	reads = func(e *ir.Expr) {
		if e == nil {
			return
		}
		if (e.Op == ir.EVar || e.Op == ir.EIndex) && e.Var.Shared {
			out[e.Var] = true
		}
		reads(e.X)
		reads(e.Y)
		reads(e.Z)
	}
	var arrays func(e *ir.Expr)
	arrays = func(e *ir.Expr) {
		if e == nil {
			return
		}
		if e.Op == ir.EIndex && e.Var.Shared {
			reads(e.X)
		}
		arrays(e.X)
		arrays(e.Y)
		arrays(e.Z)
	}
	switch n.Op {
	case ir.OpLock:
		reads(n.MIndex)
	case ir.OpJoin:
		reads(n.JIndex)
	case ir.OpAwait, ir.OpAssume:
		arrays(n.X)
	}
	return out
}

func writes(tmpl *ir.Template, v *ir.Var) bool {
	for _, tr := range tmpl.Transitions {
		for _, w := range tr.Writes {
			if w == v {
				return true
			}
		}
	}
	return false
}

// TestDistributedShape measures what makes the distributed programs distributed:
// several process instances, and messages that go from a thread of one process
// instance to a thread of another. The differential tests need both often, and
// need the sends and receives of most programs to match: a program whose every
// execution deadlocks on a channel says little about a reduction.
func TestDistributedShape(t *testing.T) {
	const n = 1000
	cfg := DistributedConfig()
	instances, cross, matched := 0, 0, 0
	for seed := range uint64(n) {
		p, err := lang.Compile("gen.kb", []byte(Generate(seed, cfg)), lang.Config{Width: cfg.Width})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(p.Processes) >= 2 {
			instances++
		}
		s, r := channelEnds(p)
		for c := range s {
			if len(r[c]) > 0 {
				matched++
				break
			}
		}
		if crosses(s, r) {
			cross++
		}
	}
	t.Logf("of %d programs, %d have several process instances, %d a channel with senders and receivers, "+
		"%d messages between process instances", n, instances, matched, cross)
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"several process instances", instances, n * 8 / 10},
		{"a channel with senders and receivers", matched, n * 85 / 100},
		{"messages between process instances", cross, n * 7 / 10},
	} {
		if c.got < c.want {
			t.Errorf("%d of %d programs have %s; want at least %d", c.got, n, c.what, c.want)
		}
	}
}

// channelEnds returns, for each channel declaration of p, the process instances
// whose threads send on it and those whose threads receive from it.
func channelEnds(p *ir.Program) (senders, receivers map[*ir.Channel]map[*ir.Process]bool) {
	senders, receivers = map[*ir.Channel]map[*ir.Process]bool{}, map[*ir.Channel]map[*ir.Process]bool{}
	add := func(m map[*ir.Channel]map[*ir.Process]bool, c *ir.Channel, proc *ir.Process) {
		if m[c] == nil {
			m[c] = map[*ir.Process]bool{}
		}
		m[c][proc] = true
	}
	for _, tmpl := range p.Templates {
		for _, n := range tmpl.Nodes {
			switch n.Op {
			case ir.OpSend:
				add(senders, n.Chan, tmpl.Process)
			case ir.OpRecv:
				add(receivers, n.Chan, tmpl.Process)
			}
		}
	}
	return senders, receivers
}

// crosses reports whether some channel has a sender and a receiver in different
// process instances.
func crosses(senders, receivers map[*ir.Channel]map[*ir.Process]bool) bool {
	for c, ss := range senders {
		for s := range ss {
			for r := range receivers[c] {
				if r != s {
					return true
				}
			}
		}
	}
	return false
}
