package explicit

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kbmc/cfront"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// porProgram is a small program for the differential tests of the partial-order
// reduced searches: every one must give DFS's verdict and violation kind.
type porProgram struct {
	name  string
	depth int    // search depth
	want  string // DFS's verdict, so that the table keeps covering what it claims to
	src   string
}

var porPrograms = []porProgram{
	{"racy-increment", 30, "unsafe", `
shared int x = 0;
thread w[2] { int t = x; x = t + 1; }
thread main { join(w); assert(x == 2, "lost update"); }`},
	{"locked-increment", 30, "safe", `
shared int x = 0;
mutex m;
thread w[2] { lock(m); int t = x; x = t + 1; unlock(m); }
thread main { join(w); assert(x == 2, "lost update"); }`},
	{"abba-deadlock", 30, "unsafe", `
shared int x = 0;
mutex a;
mutex b;
thread one { lock(a); lock(b); x++; unlock(b); unlock(a); }
thread two { lock(b); lock(a); x--; unlock(a); unlock(b); }`},
	{"await-handoff", 30, "safe", `
shared int data = 0;
shared int flag = 0;
thread producer { data = 42; flag = 1; }
thread consumer { await(flag == 1); assert(data == 42); }`},
	{"await-never", 30, "unsafe", `
shared int x = 0;
thread writer[2] { x = tid + 1; }
thread consumer { await(x == 3); x = 0; }`},
	{"await-disabled-by-write", 30, "unsafe", `
shared int x = 0;
shared int y = 0;
thread t1 { x = 1; }
thread t2 { await(x == 0); y = 1; assert(y == 0, "t2 got through"); }`},
	{"atomic-guard-body-race", 30, "unsafe", `
shared int x = 0;
shared int y = 0;
thread a { atomic { await(x == 1); y = 1; } }
thread b { x = 1; int t = y; assert(t == 0, "saw the guarded write"); }`},
	{"atomic-guard-blocked-body", 30, "unsafe", `
shared int x = 0;
shared int y = 0;
shared int z = 0;
thread a { atomic { await(x == 1); y = z; } }
thread b { z = 5; x = 1; }
thread c { int t = y; z = 7; assert(t != 5 || z != 7); }`},
	{"assume-filter", 30, "safe", `
shared int d = 0;
shared int q = 0;
thread chooser { int v = nondet(0, 5); assume(v != 0 && v != 3); d = v; }
thread divider { atomic { assume(d != 0); q = 60 / d; } assert(q * d == 60); }`},
	{"assume-cuts-blocked", 30, "safe", `
shared int x = 0;
mutex m;
thread a { lock(m); assume(x == 1); unlock(m); }
thread b { lock(m); x = 1; unlock(m); }`},
	{"await-blocked-deadlock", 30, "unsafe", `
shared int x = 0;
mutex m;
thread a { lock(m); await(x == 1); unlock(m); }
thread b { lock(m); x = 1; unlock(m); }`},
	{"cas-retry", 40, "safe", `
shared int x = 0;
thread incr[2] {
    bool ok = false;
    int old = 0;
    while (!ok) { old = x; ok = cas(x, old, old + 1); }
}
thread main { join(incr); assert(x == 2); }`},
	{"cas-claim", 30, "safe", `
shared int winner = -1;
shared int wins = 0;
thread claimant[3] { if (cas(winner, -1, tid)) { wins++; } }
thread main { join(claimant); assert(wins == 1 && winner >= 0); }`},
	{"nondet-array-index", 30, "unsafe", `
shared int a[4];
thread w { int i = nondet(0, 3); a[i] = 1; }
thread r { int j = nondet(1, 2); int v = a[j]; assert(v == 0, "read a written cell"); }`},
	{"nondet-array-index-safe", 30, "safe", `
shared int a[4];
shared int hits = 0;
thread w[2] { int i = nondet(0, 3); a[i] = a[i] + 1; }
thread r { int j = nondet(0, 3); if (a[j] > 0) { hits++; } }
thread main { join(w); join(r); assert(a[0] + a[1] + a[2] + a[3] == 2); }`},
	{"atomic-nondet-index", 30, "unsafe", `
shared int a[3];
shared int s = 0;
thread w { atomic { int i = nondet(0, 2); a[i] = i + 1; s = s + i; } }
thread r { int v = a[2]; int t = s; assert(v == 0 || t == 2, "inconsistent"); assert(v != 3, "saw 3"); }`},
	{"computed-index-toctou", 30, "unsafe", `
shared int idx = 3;
shared int buf[4];
thread mover { idx = 4; }
thread user { if (idx < 4) { buf[idx] = 1; } }`},
	{"divzero-toctou", 30, "unsafe", `
shared int d = 4;
shared int q = 0;
thread zeroer { d = 0; }
thread divider { if (d != 0) { q = 100 / d; } }`},
	{"shift-racy", 30, "unsafe", `
shared int amt = 2;
shared int r = 0;
thread setter { amt = -1; }
thread shifter { int a = amt; r = 256 >> a; }`},
	{"bad-unlock-other", 30, "unsafe", `
shared int x = 0;
mutex m;
thread owner { lock(m); x = 1; unlock(m); }
thread meddler { if (x == 1) { unlock(m); } }`},
	{"relock-racy", 30, "unsafe", `
shared int flag = 0;
mutex m;
thread a { lock(m); if (flag == 1) { lock(m); } unlock(m); }
thread b { flag = 1; }`},
	{"lock-array-shared-index", 30, "unsafe", `
shared int sel = 0;
shared int c = 0;
mutex ms[2];
thread a { lock(ms[sel]); c++; unlock(ms[0]); }
thread b { sel = 1; }`},
	{"join-instance", 30, "safe", `
shared int r[2];
thread w[2] { r[tid] = tid + 1; }
thread main { join(w[1]); assert(r[1] == 2); int v = r[0]; assert(v == 0 || v == 1); }`},
	{"join-shared-index", 30, "unsafe", `
shared int which = 0;
shared int r[2];
thread w[2] { r[tid] = 1; }
thread chooser { which = 1; }
thread main { join(w[which]); int v = r[0]; assert(v == 1, "joined the other one"); }`},
	{"join-blocked-deadlock", 30, "unsafe", `
shared int go = 0;
thread w { await(go == 1); }
thread main { join(w); go = 1; }`},
	{"lock-held-at-exit", 30, "unsafe", `
mutex m;
shared int x = 0;
thread a { lock(m); x = 1; }
thread b { lock(m); x = 2; unlock(m); }`},
	{"producer-consumer", 40, "safe", `
shared int buf = 0;
shared int full = 0;
shared int sum = 0;
thread producer { for (int i = 1; i <= 2; i++) { await(full == 0); buf = i; full = 1; } }
thread consumer { for (int i = 0; i < 2; i++) { await(full == 1); sum += buf; full = 0; } }
thread main { join(producer); join(consumer); assert(sum == 3); }`},
	{"philosophers-deadlock", 30, "unsafe", `
mutex fork[3];
thread phil[3] {
    lock(fork[tid]);
    lock(fork[(tid + 1) % 3]);
    unlock(fork[(tid + 1) % 3]);
    unlock(fork[tid]);
}`},
	{"philosophers-ordered", 40, "safe", `
mutex fork[3];
shared int meals = 0;
thread phil[3] {
    lock(fork[tid < (tid + 1) % 3 ? tid : (tid + 1) % 3]);
    lock(fork[tid < (tid + 1) % 3 ? (tid + 1) % 3 : tid]);
    meals++;
    unlock(fork[tid < (tid + 1) % 3 ? (tid + 1) % 3 : tid]);
    unlock(fork[tid < (tid + 1) % 3 ? tid : (tid + 1) % 3]);
}
thread main { join(phil); assert(meals == 3); }`},
	{"readers-writers", 30, "safe", `
shared int x = 0;
shared int l[3];
thread writer { x = 42; }
thread reader[3] { int a = l[tid]; int b = x; assert(a == 0 && (b == 0 || b == 42)); }`},
	{"independent-writers", 30, "safe", `
shared int a[3];
thread w[3] { a[tid] = 1; a[tid] = a[tid] + 1; }
thread main { join(w); assert(a[0] + a[1] + a[2] == 6); }`},
	{"branching", 30, "safe", `
shared int x[3];
thread b[3] {
    if (x[tid] == 0) { x[(tid + 1) % 3] = 1; }
    if (x[tid] == 0) { x[(tid + 1) % 3] = 1; }
}
thread main { join(b); assert(x[0] + x[1] + x[2] >= 1); }`},
	{"fib-small", 30, "unsafe", `
shared int i = 1;
shared int j = 1;
thread t1 { for (int k = 0; k < 2; k++) { i = i + j; } }
thread t2 { for (int k = 0; k < 2; k++) { j = j + i; } }
thread main { join(t1); join(t2); assert(i <= 5 && j <= 5, "fib"); }`},
	{"late-local-violation", 2, "unsafe", `
shared int y = 0;
shared int z = 0;
thread t1 { y = 1; y = 2; y = 3; }
thread t2 { int a = 0; int l = z; assert(l == 1, "late"); }`},
	{"late-local-violation-deeper", 4, "unsafe", `
shared int y = 0;
shared int z = 0;
thread t1 { y = 1; y = 2; y = 3; y = 4; y = 5; }
thread t2 { z = 1; int l = y; assert(l == 0, "y moved"); }
thread t3 { int a = z; int b = y; assert(a == 0 || b != 0, "z before y"); }`},
	{"depth-bound-hides", 6, "bounded-safe", `
shared int x = 0;
thread counter { for (int i = 0; i < 10; i++) { x++; } assert(x != 10); }
thread other { x = 100; }`},
	{"spin-empty-body", 10, "bounded-safe", `
shared int data = 0;
shared int flag = 0;
thread producer { data = 42; flag = 1; }
thread consumer { while (flag == 0) {} assert(data == 42); }`},
	{"spin-broken", 12, "unsafe", `
shared int data = 0;
shared int flag = 0;
thread producer { flag = 1; data = 42; }
thread consumer { while (flag == 0) {} assert(data == 42, "too early"); }`},
	{"yield-handoff", 12, "bounded-safe", `
shared bool ready;
shared int payload = 0;
thread setter { payload = 7; ready = true; }
thread waiter { while (!ready) { yield; } assert(payload == 7); }`},
	{"cas-spinlock", 16, "bounded-safe", `
shared int lk = 0;
shared int count = 0;
thread worker[2] {
    while (!cas(lk, 0, 1)) { yield; }
    int t = count;
    count = t + 1;
    lk = 0;
}
thread main { join(worker); assert(count == 2); }`},
	{"peterson", 14, "bounded-safe", `
shared bool flag[2];
shared int turn = 0;
shared int inside = 0;
thread p[2] {
    flag[tid] = true;
    turn = 1 - tid;
    while (flag[1 - tid] && turn == 1 - tid) {}
    inside++;
    assert(inside == 1, "mutual exclusion");
    inside--;
    flag[tid] = false;
}`},
	{"peterson-broken", 14, "unsafe", `
shared bool flag[2];
shared int turn = 0;
shared int inside = 0;
thread p[2] {
    turn = 1 - tid;
    flag[tid] = true;
    while (flag[1 - tid] && turn == 1 - tid) {}
    inside++;
    assert(inside == 1, "mutual exclusion");
    inside--;
    flag[tid] = false;
}`},
	{"while-true-ticker", 10, "bounded-safe", `
shared int ticks = 0;
thread ticker { while (true) { ticks++; } }
thread observer { int a = ticks; int b = ticks; assert(b >= a); }`},
	{"semaphore-atomic", 40, "safe", `
shared int sem = 1;
shared int inside = 0;
thread user[2] {
    atomic { await(sem > 0); sem--; }
    inside++;
    assert(inside == 1);
    inside--;
    atomic { sem++; }
}`},
	{"lost-wakeup", 30, "unsafe", `
shared int ready = 0;
shared int waiting = 0;
thread waiter { int r = ready; if (r == 0) { waiting = 1; await(ready == 2); } }
thread signaller { ready = 1; if (waiting == 1) { ready = 2; } }`},
	{"three-way-race", 30, "unsafe", `
shared int x = 0;
thread a { x = 1; }
thread b { x = 2; }
thread c { int u = x; int v = x; assert(!(u == 2 && v == 1), "2 then 1"); }`},
	{"yield-only", 30, "safe", `
shared int x = 0;
thread a { yield; x = 1; yield; }
thread b { yield; int t = x; yield; assert(t == 0 || t == 1); }`},
	{"lock-local-index", 30, "unsafe", `
mutex fork[2];
thread phil[2] {
    int left = tid;
    int right = (tid + 1) % 2;
    lock(fork[left]);
    lock(fork[right]);
    unlock(fork[right]);
    unlock(fork[left]);
}`},
	{"await-local-operand", 30, "safe", `
shared int x = 0;
thread setter { x = 1; x = 2; }
thread waiter { int want = 2; await(x == want); int got = x; assert(got == 2); }`},
	// beta's cas reads x and then accesses a[x & 1]: its location depends on shared
	// state. Alpha's increment must follow that cas, which in turn must follow
	// gamma's x += 1; FG05's rule (reverse the latest race only) never gets there.
	{"dynamic-footprint", 21, "safe", `
shared int x = 0;
shared int a[2] = {0, 2};
mutex m;
thread alpha { lock(m); atomic { a[1]++; } unlock(m); }
thread beta { a[0] = a[1]; assert(a[0] != 1); cas(a[x & 1], 2, 1); }
thread gamma { int l1 = x; a[(0 - a[x & 1]) & 1] = x; x += 1; }
thread main { join(alpha); assert(x != 3, "invariant broken"); }`},
	// A join waits for a thread's end: the race between that end and the join
	// cannot be reversed (ir.OnlyEnables), but c's write must still be moved
	// between a's and the read after the join.
	{"join-then-read", 30, "unsafe", `
shared int x = 0;
thread a { x = 1; }
thread c { x = 2; }
thread b { join(a); int v = x; assert(v == 1, "c wrote after a"); }`},
	{"join-then-read-safe", 30, "safe", `
shared int x = 0;
thread a { x = 1; }
thread c { join(a); x = 2; }
thread b { join(c); int v = x; assert(v == 2, "a wrote after c"); }`},
	{"nested-nondet", 30, "unsafe", `
shared int a[3];
thread w { int i = nondet(0, 2); int j = nondet(1, 3); a[i] = j; a[(i + j) % 3] = i; }
thread r { int v = a[2]; int u = a[1]; assert(v != 3 || u != 0, "a[2] == 3 while a[1] == 0"); }`},
}

// porEngine builds one of this file's engines from opts.
type porEngine struct {
	name string
	make func(Options) verify.Engine
}

// comparePOR checks an engine against DFS on p: the same verdict and violation
// kind (the counterexample has been replayed by the executor), and, when DFS with
// NoDeadlock explores every execution to its end, the same terminal states and
// deadlocks.
func comparePOR(t *testing.T, e porEngine, p *ir.Program, opts Options) {
	t.Helper()
	ref := porCheck(t, DFS{Options: opts}, p)
	got := porCheck(t, e.make(opts), p)
	if got.Verdict != ref.Verdict || porKind(got) != porKind(ref) {
		t.Errorf("%s: %s %s, dfs: %s %s", e.name, got.Verdict, porKind(got), ref.Verdict, porKind(ref))
	}
	all := opts
	all.NoDeadlock = true
	refOpts, refSet := withTerminals(all)
	if porCheck(t, DFS{Options: refOpts}, p).Verdict != verify.Safe {
		return
	}
	gotOpts, gotSet := withTerminals(all)
	if r := porCheck(t, e.make(gotOpts), p); r.Verdict != verify.Safe {
		t.Errorf("%s with no-deadlock: %s, dfs: safe", e.name, r.Verdict)
	}
	if d := refSet.diff(p, gotSet, "dfs", e.name); d != "" {
		t.Errorf("%s: %s", e.name, d)
	}
}

var dporEngines = []porEngine{
	{"dpor", func(o Options) verify.Engine { return DPOR{Options: o} }},
	{"dpor-nosleep", func(o Options) verify.Engine { o.NoSleep = true; return DPOR{Options: o} }},
}

// eachPORProgram runs f in a parallel subtest on every program of porPrograms,
// compiled with and without constant folding.
func eachPORProgram(t *testing.T, f func(t *testing.T, pp porProgram, p *ir.Program, noFold bool)) {
	for _, pp := range porPrograms {
		for _, noFold := range []bool{false, true} {
			name := pp.name
			if noFold {
				name += "/no-fold"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f(t, pp, porCompile(t, pp.name, pp.src, lang.Config{NoFold: noFold}), noFold)
			})
		}
	}
}

func TestDPORMatchesDFS(t *testing.T) {
	eachPORProgram(t, func(t *testing.T, pp porProgram, p *ir.Program, noFold bool) {
		var opts Options
		opts.Depth = pp.depth
		if !noFold {
			if r := porCheck(t, DFS{Options: opts}, p); r.Verdict.String() != pp.want {
				t.Fatalf("dfs: %s %s, the table says %s", r.Verdict, porKind(r), pp.want)
			}
		}
		for _, e := range dporEngines {
			comparePOR(t, e, p, opts)
		}
	})
}

// porTestdata is one annotated program of testdata/ that the explicit engine can run.
type porTestdata struct {
	name string
	prog *ir.Program
	opts Options
}

// loadPORTestdata compiles the programs of readTestdata and keeps those whose DFS
// run ends within 2 s.
func loadPORTestdata(t *testing.T) []porTestdata {
	t.Helper()
	var out []porTestdata
	for _, td := range readTestdata(t) {
		f, opts := td.path, td.opts
		p, err := lang.Compile(f, td.src, td.cfg)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r, err := DFS{Options: opts}.Check(ctx, p)
		cancel()
		var unsupported *verify.UnsupportedError
		switch {
		case errors.As(err, &unsupported):
			continue
		case err != nil:
			t.Errorf("%s: dfs: %v", f, err)
			continue
		case r.Verdict == verify.Unknown:
			continue // too big for a differential unit test
		}
		out = append(out, porTestdata{filepath.Base(f), p, opts})
	}
	return out
}

func TestDPORTestdata(t *testing.T) {
	for _, td := range loadPORTestdata(t) {
		t.Run(td.name, func(t *testing.T) {
			t.Parallel()
			for _, e := range dporEngines {
				comparePOR(t, e, td.prog, td.opts)
			}
		})
	}
}

// A violation that only a thread's second step reaches must be found even when the
// first execution explored spends the whole depth in another, independent thread:
// reordering independent steps can move a step past the bound.
func TestDPORDepthBoundCut(t *testing.T) {
	p := porCompile(t, "late", `
shared int y = 0;
shared int z = 0;
thread t1 { y = 1; y = 2; }
thread t2 { int a = 0; int l = z; assert(l == 1, "late"); }`, lang.Config{})
	for depth := 1; depth <= 3; depth++ {
		var opts Options
		opts.Depth = depth
		for _, e := range dporEngines {
			r := porCheck(t, e.make(opts), p)
			want := verify.BoundedSafe
			if depth >= 2 {
				want = verify.Unsafe
			}
			if r.Verdict != want {
				t.Errorf("%s at depth %d: %s, want %s", e.name, depth, r.Verdict, want)
			}
		}
	}
}

// Readers-writers (thesis §6.3.1): with sleep sets DPOR explores one execution per
// Mazurkiewicz trace, the 2^N choices of which readers read x before the write.
// With N = 2, FG05's backtracking rule combined with sleep sets misses the trace in
// which reader 1 reads before the write and reader 0 after it (see reverse).
func TestDPORReadersWriters(t *testing.T) {
	const src = `
const N = 2;
shared int x = 0;
shared int l[N];
thread writer { x = 42; }
thread reader[N] { int a = l[tid]; int b = x; assert(a == 0 && (b == 0 || b == 42)); }`
	for n := int64(1); n <= 5; n++ {
		p := porCompile(t, "rw", src, lang.Config{Defines: map[string]int64{"N": n}})
		var opts Options
		if n <= 3 {
			comparePOR(t, dporEngines[0], p, opts)
		}
		r := porCheck(t, DPOR{Options: opts}, p)
		if r.Verdict != verify.Safe || r.Stats.Executions != 1<<n {
			t.Errorf("N=%d: %s with %d executions, want safe with %d", n, r.Verdict, r.Stats.Executions, 1<<n)
		}
	}
}

// The indexer (FG05, thesis §6.3.2) without hash collisions has a single
// Mazurkiewicz trace: DPOR explores one execution where DFS explores thousands.
func TestDPORIndexer(t *testing.T) {
	p := porCompile(t, "indexer", `
const N = 2;
const SIZE = 128;
const MAX = 2;
shared int table[SIZE];
func hash(int w) int { return (w * 7) % SIZE; }
thread indexer[N] {
    int m = 0;
    int h = 0;
    while (m < MAX) {
        m++;
        h = hash(m * 11 + tid);
        while (!cas(table[h], 0, m * 11 + tid)) { h = (h + 1) % SIZE; }
    }
}`, lang.Config{})
	for _, e := range dporEngines {
		r := porCheck(t, e.make(Options{}), p)
		if r.Verdict != verify.Safe || r.Stats.Executions != 1 {
			t.Errorf("%s: %s with %d executions, want safe with 1", e.name, r.Verdict, r.Stats.Executions)
		}
	}
}

func TestDPORStats(t *testing.T) {
	p := porCompile(t, "abba", porPrograms[2].src, lang.Config{})
	r := porCheck(t, DPOR{}, p)
	if r.Algo != "dpor" || r.Engine != "explicit" {
		t.Errorf("engine %q algo %q", r.Engine, r.Algo)
	}
	if got := strings.Join(r.StatKeys, ","); got != "executions,transitions,sleep_blocked,time_ms" {
		t.Errorf("stat keys %s", got)
	}
	var opts Options
	opts.NoSleep = true
	r = porCheck(t, DPOR{Options: opts}, p)
	if got := strings.Join(r.StatKeys, ","); got != "executions,transitions,time_ms" {
		t.Errorf("no-sleep stat keys %s", got)
	}
	if r.Bound.Preemptions != -1 || r.Bound.Fair != -1 {
		t.Errorf("bound %+v", r.Bound)
	}
}

func TestDPORCancelled(t *testing.T) {
	p := porCompile(t, "spin", `
shared int x = 0;
thread t[4] { while (true) { x++; } }`, lang.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, e := range dporEngines {
		r, err := e.make(Options{}).Check(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != verify.Unknown {
			t.Errorf("%s: %s after cancellation, want unknown", e.name, r.Verdict)
		}
	}
}

func TestDPORUnsupported(t *testing.T) {
	p := porCompile(t, "nd", `
shared int x = 0;
thread t { x = nondet(); }`, lang.Config{})
	var unsupported *verify.UnsupportedError
	if _, err := (DPOR{}).Check(context.Background(), p); !errors.As(err, &unsupported) {
		t.Errorf("got %v, want an UnsupportedError", err)
	}
}

// TestDPORJoinsC checks DPOR against DFS on C programs whose main joins its
// threads, where joinWaits skips the races of main's join (its accesses are
// threads' ends and start cells, accessed only after main's latest step) and
// where it must not: a join that reads shared data to name its thread, a
// join with a result, and a join after main has raced with a thread. The C
// form of readers-writers has one execution per Mazurkiewicz trace, as the
// .kb form (TestDPORReadersWriters).
func TestDPORJoinsC(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		execs     int64 // 0: not checked
	}{
		{"readers-writers", `
#include <pthread.h>
int x;
int l[3];
void *writer(void *arg) { x = 42; return 0; }
void *reader(void *arg) { int tid = (int)(long)arg; int a = l[tid]; int b = x; return 0; }
int main(void) {
    pthread_t w, r[3];
    pthread_create(&w, 0, writer, 0);
    for (int i = 0; i < 3; i++) pthread_create(&r[i], 0, reader, (void *)(long)i);
    pthread_join(w, 0);
    for (int i = 0; i < 3; i++) pthread_join(r[i], 0);
    return 0;
}`, 8},
		{"join named by shared data", `
extern void reach_error(void);
unsigned long h[2];
int g, x;
void *w(void *p) { g = 1; x = x + 1; return 0; }
int main(void) {
    pthread_create(&h[0], 0, w, 0);
    pthread_create(&h[1], 0, w, 0);
    pthread_join(h[0], 0);
    pthread_join(h[g], 0);
    if (x != 2) reach_error();
    return 0;
}`, 0},
		{"join with a result", `
extern void reach_error(void);
int x;
void *w(void *p) { x = x + 1; return (void *)(long)x; }
int main(void) {
    unsigned long a, b;
    void *r;
    pthread_create(&a, 0, w, 0);
    pthread_create(&b, 0, w, 0);
    pthread_join(a, &r);
    pthread_join(b, 0);
    if ((long)r == 2) reach_error();
    return 0;
}`, 0},
		{"main races before its last join", `
extern void reach_error(void);
int x, y;
void *t1(void *p) { y = 1; return 0; }
void *t2(void *p) { if (x == 1) y = 2; return 0; }
int main(void) {
    unsigned long a, b;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    x = 1;
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (y == 2) reach_error();
    return 0;
}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := cfront.Compile("p.c", []byte(tc.src), cfront.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var opts Options
			for _, e := range dporEngines {
				comparePOR(t, e, p, opts)
			}
			if r := porCheck(t, DPOR{Options: opts}, p); tc.execs > 0 && r.Stats.Executions != tc.execs {
				t.Errorf("%d executions, want %d", r.Stats.Executions, tc.execs)
			}
		})
	}
}
