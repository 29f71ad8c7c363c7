package explicit

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kbmc/cfront"
	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// persistentPrograms are small programs covering every construct, each checked
// against DFS at several depths (TestPersistentMatchesDFS).
var persistentPrograms = []struct {
	name, src string
	depth     int
}{
	{"independent-writers", `
shared int a; shared int b; shared int c;
thread t1 { a = 1; a = 2; }
thread t2 { b = 1; b = 2; }
thread t3 { c = 1; c = 2; }
`, 10},
	{"lost-update", `
shared int x = 0;
thread inc[2] { int t = x; x = t + 1; }
thread main { join(inc); assert(x == 2, "lost update"); }
`, 12},
	{"locked-counter", `
shared int x = 0;
mutex m;
thread inc[3] { lock(m); int t = x; x = t + 1; unlock(m); }
thread main { join(inc); assert(x == 3); }
`, 20},
	{"abba", `
mutex a; mutex b;
thread t1 { lock(a); lock(b); unlock(b); unlock(a); }
thread t2 { lock(b); lock(a); unlock(a); unlock(b); }
`, 10},
	{"await-handoff", `
shared int data; shared int flag;
thread producer { data = 42; flag = 1; }
thread consumer { await(flag == 1); assert(data == 42); }
`, 10},
	{"await-never", `
shared int flag;
thread w { await(flag == 1); }
thread other { int l = 3; }
`, 10},
	{"assume-cut", `
shared int x;
thread a { x = nondet(0, 3); }
thread b { assume(x >= 2); assert(x != 3, "three"); }
`, 10},
	{"assume-blocks-deadlock", `
shared int x; mutex m;
thread a { lock(m); assume(x == 1); unlock(m); }
thread b { lock(m); x = 1; unlock(m); }
`, 10},
	{"join-instance", `
shared int r[3];
thread w[3] { r[tid] = tid + 1; }
thread main { join(w[1]); assert(r[1] == 2); assert(r[0] == 1, "w0 may not be done"); }
`, 12},
	{"join-self-template-deadlock", `
shared int x;
thread a { join(b); x = 1; }
thread b { join(a); x = 2; }
`, 10},
	{"cas-spinlock", `
shared int l; shared int inside;
thread t[2] {
    while (!cas(l, 0, 1)) {}
    inside++;
    assert(inside == 1, "mutual exclusion");
    inside--;
    l = 0;
}
`, 14},
	{"cas-counter", `
shared int c;
thread t[2] {
    bool ok = false;
    while (!ok) { int v = c; ok = cas(c, v, v + 1); }
}
thread main { join(t); assert(c == 2); }
`, 16},
	{"nondet-index", `
shared int a[4];
thread w { a[nondet(0, 3)] = 1; }
thread r { int i = nondet(0, 3); assert(a[i] == 0 || i != 2, "hit"); }
`, 8},
	{"computed-index-oob", `
shared int a[3]; shared int i;
thread w { i = 3; }
thread r { int j = i; a[j] = 1; }
`, 8},
	{"bounded-loop", `
shared int s;
thread t[2] { for (int i = 0; i < 2; i++) { s += i + 1; } }
thread main { join(t); assert(s == 6); }
`, 20},
	{"spin-flag", `
shared int data; shared int flag;
thread producer { data = 42; flag = 1; }
thread consumer { while (flag == 0) {} assert(data == 42, "early"); }
`, 12},
	{"spin-flag-broken", `
shared int data; shared int flag;
thread producer { flag = 1; data = 42; }
thread consumer { while (flag == 0) {} assert(data == 42, "early"); }
`, 12},
	{"spin-yield", `
shared int turn;
thread a { while (turn != 0) { yield; } turn = 1; }
thread b { while (turn != 1) { yield; } turn = 0; }
`, 12},
	{"atomic-guard", `
shared int sem = 1; shared int inside;
thread t[2] { atomic { await(sem > 0); sem--; } inside++; assert(inside == 1); inside--; atomic { sem++; } }
`, 20},
	{"atomic-assume", `
shared int x;
thread a { atomic { assume(x == 0); x = 5; } }
thread b { x = 1; }
thread c { assert(x != 5, "five"); }
`, 10},
	{"division", `
shared int d = 1;
thread a { d = 0; }
thread b { int q = 10 / d; }
`, 8},
	{"shift", `
shared int s;
thread a { s = 40; }
thread b { int v = 1 << s; }
`, 8},
	{"relock", `
mutex m;
thread a { for (int i = 0; i < 2; i++) { lock(m); } }
`, 8},
	{"bad-unlock-other", `
mutex m;
thread a { lock(m); }
thread b { unlock(m); }
`, 8},
	{"mutex-array-computed", `
mutex f[3]; shared int meals;
thread p[3] { lock(f[tid]); lock(f[(tid + 1) % 3]); meals++; unlock(f[(tid + 1) % 3]); unlock(f[tid]); }
`, 20},
	{"guards-on-locals", `
mutex m[2]; shared int x; shared int f[2];
thread a { int i = 1; lock(m[i]); x = 1; unlock(m[i]); }
thread b { int j = 1; lock(m[j]); x = 2; unlock(m[j]); }
thread c { int k = 0; await(f[k] == 1); assert(x != 0, "too early"); }
thread d { f[0] = 1; }
`, 12},
	{"lock-held-at-exit", `
mutex m; shared int x;
thread a { lock(m); x = 1; }
thread b { lock(m); x = 2; unlock(m); }
`, 10},
	{"deep-then-shallow", `
shared int x; shared int y;
thread a { int n = nondet(0, 1); while (n > 0) { n--; } x = 1; }
thread b { y = 1; y = 2; y = 3; }
`, 9},
	{"late-assert", `
shared int x; shared int y;
thread a { x = 1; x = 2; x = 3; x = 4; }
thread b { y = 1; y = 2; y = 3; }
thread c { int v = x; assert(v != 4, "four"); }
`, 8},
	{"postponed-by-spinner", `
shared int a; shared int x;
thread spin { while (a == 0) { yield; } }
thread w { x = 1; x = 2; x = 3; }
thread r { int v = x; assert(v != 3, "three"); }
`, 8},
	{"independent-spinners", `
shared int a; shared int b;
thread s1 { while (a == 0) { yield; } }
thread s2 { while (b == 0) { yield; } }
thread go { a = 1; b = 1; }
`, 10},
	// A thread blocked on len(d) > 0 is enabled by the sender and disabled again by
	// the receiver: both belong to its necessary enabling set, or the mover, which
	// conflicts with the waiter, is always run before the window opens.
	{"len-guard-enablers", `
chan (int) d capacity 1;
process node {
    shared int x;
    thread waiter { atomic { await(len(d) > 0); x = 1; } }
    thread mover { x = 2; }
    thread check { join(waiter); join(mover); assert(x == 1, "the waiter ran after the mover"); }
}
process sender { thread run { send(d, 1); } }
process receiver { thread run { int v; recv(d, v); } }
`, 9},
	{"assume-len-window", `
chan (int) d capacity 1;
process node {
    shared int x;
    thread waiter { assume(len(d) > 0); x = 1; }
    thread mover { x = 2; }
}
process sender { thread run { send(d, 1); } }
process receiver { thread run { int v; recv(d, v); } }
`, 8},
}

// persistentCompare checks Persistent against DFS on p, with deadlocks reported and
// without: the same verdict; the same violation kind, or else one that some
// execution within the bound reaches; a counterexample that replays within the
// bound; and the same terminal states and deadlocks.
func persistentCompare(t *testing.T, p *ir.Program, opts Options) {
	t.Helper()
	persistentCompareWith(t, p, opts, Persistent{})
}

// persistentCompareWith is persistentCompare for a configured Persistent (its
// Options are replaced by opts).
func persistentCompareWith(t *testing.T, p *ir.Program, opts Options, a Persistent) {
	t.Helper()
	for _, noDeadlock := range []bool{false, true} {
		o := opts
		o.NoDeadlock = noDeadlock
		od, wantTerms := withTerminals(o)
		op, gotTerms := withTerminals(o)
		want := porCheck(t, DFS{Options: od}, p)
		a.Options = op
		got := porCheck(t, a, p)
		wantVerdict := want.Verdict
		if a.boundedOnly && wantVerdict == verify.Safe {
			wantVerdict = verify.BoundedSafe // it is told that some execution is too long
		}
		if got.Verdict != wantVerdict {
			t.Errorf("depth %d, no-deadlock %v: persistent says %s %s (%s); dfs says %s %s (%s)",
				o.Depth, noDeadlock, got.Verdict, porKind(got), got.Note, want.Verdict, porKind(want), want.Note)
			continue
		}
		if porKind(got) != porKind(want) {
			// Two different violations, each the first its search met
			// (verify.Outcome): correct if the one found is reachable within the bound.
			if kinds, _ := reachableKinds(p, o.Depth, noDeadlock); !kinds[got.Violation.Kind] {
				t.Errorf("depth %d, no-deadlock %v: persistent reports %s, which no execution within the bound reaches",
					o.Depth, noDeadlock, got.Violation.Kind)
			}
		}
		if got.Verdict == verify.Unsafe {
			if len(got.Trace) > o.Depth {
				t.Errorf("depth %d: counterexample of %d steps", o.Depth, len(got.Trace))
			}
			if _, _, err := p.Confirm(got.Trace, got.Violation.Kind); err != nil {
				t.Errorf("depth %d: counterexample does not replay: %v", o.Depth, err)
			}
			continue
		}
		if !noDeadlock {
			continue
		}
		if d := wantTerms.diff(p, gotTerms, "dfs", "persistent"); d != "" {
			t.Errorf("depth %d: %s", o.Depth, d)
		}
	}
}

func TestPersistentMatchesDFS(t *testing.T) {
	for _, tc := range persistentPrograms {
		t.Run(tc.name, func(t *testing.T) {
			p := porCompile(t, tc.name, tc.src, lang.Config{})
			// Every depth up to the given one: the bound must cut exactly where it
			// cuts DFS.
			for k := 1; k <= tc.depth; k++ {
				var o Options
				o.Depth = k
				persistentCompare(t, p, o)
				persistentCompareWith(t, p, o, Persistent{noCache: true})
				persistentCompareWith(t, p, o, Persistent{boundedOnly: true})
				persistentCompareWith(t, p, o, Persistent{boundedOnly: true, noCache: true})
				o.NoSleep = true
				persistentCompare(t, p, o)
				persistentCompareWith(t, p, o, Persistent{boundedOnly: true})
			}
		})
	}
}

// TestPersistentTestdata compares Persistent with DFS on every testdata program
// that compiles and that DFS checks within 2 seconds.
func TestPersistentTestdata(t *testing.T) {
	for _, td := range readTestdata(t) {
		t.Run(filepath.Base(td.path), func(t *testing.T) {
			p, err := lang.Compile(td.path, td.src, td.cfg)
			if err != nil {
				t.Fatal(err)
			}
			o := td.opts
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if r, err := (DFS{Options: o}).Check(ctx, p); err != nil || r.Verdict == verify.Unknown {
				return // too big for the reference: covered by benchmarks
			}
			persistentCompare(t, p, o)
		})
	}
}

// TestStuckMatchesDFS compares Persistent and DPOR with DFS on C programs in which a
// thread gets stuck for ever on an inner guard (ir.Template.Stuck: an assume,
// a lock or a join inside an atomic section that fails after a write). Such a thread
// sits at a location past Terminated(), which the static analyses and the
// enabling sets must know: it runs no code and nobody enables it.
func TestStuckMatchesDFS(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"assume", `
extern void reach_error(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int x, ready;
void *setter(void *arg) {
    __VERIFIER_atomic_begin();
    x = 1;
    __VERIFIER_assume(ready);
    x = 2;
    __VERIFIER_atomic_end();
    return 0;
}
int main(void) {
    unsigned long s;
    pthread_create(&s, 0, setter, 0);
    ready = 1;
    if (x == 1) reach_error();
    if (x == 2) reach_error();
    return 0;
}`},
		{"lock", `
extern void reach_error(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
typedef struct { int m; } mutex;
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_mutex_lock(mutex *m);
int pthread_mutex_unlock(mutex *m);
int z;
mutex m;
void *locker(void *arg) {
    __VERIFIER_atomic_begin();
    z = 1;
    pthread_mutex_lock(&m);
    z = 2;
    pthread_mutex_unlock(&m);
    __VERIFIER_atomic_end();
    return 0;
}
int main(void) {
    unsigned long l;
    pthread_create(&l, 0, locker, 0);
    pthread_mutex_lock(&m);
    int seen = z;
    pthread_mutex_unlock(&m);
    if (seen == 1) reach_error();
    return 0;
}`},
		{"join", `
extern void reach_error(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
int x, r;
void *w(void *a) { x = 1; return 0; }
void *seer(void *a) { if (r == 2) reach_error(); return 0; }
int main(void) {
    unsigned long t, s;
    pthread_create(&t, 0, w, 0);
    pthread_create(&s, 0, seer, 0);
    __VERIFIER_atomic_begin();
    r = 2;
    pthread_join(t, 0);
    r = x;
    __VERIFIER_atomic_end();
    if (r != 1) reach_error();
    return 0;
}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := cfront.Compile(filepath.Join(t.TempDir(), "p.i"), []byte(tc.src), cfront.Config{})
			if err != nil {
				t.Fatal(err)
			}
			stuck := false
			for _, tm := range p.Templates {
				for _, tr := range tm.Transitions {
					stuck = stuck || tr.InnerGuard
				}
			}
			if !stuck {
				t.Fatal("no transition with an inner guard: the test tests nothing")
			}
			for _, depth := range []int{4, 8, verify.DefaultDepth} {
				var o Options
				o.Depth = depth
				persistentCompare(t, p, o)
				for _, e := range dporEngines {
					comparePOR(t, e, p, o)
				}
			}
		})
	}
}

const persistentSeeds = 1000

// TestPersistentRandom compares Persistent with DFS on generated programs, spinning
// ones included (internal/progen).
func TestPersistentRandom(t *testing.T) {
	seeds := persistentSeeds
	if testing.Short() {
		seeds = 200
	}
	for seed := range uint64(seeds) {
		cfg := progen.DefaultConfig()
		depth := verify.DefaultDepth
		switch seed % 4 {
		case 1:
			cfg.Features |= progen.SpinLoops
			cfg.MaxThreads, cfg.MaxOps = 3, 3
			depth = 10 + int(seed%7)
		case 2:
			cfg.NoFold = true
		case 3:
			cfg.Width = 8
			depth = 6 + int(seed%9)
		}
		src, p := compileGenerated(t, seed, cfg)
		var o Options
		o.Depth = depth
		ok := t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			persistentCompare(t, p, o)
			// The bounded phase on its own, as it runs whenever some execution
			// is longer than the bound.
			bo := o
			bo.NoSleep = seed%3 == 0
			persistentCompareWith(t, p, bo, Persistent{boundedOnly: true})
		})
		if !ok {
			t.Logf("seed %d, depth %d:\n%s", seed, depth, src)
		}
	}
}

// TestPersistentExhaustivePhase checks the first phase on its own: it finds an
// execution longer than the bound exactly when DFS says bounded-safe.
func TestPersistentExhaustivePhase(t *testing.T) {
	for _, tc := range persistentPrograms {
		p := porCompile(t, tc.name, tc.src, lang.Config{})
		for k := 1; k <= tc.depth; k++ {
			var o Options
			o.Depth = k
			o.NoDeadlock = true
			want := porCheck(t, DFS{Options: o}, p)
			if want.Verdict == verify.Unsafe {
				continue
			}
			a, _ := algorithmNamed("persistent")
			x, err := newExecutor(context.Background(), p, a, o)
			if err != nil {
				t.Fatal(err)
			}
			s := newPersistentSearch(x.newWorker(0), false, false)
			s.exhaust(0)
			x.release()
			if s.long != (want.Verdict == verify.BoundedSafe) {
				t.Errorf("%s, depth %d: the exhaustive phase finds an execution longer than the bound: %v; dfs says %s",
					tc.name, k, s.long, want.Verdict)
			}
		}
	}
}

// TestPersistentReduces checks that independent threads are explored in one order
// only, as in the paper's Table 1: three threads of two independent writes each
// have 27 reachable states, the search stores 7 (one interleaving), and the sleep
// sets are not needed for that.
func TestPersistentReduces(t *testing.T) {
	p := porCompile(t, "w", persistentPrograms[0].src, lang.Config{})
	var o Options
	o.Depth = 10
	r, err := Persistent{Options: o}.Check(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verify.Safe || r.Stats.States != 7 || r.Stats.Executions != 1 {
		t.Errorf("got %s with %d states and %d executions, want safe with 7 and 1",
			r.Verdict, r.Stats.States, r.Stats.Executions)
	}
	want := []string{"executions", "transitions", "states", "sleep_blocked", "time_ms"}
	if strings.Join(r.StatKeys, " ") != strings.Join(want, " ") {
		t.Errorf("stat keys %v, want %v", r.StatKeys, want)
	}
}

// TestPersistentTimeout checks that the search stops when its context ends.
func TestPersistentTimeout(t *testing.T) {
	src := `
shared int c[6];
thread t[6] { for (int i = 0; i < 20; i++) { c[(tid + i) % 6] += 1; } }
`
	p := porCompile(t, "big", src, lang.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var o Options
	o.Depth = 1000
	r, err := Persistent{Options: o}.Check(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verify.Unknown {
		t.Errorf("verdict %s, want unknown", r.Verdict)
	}
}

// TestPersistentSharedTables runs several searches of persistent and of
// process-local at once from the initial state, phase by phase as a parallel run
// does (executor.runPhases), all searches of a phase sharing its table, so that they meet
// each other's records under way on nearly every state, and requires of them
// together what the sequential search guarantees: a violation exactly when dfs
// finds one (replayed, of a kind some execution within the bound reaches), and
// otherwise, together, every terminal state and deadlock dfs reaches. Each
// search has an outcome of its own, so a search that finds a violation does not
// stop the others, which may then skip states whose visits it abandoned: the
// check of terminal states applies only when none finds one. Both phases run,
// and the bounded phase on its own. Run it with -race.
func TestPersistentSharedTables(t *testing.T) {
	var progs []namedProgram
	for _, tc := range persistentPrograms {
		progs = append(progs, namedProgram{tc.name, porCompile(t, tc.name, tc.src, lang.Config{}), tc.depth})
	}
	seeds := uint64(120)
	if testing.Short() {
		seeds = 30
	}
	for seed := range seeds {
		cfg := progen.DefaultConfig()
		depth := verify.DefaultDepth
		if seed%2 == 1 {
			cfg.Features |= progen.SpinLoops
			cfg.MaxThreads, cfg.MaxOps = 3, 3
			depth = 10 + int(seed%7)
		}
		_, p := compileGenerated(t, seed, cfg)
		progs = append(progs, namedProgram{fmt.Sprintf("seed%d", seed), p, depth})
	}
	for _, pr := range progs {
		for _, algo := range []string{"persistent", "process-local"} {
			for _, boundedOnly := range []bool{false, true} {
				for _, workers := range []int{2, 4} {
					name := fmt.Sprintf("%s/%s/bounded=%v/workers=%d", pr.name, algo, boundedOnly, workers)
					if err := sharedTablesAgree(pr.p, pr.depth, algo, boundedOnly, workers); err != "" {
						t.Errorf("%s: %s", name, err)
					}
				}
			}
		}
	}
}

// sharedTablesAgree runs workers searches sharing tables (see
// TestPersistentSharedTables) and says how they together differ from dfs.
func sharedTablesAgree(p *ir.Program, depth int, algo string, boundedOnly bool, workers int) string {
	var o Options
	o.Depth, o.NoDeadlock = depth, true
	od, want := withTerminals(o)
	ref, err := DFS{Options: od}.Check(context.Background(), p)
	if err != nil {
		return err.Error()
	}
	op, got := withTerminals(o)
	var results []*verify.Result
	phase := func(tables *persistentTables, n int) error {
		var e engine = Persistent{Options: op}
		if algo == "process-local" {
			e = ProcessLocal{Options: op}
		}
		tasks := make([]*task, workers)
		for w := range tasks {
			tasks[w] = &task{phase: n}
		}
		r, err := runSearches(context.Background(), p, algo, e, &sharing{workers: workers, tables: tables}, tasks)
		if err != nil {
			return err
		}
		results = append(results, r)
		return nil
	}
	long := true
	if !boundedOnly {
		exhaustive := newPersistentTables(workers, len(p.Threads), false)
		if err := phase(exhaustive, 0); err != nil {
			return err.Error()
		}
		long = exhaustive.long.Load()
	}
	if long {
		if err := phase(newPersistentTables(workers, len(p.Threads), true), 1); err != nil {
			return err.Error()
		}
	}
	var unsafe *verify.Result
	for w, r := range results {
		switch r.Verdict {
		case verify.Unknown:
			return "unknown: " + r.Note
		case verify.Unsafe:
			unsafe = r
			if _, _, err := p.Confirm(r.Trace, r.Violation.Kind); err != nil {
				return fmt.Sprintf("search %d: counterexample does not replay: %v", w, err)
			}
			if kinds, _ := reachableKinds(p, depth, true); !kinds[r.Violation.Kind] {
				return fmt.Sprintf("search %d reports %s, which no execution within the bound reaches", w, r.Violation.Kind)
			}
		}
	}
	switch {
	case unsafe == nil && ref.Verdict == verify.Unsafe:
		return "no search found a violation; dfs: " + verdictString(ref)
	case unsafe != nil && ref.Verdict != verify.Unsafe:
		return verdictString(unsafe) + "; dfs: " + verdictString(ref)
	case unsafe == nil && !long && ref.Verdict != verify.Safe:
		return "no execution is longer than the bound; dfs: " + verdictString(ref)
	case unsafe == nil:
		return want.diff(p, got, "dfs", algo)
	}
	return ""
}

// TestPersistentKeptProbes checks that a probe the search keeps from the parent
// state (the last step is independent of the thread's next step) is the probe
// of the state: on the persistent programs, the testdata and the protocol
// families, every kept probe is probed again and compared (verifyReuse
// panics on a difference), and the search stores the states it stores when it
// probes every thread in every state.
func TestPersistentKeptProbes(t *testing.T) {
	type program struct {
		name  string
		p     *ir.Program
		depth int
	}
	var programs []program
	for _, tc := range persistentPrograms {
		programs = append(programs, program{tc.name, porCompile(t, tc.name, tc.src, lang.Config{}), tc.depth})
	}
	for _, fam := range []struct {
		name string
		n    int64
	}{
		{"ring-election", 6}, {"two-phase-commit", 3}, {"primary-secondary", 3},
		{"token-ring", 4}, {"database-partitioning", 2},
	} {
		programs = append(programs, program{fmt.Sprintf("%s/N=%d", fam.name, fam.n), loadFamily(t, fam.name, fam.n, false), 400})
	}
	for _, pr := range programs {
		t.Run(pr.name, func(t *testing.T) {
			for _, bounded := range []bool{false, true} {
				var o Options
				o.Depth = pr.depth
				o.Workers = 1
				all := porCheck(t, Persistent{Options: o, boundedOnly: bounded, noReuse: true}, pr.p)
				kept := porCheck(t, Persistent{Options: o, boundedOnly: bounded, verifyReuse: true}, pr.p)
				if kept.Verdict != all.Verdict || kept.Stats.States != all.Stats.States {
					t.Errorf("bounded only %v: with kept probes %s, %d states; probing every thread %s, %d states",
						bounded, kept.Verdict, kept.Stats.States, all.Verdict, all.Stats.States)
				}
				t.Logf("bounded only %v: %d transitions with kept probes, %d probing every thread", bounded, kept.Stats.Transitions, all.Stats.Transitions)
			}
		})
	}
}

// TestPersistentKeptProbesTestdata is TestPersistentKeptProbes on every testdata
// program that dfs checks within 2 seconds: every kept probe is probed again
// (verifyReuse panics on a difference), and the search stores what it stores
// probing every thread in every state.
func TestPersistentKeptProbesTestdata(t *testing.T) {
	for _, td := range readTestdata(t) {
		t.Run(filepath.Base(td.path), func(t *testing.T) {
			p, err := lang.Compile(td.path, td.src, td.cfg)
			if err != nil {
				t.Fatal(err)
			}
			o := td.opts
			o.Workers = 1
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if r, err := (DFS{Options: o}).Check(ctx, p); err != nil || r.Verdict == verify.Unknown {
				return // too big for the reference
			}
			all := porCheck(t, Persistent{Options: o, noReuse: true}, p)
			kept := porCheck(t, Persistent{Options: o, verifyReuse: true}, p)
			if kept.Verdict != all.Verdict || kept.Stats.States != all.Stats.States {
				t.Errorf("with kept probes %s, %d states; probing every thread %s, %d states",
					kept.Verdict, kept.Stats.States, all.Verdict, all.Stats.States)
			}
		})
	}
}
