package explicit

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// The differential harness: every algorithm in Algorithms() is run on generated
// programs and compared with the reference DFS (docs/explicit.md). There are two
// families of programs: classic ones, threads over shared memory
// (progen.DefaultConfig), and distributed ones, processes that talk through
// channels (progen.DistributedConfig).
//
//	go test ./explicit -run TestDifferential                          # classic seeds 0..1999, channel seeds 0..999
//	go test ./explicit -run TestDifferential -diff.seeds=0 -diff.chan-seeds=5000 -diff.every=1   # a long run on channel programs, every variant on each
//	go test ./explicit -run TestDifferential/dpor -diff.seed=123 -diff.family=channels   # one seed
var (
	diffSeeds     = flag.Int("diff.seeds", 2000, "TestDifferential checks the classic generated programs of seeds 0..N-1")
	diffChanSeeds = flag.Int("diff.chan-seeds", 1000, "TestDifferential checks the generated programs with processes and channels of seeds 0..N-1")
	diffSeed      = flag.Int64("diff.seed", -1, "TestDifferential checks only this seed (reproduces a failure), in each family -diff.family allows")
	diffFamily    = flag.String("diff.family", "", "TestDifferential checks only this family of programs: classic or channels")
	diffTimeout   = flag.Duration("diff.timeout", 5*time.Minute, "time limit of one algorithm on one generated program: a run it stops fails as too slow")
	diffEvery     = flag.Int("diff.every", 0, "TestDifferential runs the slow variants (lazypor with gini or z3) on every Nth program; 0: every 10th")
	diffClose     = flag.Bool("diff.close", false, "TestDifferential generates every channel program with Go's close, ok-receives and guarded select cases (progen.Close), not only every fifth")
	diffParts     = flag.Int("diff.parts", 3, "TestDifferential's sharded variants split each run into this many parts")
	diffBoundary  = flag.Int("diff.boundary", 2, "TestDifferential checks every Nth unsafe program at its least failing depth (1: every one)")
)

// A family is a kind of generated program.
type family string

const (
	classicFamily family = "classic"  // threads over shared memory
	channelFamily family = "channels" // processes and FIFO channels
)

// diffConfig is how seed's program of family fam is generated and checked. Most
// programs use the family's configuration (every third channel program with
// selects, lossy and unordered channels: progen.ChannelKinds; two in five of the
// others with rendezvous channels: progen.Rendezvous; every fifth with close,
// ok-receives and guarded select cases: progen.Close); every fourth is lowered with
// --no-fold, every seventh uses 8-bit integers, and every tenth may spin, so that
// the depth bound cuts executions (a small depth keeps those searches small).
// Every other unsafe program is checked at its least failing depth (boundary).
func diffConfig(fam family, seed uint64) (cfg progen.Config, depth int) {
	cfg = progen.DefaultConfig()
	if fam == channelFamily {
		cfg = progen.DistributedConfig()
		if seed%3 == 1 {
			cfg.Features |= progen.ChannelKinds
		}
		if seed%3 != 0 && seed%5 < 2 {
			cfg.Features |= progen.Rendezvous
		}
		if seed%5 == 4 || *diffClose {
			cfg.Features |= progen.Close
		}
	}
	depth = verify.DefaultDepth
	if seed%10 == 7 {
		cfg.Features |= progen.SpinLoops
		cfg.MaxThreads, cfg.MaxOps = 3, 3
		depth = 10
	}
	if seed%4 == 3 {
		cfg.NoFold = true
	}
	if seed%7 == 5 {
		cfg.Width = 8
	}
	if seed%10 == 2 {
		// Global invariants: every step that changes what one reads is
		// visible, and a reduction must keep the states it shows.
		cfg.Invariants = 1 + int(seed/10)%2
	}
	return cfg, depth
}

// A diffCase is one generated program with the reference DFS's answers.
type diffCase struct {
	fam   family
	seed  uint64
	cfg   progen.Config
	depth int
	src   string
	p     *ir.Program
	// atBound: depth is the least failing depth (boundary). Such cases are
	// small, and every variant checks each of them, slow ones included.
	atBound bool

	ref   *verify.Result // DFS
	refND *verify.Result // DFS with NoDeadlock
	terms *terminalSet   // the terminal states DFS reaches with NoDeadlock
	dur   time.Duration  // both DFS runs
}

func (c *diffCase) options(noDeadlock bool) Options {
	var o Options
	o.Depth = c.depth
	o.NoDeadlock = noDeadlock
	return o
}

// describe is the header of every failure message: enough to reproduce it.
func (c *diffCase) describe() string {
	fold := "folded"
	if c.cfg.NoFold {
		fold = "--no-fold"
	}
	return fmt.Sprintf("%s seed %d (width %d, %s, depth %d)", c.fam, c.seed, c.cfg.Width, fold, c.depth)
}

func (c *diffCase) program() string {
	return "program:\n" + c.src
}

// newCase generates, compiles and checks seed's program of family fam with the
// reference DFS.
func newCase(fam family, seed uint64) (*diffCase, error) {
	cfg, depth := diffConfig(fam, seed)
	c := &diffCase{fam: fam, seed: seed, cfg: cfg, depth: depth, src: progen.Generate(seed, cfg)}
	p, err := lang.Compile(fmt.Sprintf("seed%d.kb", seed), []byte(c.src),
		lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
	if err != nil {
		return c, fmt.Errorf("the generated program does not compile (a bug in progen or lang): %v", err)
	}
	c.p = p
	start := time.Now()
	ref := runAlgo(byName("dfs"), c.options(false), p, false)
	if err := ref.failure(c); err != nil {
		return c, fmt.Errorf("reference dfs: %v", err)
	}
	refND := runAlgo(byName("dfs"), c.options(true), p, true)
	if err := refND.failure(c); err != nil {
		return c, fmt.Errorf("reference dfs with NoDeadlock: %v", err)
	}
	c.dur = time.Since(start)
	c.ref, c.refND, c.terms = ref.res, refND.res, refND.terms
	if boundary(seed) && ref.res.Verdict == verify.Unsafe && c.depth > 1 {
		if err := c.atBoundary(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// boundary says whether seed's program, when it is unsafe, is checked at its
// least failing depth: the fewest steps in which a violation is reachable, so
// that the violation sits exactly at the bound. Run at the default depth, the
// searches that reduce differently near the bound (persistent's and
// process-local's bounded phase, a sharded run's parts) never meet that case:
// a sharded persistent run that lost its last step there went unseen.
func boundary(seed uint64) bool { return *diffBoundary > 0 && seed%uint64(*diffBoundary) == 0 }

// atBoundary lowers the case's depth to its least failing depth and runs the
// reference searches again there. A violation within d steps is one within
// d+1 (a prefix of an execution is an execution), so a binary search over the
// depth finds it; the reference's counterexample bounds it from above.
func (c *diffCase) atBoundary() error {
	lo, hi := 0, len(c.ref.Trace) // fails within hi steps; not within lo
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		o := c.options(false)
		o.Depth = mid
		r := runAlgo(byName("dfs"), o, c.p, false)
		if err := r.failure(c); err != nil {
			return fmt.Errorf("reference dfs at depth %d: %v", mid, err)
		}
		if r.res.Verdict == verify.Unsafe {
			hi = mid
		} else {
			lo = mid
		}
	}
	c.depth, c.atBound = max(hi, 1), true
	ref := runAlgo(byName("dfs"), c.options(false), c.p, false)
	if err := ref.failure(c); err != nil {
		return fmt.Errorf("reference dfs at the least failing depth: %v", err)
	}
	refND := runAlgo(byName("dfs"), c.options(true), c.p, true)
	if err := refND.failure(c); err != nil {
		return fmt.Errorf("reference dfs with NoDeadlock at the least failing depth: %v", err)
	}
	c.ref, c.refND, c.terms = ref.res, refND.res, refND.terms
	return nil
}

// A trial is one run of an algorithm on one program.
type trial struct {
	res   *verify.Result
	terms *terminalSet // collected through Options.Terminal, if asked for
	err   error
	dur   time.Duration
}

// An engineMaker configures an algorithm.
type engineMaker func(Options) (verify.Engine, error)

// byName makes the algorithm registered as name.
func byName(name string) engineMaker {
	return func(o Options) (verify.Engine, error) { return New(name, o) }
}

// runAlgo runs the algorithm mk configures on p. A panic is turned into an error,
// so that one broken program is reported with its seed instead of ending the whole
// test.
func runAlgo(mk engineMaker, opts Options, p *ir.Program, collect bool) (out trial) {
	if collect {
		out.terms = newTerminalSet()
		opts.Terminal = out.terms.add
	}
	ctx, cancel := context.WithTimeout(context.Background(), *diffTimeout)
	defer cancel()
	start := time.Now()
	defer func() {
		out.dur = time.Since(start)
		if r := recover(); r != nil {
			out.res, out.err = nil, fmt.Errorf("panic: %v\n%s", r, panicStack())
		}
	}()
	eng, err := mk(opts)
	if err != nil {
		out.err = err
		return out
	}
	out.res, out.err = eng.Check(ctx, p)
	return out
}

// panicStack is the stack of a recovered panic from the panicking frame on, short.
func panicStack() string {
	lines := strings.Split(string(debug.Stack()), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			lines = lines[i+2:]
			break
		}
	}
	return strings.Join(lines[:min(len(lines), 16)], "\n")
}

// failure reports what is wrong with a trial on its own, before any comparison:
// an error, no verdict in time, or a counterexample that does not replay.
func (o trial) failure(c *diffCase) error {
	if o.err != nil {
		return o.err
	}
	r := o.res
	if r.Verdict == verify.Unknown && strings.HasPrefix(r.Note, "stopped") {
		// Only a hang, or a machine far busier than the limit allows, gets
		// here: reported as too slow, never compared as a verdict.
		return fmt.Errorf("too slow: no verdict within %v (-diff.timeout; %s). This says nothing about the verdict", *diffTimeout, r.Note)
	}
	if r.Verdict == verify.Unknown {
		return fmt.Errorf("no verdict: %s", r.Note)
	}
	if r.Verdict != verify.Unsafe {
		return nil
	}
	if r.Violation == nil {
		return errors.New("unsafe without a violation")
	}
	if len(r.Trace) > c.depth {
		return fmt.Errorf("counterexample of %d steps exceeds the depth bound %d", len(r.Trace), c.depth)
	}
	if _, _, err := c.p.Confirm(r.Trace, r.Violation.Kind); err != nil {
		return fmt.Errorf("%s counterexample does not replay: %v", r.Violation.Kind, err)
	}
	return nil
}

func verdictString(r *verify.Result) string {
	if r.Verdict == verify.Unsafe && r.Violation != nil {
		return fmt.Sprintf("unsafe (%s at %s: %s)", r.Violation.Kind, r.Violation.Pos, r.Violation.Msg)
	}
	if r.Note != "" {
		return fmt.Sprintf("%s (%s)", r.Verdict, r.Note)
	}
	return r.Verdict.String()
}

// terminalSet is a set of terminal states, each with its deadlock flag, keyed by the
// state's contents. Terminal may be called from several goroutines.
type terminalSet struct {
	mu     sync.Mutex
	states map[string]terminal
}

type terminal struct {
	state    ir.State
	deadlock bool
}

func newTerminalSet() *terminalSet { return &terminalSet{states: map[string]terminal{}} }

func (ts *terminalSet) add(s ir.State, deadlock bool) {
	key := make([]byte, 1, 1+len(s)*2)
	if deadlock {
		key[0] = 1
	}
	for _, v := range s {
		key = binary.AppendVarint(key, v)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, ok := ts.states[string(key)]; !ok {
		ts.states[string(key)] = terminal{s.Clone(), deadlock}
	}
}

func (ts *terminalSet) deadlocks() int {
	n := 0
	for _, t := range ts.states {
		if t.deadlock {
			n++
		}
	}
	return n
}

// diff describes how got differs from ts (the expected set), or returns "".
func (ts *terminalSet) diff(p *ir.Program, got *terminalSet, wantName, gotName string) string {
	missing := setMinus(ts, got)
	extra := setMinus(got, ts)
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "terminal states differ: %s reaches %d (%d deadlocks), %s reaches %d (%d deadlocks)",
		wantName, len(ts.states), ts.deadlocks(), gotName, len(got.states), got.deadlocks())
	show := func(what string, ts []terminal) {
		for i, t := range ts {
			if i == 5 {
				fmt.Fprintf(&b, "\n  ... and %d more", len(ts)-5)
				break
			}
			kind := "terminal"
			if t.deadlock {
				kind = "deadlock"
			}
			fmt.Fprintf(&b, "\n  %s: %s %s %v", what, kind, p.Describe(t.state), []int64(t.state))
		}
	}
	show("only "+wantName, missing)
	show("only "+gotName, extra)
	return b.String()
}

// setMinus returns the states of a that are not in b, in a stable order.
func setMinus(a, b *terminalSet) []terminal {
	var keys []string
	for k := range a.states {
		if _, ok := b.states[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]terminal, len(keys))
	for i, k := range keys {
		out[i] = a.states[k]
	}
	return out
}

// naiveSearch is an independent oracle: a plain depth-first search over every
// interleaving, optionally with at most bound preemptions, without any reduction.
// For the preemption-bounded algorithm it is the exact reference; unbounded, it
// checks the reference DFS itself.
//
// Preemptions follow BPOR Def. 1.5 (docs/explicit.md, bpor): Pb(S.t) = Pb(S) + 1 when
// t's thread differs from last(S)'s and last(S)'s thread is enabled in final(S), the
// state in which t is taken; the first step is free.
type naiveSearch struct {
	p          *ir.Program
	depth      int
	bound      int // preemption bound; < 0: none
	noDeadlock bool

	terms     *terminalSet
	violation *ir.Violation
	depthCut  bool       // some execution was cut by the depth bound
	boundCut  bool       // some step was not taken because it would exceed the bound
	states    []ir.State // states[i]: the state after i steps on the current path
	ev        ir.Event
}

func newNaive(p *ir.Program, depth, bound int, noDeadlock bool) *naiveSearch {
	o := &naiveSearch{p: p, depth: depth, bound: bound, noDeadlock: noDeadlock, terms: newTerminalSet(),
		states: make([]ir.State, depth+1)}
	for i := range o.states {
		o.states[i] = make(ir.State, p.StateSize)
	}
	copy(o.states[0], p.Initial())
	o.explore(0, -1, 0)
	return o
}

// explore searches from o.states[d], reached by a step of thread last (-1 at the
// start) after pre preemptions.
func (o *naiveSearch) explore(d, last, pre int) {
	p := o.p
	s := o.states[d]
	enabled := false
	for t := range p.Threads {
		if o.violation != nil {
			return
		}
		if !p.Enabled(s, t) {
			continue
		}
		enabled = true
		if d == o.depth {
			o.depthCut = true
			return
		}
		cost := 0
		if last >= 0 && t != last && p.Enabled(s, last) {
			cost = 1
		}
		if o.bound >= 0 && pre+cost > o.bound {
			o.boundCut = true
			continue
		}
		var ch ir.Choices
		var fixed []int64
		for more := true; more && o.violation == nil; fixed, more = ch.Next(fixed) {
			next := o.states[d+1]
			copy(next, s)
			ch.Reset(fixed)
			p.Step(next, t, &ch, &o.ev)
			if o.ev.Violation != nil {
				v := *o.ev.Violation
				o.violation = &v
			} else {
				o.explore(d+1, t, pre+cost)
			}
		}
	}
	if enabled {
		return
	}
	v := p.Deadlock(s)
	o.terms.add(p.IdentityCells(s), v != nil)
	if v != nil && !o.noDeadlock && o.violation == nil {
		o.violation = v
	}
}

func (o *naiveSearch) verdict() verify.Verdict {
	switch {
	case o.violation != nil:
		return verify.Unsafe
	case o.depthCut || o.boundCut:
		return verify.BoundedSafe
	}
	return verify.Safe
}

func (o *naiveSearch) String() string {
	if o.violation != nil {
		return fmt.Sprintf("unsafe (%s at %s: %s)", o.violation.Kind, o.violation.Pos, o.violation.Msg)
	}
	var cuts []string
	if o.depthCut {
		cuts = append(cuts, "depth bound reached")
	}
	if o.boundCut {
		cuts = append(cuts, "preemption bound reached")
	}
	if len(cuts) > 0 {
		return fmt.Sprintf("bounded-safe (%s)", strings.Join(cuts, ", "))
	}
	return "safe"
}

// A class says what an algorithm promises, and so how it is compared with DFS.
type class uint8

const (
	// traceComplete algorithms explore a representative of every Mazurkiewicz
	// trace: same verdict as DFS, same terminal states and deadlocks.
	traceComplete class = iota
	// preemptBounded explores every execution with at most Preemptions
	// preemptions: compared with the naive bounded search, and soundly with DFS.
	preemptBounded
	// bounded algorithms may cut executions by a bound of their own: compared
	// soundly with DFS only.
	bounded
)

// A variant is one algorithm with one setting of its options.
type variant struct {
	name   string // subtest name
	algo   string
	class  class
	set    func(*Options)
	bound  int         // preemptBounded: the preemption bound
	engine engineMaker // nil: the algorithm registered as algo
	every  int         // > 1: only programs whose seed is a multiple (slow variants)
	// available, if set, says why the variant cannot run in this build (an optional
	// backend); the run is then logged as not done.
	available func() error
}

// variantsOf lists how algo is checked: its sequential variants, the parallel
// run of the first of them (two workers over the subtrees of a frontier), and the
// same run split into three shards, run one after the other and combined as kbmc
// merge combines them.
func variantsOf(algo string) []variant {
	vs := sequentialVariantsOf(algo)
	if algo == "bfs" {
		return vs // one worker from one queue, never sharded (it refuses --shard)
	}
	par := vs[0]
	set := par.set
	par.name, par.every = "workers=2", 3
	par.set = func(o *Options) { set(o); o.Workers = 2 }
	sh := vs[0]
	shards := fmt.Sprintf("shards=%d", *diffParts)
	sh.name, sh.every, sh.engine = shards, 3, shardedMaker(algo, *diffParts, false)
	switch algo {
	case "dfs":
		par.set = func(o *Options) { o.Workers = 2 } // stateless: its counts add up exactly
		sh.set = func(*Options) {}
		// And the stateful search, whose workers share one visited store (and
		// whose shards each have their own).
		spar, ssh := vs[0], vs[0]
		spar.name, spar.every = "stateful/workers=2", 3
		spar.set = func(o *Options) { o.Stateful, o.Workers = true, 2 }
		ssh.name, ssh.every, ssh.engine = "stateful/"+shards, 3, shardedMaker(algo, *diffParts, false)
		vs = append(vs, spar, ssh)
	case "bpor-preempt", "bpor-fair":
		// The bounded runs too: the workers and the frontier carry the bound.
		b := vs[len(vs)-1]
		bset := b.set
		b.name, b.every = b.name+"/workers=2", 3
		b.set = func(o *Options) { bset(o); o.Workers = 2 }
		vs = append(vs, b)
	}
	vs = append(vs, par, sh)
	switch algo {
	case "dpor", "bpor-preempt", "bpor-fair":
		// The workers share one search and steal work from each other
		// (steal.go): more of them give away more, and deeper, work; in a
		// sharded run they share each part's subtrees.
		par4 := par
		par4.name = "workers=4"
		par4.set = func(o *Options) { set(o); o.Workers = 4 }
		eager := par
		eager.name, eager.every = "workers=3/eager", 6
		eager.set = func(o *Options) { set(o); o.Workers = 3 }
		eager.engine = func(o Options) (verify.Engine, error) { return newEager(algo, o) }
		shp := sh
		shp.name = shards + "/workers=2"
		shp.set = func(o *Options) { set(o); o.Workers = 2 }
		// The split of a sharded run (splitSearch), every 64 transitions.
		she := sh
		she.name = shards + "/eager"
		she.engine = shardedMaker(algo, *diffParts, true)
		vs = append(vs, par4, eager, shp, she)
	case "persistent", "process-local":
		// Each part on two workers, which share the part's tables.
		shp := sh
		shp.name = shards + "/workers=2"
		shp.set = func(o *Options) { set(o); o.Workers = 2 }
		vs = append(vs, shp)
	}
	return vs
}

// shardedMaker makes an engine that runs every part of algo's search split into
// parts shards, one after the other, and combines the parts' results as kbmc merge
// does: unsafe if a part is (with its counterexample), else unknown if a part is,
// else bounded-safe if a part is, safe only if every part is; counters add up.
// Each part runs eagerly (see eagerly) if eager says so.
func shardedMaker(algo string, parts int, eager bool) engineMaker {
	return func(o Options) (verify.Engine, error) { return shardedEngine{algo, o, parts, eager}, nil }
}

type shardedEngine struct {
	algo  string
	opts  Options
	parts int
	eager bool
}

func (e shardedEngine) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	rank := map[verify.Verdict]int{verify.Safe: 0, verify.BoundedSafe: 1, verify.Unknown: 2, verify.Unsafe: 3}
	var out *verify.Result
	for i := range e.parts {
		o := e.opts
		o.Shard = Shard{Index: i, Count: e.parts}
		eng, err := New(e.algo, o)
		if e.eager {
			eng, err = newEager(e.algo, o)
		}
		if err != nil {
			return nil, err
		}
		r, err := eng.Check(ctx, p)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = r
			continue
		}
		addStats(&out.Stats, &r.Stats)
		if rank[r.Verdict] > rank[out.Verdict] {
			out.Verdict, out.Violation, out.Trace, out.Note = r.Verdict, r.Violation, r.Trace, r.Note
		}
	}
	return out, nil
}

// sequentialVariantsOf lists how algo is checked. An algorithm this list does not
// know yet is checked as trace-complete with default options, the strictest
// comparison: a new algorithm is never skipped.
func sequentialVariantsOf(algo string) []variant {
	none := func(*Options) {}
	switch algo {
	case "dfs":
		// Plain dfs is the reference itself; it is checked against naiveSearch
		// (TestDifferential/dfs/naive). Its stateful variant is compared like any
		// other algorithm.
		return []variant{{name: "stateful", algo: algo, set: func(o *Options) { o.Stateful = true }}}
	case "dpor":
		return []variant{
			{name: "sleep", algo: algo, set: none},
			{name: "no-sleep", algo: algo, set: func(o *Options) { o.NoSleep = true }},
		}
	case "lazypor":
		vs := []variant{{name: "topo", algo: algo, set: func(o *Options) { o.TCSSolver = "topo" }}}
		for _, solver := range []string{"gini", "z3"} {
			vs = append(vs, variant{name: solver, algo: algo, every: 10,
				set:       func(o *Options) { o.TCSSolver = solver },
				available: func() error { return CheckTCSSolver(solver) }})
		}
		return vs
	case "bpor-preempt":
		// A negative bound means none: then nothing is cut and the search must be
		// as complete as DPOR.
		vs := []variant{{name: "unbounded", algo: algo, set: func(o *Options) { o.Preemptions = -1 }}}
		for c := range 3 {
			vs = append(vs, variant{name: fmt.Sprintf("c=%d", c), algo: algo, class: preemptBounded,
				bound: c, set: func(o *Options) { o.Preemptions = c }})
		}
		return vs
	case "bpor-fair":
		vs := []variant{{name: "unbounded", algo: algo, set: func(o *Options) { o.Fair = -1 }}}
		for c := range 3 {
			vs = append(vs, variant{name: fmt.Sprintf("c=%d", c), algo: algo, class: bounded,
				set: func(o *Options) { o.Fair = c }})
		}
		return vs
	}
	return []variant{{name: "default", algo: algo, set: none}}
}

func (v variant) options(c *diffCase, noDeadlock bool) Options {
	o := c.options(noDeadlock)
	v.set(&o)
	return o
}

// stats aggregate one variant's runs, for the log.
type stats struct {
	programs                    int // programs checked (each in two runs)
	chanPrograms                int // of which with processes and channels
	runs, rejected, kindDiffers int
	setsCompared                int
	executions, refExecutions   int64
	dur                         time.Duration
	rejections, kindDifferSeeds []string
	boundedWhereRefSafe         int
}

func (s *stats) add(o stats) {
	s.programs += o.programs
	s.chanPrograms += o.chanPrograms
	s.runs += o.runs
	s.rejected += o.rejected
	s.kindDiffers += o.kindDiffers
	s.setsCompared += o.setsCompared
	s.executions += o.executions
	s.refExecutions += o.refExecutions
	s.dur += o.dur
	s.boundedWhereRefSafe += o.boundedWhereRefSafe
	s.rejections = append(s.rejections, o.rejections...)
	s.kindDifferSeeds = append(s.kindDifferSeeds, o.kindDifferSeeds...)
}

// check runs variant v on case c, in both deadlock modes, and returns every
// disagreement found.
func (v variant) check(c *diffCase, st *stats) []string {
	var fails []string
	fail := func(format string, args ...any) {
		fails = append(fails, fmt.Sprintf(format, args...))
	}
	var naive [2]*naiveSearch // preemptBounded: the oracle with and without deadlocks
	label := fmt.Sprintf("%s (%s)", v.algo, v.name)
	st.programs++
	if c.fam == channelFamily {
		st.chanPrograms++
	}
	for mode, noDeadlock := range []bool{false, true} {
		ref := c.ref
		if noDeadlock {
			ref = c.refND
		}
		modeName := ""
		if noDeadlock {
			modeName = " with NoDeadlock"
		}
		collect := noDeadlock && v.class != bounded
		mk := v.engine
		if mk == nil {
			mk = byName(v.algo)
		}
		out := runAlgo(mk, v.options(c, noDeadlock), c.p, collect)
		st.dur += out.dur
		st.runs++
		var unsup *verify.UnsupportedError
		if errors.As(out.err, &unsup) {
			// An algorithm may reject a construct it cannot handle
			// (verify.UnsupportedError).
			st.rejected++
			if len(st.rejections) < 5 {
				st.rejections = append(st.rejections, fmt.Sprintf("%s seed %d: %v", c.fam, c.seed, unsup))
			}
			return fails
		}
		if err := out.failure(c); err != nil {
			fail("%s%s: %v", label, modeName, err)
			continue
		}
		res := out.res
		st.executions += res.Stats.Executions
		st.refExecutions += ref.Stats.Executions
		if v.algo == "dfs" && (v.name == "workers=2" || strings.HasPrefix(v.name, "shards=")) && res.Verdict != verify.Unsafe &&
			res.Stats.Executions != ref.Stats.Executions {
			fail("%s%s: %d executions; the sequential dfs has %d", label, modeName, res.Stats.Executions, ref.Stats.Executions)
		}
		if v.name == "stateful/workers=2" && res.Verdict != verify.Unsafe {
			o := v.options(c, noDeadlock)
			o.Workers = 0
			if seq := runAlgo(byName("dfs"), o, c.p, false); seq.err == nil && seq.res.Verdict == res.Verdict {
				if d := sharedDiff(res, seq.res); d != "" {
					fail("%s%s: %s", label, modeName, d)
				}
			}
		}
		got, want := verdictString(res), verdictString(ref)

		if v.class == preemptBounded {
			o := newNaive(c.p, c.depth, v.bound, noDeadlock)
			naive[mode] = o
			// The bound is the only difference, so the verdicts agree exactly,
			// except that a cut by the depth bound leaves the outcome open (moving
			// a step earlier may push a violation past the depth).
			if !o.depthCut && (res.Verdict == verify.Unsafe) != (o.violation != nil) {
				fail("%s%s says %s; naive search with at most %d preemptions says %s",
					label, modeName, got, v.bound, o)
			}
		}

		switch v.class {
		case traceComplete:
			if res.Verdict != ref.Verdict {
				fail("%s%s says %s; reference dfs says %s", label, modeName, got, want)
			} else if res.Verdict == verify.Unsafe && res.Violation.Kind != ref.Violation.Kind {
				// Both counterexamples replayed: two real violations, met in a
				// different order (verify.Outcome: the first the search reaches).
				st.kindDiffers++
				if len(st.kindDifferSeeds) < 10 {
					st.kindDifferSeeds = append(st.kindDifferSeeds,
						fmt.Sprintf("%s %d (%s vs dfs %s)", c.fam, c.seed, res.Violation.Kind, ref.Violation.Kind))
				}
			}
		default:
			switch res.Verdict {
			case verify.Unsafe:
				if ref.Verdict != verify.Unsafe {
					fail("%s%s finds a violation that replays, %s; reference dfs says %s (dfs missed it)",
						label, modeName, got, want)
				}
			case verify.Safe:
				if ref.Verdict != verify.Safe {
					fail("%s%s says %s; reference dfs says %s", label, modeName, got, want)
				}
			case verify.BoundedSafe:
				if ref.Verdict == verify.Safe {
					st.boundedWhereRefSafe++
				}
			}
		}

		if !collect {
			continue
		}
		switch v.class {
		case traceComplete:
			if ref.Verdict == verify.Safe && res.Verdict == verify.Safe {
				st.setsCompared++
				if d := c.terms.diff(c.p, out.terms, "reference dfs", label); d != "" {
					fail("%s%s: %s", label, modeName, d)
				}
			}
		case preemptBounded:
			o := naive[mode]
			if o.violation == nil && !o.depthCut && res.Verdict != verify.Unsafe {
				st.setsCompared++
				name := fmt.Sprintf("naive search with at most %d preemptions", v.bound)
				if d := o.terms.diff(c.p, out.terms, name, label); d != "" {
					fail("%s%s: %s", label, modeName, d)
				}
			}
		}
	}
	return fails
}

// A caseKey names one generated program.
type caseKey struct {
	fam  family
	seed uint64
}

// diffSeedList is the programs a run checks: the classic ones, then the ones
// with channels.
func diffSeedList() []caseKey {
	var keys []caseKey
	for _, f := range []struct {
		fam family
		n   int
	}{{classicFamily, *diffSeeds}, {channelFamily, *diffChanSeeds}} {
		if *diffFamily != "" && *diffFamily != string(f.fam) {
			continue
		}
		if *diffSeed >= 0 {
			keys = append(keys, caseKey{f.fam, uint64(*diffSeed)})
			continue
		}
		for seed := range uint64(f.n) {
			keys = append(keys, caseKey{f.fam, seed})
		}
	}
	return keys
}

// parallelEach calls f(i) for i in [0, n) on GOMAXPROCS goroutines.
func parallelEach(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// reportFailures prints the first failures in full (with the program), a line for
// each of the next ones, and the seeds of the rest.
func reportFailures(t *testing.T, run string, cases []*diffCase, fails [][]string) {
	t.Helper()
	full, lines, seeds := 0, []string(nil), []string(nil)
	for i, fs := range fails {
		if len(fs) == 0 {
			continue
		}
		c := cases[i]
		switch {
		case full < 8:
			full++
			t.Errorf("%s: %s\n  reproduce: go test ./explicit -run '%s' -diff.seed=%d -diff.family=%s\n%s",
				c.describe(), strings.Join(fs, "\n  "), run, c.seed, c.fam, c.program())
		case len(lines) < 40:
			first, _, _ := strings.Cut(fs[0], "\n")
			lines = append(lines, fmt.Sprintf("%s seed %d: %s", c.fam, c.seed, first))
		default:
			seeds = append(seeds, fmt.Sprintf("%s/%d", c.fam, c.seed))
		}
	}
	if len(lines) > 0 {
		t.Errorf("more failures:\n  %s", strings.Join(lines, "\n  "))
	}
	if len(seeds) > 0 {
		t.Errorf("... and failures on %d more seeds: %s", len(seeds), strings.Join(seeds, " "))
	}
}

// TestDifferential compares every explicit algorithm with the reference DFS on
// generated programs: verdicts, counterexamples (each replayed), and, for the
// algorithms that promise it, the reachable terminal states and deadlocks.
func TestDifferential(t *testing.T) {
	seeds := diffSeedList()
	start := time.Now()
	all := make([]*diffCase, len(seeds))
	errs := make([]error, len(seeds))
	parallelEach(len(seeds), func(i int) { all[i], errs[i] = newCase(seeds[i].fam, seeds[i].seed) })
	var cases []*diffCase
	var refDur time.Duration
	setup := make([][]string, len(all))
	for i, c := range all {
		if errs[i] != nil {
			setup[i] = []string{errs[i].Error()}
			continue
		}
		refDur += c.dur
		cases = append(cases, c)
	}
	reportFailures(t, "TestDifferential", all, setup)
	chans, atBound := 0, 0
	for _, c := range cases {
		if c.fam == channelFamily {
			chans++
		}
		if c.atBound {
			atBound++
		}
	}
	t.Logf("%d programs (%d with processes and channels, %d checked at their least failing depth), reference dfs: %v of search, %v wall",
		len(cases), chans, atBound, refDur.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	t.Run("dfs/naive", func(t *testing.T) {
		fails := make([][]string, len(cases))
		parallelEach(len(cases), func(i int) { fails[i] = checkAgainstNaive(cases[i]) })
		reportFailures(t, "TestDifferential/dfs/naive", cases, fails)
	})
	for _, algo := range Algorithms() {
		for _, v := range variantsOf(algo) {
			name := algo + "/" + v.name
			t.Run(name, func(t *testing.T) {
				if v.available != nil {
					if err := v.available(); err != nil {
						t.Logf("not run: %v", err)
						return
					}
				}
				fails := make([][]string, len(cases))
				sts := make([]stats, len(cases))
				wall := time.Now()
				every := v.every
				if *diffEvery > 0 && every > 1 {
					every = *diffEvery
				}
				parallelEach(len(cases), func(i int) {
					if every <= 1 || cases[i].seed%uint64(every) == 0 || cases[i].atBound {
						fails[i] = v.check(cases[i], &sts[i])
					}
				})
				var st stats
				for _, s := range sts {
					st.add(s)
				}
				t.Logf("%d programs (%d with channels), %d runs in %v (%v wall); executions %d vs dfs %d; terminal sets compared on %d runs",
					st.programs, st.chanPrograms, st.runs, st.dur.Round(time.Millisecond), time.Since(wall).Round(time.Millisecond),
					st.executions, st.refExecutions, st.setsCompared)
				if st.kindDiffers > 0 {
					t.Logf("%d runs found another violation kind than dfs (both replayed), e.g. seeds %s",
						st.kindDiffers, strings.Join(st.kindDifferSeeds, ", "))
				}
				if st.boundedWhereRefSafe > 0 {
					t.Logf("%d runs said bounded-safe where dfs says safe", st.boundedWhereRefSafe)
				}
				if st.rejected > 0 {
					t.Logf("%s rejected %d of %d programs as unsupported, e.g.\n  %s",
						algo, st.rejected, st.programs, strings.Join(st.rejections, "\n  "))
				}
				if st.programs > 0 && st.rejected == st.programs {
					t.Errorf("%s rejected every program: nothing was compared", algo)
				}
				reportFailures(t, "TestDifferential/"+name, cases, fails)
			})
		}
	}
}

// checkAgainstNaive checks the reference DFS itself against the naive search: the
// same verdict, and the same terminal states.
func checkAgainstNaive(c *diffCase) []string {
	var fails []string
	for _, noDeadlock := range []bool{false, true} {
		ref := c.ref
		if noDeadlock {
			ref = c.refND
		}
		o := newNaive(c.p, c.depth, -1, noDeadlock)
		if o.verdict() != ref.Verdict {
			fails = append(fails, fmt.Sprintf("dfs (NoDeadlock %v) says %s; naive search says %s",
				noDeadlock, verdictString(ref), o))
			continue
		}
		if noDeadlock && o.violation == nil {
			if d := o.terms.diff(c.p, c.terms, "naive search", "dfs"); d != "" {
				fails = append(fails, d)
			}
		}
	}
	return fails
}

// TestNaivePreemptionBound checks the oracle's preemption count on a program whose
// terminal states depend on it. alpha writes x, then copies it to y; beta writes x.
// Without a preemption, beta runs before alpha starts (x=1, y=1) or after alpha ends
// (x=2, y=1); y=2 needs beta to run between alpha's steps while alpha is still
// enabled: one preemption.
func TestNaivePreemptionBound(t *testing.T) {
	src := `shared int x; shared int y;
thread alpha { x = 1; y = x; }
thread beta { x = 2; }
`
	p, err := lang.Compile("preempt.kb", []byte(src), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bound    int
		states   int
		verdict  verify.Verdict
		boundCut bool
	}{
		{0, 2, verify.BoundedSafe, true},
		{1, 3, verify.Safe, false},
		{2, 3, verify.Safe, false},
		{-1, 3, verify.Safe, false},
	} {
		o := newNaive(p, verify.DefaultDepth, tc.bound, false)
		if len(o.terms.states) != tc.states || o.verdict() != tc.verdict || o.boundCut != tc.boundCut {
			t.Errorf("bound %d: %d terminal states, %s, bound cut %v; want %d, %s, %v",
				tc.bound, len(o.terms.states), o.verdict(), o.boundCut, tc.states, tc.verdict, tc.boundCut)
		}
	}
}

// featurePatterns recognise the generator's features in program text.
var featurePatterns = map[progen.Feature]*regexp.Regexp{
	progen.Arrays:        regexp.MustCompile(`shared (int|bool) \w+\[`),
	progen.Mutexes:       regexp.MustCompile(`\block\(`),
	progen.Cas:           regexp.MustCompile(`\bcas\(`),
	progen.Await:         regexp.MustCompile(`\bawait\(`),
	progen.Assume:        regexp.MustCompile(`\bassume\(`),
	progen.Nondet:        regexp.MustCompile(`\bnondet\(`),
	progen.Loops:         regexp.MustCompile(`\bfor \(int \w+ = 0;|\bwhile \(\w+ < `),
	progen.Branches:      regexp.MustCompile(`\bif \(`),
	progen.Atomic:        regexp.MustCompile(`\batomic \{`),
	progen.Templates:     regexp.MustCompile(`thread \w+\[`),
	progen.Join:          regexp.MustCompile(`\bjoin\(`),
	progen.Yield:         regexp.MustCompile(`\byield;`),
	progen.Funcs:         regexp.MustCompile(`(?m)^ *func `),
	progen.Asserts:       regexp.MustCompile(`\bassert\(`),
	progen.Consts:        regexp.MustCompile(`(?m)^const `),
	progen.SpinLoops:     regexp.MustCompile(`while \(!cas\(|while \([^)]*\) \{\n\s*(yield;\n\s*)?\}`),
	progen.SharedIndices: regexp.MustCompile(`\b(lock|join|await|assume)\([^;]*\[[^\]]*\b(x|y|z|sel|flag|done|slot)\b`),
	progen.Processes:     regexp.MustCompile(`(?m)^process \w+`),
	progen.Channels:      regexp.MustCompile(`\bsend\(`),
	progen.ChannelKinds:  regexp.MustCompile(`\bselect \{`),
	progen.Rendezvous:    regexp.MustCompile(`capacity 0;`),
	progen.Close:         regexp.MustCompile(`\bclose\(|\bok\(|\bwhen \(`),
	// Faults are counted by the run-time violations they cause, below.
}

// channelPatterns recognise the uses of channels and processes that the
// channel family must produce.
var channelPatterns = []struct {
	name string
	re   *regexp.Regexp
}{
	{"process instances", regexp.MustCompile(`(?m)^process \w+\[`)},
	{"pid", regexp.MustCompile(`\bpid\b`)},
	{"channel arrays", regexp.MustCompile(`(?m)^chan \([^)]*\) \w+\[`)},
	{"bool fields", regexp.MustCompile(`(?m)^chan \([^)]*bool`)},
	{"capacity 2", regexp.MustCompile(`capacity (2|K)`)},
	{"recv into a local", regexp.MustCompile(`\brecv\([^;]*, (l|ok)\d+[,)]`)},
	{"recv into process memory", regexp.MustCompile(`\brecv\([^;]*, (x|y|z|flag|done|a\[)`)},
	{"len", regexp.MustCompile(`\blen\(`)},
	{"len in a guard", regexp.MustCompile(`\b(await|assume)\([^;]*\blen\(`)},
	{"send in a loop", regexp.MustCompile(`for \(int \w+ = 0; \w+ < \d+; \w+\+\+\) \{\n\s*send\(`)},
	{"process memory and mutexes", regexp.MustCompile(`(?m)^    mutex `)},
	{"join in a process", regexp.MustCompile(`\bjoin\(`)}, // every thread is in a process
}

// TestGeneratorCoverage checks that the first 300 generated programs of each
// family, as the differential test generates them, use every feature and reach
// every verdict and the common violation kinds, and logs the distribution: on
// channel programs, also deadlocks on an empty and on a full channel, and the
// uses of channels and processes in channelPatterns.
func TestGeneratorCoverage(t *testing.T) {
	const n = 300
	features := map[progen.Feature]int{}
	uses := map[string]int{}
	outcomes := map[family]map[string]int{classicFamily: {}, channelFamily: {}}
	keys := make([]caseKey, 0, 2*n)
	for _, fam := range []family{classicFamily, channelFamily} {
		for seed := range uint64(n) {
			keys = append(keys, caseKey{fam, seed})
		}
	}
	cases := make([]*diffCase, len(keys))
	errs := make([]error, len(keys))
	parallelEach(len(keys), func(i int) { cases[i], errs[i] = newCase(keys[i].fam, keys[i].seed) })
	faults := 0
	for i, c := range cases {
		for f, re := range featurePatterns {
			if re.MatchString(c.src) {
				features[f]++
			}
		}
		if c.fam == channelFamily {
			for _, u := range channelPatterns {
				if u.re.MatchString(c.src) {
					uses[u.name]++
				}
			}
		}
		out := outcomes[c.fam]
		if errs[i] != nil {
			out["error"]++
			continue
		}
		out[outcomeName(c.ref)]++
		if v := c.ref.Violation; v != nil && v.Kind != ir.Assertion && v.Kind != ir.Deadlock {
			faults++
		}
	}
	features[progen.Faults] = faults
	var b strings.Builder
	fmt.Fprintf(&b, "features of %d programs:", len(cases))
	for _, f := range progen.FeatureList() {
		fmt.Fprintf(&b, " %s %d", f, features[f])
		if features[f] == 0 {
			t.Errorf("no program uses %s", f)
		}
	}
	fmt.Fprintf(&b, "\nin %d channel programs:", n)
	for _, u := range channelPatterns {
		fmt.Fprintf(&b, " %s %d;", u.name, uses[u.name])
		if uses[u.name] == 0 {
			t.Errorf("no channel program has %s", u.name)
		}
	}
	for _, fam := range []family{classicFamily, channelFamily} {
		fmt.Fprintf(&b, "\ndfs verdicts, %s:", fam)
		out := outcomes[fam]
		keys := make([]string, 0, len(out))
		for k := range out {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s %d", k, out[k])
		}
		want := []string{"safe", "bounded-safe", "unsafe/assertion", "unsafe/deadlock"}
		if fam == channelFamily {
			want = []string{"safe", "bounded-safe", "unsafe/assertion", "unsafe/deadlock (empty channel)",
				"unsafe/deadlock (full channel)"}
		}
		for _, k := range want {
			if out[k] == 0 {
				t.Errorf("no %s program has dfs verdict %s", fam, k)
			}
		}
	}
	t.Log(b.String())
}

// outcomeName names a verdict and its violation kind; a deadlock in which some
// thread waits on a channel says whether on an empty or on a full one.
func outcomeName(r *verify.Result) string {
	k := r.Verdict.String()
	v := r.Violation
	if v == nil {
		return k
	}
	k += "/" + v.Kind.String()
	if v.Kind == ir.Deadlock {
		switch {
		case strings.Contains(v.Msg, "which is empty"):
			k += " (empty channel)"
		case strings.Contains(v.Msg, "which is full"):
			k += " (full channel)"
		}
	}
	return k
}
