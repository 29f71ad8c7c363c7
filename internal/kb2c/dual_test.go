package kb2c_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kbmc/cfront"
	"kbmc/encode"
	"kbmc/explicit"
	"kbmc/internal/kb2c"
	"kbmc/internal/oracle"
	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/solver"
	"kbmc/solver/solvers"
	"kbmc/symbolic"
	"kbmc/verify"
)

// The dual-form differential test: every program the generator emits
// (progen.DualFormConfig) is checked as .kb and, translated, as C, by every
// explicit algorithm (dfs plain and stateful, dpor with and without sleep
// sets, lazypor with each trace-constraint solver, persistent,
// process-local, bpor-preempt and bpor-fair unbounded and with small bounds)
// and, on programs whose C form encode.Supported accepts, by the symbolic
// engine; both forms must give the same verdict. Every counterexample is
// replayed on its form.
//
//	go test ./internal/kb2c -run TestDualForm                        # seeds 0..299
//	go test ./internal/kb2c -run TestDualForm -dual.seeds=5000       # a campaign
//	go test ./internal/kb2c -run TestDualForm -dual.seed=123 -v      # one seed, every engine, both programs
//
// Three references check each other. An exhaustive search of each form's
// whole state graph (the oracle) gives the violation kinds reachable at any
// depth, which the two forms must share (a failed .kb assert is a
// reach_error() in C), whether some execution runs for ever, and the verdict
// every exact engine owes at a depth. Plain dfs on the .kb form is the
// verdict every exact engine must give on either form wherever no execution
// is cut by the depth bound. And each engine's verdicts on the two forms must
// agree with each other there. The C form runs at kb2c.Program.Depth of the
// .kb depth, which covers its extra steps (main's, each thread's start, the
// joins of a template's instances one by one); where that bound cuts an
// execution the two depths are not the same bound, so a verdict that is cut
// may stand against one that is not (counted, never a failure). The engines
// bounded by preemptions or fairness count those differently in the two
// forms (a thread's start is a step of its own in C), so they are held to
// soundness only.
//
// Every third seed's program has more deliberate faults. Every tenth seed
// (-dual.spin-every) adds spin loops (loop heads that read shared memory),
// whose executions may run for ever: those are checked at depth 8.
var (
	dualSeeds    = flag.Int("dual.seeds", 300, "TestDualForm checks the programs of seeds from..from+N-1")
	dualFrom     = flag.Uint64("dual.from", 0, "TestDualForm's first seed")
	dualSeed     = flag.Int64("dual.seed", -1, "TestDualForm checks only this seed, with every engine")
	dualTimeout  = flag.Duration("dual.timeout", 30*time.Second, "time limit of one engine on one form of one program")
	dualBounded  = flag.Int("dual.bounded-every", 4, "TestDualForm runs the preemption- and fair-bounded variants on every Nth seed")
	dualSymbolic = flag.Int("dual.symbolic-every", 10, "TestDualForm runs the symbolic engine on every Nth seed whose C form encode.Supported accepts, one solver and encoding in turn")
	dualSpin     = flag.Int("dual.spin-every", 10, "every Nth seed's program may spin (0: none)")
	dualStates   = flag.Int("dual.max-states", 1<<19, "the oracle's limit on a state graph")
)

// dualConfig is how seed's program is generated, and the depth of its .kb
// form.
func dualConfig(seed uint64) (progen.Config, int) {
	cfg := progen.DualFormConfig()
	if seed%3 == 1 {
		// More deliberate faults: more unsafe programs, whose
		// counterexamples are replayed on both forms.
		cfg.FaultRate = 0.3
	}
	if n := uint64(*dualSpin); n > 0 && seed%n == 7%n {
		// A spinning thread can always take another step: a small depth
		// keeps the stateless searches small. Explicit's differential test
		// takes 10; the C form, whose threads each start with a step of
		// their own, runs a few steps deeper (Program.Depth), and every
		// step more that a spinner may take multiplies the executions.
		cfg.Features |= progen.SpinLoops
		cfg.MaxThreads, cfg.MaxOps = 3, 3
		return cfg, 8
	}
	return cfg, verify.DefaultDepth
}

// A form is one form of a generated program.
type form struct {
	name  string // ".kb" or "C"
	p     *ir.Program
	depth int
	o     *oracle.Graph
	oerr  error // the oracle's failure (a graph too large for it)
}

// A dualCase is one generated program in both forms.
type dualCase struct {
	seed   uint64
	spin   bool
	kbSrc  string
	cSrc   string
	kb, c  form
	kbProg *kb2c.Program
	// ref is plain dfs on the .kb form, without and with NoDeadlock.
	ref [2]*verify.Result
	// symbolic is why the symbolic engine does not run on the C form
	// (encode.Supported's refusal); empty when it may.
	symbolic string
}

func newDualCase(seed uint64) (*dualCase, error) {
	cfg, depth := dualConfig(seed)
	dc := &dualCase{seed: seed, spin: cfg.Features&progen.SpinLoops != 0, kbSrc: progen.Generate(seed, cfg)}
	name := fmt.Sprintf("seed%d", seed)
	pk, err := lang.Compile(name+".kb", []byte(dc.kbSrc), lang.Config{Width: kb2c.Width})
	if err != nil {
		return dc, fmt.Errorf("the generated program does not compile (a bug in progen or lang): %v", err)
	}
	prog, err := kb2c.Translate(name+".kb", []byte(dc.kbSrc))
	if err != nil {
		return dc, fmt.Errorf("translation: %v", err)
	}
	dc.kbProg, dc.cSrc = prog, string(prog.C)
	pc, err := cfront.Compile(name+".i", prog.C, cfront.Config{})
	if err != nil {
		return dc, fmt.Errorf("the C form does not compile: %v", err)
	}
	dc.kb = form{name: ".kb", p: pk, depth: depth}
	dc.c = form{name: "C", p: pc, depth: prog.Depth(depth)}
	for _, f := range []*form{&dc.kb, &dc.c} {
		f.o, f.oerr = oracle.Explore(f.p, *dualStates, nil)
		if f.oerr != nil && !errors.Is(f.oerr, oracle.ErrTooBig) {
			return dc, fmt.Errorf("oracle on the %s form: %v", f.name, f.oerr)
		}
	}
	dfs := explicitEngine("dfs", "dfs", true, nil, func(*explicit.Options) {})
	for i, noDeadlock := range []bool{false, true} {
		r := dfs.run(&dc.kb, noDeadlock)
		if err := dfs.check(&dc.kb, noDeadlock, r); err != nil {
			return dc, fmt.Errorf("the reference, dfs on the .kb form (NoDeadlock %v): %v", noDeadlock, err)
		}
		dc.ref[i] = r.res
	}
	if err := encode.Supported(pc); err != nil {
		dc.symbolic = err.Error()
	}
	return dc, nil
}

func (dc *dualCase) programs() string {
	return "\n.kb program:\n" + dc.kbSrc + "\nC form:\n" + dc.cSrc
}

// complete reports whether every execution of both forms ends within its
// depth: then the forms' exact verdicts must be the same.
func (dc *dualCase) complete() bool {
	if dc.kb.o == nil || dc.c.o == nil {
		return dc.ref[0].Verdict != verify.BoundedSafe
	}
	return dc.kb.o.Complete(dc.kb.depth) && dc.c.o.Complete(dc.c.depth)
}

// translation compares the two forms' whole state graphs: they reach the
// same violation kinds, both or neither have an execution that runs for ever,
// and Program.Depth covers the C form's longest execution.
func (dc *dualCase) translation() (compared bool, fail string) {
	ko, co := dc.kb.o, dc.c.o
	if ko == nil || co == nil {
		return false, ""
	}
	const unbounded = int(^uint(0) >> 1)
	kk := canonicalKinds(ko.Kinds(unbounded, false))
	ck := canonicalKinds(co.Kinds(unbounded, false))
	switch {
	case !slices.Equal(kk, ck):
		return true, fmt.Sprintf("the forms reach different violations: .kb %s; C %s", ko, co)
	case (ko.Longest < 0) != (co.Longest < 0):
		return true, fmt.Sprintf("one form has an execution that runs for ever, the other not: .kb %s; C %s", ko, co)
	case ko.Longest >= 0 && co.Longest > dc.kbProg.Depth(ko.Longest):
		return true, fmt.Sprintf("the longest C execution takes %d steps, more than Depth(%d) = %d: .kb %s; C %s",
			co.Longest, ko.Longest, dc.kbProg.Depth(ko.Longest), ko, co)
	}
	return true, ""
}

// An engine is one engine with one setting of its options.
type engine struct {
	name string
	// exact engines explore every execution within the depth: their verdict
	// is the oracle's, on each form. The others cut executions by a bound of
	// their own (preemptions, fairness), which counts steps differently in
	// the two forms: they are held to soundness only.
	exact bool
	// due says whether the engine runs on a seed's program (nil: always).
	due      func(seed uint64) bool
	symbolic bool
	make     func(verify.Options) (verify.Engine, error)
}

func explicitEngine(name, algo string, exact bool, due func(uint64) bool, set func(*explicit.Options)) engine {
	return engine{name: name, exact: exact, due: due, make: func(o verify.Options) (verify.Engine, error) {
		opts := explicit.Options{Options: o}
		set(&opts)
		return explicit.New(algo, opts)
	}}
}

// every returns a due function for every nth seed (n from a flag, read when
// the test runs), the ith of k engines that take turns.
func every(n *int, i, k int) func(uint64) bool {
	return func(seed uint64) bool {
		m := uint64(max(*n, 1))
		return seed%m == 0 && (seed/m)%uint64(k) == uint64(i)
	}
}

// engines lists every explicit algorithm with the settings explicit's own
// differential test uses (an algorithm this list does not know yet runs with
// its defaults, compared exactly: none is skipped), and the symbolic engine
// on every encoding and solver this build has.
func engines(t testing.TB) []engine {
	none := func(*explicit.Options) {}
	bounded := every(dualBounded, 0, 1)
	var es []engine
	for _, algo := range explicit.Algorithms() {
		switch algo {
		case "dfs":
			es = append(es, explicitEngine("dfs", algo, true, nil, none),
				explicitEngine("dfs/stateful", algo, true, nil, func(o *explicit.Options) { o.Stateful = true }))
		case "dpor":
			es = append(es, explicitEngine("dpor", algo, true, nil, none),
				explicitEngine("dpor/no-sleep", algo, true, nil, func(o *explicit.Options) { o.NoSleep = true }))
		case "lazypor":
			es = append(es, explicitEngine("lazypor/topo", algo, true, nil, func(o *explicit.Options) { o.TCSSolver = "topo" }))
			ten := 10
			for _, s := range []string{"gini", "z3"} {
				if err := explicit.CheckTCSSolver(s); err != nil {
					t.Logf("lazypor with %s is not available in this build: %v", s, err)
					continue
				}
				es = append(es, explicitEngine("lazypor/"+s, algo, true, every(&ten, 0, 1),
					func(o *explicit.Options) { o.TCSSolver = s }))
			}
		case "bpor-preempt":
			es = append(es, explicitEngine("bpor-preempt", algo, true, nil, func(o *explicit.Options) { o.Preemptions = -1 }))
			for c := range 3 {
				es = append(es, explicitEngine(fmt.Sprintf("bpor-preempt/c=%d", c), algo, false, bounded,
					func(o *explicit.Options) { o.Preemptions = c }))
			}
		case "bpor-fair":
			es = append(es, explicitEngine("bpor-fair", algo, true, nil, func(o *explicit.Options) { o.Fair = -1 }))
			for c := range 3 {
				es = append(es, explicitEngine(fmt.Sprintf("bpor-fair/c=%d", c), algo, false, bounded,
					func(o *explicit.Options) { o.Fair = c }))
			}
		default:
			es = append(es, explicitEngine(algo, algo, true, nil, none))
		}
	}
	type variant struct{ solver, enc, por string }
	var vs []variant
	for _, s := range symbolic.Solvers() {
		if s == "portfolio" {
			continue // gini and Z3 racing: each is checked alone
		}
		be, err := solvers.New(s, solver.NewBuilder())
		if err != nil {
			t.Logf("solver %s is not available in this build: %v", s, err)
			continue
		}
		be.Close()
		for _, enc := range symbolic.Encodings() {
			pors := []string{"none"}
			if enc == "step" {
				pors = symbolic.PORs()
			}
			for _, por := range pors {
				vs = append(vs, variant{s, enc, por})
			}
		}
	}
	for i, v := range vs {
		name := "symbolic/" + v.solver + "/" + v.enc
		if v.enc == "step" {
			name += "/" + v.por
		}
		es = append(es, engine{name: name, exact: true, due: every(dualSymbolic, i, len(vs)), symbolic: true,
			make: func(o verify.Options) (verify.Engine, error) {
				return symbolic.New(o, v.solver, v.enc, v.por, false)
			}})
	}
	return es
}

// A run is one engine on one form, in one deadlock mode.
type run struct {
	res     *verify.Result
	refused *verify.UnsupportedError
	err     error
	took    time.Duration
}

func (e engine) run(f *form, noDeadlock bool) (out run) {
	ctx, cancel := context.WithTimeout(context.Background(), *dualTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			out = run{err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
		}
	}()
	eng, err := e.make(verify.Options{Depth: f.depth, NoDeadlock: noDeadlock})
	if err != nil {
		return run{err: err}
	}
	start := time.Now()
	defer func() { out.took = time.Since(start) }()
	r, err := eng.Check(ctx, f.p)
	if errors.As(err, &out.refused) {
		return out
	}
	if err != nil {
		return run{err: err}
	}
	out.res = r
	return out
}

// check reports what is wrong with a run on its own: no verdict, a
// counterexample that does not replay, a verdict or kind the oracle refutes.
func (e engine) check(f *form, noDeadlock bool, r run) error {
	if r.err != nil {
		return r.err
	}
	if r.refused != nil {
		return r.refused
	}
	res := r.res
	if res.Verdict == verify.Unknown {
		return fmt.Errorf("no verdict within %v (%s)", *dualTimeout, res.Note)
	}
	if res.Verdict == verify.Unsafe {
		if res.Violation == nil {
			return errors.New("unsafe without a violation")
		}
		if len(res.Trace) > f.depth {
			return fmt.Errorf("a counterexample of %d steps at depth %d", len(res.Trace), f.depth)
		}
		// Replayed here too, whatever the engine did.
		replay := *res
		if err := verify.Validate(f.p, &replay); err != nil {
			return err
		}
	}
	o := f.o
	if o == nil {
		return nil
	}
	want := o.Verdict(f.depth, noDeadlock)
	kinds := o.Kinds(f.depth, noDeadlock)
	switch {
	case res.Verdict == verify.Unsafe && !slices.Contains(kinds, res.Violation.Kind):
		return fmt.Errorf("says %s, which the oracle does not reach within %d steps (%s)", verdictString(res), f.depth, o)
	case e.exact && res.Verdict != want:
		return fmt.Errorf("says %s, the oracle %s (%s)", verdictString(res), want, o)
	case !e.exact && res.Verdict == verify.Safe && want != verify.Safe:
		return fmt.Errorf("says safe, the oracle %s (%s)", want, o)
	}
	return nil
}

func (r run) String() string {
	switch {
	case r.err != nil:
		return "error: " + r.err.Error()
	case r.refused != nil:
		return "refused: " + r.refused.Error()
	}
	return verdictString(r.res)
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

// tally counts one engine's runs.
type tally struct {
	programs        int // programs it ran on (both forms)
	runs            [2]int
	refused         [2]int
	refusals        []string
	agree           int // runs of the two forms with the same verdict and kind
	kindDiffers     int // the same unsafe verdict, another kind (both reachable: the first one met differs)
	cutDiffers      int // verdicts that differ where a bound cuts an execution
	disagree        int
	kindDifferSeeds []string
	// the slowest run: its time, form and seed
	slowest  time.Duration
	slowWhat string
}

func (a *tally) add(b tally) {
	a.programs += b.programs
	for i := range a.runs {
		a.runs[i] += b.runs[i]
		a.refused[i] += b.refused[i]
	}
	a.refusals = append(a.refusals, b.refusals...)
	a.agree += b.agree
	a.kindDiffers += b.kindDiffers
	a.cutDiffers += b.cutDiffers
	a.disagree += b.disagree
	a.kindDifferSeeds = append(a.kindDifferSeeds, b.kindDifferSeeds...)
	if b.slowest > a.slowest {
		a.slowest, a.slowWhat = b.slowest, b.slowWhat
	}
}

// compare runs engine e on both forms of dc, in both deadlock modes, and
// returns every failure.
func (e engine) compare(t *testing.T, dc *dualCase, st *tally, verbose bool) []string {
	var fails []string
	st.programs++
	complete := dc.complete()
	for i, noDeadlock := range []bool{false, true} {
		mode := ""
		if noDeadlock {
			mode = " with NoDeadlock"
		}
		rk := e.run(&dc.kb, noDeadlock)
		rc := e.run(&dc.c, noDeadlock)
		for _, x := range []struct {
			f string
			r run
		}{{".kb", rk}, {"C", rc}} {
			if x.r.took > st.slowest {
				st.slowest, st.slowWhat = x.r.took, fmt.Sprintf("%s form of seed %d", x.f, dc.seed)
			}
		}
		if verbose {
			t.Logf("%s%s: .kb %s in %v; C %s in %v", e.name, mode, rk, rk.took.Round(time.Millisecond), rc, rc.took.Round(time.Millisecond))
		}
		st.runs[0]++
		st.runs[1]++
		if e.symbolic && (rk.refused != nil || rc.refused != nil) {
			// The symbolic engine refuses what its encoding does not
			// support (a nondet() without bounds, say), on either form:
			// counted and shown, not compared.
			for j, r := range []run{rk, rc} {
				if r.refused != nil {
					st.refused[j]++
					st.refusals = append(st.refusals, fmt.Sprintf("%s form of seed %d: %v", []string{".kb", "C"}[j], dc.seed, r.refused))
				}
			}
			continue
		}
		bad := false
		for _, x := range []struct {
			f *form
			r run
		}{{&dc.kb, rk}, {&dc.c, rc}} {
			if err := e.check(x.f, noDeadlock, x.r); err != nil {
				fails = append(fails, fmt.Sprintf("%s%s on the %s form: %v", e.name, mode, x.f.name, err))
				bad = true
			}
		}
		if bad {
			st.disagree++
			continue
		}
		k, c, ref := rk.res, rc.res, dc.ref[i]
		switch {
		case e.exact && complete && k.Verdict != ref.Verdict:
			st.disagree++
			fails = append(fails, fmt.Sprintf("%s%s says %s on the .kb form, dfs %s", e.name, mode, verdictString(k), verdictString(ref)))
		case k.Verdict == c.Verdict && (k.Verdict != verify.Unsafe || sameKind(k.Violation.Kind, c.Violation.Kind)):
			st.agree++
		case k.Verdict == c.Verdict:
			// Both replayed and (with an oracle) both reachable in both forms.
			st.kindDiffers++
			if len(st.kindDifferSeeds) < 5 {
				st.kindDifferSeeds = append(st.kindDifferSeeds, fmt.Sprintf("%d (%s vs %s)", dc.seed, k.Violation.Kind, c.Violation.Kind))
			}
		case !e.exact || !complete:
			st.cutDiffers++
		default:
			st.disagree++
			fails = append(fails, fmt.Sprintf("%s%s says %s on the .kb form, %s on the C form", e.name, mode, verdictString(k), verdictString(c)))
		}
	}
	return fails
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

// report prints the first failures in full (with both programs), a line for
// each of the next ones, and the seeds of the rest.
func report(t *testing.T, seeds []uint64, programs []string, fails [][]string) {
	t.Helper()
	full, lines, rest := 0, []string(nil), []string(nil)
	for i, fs := range fails {
		if len(fs) == 0 {
			continue
		}
		switch {
		case full < 5:
			full++
			t.Errorf("seed %d:\n  %s\n  reproduce: go test ./internal/kb2c -run TestDualForm -dual.seed=%d -v%s",
				seeds[i], strings.Join(fs, "\n  "), seeds[i], programs[i])
		case len(lines) < 30:
			first, _, _ := strings.Cut(fs[0], "\n")
			lines = append(lines, fmt.Sprintf("seed %d: %s", seeds[i], first))
		default:
			rest = append(rest, fmt.Sprint(seeds[i]))
		}
	}
	if len(lines) > 0 {
		t.Errorf("more failures:\n  %s", strings.Join(lines, "\n  "))
	}
	if len(rest) > 0 {
		t.Errorf("... and failures on %d more seeds: %s", len(rest), strings.Join(rest, " "))
	}
}

func dualSeedList() []uint64 {
	if *dualSeed >= 0 {
		return []uint64{uint64(*dualSeed)}
	}
	n := *dualSeeds
	if testing.Short() {
		n = min(n, 50)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = *dualFrom + uint64(i)
	}
	return seeds
}

// caseStats is what one program contributed to the summary.
type caseStats struct {
	checked, spin, compared, tooBig, complete bool
	symbolicDue                               bool   // a symbolic engine was due on this seed
	symbolicRefusal                           string // why it did not run (encode.Supported)
	verdict                                   string // dfs's on the .kb form, with the violation kind
}

// TestDualForm checks every engine on both forms of generated programs.
func TestDualForm(t *testing.T) {
	seeds := dualSeedList()
	es := engines(t)
	start := time.Now()
	// Only the programs of failing seeds are kept: a campaign checks
	// thousands.
	programs := make([]string, len(seeds))
	fails := make([][]string, len(seeds))
	var done atomic.Int64
	tallies := make([][]tally, len(seeds))
	stats := make([]caseStats, len(seeds))
	parallelEach(len(seeds), func(i int) {
		dc, err := newDualCase(seeds[i])
		defer func() {
			if len(fails[i]) > 0 {
				programs[i] = dc.programs()
			}
			if n := done.Add(1); n%1000 == 0 {
				t.Logf("%d of %d programs checked, %v", n, len(seeds), time.Since(start).Round(time.Second))
			}
		}()
		if err != nil {
			fails[i] = []string{err.Error()}
			return
		}
		st := &stats[i]
		st.checked, st.spin, st.complete = true, dc.spin, dc.complete()
		st.tooBig = dc.kb.oerr != nil || dc.c.oerr != nil
		st.verdict = dc.ref[0].Verdict.String()
		if v := dc.ref[0].Violation; v != nil {
			st.verdict += " (" + v.Kind.String() + ")"
		}
		compared, fail := dc.translation()
		st.compared = compared
		if fail != "" {
			fails[i] = append(fails[i], fail)
		}
		tallies[i] = make([]tally, len(es))
		for j, e := range es {
			if e.due != nil && !e.due(seeds[i]) && len(seeds) > 1 {
				continue
			}
			if e.symbolic {
				st.symbolicDue = true
				if dc.symbolic != "" {
					st.symbolicRefusal = dc.symbolic
					continue
				}
			}
			fails[i] = append(fails[i], e.compare(t, dc, &tallies[i][j], len(seeds) == 1)...)
		}
		if len(seeds) == 1 {
			t.Logf("seed %d: .kb oracle %v %v; C oracle %v %v%s", seeds[i], dc.kb.o, dc.kb.oerr, dc.c.o, dc.c.oerr, dc.programs())
		}
	})
	report(t, seeds, programs, fails)

	var checked, spin, compared, tooBig, complete, symDue int
	var symRefused []string
	verdicts := map[string]int{}
	for _, st := range stats {
		if st.checked {
			verdicts[st.verdict]++
		}
		checked += b2i(st.checked)
		spin += b2i(st.spin)
		compared += b2i(st.compared)
		tooBig += b2i(st.tooBig)
		complete += b2i(st.complete)
		symDue += b2i(st.symbolicDue)
		if st.symbolicRefusal != "" {
			symRefused = append(symRefused, st.symbolicRefusal)
		}
	}
	var total tally
	var lines []string
	for j, e := range es {
		var st tally
		for i := range seeds {
			if tallies[i] != nil {
				st.add(tallies[i][j])
			}
		}
		total.add(st)
		line := fmt.Sprintf("%-30s programs %4d  runs .kb %5d  C %5d  agree %5d  kind differs %3d  cut differs %3d  disagree %d",
			e.name, st.programs, st.runs[0], st.runs[1], st.agree, st.kindDiffers, st.cutDiffers, st.disagree)
		if st.slowest > 0 {
			line += fmt.Sprintf("  slowest %v (%s)", st.slowest.Round(time.Millisecond), st.slowWhat)
		}
		if n := st.refused[0] + st.refused[1]; n > 0 {
			sort.Strings(st.refusals)
			line += fmt.Sprintf("  refused .kb %d C %d, e.g. %s", st.refused[0], st.refused[1], st.refusals[0])
		}
		lines = append(lines, line)
		if st.kindDiffers > 0 {
			lines = append(lines, "    another violation kind first, e.g. seeds "+strings.Join(st.kindDifferSeeds, ", "))
		}
	}
	t.Logf("%d programs (%d may spin) in %v; whole state graphs compared on %d, too large for the oracle on %d; every execution of both forms ends within its depth on %d",
		checked, spin, time.Since(start).Round(time.Millisecond), compared, tooBig, complete)
	var vs []string
	for v, n := range verdicts {
		vs = append(vs, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(vs)
	t.Logf("dfs on the .kb forms: %s", strings.Join(vs, ", "))
	t.Logf("engine runs: .kb %d, C %d (both deadlock modes); pairs: agree %d, another kind first %d, differ where a bound cuts %d, disagree %d",
		total.runs[0], total.runs[1], total.agree, total.kindDiffers, total.cutDiffers, total.disagree)
	if symDue > 0 {
		msg := fmt.Sprintf("symbolic: due on %d programs, the C form refused by encode.Supported on %d", symDue, len(symRefused))
		if len(symRefused) > 0 {
			msg += " (e.g. " + symRefused[0] + ")"
		}
		t.Log(msg)
	}
	t.Logf("engines:\n%s", strings.Join(lines, "\n"))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
