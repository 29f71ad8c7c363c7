package symbolic

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"kbmc/cfront"
	"kbmc/explicit"
	"kbmc/internal/kb2c"
	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

var (
	raceSeeds = flag.Int("symbolic.race-seeds", 40, "TestRaceDifferential: generated programs per family (classic, distributed and C); a campaign takes 700")
	raceFrom  = flag.Uint64("symbolic.race-from", 0, "TestRaceDifferential's first seed")
)

// raceCombos are the runs TestRaceDifferential compares with dfs --stateful:
// the step encoding with every reduction on every solver, and the default
// encoding, which falls back to the step encoding for the property.
func raceCombos(t testing.TB) []combo {
	var cs []combo
	for _, c := range combos(t) {
		if c.encoding == "step" && (c.solver != "portfolio" || *heavy) {
			cs = append(cs, c)
		}
	}
	return append(cs, combo{solver: "gini", encoding: "", por: "none"})
}

// raceFamily is one kind of generated program.
type raceFamily struct {
	name string
	// program generates and compiles seed's program and its depth.
	program func(seed uint64) (src string, p *ir.Program, depth int, err error)
}

var raceFamilies = []raceFamily{
	{"classic", func(seed uint64) (string, *ir.Program, int, error) {
		cfg := progen.DefaultConfig()
		cfg.NoFold = seed%4 == 3
		if seed%7 == 5 {
			cfg.Width = 8
		}
		src := progen.Generate(seed, cfg)
		p, err := lang.Compile("gen.kb", []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
		return src, p, verify.DefaultDepth, err
	}},
	{"distributed", func(seed uint64) (string, *ir.Program, int, error) {
		// Channels synchronise: what they move is no memory, but their
		// processes' shared cells may race. No rendezvous channels: the
		// symbolic engine does not encode them yet.
		cfg := progen.DistributedConfig()
		if seed%3 == 1 {
			cfg.Features |= progen.ChannelKinds
		}
		src := progen.Generate(seed, cfg)
		p, err := lang.Compile("gen.kb", []byte(src), lang.Config{Width: cfg.Width})
		return src, p, verify.DefaultDepth, err
	}},
	{"C", func(seed uint64) (string, *ir.Program, int, error) {
		// A classic program translated to C (kb2c), which runs every
		// statement that touches memory in an atomic section, as .kb runs
		// it: two atomic accesses never race. On two seeds in three the
		// sections are taken out, so that each statement is several steps,
		// each touching memory at most once (pointers, thread values and
		// mutexes in memory besides), and plain accesses race.
		cfg := progen.DualFormConfig()
		cfg.Features &^= progen.SpinLoops
		src := progen.Generate(seed, cfg)
		prog, err := kb2c.Translate("gen.kb", []byte(src))
		if err != nil {
			return src, nil, 0, err
		}
		c := string(prog.C)
		depth := prog.Depth(verify.DefaultDepth)
		if seed%3 != 0 {
			c = strings.NewReplacer("__VERIFIER_atomic_begin();", "", "__VERIFIER_atomic_end();", "").Replace(c)
			depth *= 2 // a statement may take a step per access
		}
		p, err := cfront.Compile("gen.i", []byte(c), cfront.Config{})
		return c, p, depth, err
	}},
}

// raceCount is one row of TestRaceDifferential's report.
type raceCount struct {
	programs, racy, runs, disagreements int
}

// TestRaceDifferential checks the property no-data-race with the symbolic
// engine against dfs --stateful on generated programs with and without races:
// classic and distributed .kb programs and classic ones translated to C.
// Verdicts must agree, and a violation's kind (asking the engine again for
// the reference's kind when several are reachable, as TestRandom does);
// every symbolic counterexample has been replayed through ir by the engine
// (verify.Validate) and is confirmed again here. It logs, per run, the
// programs, those with a race, the runs and the disagreements.
//
//	go test ./symbolic -run TestRaceDifferential -symbolic.race-seeds=700 -v   # 2,100 programs
func TestRaceDifferential(t *testing.T) {
	n := *raceSeeds
	if testing.Short() {
		n = min(n, 10)
	}
	cs := raceCombos(t)
	type job struct {
		fam  raceFamily
		seed uint64
	}
	var jobs []job
	for _, fam := range raceFamilies {
		for seed := *raceFrom; seed < *raceFrom+uint64(n); seed++ {
			jobs = append(jobs, job{fam, seed})
		}
	}
	var mu sync.Mutex
	counts := make(map[string]*raceCount) // per family, and per family and combination
	count := func(key string) *raceCount {
		if counts[key] == nil {
			counts[key] = &raceCount{}
		}
		return counts[key]
	}
	work := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				fails, racy, runs := raceCase(j.fam, j.seed, cs)
				mu.Lock()
				fc := count(j.fam.name)
				fc.programs++
				if racy {
					fc.racy++
				}
				for _, c := range cs {
					cc := count(j.fam.name + " " + c.String() + "/" + c.encodingName())
					cc.programs++
					if racy {
						cc.racy++
					}
					cc.runs += runs[c]
					if fails[c] != "" {
						cc.disagreements++
						t.Errorf("%s seed %d, %s: %s", j.fam.name, j.seed, c, fails[c])
					}
				}
				if f := fails[combo{}]; f != "" {
					fc.disagreements++
					t.Errorf("%s seed %d: %s", j.fam.name, j.seed, f)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	for _, fam := range raceFamilies {
		fc := count(fam.name)
		t.Logf("%s: %d programs, %d with a race", fam.name, fc.programs, fc.racy)
		for _, c := range cs {
			cc := count(fam.name + " " + c.String() + "/" + c.encodingName())
			t.Logf("  %-28s %d programs (%d racy), %d runs, %d disagreements", c.String()+"/"+c.encodingName(),
				cc.programs, cc.racy, cc.runs, cc.disagreements)
		}
		if fc.racy == 0 || fc.racy == fc.programs {
			t.Errorf("%s: the generated programs need races and race-free ones: %d racy of %d", fam.name, fc.racy, fc.programs)
		}
	}
}

// encodingName names a combination's encoding, "default" for the engine's
// choice.
func (c combo) encodingName() string {
	if c.encoding == "" {
		return "default"
	}
	return c.encoding
}

// raceCase checks seed's program of family fam under no-data-race with every
// combination against dfs --stateful: what failed, per combination (the
// zero combo for the program itself), whether the reference found a race,
// and the runs per combination.
func raceCase(fam raceFamily, seed uint64, cs []combo) (fails map[combo]string, racy bool, runs map[combo]int) {
	fails, runs = make(map[combo]string), make(map[combo]int)
	src, p, depth, err := fam.program(seed)
	if err != nil {
		fails[combo{}] = fmt.Sprintf("does not compile: %v\n%s", err, src)
		return fails, false, runs
	}
	// As --property no-data-race runs it: no invariant, races checked, a
	// failing assertion stops its thread.
	if err := p.SelectInvariants(nil); err != nil {
		fails[combo{}] = err.Error()
		return fails, false, runs
	}
	p.SelectProperty(ir.DataRace)
	opts := verify.Options{Depth: depth, NoDeadlock: true}
	ref, err := explicit.DFS{Options: explicit.Options{Options: opts, Stateful: true}}.Check(context.Background(), p)
	if err != nil {
		fails[combo{}] = fmt.Sprintf("dfs --stateful: %v\n%s", err, src)
		return fails, false, runs
	}
	if ref.Verdict == verify.Unknown {
		fails[combo{}] = fmt.Sprintf("dfs --stateful: unknown (%s)\n%s", ref.Note, src)
		return fails, false, runs
	}
	racy = ref.Verdict == verify.Unsafe && ref.Violation.Kind == ir.DataRace
	for _, c := range cs {
		runs[c]++
		got, err := symbolicRun(p, opts, c, 2*time.Minute)
		if err != nil {
			fails[c] = fmt.Sprintf("%v\n%s", err, src)
			continue
		}
		if got.Verdict == verify.Unsafe {
			// The engine replayed it (verify.Validate); so does ir here.
			if _, v, err := p.Confirm(got.Trace, got.Violation.Kind); err != nil || v.Kind != got.Violation.Kind {
				fails[c] = fmt.Sprintf("the %s does not replay: %v\n%s", got.Violation.Kind, err, src)
				continue
			}
		}
		if err := agree(p, opts, c, ref, got, 2*time.Minute); err != nil {
			fails[c] = fmt.Sprintf("%v\n%s", err, src)
			continue
		}
		if o := outcomeOf(got); o != outcomeOf(ref) {
			runs[c]++ // agree asked again for the reference's kind
		}
	}
	return fails, racy, runs
}

// TestRaceRefusals: the partial-order encoding refuses the property by name,
// and the default encoding falls back to the step encoding.
func TestRaceRefusals(t *testing.T) {
	p, err := lang.Compile("race.kb", []byte("shared int x;\nthread a { x = 1; }\nthread b { x = 2; }\n"), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p.SelectRaces(true)
	_, err = Engine{Encoding: "partial-order"}.Check(context.Background(), p)
	if !isUnsupported(err) || !strings.Contains(err.Error(), "no-data-race") {
		t.Errorf("partial-order: %v, want its refusal of no-data-race", err)
	}
	r, err := Engine{}.Check(context.Background(), p)
	if err != nil || r.Verdict != verify.Unsafe || r.Violation.Kind != ir.DataRace {
		t.Errorf("default encoding: %v, %v; want the race", r, err)
	}
}

// raceCHeader declares what the C cases use.
const raceCHeader = `typedef unsigned long pthread_t;
typedef struct { int owner; } pthread_mutex_t;
extern int pthread_create(pthread_t *, void *, void *(*)(void *), void *);
extern int pthread_join(pthread_t, void **);
extern int pthread_mutex_lock(pthread_mutex_t *);
extern int pthread_mutex_unlock(pthread_mutex_t *);
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
`

// TestRaces: races the encoding must find and must not, each checked
// against dfs under no-data-race, with every solver and reduction of the
// step encoding.
func TestRaces(t *testing.T) {
	cases := []struct {
		name string
		c    bool // C, else .kb
		src  string
		race bool
	}{
		{"plain write and read", false, `shared int x;
thread a { x = 1; }
thread b { int l = x; }`, true},
		{"two reads", false, `shared int x;
thread a { int l = x; }
thread b { int l = x; }`, false},
		{"atomic and plain", false, `shared int x;
thread a { atomic { x = x + 1; } }
thread b { int l = x; }`, true},
		{"atomic and atomic", false, `shared int x;
thread a { atomic { x = x + 1; } }
thread b { atomic { int l = x; } }`, false},
		{"cas and plain write", false, `shared int x;
thread a { cas(x, 0, 1); }
thread b { x = 2; }`, true},
		{"cas and cas", false, `shared int x;
thread a { cas(x, 0, 1); }
thread b { cas(x, 0, 2); }`, false},
		{"lock-protected", false, `shared int x; mutex m;
thread w[2] { lock(m); x = x + 1; unlock(m); }`, false},
		{"one side unprotected", false, `shared int x; mutex m;
thread a { lock(m); x = x + 1; unlock(m); }
thread b { int l = 0; l = l + 1; x = l; }`, true},
		{"index chosen by a value", false, `shared int a[2]; shared int i = 0;
thread s { i = 1; }
thread w { int j = i; a[j] = 1; }
thread r { int l = 0; l = l + 1; l = a[1]; }`, true},
		{"index chosen by a value, other cell", false, `shared int a[2]; shared int i = 0;
thread w { int j = i; a[j] = 1; }
thread r { int l = a[1]; }`, false},
		{"index drawn", false, `shared int a[3];
thread w { a[nondet(0, 2)] = 1; }
thread r { int l = 0; l = a[2]; }`, true},
		{"race only in the initial state", false, `shared int x;
thread a { x = 1; }
thread b { int l = x; }`, true},
		{"assertion failure is no race", false, `shared int x;
thread a { assert(false); x = 1; }
thread b { x = 2; }`, false},
		{"assertion reads race", false, `shared int x;
thread a { assert(x == 5); }
thread b { x = 2; }`, true},
		{"C pointer to a shared cell", true, raceCHeader + `int x; int *p;
void *w(void *arg) { *p = 1; return 0; }
int main(void) { pthread_t t; p = &x; pthread_create(&t, 0, w, 0); int l = x; pthread_join(t, 0); return 0; }`, true},
		{"C pointer to another cell", true, raceCHeader + `int x, y; int *p;
void *w(void *arg) { *p = 1; return 0; }
int main(void) { pthread_t t; p = &y; pthread_create(&t, 0, w, 0); int l = x; pthread_join(t, 0); return 0; }`, false},
		{"C race after a thread is created", true, raceCHeader + `int x;
void *w(void *arg) { x = 1; return 0; }
int main(void) { pthread_t t; x = 0; pthread_create(&t, 0, w, 0); x = 2; pthread_join(t, 0); return 0; }`, true},
		{"C write before creation, after join", true, raceCHeader + `int x;
void *w(void *arg) { x = 1; return 0; }
int main(void) { pthread_t t; x = 0; pthread_create(&t, 0, w, 0); pthread_join(t, 0); x = 2; return 0; }`, false},
		{"C mutex", true, raceCHeader + `int x; pthread_mutex_t m;
void *w(void *arg) { pthread_mutex_lock(&m); x = x + 1; pthread_mutex_unlock(&m); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); pthread_mutex_lock(&m); x = 2; pthread_mutex_unlock(&m); pthread_join(t, 0); return 0; }`, false},
		{"C index drawn in full range", true, raceCHeader + `int a[4]; int x;
void *w(void *arg) { int l = x; int i = __VERIFIER_nondet_int(); if (i >= 0 && i < 4) a[i] = 1; return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); int l = a[3]; pthread_join(t, 0); return 0; }`, true},
		{"C index drawn in full range, other cells", true, raceCHeader + `int a[4]; int x;
void *w(void *arg) { int l = x; int i = __VERIFIER_nondet_int(); if (i >= 0 && i < 3) a[i] = 1; return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); int l = a[3]; pthread_join(t, 0); return 0; }`, false},
		{"C atomic section stuck, its writes undone", true, raceCHeader + `extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);
int x, y, z;
void *w(void *arg) { __VERIFIER_atomic_begin(); x = 1; int l = z; __VERIFIER_assume(l == 1); __VERIFIER_atomic_end(); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); int l = x; pthread_join(t, 0); return 0; }`, false},
		{"C atomic section stuck, its reads kept", true, raceCHeader + `extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);
int x, y, z;
void *w(void *arg) { __VERIFIER_atomic_begin(); x = 1; __VERIFIER_assume(z == 1); __VERIFIER_atomic_end(); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); z = 2; pthread_join(t, 0); return 0; }`, true},
		{"C reach_error is no race", true, raceCHeader + `int x;
void *w(void *arg) { reach_error(); x = 1; return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); int l = x; pthread_join(t, 0); return 0; }`, false},
	}
	var cs []combo
	for _, c := range combos(t) {
		if c.encoding == "step" && c.solver != "portfolio" {
			cs = append(cs, c)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p *ir.Program
			var err error
			if tc.c {
				p, err = cfront.Compile("race.c", []byte(tc.src), cfront.Config{})
			} else {
				p, err = lang.Compile("race.kb", []byte(tc.src), lang.Config{})
			}
			if err != nil {
				t.Fatal(err)
			}
			p.SelectProperty(ir.DataRace)
			want := outcome{verdict: verify.Safe}
			if tc.race {
				want = outcome{verdict: verify.Unsafe, kind: ir.DataRace}
			}
			opts := verify.Options{NoDeadlock: true}
			ref, err := dfs(context.Background(), p, opts)
			switch {
			case strings.Contains(tc.name, "full range"):
				// The explicit engine does not draw 2^32 values; ir's
				// check does not need to (replay confirms the race).
				if !isUnsupported(err) {
					t.Fatalf("dfs: %v, %v; want its refusal of a full-range draw", ref, err)
				}
			case err != nil:
				t.Fatalf("dfs: %v", err)
			case outcomeOf(ref) != want:
				t.Fatalf("dfs says %s, want %s", outcomeOf(ref), want)
			}
			for _, c := range cs {
				got, err := symbolicRun(p, opts, c, time.Minute)
				if err != nil {
					t.Errorf("%s: %v", c, err)
					continue
				}
				if outcomeOf(got) != want {
					t.Errorf("%s says %s, want %s", c, outcomeOf(got), want)
				}
			}
		})
	}
}

// TestRaceCheckGivesUp: where two threads are enabled and one's next step
// draws more values than ir's data-race check enumerates before its first
// access, the check gives up (Unsupported) and so does the encoding, naming
// the same thread and position: the answer is unknown, never a trace that
// does not replay.
func TestRaceCheckGivesUp(t *testing.T) {
	for _, draw := range []string{
		"int i = __VERIFIER_nondet_int();",
		// A U64's whole range, which ir holds as 0..-1.
		"unsigned long long i = __VERIFIER_nondet_ulonglong();",
	} {
		src := raceCHeader + `extern unsigned long long __VERIFIER_nondet_ulonglong(void);
int a[4];
void *w(void *arg) { ` + draw + ` if (i >= 0 && i < 4) a[i] = 1; return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); int l = a[3]; pthread_join(t, 0); return 0; }`
		p, err := cfront.Compile("wide.c", []byte(src), cfront.Config{})
		if err != nil {
			t.Fatal(err)
		}
		p.SelectProperty(ir.DataRace)
		for _, c := range combos(t) {
			if c.encoding != "step" || c.solver == "portfolio" {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			r, err := Engine{Options: verify.Options{NoDeadlock: true}, Solver: c.solver, Encoding: c.encoding, POR: c.por}.Check(ctx, p)
			cancel()
			if err != nil || r.Verdict != verify.Unknown || !strings.Contains(r.Note, "data-race check") {
				t.Errorf("%s, %s: %v, %v; want unknown, the data-race check giving up", draw, c, r, err)
			}
		}
	}
}
