package ir_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"kbmc/cfront"
	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/symbolic"
	"kbmc/verify"
)

// nondetRanges compiles C source src and returns the ranges of its nondet
// draws, in the order of the threads' nodes.
func nondetRanges(t *testing.T, src string) (*ir.Program, []ir.Interval) {
	t.Helper()
	p, err := cfront.Compile("narrow.i", []byte(src), cfront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var rs []ir.Interval
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			for e := range n.Exprs() {
				ir.Inspect(e, func(x *ir.Expr) bool {
					if x.Op == ir.ENondet {
						rs = append(rs, ir.Interval{Lo: x.Lo, Hi: x.Hi})
					}
					return true
				})
			}
		}
	}
	return p, rs
}

// checked runs eng, which New returned with err, on p.
func checked(t *testing.T, eng interface {
	Check(context.Context, *ir.Program) (*verify.Result, error)
}, err error, p *ir.Program) *verify.Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Check(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const narrowHeader = `extern void reach_error(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
void assume_abort_if_not(int cond) { if (!cond) { abort(); } }
void abort(void);
int g;
`

// A draw into a thread's own local, assumed at once to lie in an interval,
// is drawn from that interval; anything else keeps its range.
func TestNarrowNondets(t *testing.T) {
	const (
		u32 = 1<<32 - 1
		i32 = 1<<31 - 1
	)
	for _, c := range []struct {
		name string
		body string
		want ir.Interval
	}{
		{"unsigned below", `unsigned int x = __VERIFIER_nondet_uint(); assume_abort_if_not(x < 5); g = x;`, ir.Interval{Lo: 0, Hi: 4}},
		{"signed both ends", `int x = __VERIFIER_nondet_int(); assume_abort_if_not(0 <= x && x < 4); g = x;`, ir.Interval{Lo: 0, Hi: 3}},
		{"assigned, not declared", `int x; x = __VERIFIER_nondet_int(); assume_abort_if_not(x >= -2 && 7 >= x); g = x;`, ir.Interval{Lo: -2, Hi: 7}},
		{"if not, abort", `int x = __VERIFIER_nondet_int(); if (!(x > 10 && x <= 12)) abort(); g = x;`, ir.Interval{Lo: 11, Hi: 12}},
		{"equal", `int x = __VERIFIER_nondet_int(); assume_abort_if_not(x == 3); g = x;`, ir.Interval{Lo: 3, Hi: 3}},
		{"a global", `g = __VERIFIER_nondet_int(); assume_abort_if_not(g < 5);`, ir.Interval{Lo: -i32 - 1, Hi: i32}},
		{"a statement between", `int x = __VERIFIER_nondet_int(); g = 1; assume_abort_if_not(x < 5); g = x;`, ir.Interval{Lo: -i32 - 1, Hi: i32}},
		{"not equal", `int x = __VERIFIER_nondet_int(); assume_abort_if_not(x != 3); g = x;`, ir.Interval{Lo: -i32 - 1, Hi: i32}},
		{"a disjunction", `int x = __VERIFIER_nondet_int(); assume_abort_if_not(x < 3 || x > 7); g = x;`, ir.Interval{Lo: -i32 - 1, Hi: i32}},
		{"another variable", `int y = 0; int x = __VERIFIER_nondet_int(); assume_abort_if_not(y < 5); g = x + y;`, ir.Interval{Lo: -i32 - 1, Hi: i32}},
		{"an empty interval", `unsigned int x = __VERIFIER_nondet_uint(); assume_abort_if_not(x > 5 && x < 3); g = x;`, ir.Interval{Lo: 0, Hi: u32}},
		{"address taken", `int x = __VERIFIER_nondet_int(); int *p = &x; assume_abort_if_not(x < 5); g = *p;`, ir.Interval{Lo: -i32 - 1, Hi: i32}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, rs := nondetRanges(t, narrowHeader+"int main(void) { "+c.body+" return 0; }\n")
			if len(rs) != 1 || rs[0] != c.want {
				t.Errorf("ranges %v, want [%v]", rs, c.want)
			}
		})
	}
}

// The narrowing changes no verdict: each program is checked by dfs as written
// (narrowed) and with its assumption in a form the narrowing does not read
// (c || c), which draws the whole range; both must give the same verdict. The
// values are unsigned chars, so that dfs enumerates the whole range too.
func TestNarrowNondetsVerdicts(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      verify.Verdict
	}{
		{"a thread's value reaches main", `
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
void *w(void *a) { unsigned char x = __VERIFIER_nondet_uchar(); assume_abort_if_not(COND); g = x; return 0; }
int main(void) { unsigned long t; pthread_create(&t, 0, w, 0); pthread_join(t, 0); if (g == 9) reach_error(); return 0; }
`, verify.Unsafe},
		{"out of range values cannot reach the error", `
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
void *w(void *a) { unsigned char x = __VERIFIER_nondet_uchar(); assume_abort_if_not(COND); g = x; return 0; }
int main(void) { unsigned long t; pthread_create(&t, 0, w, 0); if (g > 10) reach_error(); return 0; }
`, verify.Safe},
		{"another thread runs on while one stopped", `
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int h;
void *w(void *a) { unsigned char x = __VERIFIER_nondet_uchar(); assume_abort_if_not(COND); h = 1; return 0; }
void *v(void *a) { g = 1; return 0; }
int main(void) { unsigned long t, u; pthread_create(&t, 0, w, 0); pthread_create(&u, 0, v, 0); if (g == 1 && h == 0) reach_error(); return 0; }
`, verify.Unsafe},
	} {
		t.Run(c.name, func(t *testing.T) {
			var verdicts []verify.Verdict
			for i, cond := range []string{"x >= 3 && x < 10", "(x >= 3 && x < 10) || (x >= 3 && x < 10)"} {
				p, rs := nondetRanges(t, narrowHeader+strings.ReplaceAll(c.src, "COND", cond))
				narrowed := len(rs) == 1 && rs[0] == ir.Interval{Lo: 3, Hi: 9}
				if narrowed != (i == 0) {
					t.Fatalf("%s: ranges %v", cond, rs)
				}
				eng, err := explicit.New("dfs", explicit.Options{Options: verify.Options{Depth: 100, NoDeadlock: true}, Workers: 1})
				verdicts = append(verdicts, checked(t, eng, err, p).Verdict)
			}
			if verdicts[0] != c.want || verdicts[1] != c.want {
				t.Errorf("narrowed %v, whole range %v, want %v", verdicts[0], verdicts[1], c.want)
			}
		})
	}
}

var narrowSeeds = flag.Int("narrow.seeds", 40, "TestNarrowNondetsGenerated: generated programs")

// Generated programs, each with a thread that draws an unsigned char and
// assumes a random conjunction of comparisons of it (an assume, or
// if (!(…)) abort();): dfs on the program as written (narrowed) and on the
// same program with the condition written c || c (not narrowed) must agree,
// and so must the symbolic engine on the narrowed one.
func TestNarrowNondetsGenerated(t *testing.T) {
	ops := []string{"<", "<=", ">", ">=", "=="}
	narrowed := 0
	for seed := range *narrowSeeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 17))
		var conj []string
		for range 1 + rng.IntN(3) {
			c := rng.IntN(270) - 5
			op := ops[rng.IntN(len(ops))]
			if rng.IntN(2) == 0 {
				conj = append(conj, fmt.Sprintf("x %s %d", op, c))
			} else {
				conj = append(conj, fmt.Sprintf("%d %s x", c, op))
			}
		}
		cond := strings.Join(conj, " && ")
		k1, k2, k3 := rng.IntN(40), rng.IntN(300), rng.IntN(3)
		src := func(cond string) string {
			assume := "assume_abort_if_not(" + cond + ");"
			if seed%2 == 1 {
				assume = "if (!(" + cond + ")) abort();"
			}
			return fmt.Sprintf(`int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int h;
void *a(void *arg) {
    h = 1;
    unsigned char x = __VERIFIER_nondet_uchar();
    %s
    __VERIFIER_atomic_begin(); g = g + x; __VERIFIER_atomic_end();
    return 0;
}
void *b(void *arg) {
    __VERIFIER_atomic_begin(); g = g * 2 + %d; __VERIFIER_atomic_end();
    if (h == 1 && g == %d) reach_error();
    return 0;
}
int main(void) {
    unsigned long t, u;
    pthread_create(&t, 0, a, 0); pthread_create(&u, 0, b, 0);
    if (%d == 1) pthread_join(t, 0);
    pthread_join(u, 0);
    if (g == %d) reach_error();
    return 0;
}
`, assume, k3, k1, k3, k2)
		}
		var verdicts []verify.Verdict
		for i, c := range []string{cond, "(" + cond + ") || (" + cond + ")"} {
			p, rs := nondetRanges(t, narrowHeader+src(c))
			if len(rs) != 1 || i == 1 && rs[0] != (ir.Interval{Lo: 0, Hi: 255}) {
				t.Fatalf("seed %d: %s narrowed to %v", seed, c, rs)
			}
			if i == 0 && rs[0] != (ir.Interval{Lo: 0, Hi: 255}) {
				narrowed++
			}
			eng, err := explicit.New("dfs", explicit.Options{Options: verify.Options{Depth: 200, NoDeadlock: true}, Workers: 1, Stateful: true})
			res := checked(t, eng, err, p)
			verdicts = append(verdicts, res.Verdict)
			if res.Verdict == verify.Unknown {
				t.Fatalf("seed %d: %s: unknown: %s %s", seed, c, res.Note, res.Stopped)
			}
			if i == 0 {
				sym, err := symbolic.New(verify.Options{Depth: 40, NoDeadlock: true}, "gini", "", "", false)
				verdicts = append(verdicts, checked(t, sym, err, p).Verdict)
			}
		}
		if testing.Verbose() {
			t.Logf("seed %d: %v", seed, verdicts)
		}
		if verdicts[0] != verdicts[2] || verdicts[1] != verdicts[0] && verdicts[1] != verify.BoundedSafe && verdicts[0] != verify.BoundedSafe {
			t.Errorf("seed %d (%s): dfs narrowed %v, symbolic narrowed %v, dfs whole range %v", seed, cond, verdicts[0], verdicts[1], verdicts[2])
		}
	}
	if *narrowSeeds >= 10 && narrowed < *narrowSeeds/4 {
		t.Errorf("only %d of %d programs narrowed", narrowed, *narrowSeeds)
	}
	t.Logf("%d programs, %d narrowed", *narrowSeeds, narrowed)
}
