package explicit

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"kbmc/internal/annotation"
	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// Test helpers shared by the tests of every algorithm.

// porCompile compiles src.
func porCompile(t testing.TB, name, src string, cfg lang.Config) *ir.Program {
	t.Helper()
	p, err := lang.Compile(name+".kb", []byte(src), cfg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// hangLimit is the time limit of every test run whose verdict a test checks or
// compares. It is there to end a hang, not to judge speed: far above what any
// such run takes on a machine busy with other work, and a run it stops fails
// its test as too slow (untilHang), never as a verdict that differs. Where a
// test picks its programs by how long a reference run takes, that choice is
// the only thing time decides.
var hangLimit = flag.Duration("explicit.hang", 30*time.Minute, "time limit of a checked test run: a run it stops fails as too slow")

// untilHang runs e on p under hangLimit. A run the limit stopped fails the test
// at once, saying that it was too slow: its verdict (unknown) is never compared.
func untilHang(t testing.TB, name string, e verify.Engine, p *ir.Program) (*verify.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), *hangLimit)
	defer cancel()
	r, err := e.Check(ctx, p)
	if ctx.Err() != nil {
		t.Fatalf("%s: too slow: no verdict within %v (-explicit.hang); a hang, or a machine far busier than the limit allows. This says nothing about the verdict", name, *hangLimit)
	}
	return r, err
}

// porRun runs an engine under hangLimit (untilHang). A panic fails the test
// instead of ending every test of the package.
func porRun(t testing.TB, e verify.Engine, p *ir.Program) (r *verify.Result) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			t.Fatalf("%T: panic: %v", e, v)
		}
	}()
	r, err := untilHang(t, fmt.Sprintf("%T", e), e, p)
	if err != nil {
		t.Fatalf("%T: %v", e, err)
	}
	return r
}

// porCheck is porRun for a run that must end with a verdict (porRun already
// fails one the hang limit stopped).
func porCheck(t testing.TB, e verify.Engine, p *ir.Program) *verify.Result {
	t.Helper()
	r := porRun(t, e, p)
	if r.Verdict == verify.Unknown {
		t.Fatalf("%T: %s", e, r.Note)
	}
	return r
}

func porKind(r *verify.Result) string {
	if r.Violation == nil {
		return ""
	}
	return r.Violation.Kind.String()
}

// reachableKinds is an oracle independent of every search algorithm: it enumerates
// every execution of p within depth steps and returns every violation kind
// reachable (deadlocks unless noDeadlock), and whether some execution is cut by
// the bound. Unlike DFS, it does not stop at the first violation.
func reachableKinds(p *ir.Program, depth int, noDeadlock bool) (kinds map[ir.ViolationKind]bool, cut bool) {
	kinds = map[ir.ViolationKind]bool{}
	var ev ir.Event
	var rec func(s ir.State, d int)
	rec = func(s ir.State, d int) {
		enabled := false
		for t := range p.Threads {
			if !p.Enabled(s, t) {
				continue
			}
			enabled = true
			if d == depth {
				cut = true
				return
			}
			var ch ir.Choices
			var fixed []int64
			for more := true; more; {
				next := s.Clone()
				ch.Reset(fixed)
				p.Step(next, t, &ch, &ev)
				fixed, more = ch.Next(fixed)
				if ev.Violation != nil {
					kinds[ev.Violation.Kind] = true
					continue
				}
				rec(next, d+1)
			}
		}
		if !enabled && !noDeadlock && p.Deadlock(s) != nil {
			kinds[ir.Deadlock] = true
		}
	}
	rec(p.Initial(), 0)
	return kinds, cut
}

// withTerminals returns opts collecting terminal states into a fresh set.
func withTerminals(opts Options) (Options, *terminalSet) {
	ts := newTerminalSet()
	opts.Terminal = ts.add
	return opts, ts
}

// namedProgram is a compiled program to check, with its name and depth bound.
type namedProgram struct {
	name  string
	p     *ir.Program
	depth int
}

// testdataFile is an annotated program of ../testdata that is not an expected
// input error, with the //@ args that matter to the explicit engine.
type testdataFile struct {
	path    string
	src     []byte
	cfg     lang.Config
	opts    Options // Depth is set, the default if the args have none
	engines []string
}

// readTestdata reads every program of ../testdata that is not an expected input
// error and is meant for every engine (no //@ engines: list naming dfs alone:
// the local-deadlock programs loop forever for dfs --stateful), with its //@ args.
func readTestdata(t *testing.T) []testdataFile {
	t.Helper()
	var out []testdataFile
	for _, td := range readAllTestdata(t) {
		if len(td.engines) == 0 || slices.ContainsFunc(td.engines, func(e string) bool { return e != "explicit/dfs" }) {
			out = append(out, td)
		}
	}
	return out
}

// readAllTestdata reads every program of ../testdata that is not an expected input
// error, with its //@ args and engines.
func readAllTestdata(t *testing.T) []testdataFile {
	t.Helper()
	files, err := filepath.Glob("../testdata/*.kb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var out []testdataFile
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := annotation.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if a.Expect == "error" {
			continue
		}
		flags, err := annotation.ParseArgs(a.Args)
		if err != nil {
			t.Fatalf("%s: //@ args: %v", f, err)
		}
		cfg := flags.Config
		var opts Options
		opts.Depth, opts.NoDeadlock = flags.Depth, flags.NoDeadlock
		if opts.Depth <= 0 {
			opts.Depth = verify.DefaultDepth
		}
		out = append(out, testdataFile{f, src, cfg, opts, a.Engines})
	}
	return out
}

// compileGenerated generates seed's program with cfg (internal/progen) and
// compiles it as cfg says.
func compileGenerated(t testing.TB, seed uint64, cfg progen.Config) (src string, p *ir.Program) {
	t.Helper()
	src = progen.Generate(seed, cfg)
	p, err := lang.Compile(fmt.Sprintf("seed%d.kb", seed), []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
	if err != nil {
		t.Fatalf("seed %d does not compile: %v", seed, err)
	}
	return src, p
}

// loadFamily compiles the benchmark family bench/programs/family.kb with N = n.
func loadFamily(t testing.TB, family string, n int64, noFold bool) *ir.Program {
	t.Helper()
	src, err := os.ReadFile("../bench/programs/" + family + ".kb")
	if err != nil {
		t.Fatal(err)
	}
	return porCompile(t, family, string(src), lang.Config{Defines: map[string]int64{"N": n}, NoFold: noFold})
}

// eagerly wraps the engine of an algorithm whose workers steal work so that its
// run gives work away at every chance (sharing.eager): thousands of tasks on
// small programs, and a sharded run's search split every 64 transitions.
type eagerly struct {
	engine
	name string
}

func (eagerly) eagerSteal() bool { return true }

func (e eagerly) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, e.name, e)
}

// newEager is New for an eager run (see eagerly).
func newEager(name string, o Options) (verify.Engine, error) {
	a, err := algorithmNamed(name)
	if err != nil {
		return nil, err
	}
	return eagerly{a.engine(o), name}, nil
}

// runSearches runs e on p as one run whose searches the test starts by hand,
// all at once, one worker per task, sharing sh, and returns the run's result.
func runSearches(ctx context.Context, p *ir.Program, name string, e engine, sh *sharing, tasks []*task) (*verify.Result, error) {
	a, err := algorithmNamed(name)
	if err != nil {
		return nil, err
	}
	x, err := newExecutor(ctx, p, a, e.options())
	if err != nil {
		return nil, err
	}
	r, err := e.start(x, sh)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var total verify.Stats
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Go(func() {
			w := x.newWorker(i)
			w.at(t.root)
			r.search(w).explore(t)
			mu.Lock()
			addStats(&total, &w.stats)
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := r.finish(); err != nil {
		return nil, err
	}
	return x.result(total)
}
