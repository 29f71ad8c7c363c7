package kb2go_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kbmc/explicit"
	"kbmc/gofront"
	"kbmc/internal/kb2go"
	"kbmc/internal/oracle"
	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// The dual-form differential test of the Go front end: every program the
// generator emits (progen.GoFormConfig) is checked as .kb through lang and,
// translated, as Go through gofront, by every explicit algorithm (dfs plain
// and stateful, dpor with and without sleep sets, lazypor, persistent,
// process-local, bpor-preempt and bpor-fair unbounded); both forms must give
// the same verdict. Every counterexample is replayed on its form.
//
//	go test ./internal/kb2go -run TestDualForm                       # the default seeds
//	go test ./internal/kb2go -run TestDualForm -dual.seeds=1000      # a campaign
//	go test ./internal/kb2go -run TestDualForm -dual.seed=123 -v     # one seed, both programs
//
// An exhaustive search of each form's whole state graph (internal/oracle)
// gives the violation kinds reachable at any depth, which the two forms must
// share, whether some execution runs for ever, and the verdict every engine
// owes at a depth. The kinds correspond one to one: a Go panic with one of
// kb2go's messages is the .kb assertion, bounds or shift violation it stands
// for, any other Go panic (a send on a closed channel, a close of a closed
// one) is .kb's panic, an integer division by zero is division-by-zero in
// both, and a Go leak is a .kb deadlock: main starts the goroutines and
// returns (it takes no other step, and never waits), so goroutines that all
// wait for ever are a leak, and Go's deadlock, main waiting too, has no .kb
// counterpart. (Had main waited for the goroutines with a WaitGroup, each
// goroutine's Done would be one more step, all dependent on each other,
// which multiplies a stateless search's interleavings.)
//
// The Go form takes more steps than the .kb form (main's, each goroutine's
// start), so it runs at kb2go.Program.Depth of the .kb depth; where
// that bound cuts an execution the two depths are not the same bound, so a
// verdict that is cut may stand against one that is not (counted, never a
// failure). lazypor refuses, by name, a select that a rendezvous handoff may
// consume, on either form: such a refusal is counted, any other is a failure.
var (
	dualSeeds   = flag.Int("dual.seeds", 200, "TestDualForm checks the programs of seeds from..from+N-1")
	dualFrom    = flag.Uint64("dual.from", 0, "TestDualForm's first seed")
	dualSeed    = flag.Int64("dual.seed", -1, "TestDualForm checks only this seed, and shows both programs")
	dualTimeout = flag.Duration("dual.timeout", 30*time.Second, "time limit of one engine on one form of one program")
	dualStates  = flag.Int("dual.max-states", 1<<18, "the oracle's limit on a state graph")
)

// kbDepth is the depth of the .kb forms: the differential tests' default.
const kbDepth = verify.DefaultDepth

// class maps a violation of either form to the .kb kind it stands for.
func class(v *ir.Violation) ir.ViolationKind {
	if v.Kind == ir.Leak {
		return ir.Deadlock
	}
	if v.Kind != ir.Panic {
		return v.Kind
	}
	switch {
	case strings.Contains(v.Msg, kb2go.AssertionPanic):
		return ir.Assertion
	case strings.Contains(v.Msg, kb2go.BoundsPanic):
		return ir.Bounds
	case strings.Contains(v.Msg, kb2go.ShiftPanic):
		return ir.Shift
	}
	return ir.Panic
}

// A form is one form of a generated program.
type form struct {
	name  string // ".kb" or "Go"
	p     *ir.Program
	depth int
	o     *oracle.Graph
	oerr  error
}

// A dualCase is one generated program in both forms.
type dualCase struct {
	seed  uint64
	kbSrc string
	goSrc string
	prog  *kb2go.Program
	kb    form
	goF   form
	// refused is the translator's refusal: the program is not checked.
	refused string
}

func newDualCase(seed uint64, dir string) (*dualCase, error) {
	cfg := progen.GoFormConfig()
	if seed%3 == 1 {
		cfg.FaultRate = 0.3 // more deliberate faults: more unsafe programs
	}
	dc := &dualCase{seed: seed, kbSrc: progen.Generate(seed, cfg)}
	name := fmt.Sprintf("seed%d.kb", seed)
	pk, err := lang.Compile(name, []byte(dc.kbSrc), lang.Config{Width: kb2go.Width})
	if err != nil {
		return dc, fmt.Errorf("the generated program does not compile (a bug in progen or lang): %v", err)
	}
	prog, err := kb2go.Translate(name, []byte(dc.kbSrc))
	if err != nil {
		var list lang.ErrorList
		if !errors.As(err, &list) {
			return dc, fmt.Errorf("translation: %v", err)
		}
		dc.refused = err.Error()
		return dc, nil
	}
	dc.prog, dc.goSrc = prog, string(prog.Go)
	file := filepath.Join(dir, fmt.Sprintf("seed%d", seed), "main.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return dc, err
	}
	if err := os.WriteFile(file, prog.Go, 0o644); err != nil {
		return dc, err
	}
	res, err := gofront.Compile(file, gofront.Config{})
	if err != nil {
		return dc, fmt.Errorf("the Go form does not compile: %v", err)
	}
	if err := local(res.Program); err != nil {
		return dc, err
	}
	dc.kb = form{name: ".kb", p: pk, depth: kbDepth}
	dc.goF = form{name: "Go", p: res.Program, depth: prog.Depth(kbDepth)}
	for _, f := range []*form{&dc.kb, &dc.goF} {
		f.o, f.oerr = oracle.Explore(f.p, *dualStates, class)
		if f.oerr != nil && !errors.Is(f.oerr, oracle.ErrTooBig) {
			return dc, fmt.Errorf("oracle on the %s form: %v", f.name, f.oerr)
		}
	}
	return dc, nil
}

func (dc *dualCase) programs() string {
	return "\n.kb program:\n" + dc.kbSrc + "\nGo form:\n" + dc.goSrc
}

// complete reports whether every execution of both forms ends within its
// depth: then their verdicts must be the same.
func (dc *dualCase) complete() bool {
	return dc.kb.o != nil && dc.goF.o != nil && dc.kb.o.Complete(dc.kb.depth) && dc.goF.o.Complete(dc.goF.depth)
}

// translation compares the two forms' whole state graphs: the same
// violation kinds, both or neither with an execution that runs for ever,
// and Program.Depth covering the Go form's longest execution.
func (dc *dualCase) translation() (compared bool, fail string) {
	ko, gobj := dc.kb.o, dc.goF.o
	if ko == nil || gobj == nil {
		return false, ""
	}
	const unbounded = int(^uint(0) >> 1)
	kk, gk := ko.Kinds(unbounded, false), gobj.Kinds(unbounded, false)
	switch {
	case !slices.Equal(kk, gk):
		return true, fmt.Sprintf("the forms reach different violations: .kb %s; Go %s", ko, gobj)
	case (ko.Longest < 0) != (gobj.Longest < 0):
		return true, fmt.Sprintf("one form has an execution that runs for ever, the other not: .kb %s; Go %s", ko, gobj)
	case ko.Longest >= 0 && gobj.Longest > dc.prog.Depth(ko.Longest):
		return true, fmt.Sprintf("the longest Go execution takes %d steps, more than Depth(%d) = %d: .kb %s; Go %s",
			gobj.Longest, ko.Longest, dc.prog.Depth(ko.Longest), ko, gobj)
	}
	return true, ""
}

// local checks that gofront kept every goroutine's own memory (its
// process's memory and its locals) in the goroutine: a variable of a
// function that became memory of its own (gofront names it function::name)
// would make each of its accesses a step, and the Go form's steps would no
// longer be the .kb form's.
func local(p *ir.Program) error {
	for _, v := range slices.Concat(p.Shared, p.Objects) {
		if strings.Contains(v.Name, "::") {
			return fmt.Errorf("the Go form keeps %s in memory, not in its goroutine's registers", v.Name)
		}
	}
	return nil
}

// An engine is one explicit algorithm with one setting of its options.
type engine struct {
	name string
	algo string
	set  func(*explicit.Options)
}

// engines lists every explicit algorithm, each exact (unbounded by
// preemptions or fairness): an algorithm this list does not know yet runs
// with its defaults, none is skipped. The symbolic engine refuses Go.
func engines() []engine {
	none := func(*explicit.Options) {}
	var es []engine
	for _, algo := range explicit.Algorithms() {
		switch algo {
		case "dfs":
			es = append(es, engine{"dfs", algo, none}, engine{"dfs/stateful", algo, func(o *explicit.Options) { o.Stateful = true }})
		case "dpor":
			es = append(es, engine{"dpor", algo, none}, engine{"dpor/no-sleep", algo, func(o *explicit.Options) { o.NoSleep = true }})
		case "lazypor":
			es = append(es, engine{"lazypor/topo", algo, func(o *explicit.Options) { o.TCSSolver = "topo" }})
		case "bpor-preempt":
			es = append(es, engine{algo, algo, func(o *explicit.Options) { o.Preemptions = -1 }})
		case "bpor-fair":
			es = append(es, engine{algo, algo, func(o *explicit.Options) { o.Fair = -1 }})
		default:
			es = append(es, engine{algo, algo, none})
		}
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
	opts := explicit.Options{Options: verify.Options{Depth: f.depth, NoDeadlock: noDeadlock}}
	e.set(&opts)
	eng, err := explicit.New(e.algo, opts)
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

// refusalAllowed says whether a refusal is lazypor's of a select a
// rendezvous handoff may consume: the only one expected.
func refusalAllowed(e engine, f *form, r *verify.UnsupportedError) bool {
	return e.algo == "lazypor" && f.p.RendezvousChoice() != nil && strings.Contains(r.Msg, "rendezvous")
}

// check reports what is wrong with a run on its own: no verdict, a
// counterexample that does not replay, a verdict or kind the oracle refutes.
func check(f *form, noDeadlock bool, r run) error {
	if r.err != nil {
		return r.err
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
	switch {
	case res.Verdict == verify.Unsafe && !slices.Contains(o.Kinds(f.depth, noDeadlock), class(res.Violation)):
		return fmt.Errorf("says %s, which the oracle does not reach within %d steps (%s)", verdictString(res), f.depth, o)
	case res.Verdict != want:
		return fmt.Errorf("says %s, the oracle %s (%s)", verdictString(res), want, o)
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

// tally counts one program's runs.
type tally struct {
	runs, agree, kindDiffers, cutDiffers, refused, disagree int
	// the slowest run: its time, engine, form and seed
	slowest  time.Duration
	slowWhat string
}

func (a *tally) add(b tally) {
	if b.slowest > a.slowest {
		a.slowest, a.slowWhat = b.slowest, b.slowWhat
	}
	a.runs += b.runs
	a.agree += b.agree
	a.kindDiffers += b.kindDiffers
	a.cutDiffers += b.cutDiffers
	a.refused += b.refused
	a.disagree += b.disagree
}

// compare runs engine e on both forms of dc in both deadlock modes and
// returns every failure.
func (e engine) compare(t *testing.T, dc *dualCase, st *tally, verbose bool) []string {
	var fails []string
	complete := dc.complete()
	for _, noDeadlock := range []bool{false, true} {
		mode := ""
		if noDeadlock {
			mode = " with NoDeadlock"
		}
		rk, rg := e.run(&dc.kb, noDeadlock), e.run(&dc.goF, noDeadlock)
		for _, x := range []struct {
			f string
			r run
		}{{".kb", rk}, {"Go", rg}} {
			if x.r.took > st.slowest {
				st.slowest, st.slowWhat = x.r.took, fmt.Sprintf("%s%s on the %s form of seed %d", e.name, mode, x.f, dc.seed)
			}
		}
		if verbose {
			t.Logf("%s%s: .kb %s; Go %s", e.name, mode, rk, rg)
		}
		st.runs++
		bad := false
		for _, x := range []struct {
			f *form
			r run
		}{{&dc.kb, rk}, {&dc.goF, rg}} {
			if x.r.refused != nil {
				if !refusalAllowed(e, x.f, x.r.refused) {
					fails = append(fails, fmt.Sprintf("%s%s on the %s form refuses: %v", e.name, mode, x.f.name, x.r.refused))
				}
				bad = true
				continue
			}
			if err := check(x.f, noDeadlock, x.r); err != nil {
				fails = append(fails, fmt.Sprintf("%s%s on the %s form: %v", e.name, mode, x.f.name, err))
				bad = true
			}
		}
		if rk.refused != nil || rg.refused != nil {
			st.refused++
			continue
		}
		if bad {
			st.disagree++
			continue
		}
		k, g := rk.res, rg.res
		switch {
		case k.Verdict == g.Verdict && (k.Verdict != verify.Unsafe || class(k.Violation) == class(g.Violation)):
			st.agree++
		case k.Verdict == g.Verdict:
			st.kindDiffers++ // both replayed, both kinds reachable in both forms
		case !complete:
			st.cutDiffers++
		default:
			st.disagree++
			fails = append(fails, fmt.Sprintf("%s%s says %s on the .kb form, %s on the Go form", e.name, mode, verdictString(k), verdictString(g)))
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

func dualSeedList() []uint64 {
	if *dualSeed >= 0 {
		return []uint64{uint64(*dualSeed)}
	}
	n := *dualSeeds
	if testing.Short() {
		n = min(n, 40)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = *dualFrom + uint64(i)
	}
	return seeds
}

// features are the channel constructs a .kb program uses, by the text
// that shows each.
var features = []struct{ name, text string }{
	{"channels", "chan ("},
	{"rendezvous", "capacity 0"},
	{"select", "select {"},
	{"select with default", "default:"},
	{"when guard", " when ("},
	{"close", "close("},
	{"ok receive", ") ok("},
	{"len", "len("},
	{"nondet", "nondet("},
}

// caseStats is what one program contributed to the summary.
type caseStats struct {
	checked, compared, tooBig, complete bool
	refused                             string
	kinds                               []ir.ViolationKind // reachable in the .kb form, at any depth
	features                            []string
}

// TestDualForm checks every explicit engine on both forms of generated
// programs.
func TestDualForm(t *testing.T) {
	seeds := dualSeedList()
	es := engines()
	dir := t.TempDir()
	start := time.Now()
	programs := make([]string, len(seeds))
	fails := make([][]string, len(seeds))
	tallies := make([]tally, len(seeds))
	stats := make([]caseStats, len(seeds))
	one := len(seeds) == 1
	var done atomic.Int64
	parallelEach(len(seeds), func(i int) {
		dc, err := newDualCase(seeds[i], dir)
		defer func() {
			if len(fails[i]) > 0 || one {
				programs[i] = dc.programs()
			}
			if n := done.Add(1); n%500 == 0 {
				t.Logf("%d of %d programs checked, %v", n, len(seeds), time.Since(start).Round(time.Second))
			}
		}()
		if err != nil {
			fails[i] = []string{err.Error()}
			return
		}
		st := &stats[i]
		for _, f := range features {
			if strings.Contains(dc.kbSrc, f.text) {
				st.features = append(st.features, f.name)
			}
		}
		if dc.refused != "" {
			st.refused = dc.refused
			return
		}
		st.checked, st.complete = true, dc.complete()
		st.tooBig = dc.kb.oerr != nil || dc.goF.oerr != nil
		if dc.kb.o != nil {
			st.kinds = dc.kb.o.Kinds(int(^uint(0)>>1), false)
		}
		compared, fail := dc.translation()
		st.compared = compared
		if fail != "" {
			fails[i] = append(fails[i], fail)
		}
		for _, e := range es {
			fails[i] = append(fails[i], e.compare(t, dc, &tallies[i], one)...)
		}
		if one {
			t.Logf("seed %d: .kb oracle %v %v; Go oracle %v %v", seeds[i], dc.kb.o, dc.kb.oerr, dc.goF.o, dc.goF.oerr)
		}
	})
	shown := 0
	for i, fs := range fails {
		if len(fs) == 0 {
			continue
		}
		if shown++; shown <= 5 {
			t.Errorf("seed %d:\n  %s\n  reproduce: go test ./internal/kb2go -run TestDualForm -dual.seed=%d -v%s",
				seeds[i], strings.Join(fs, "\n  "), seeds[i], programs[i])
		} else {
			first, _, _ := strings.Cut(fs[0], "\n")
			t.Errorf("seed %d: %s", seeds[i], first)
		}
	}
	if one && programs[0] != "" {
		t.Log(programs[0])
	}

	var total tally
	for _, st := range tallies {
		total.add(st)
	}
	var checked, compared, tooBig, complete, unsafe int
	var refusals []string
	kinds, feats := map[string]int{}, map[string]int{}
	for i, st := range stats {
		if st.refused != "" {
			refusals = append(refusals, fmt.Sprintf("seed %d: %s", seeds[i], st.refused))
		}
		if !st.checked {
			continue
		}
		checked++
		compared += b2i(st.compared)
		tooBig += b2i(st.tooBig)
		complete += b2i(st.complete)
		unsafe += b2i(len(st.kinds) > 0)
		for _, k := range st.kinds {
			kinds[k.String()]++
		}
		for _, f := range st.features {
			feats[f]++
		}
	}
	t.Logf("%d programs (%d refused by the translator) in %v; whole state graphs compared on %d, too large for the oracle on %d; every execution of both forms ends within its depth on %d",
		checked, len(refusals), time.Since(start).Round(time.Millisecond), compared, tooBig, complete)
	t.Logf("constructs: %s", counts(feats))
	t.Logf("unsafe at some depth: %d programs; violation kinds reachable: %s", unsafe, counts(kinds))
	t.Logf("engine runs on both forms (%d engines, both deadlock modes): %d; agree %d, another kind first %d, differ where a bound cuts %d, refused (lazypor, a rendezvous select) %d, disagree %d; slowest %v (%s)",
		len(es), total.runs, total.agree, total.kindDiffers, total.cutDiffers, total.refused, total.disagree, total.slowest.Round(time.Millisecond), total.slowWhat)
	if len(refusals) > 0 {
		t.Logf("refused by the translator, e.g. %s", refusals[0])
	}
	// The generator emits only what translates (progen.GoFormConfig): a
	// refusal says the two have drifted apart.
	if n := len(refusals); n > 0 {
		t.Errorf("the translator refused %d of %d programs:\n  %s", n, len(seeds), strings.Join(refusals[:min(n, 5)], "\n  "))
	}
}

func counts(m map[string]int) string {
	var s []string
	for k, n := range m {
		s = append(s, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
