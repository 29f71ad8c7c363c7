package explicit

import (
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// boundedOracle explores every execution whose preemption count (BPOR Def. 1.5) or
// fair-bound cost (Def. 1.9) stays within bound, without any reduction, and
// records every violation kind it meets, the terminal states, and whether the depth
// bound or the reduction bound cut anything. It is the exact reference for the
// bounded searches: BPOR promises the same violations and terminal states.
type boundedOracle struct {
	p          *ir.Program
	depth      int
	fair       bool
	bound      int
	noDeadlock bool

	kinds    map[ir.ViolationKind]bool
	terms    *terminalSet
	depthCut bool
	boundCut bool
	yields   []int
	steps    int
	ev       ir.Event
}

func newBoundedOracle(t testing.TB, p *ir.Program, depth int, fair bool, bound int, noDeadlock bool) *boundedOracle {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("oracle: panic: %v", v)
		}
	}()
	o := &boundedOracle{p: p, depth: depth, fair: fair, bound: bound, noDeadlock: noDeadlock,
		kinds: map[ir.ViolationKind]bool{}, terms: newTerminalSet(), yields: make([]int, len(p.Threads))}
	o.explore(p.Initial(), -1, 0)
	return o
}

func (o *boundedOracle) cost(s ir.State, last, t, pre int) int {
	p := o.p
	if !o.fair {
		if last >= 0 && t != last && p.Enabled(s, last) {
			return pre + 1
		}
		return pre
	}
	c := pre
	for u := range p.Threads {
		if p.Enabled(s, u) && o.yields[t]-o.yields[u] > c {
			c = o.yields[t] - o.yields[u]
		}
	}
	return c
}

func (o *boundedOracle) explore(s ir.State, last, pre int) {
	p := o.p
	enabled := false
	for t := range p.Threads {
		if !p.Enabled(s, t) {
			continue
		}
		enabled = true
		if o.steps == o.depth {
			o.depthCut = true
			return
		}
		c := o.cost(s, last, t, pre)
		if c > o.bound {
			o.boundCut = true
			continue
		}
		yield := p.Transition(s, t).EntryNode().Op == ir.OpYield
		if yield {
			o.yields[t]++
		}
		var ch ir.Choices
		var fixed []int64
		for more := true; more; fixed, more = ch.Next(fixed) {
			next := s.Clone()
			ch.Reset(fixed)
			p.Step(next, t, &ch, &o.ev)
			if o.ev.Violation != nil {
				o.kinds[o.ev.Violation.Kind] = true
				continue
			}
			o.steps++
			o.explore(next, t, c)
			o.steps--
		}
		if yield {
			o.yields[t]--
		}
	}
	if enabled {
		return
	}
	v := p.Deadlock(s)
	o.terms.add(p.IdentityCells(s), v != nil)
	if v != nil && !o.noDeadlock {
		o.kinds[ir.Deadlock] = true
	}
}

// compareBounded checks a bounded search against the oracle with the same bound:
// a violation iff the oracle has one (of a kind the oracle meets), the same
// terminal states when the oracle meets no violation and no depth cut, safe
// whenever the oracle is, and never safe where DFS is not.
func compareBounded(t *testing.T, name string, e verify.Engine, mk func(Options) verify.Engine, p *ir.Program, opts Options, fair bool, bound int) {
	t.Helper()
	depth := opts.Depth
	if depth <= 0 {
		depth = verify.DefaultDepth
	}
	o := newBoundedOracle(t, p, depth, fair, bound, opts.NoDeadlock)
	got := porCheck(t, e, p)
	if (got.Verdict == verify.Unsafe) != (len(o.kinds) > 0) {
		t.Errorf("%s: %s %s; the oracle meets %v", name, got.Verdict, porKind(got), o.kinds)
	}
	if got.Verdict == verify.Unsafe && !o.kinds[got.Violation.Kind] {
		t.Errorf("%s: %s, which the oracle never meets (%v)", name, got.Violation.Kind, o.kinds)
	}
	if len(o.kinds) == 0 && !o.depthCut && !o.boundCut && got.Verdict != verify.Safe {
		t.Errorf("%s: %s, the oracle explores everything and says safe", name, got.Verdict)
	}
	if got.Verdict == verify.Safe {
		if ref := porCheck(t, DFS{Options: opts}, p); ref.Verdict != verify.Safe {
			t.Errorf("%s: safe, dfs says %s", name, ref.Verdict)
		}
	}
	if len(o.kinds) > 0 || o.depthCut {
		return
	}
	all := opts
	all.NoDeadlock = true
	o = newBoundedOracle(t, p, depth, fair, bound, true)
	gotOpts, gotSet := withTerminals(all)
	if r := porCheck(t, mk(gotOpts), p); r.Verdict == verify.Unsafe {
		t.Errorf("%s with no-deadlock: %s", name, r.Verdict)
	}
	if d := o.terms.diff(p, gotSet, "the oracle", name); d != "" {
		t.Errorf("%s: %s", name, d)
	}
}

// compareBoundedUpTo runs compareBounded for both bounded searches with every bound
// from 0 to max.
func compareBoundedUpTo(t *testing.T, p *ir.Program, opts Options, max int) {
	t.Helper()
	for c := 0; c <= max; c++ {
		opts := opts
		opts.Preemptions = c
		mk := func(o Options) verify.Engine { o.Preemptions = c; return BPORPreempt{Options: o} }
		compareBounded(t, "bpor-preempt", BPORPreempt{Options: opts}, mk, p, opts, false, c)
		opts.Fair = c
		mk = func(o Options) verify.Engine { o.Fair = c; return BPORFair{Options: o} }
		compareBounded(t, "bpor-fair", BPORFair{Options: opts}, mk, p, opts, true, c)
	}
}

var bporEngines = []porEngine{
	{"bpor-preempt", func(o Options) verify.Engine { o.Preemptions = -1; return BPORPreempt{Options: o} }},
	{"bpor-fair", func(o Options) verify.Engine { o.Fair = -1; return BPORFair{Options: o} }},
}

// Without a bound, both BPOR searches are complete: DFS's verdicts and terminal
// states.
func TestBPORUnboundedMatchesDFS(t *testing.T) {
	eachPORProgram(t, func(t *testing.T, pp porProgram, p *ir.Program, _ bool) {
		var opts Options
		opts.Depth = pp.depth
		for _, e := range bporEngines {
			comparePOR(t, e, p, opts)
		}
	})
}

func TestBPORBoundedMatchesOracle(t *testing.T) {
	eachPORProgram(t, func(t *testing.T, pp porProgram, p *ir.Program, _ bool) {
		var opts Options
		opts.Depth = pp.depth
		compareBoundedUpTo(t, p, opts, 2)
	})
}

func TestBPORTestdata(t *testing.T) {
	for _, td := range loadPORTestdata(t) {
		t.Run(td.name, func(t *testing.T) {
			t.Parallel()
			for _, e := range bporEngines {
				comparePOR(t, e, td.prog, td.opts)
			}
			compareBoundedUpTo(t, td.prog, td.opts, 1)
		})
	}
}

// The reader sees 1 and then 2 only if the writer is preempted after its first
// write and the reader after its first read: exactly two preemptions.
func TestBPORPreemptionBound(t *testing.T) {
	p := porCompile(t, "two", `
shared int x = 0;
thread writer { x = 1; x = 2; }
thread reader { int r1 = x; int r2 = x; assert(!(r1 == 1 && r2 == 2), "saw 1 then 2"); }`, lang.Config{})
	want := []verify.Verdict{verify.BoundedSafe, verify.BoundedSafe, verify.Unsafe, verify.Unsafe}
	for c, w := range want {
		var opts Options
		opts.Preemptions = c
		r := porCheck(t, BPORPreempt{Options: opts}, p)
		if r.Verdict != w {
			t.Errorf("c=%d: %s, want %s", c, r.Verdict, w)
		}
		if r.Bound.Preemptions != c || r.Bound.Fair != -1 {
			t.Errorf("c=%d: bound %+v", c, r.Bound)
		}
		if r.Verdict == verify.BoundedSafe && r.Note != "preemption bound reached" {
			t.Errorf("c=%d: note %q", c, r.Note)
		}
	}
}

// A waiter that yields in its loop can starve the setter only as long as the fair
// bound lets it run ahead in yields; every fair execution ends, so the search
// ends without a depth cut, and what it cut was cut by the fair bound.
func TestBPORFairBound(t *testing.T) {
	p := porCompile(t, "yield", `
shared bool ready;
shared int payload = 0;
thread setter { payload = 7; ready = true; }
thread waiter { while (!ready) { yield; } assert(payload == 7); }`, lang.Config{})
	for c := 0; c <= 3; c++ {
		var opts Options
		opts.Fair = c
		r := porCheck(t, BPORFair{Options: opts}, p)
		if r.Verdict != verify.BoundedSafe || r.Note != "fair bound reached" {
			t.Errorf("c=%d: %s (%s), want bounded-safe by the fair bound", c, r.Verdict, r.Note)
		}
		if r.Bound.Fair != c || r.Bound.Preemptions != -1 {
			t.Errorf("c=%d: bound %+v", c, r.Bound)
		}
	}
}

// Two threads that each wait, yielding, for the other to move first never end:
// past MaxSteps the fair search reports a livelock, with verdict unknown.
func TestBPORFairLivelock(t *testing.T) {
	p := porCompile(t, "livelock", `
shared int x = 0;
shared int y = 0;
thread a { while (y == 0) { yield; } x = 1; }
thread b { while (x == 0) { yield; } y = 1; }`, lang.Config{})
	var opts Options
	opts.Fair = 1
	opts.MaxSteps = 20
	r := porRun(t, BPORFair{Options: opts}, p)
	if r.Verdict != verify.Unknown || !strings.HasPrefix(r.Note, "livelock:") {
		t.Errorf("%s (%s), want unknown with a livelock note", r.Verdict, r.Note)
	}
	// Without MaxSteps the depth bound cuts those executions instead.
	opts.MaxSteps = 0
	opts.Depth = 12
	if r := porCheck(t, BPORFair{Options: opts}, p); r.Verdict != verify.BoundedSafe {
		t.Errorf("without max-steps: %s, want bounded-safe", r.Verdict)
	}
	// A violation found before the livelock wins.
	q := porCompile(t, "livelock-bug", `
shared int x = 0;
thread a { while (x == 0) { yield; } }
thread b { assert(x == 1, "x is still 0"); }`, lang.Config{})
	opts.MaxSteps = 20
	opts.Depth = 0
	if r := porCheck(t, BPORFair{Options: opts}, q); r.Verdict != verify.Unsafe {
		t.Errorf("bug before livelock: %s, want unsafe", r.Verdict)
	}
}

func TestBPORStats(t *testing.T) {
	p := porCompile(t, "abba", porPrograms[2].src, lang.Config{})
	for _, tc := range []struct {
		algo string
		e    verify.Engine
	}{
		{"bpor-preempt", BPORPreempt{}},
		{"bpor-fair", BPORFair{}},
	} {
		r := porCheck(t, tc.e, p)
		if r.Algo != tc.algo || r.Engine != "explicit" {
			t.Errorf("%s: engine %q algo %q", tc.algo, r.Engine, r.Algo)
		}
		if got := strings.Join(r.StatKeys, ","); got != "executions,transitions,time_ms" {
			t.Errorf("%s: stat keys %s", tc.algo, got)
		}
	}
}

// A release (Def. 1.10) is an operation that may enable another thread.
func TestBPORReleases(t *testing.T) {
	p := porCompile(t, "rel", `
shared int g = 0;
shared int h = 0;
shared int k = 0;
mutex m;
mutex ms[2];
thread w { g = 1; h = 1; k = 1; lock(m); unlock(m); }
thread a { await(g == 1); lock(ms[k]); unlock(ms[k]); }
thread main { join(a); }`, lang.Config{NoFold: true})
	rel := releases(p)
	got := map[string]bool{}
	for t, th := range p.Threads {
		for l, tr := range th.Template.Transitions {
			got[th.Name+": "+tr.EntryNode().Text] = rel[t][l]
		}
	}
	want := map[string]bool{
		"w: g = 1": true, "w: h = 1": false, "w: k = 1": true, "w: lock(m)": false, "w: unlock(m)": true,
		"a: await(g == 1)": false, "a: lock(ms[k])": false, "a: unlock(ms[k])": true,
		"main: join(a)": false,
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: release %v (known %v), want %v", k, g, ok, w)
		}
	}
}
