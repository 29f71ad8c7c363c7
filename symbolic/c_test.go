package symbolic

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/cfront"
	"kbmc/internal/annotation"
	"kbmc/ir"
	"kbmc/verify"
)

// cDepth lists the testdata C programs the differential test checks at a
// smaller depth than their annotation's (both engines at that depth), and why.
var cDepth = map[string]struct {
	depth int
	why   string
}{
	"c-sync-cas.c": {20, "a spin loop on a cas: every depth up to 100 is an unsatisfiable Bad query over " +
		"busy-waiting interleavings (the .kb spin locks are checked at depth 20 for the same reason)"},
	"c-cond-while.c": {30, "a condition wait in a loop, whose wake-ups may all be spurious: no depth covers every " +
		"execution, and refuting the depths up to 100 takes the step encoding minutes"},
}

// cOutcome is what the C differential tests compare: the verdict, the
// violation's kind (Unsupported for an unknown verdict that a step the model
// cannot express gave), and whether a pool of the model cut an execution.
type cOutcome struct {
	verdict  verify.Verdict
	kind     ir.ViolationKind
	modelCut bool
}

func (o cOutcome) String() string {
	switch {
	case o.kind != ir.NoViolation:
		return fmt.Sprintf("%s (%s)", o.verdict, o.kind)
	case o.modelCut:
		return fmt.Sprintf("%s (a pool ran out)", o.verdict)
	}
	return o.verdict.String()
}

func cOutcomeOf(r *verify.Result) cOutcome {
	o := cOutcome{verdict: r.Verdict, modelCut: r.ModelCut}
	switch {
	case r.Violation != nil:
		o.kind = r.Violation.Kind
	case r.Verdict == verify.Unknown && strings.HasPrefix(r.Note, "unsupported at"):
		o.kind = ir.Unsupported
	}
	return o
}

// cRun runs the symbolic engine on a C program: like symbolicRun, but an
// unknown verdict that an Unsupported step gave is an answer.
func cRun(p *ir.Program, opts verify.Options, c combo, limit time.Duration, kinds ...ir.ViolationKind) (*verify.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	r, err := Engine{Options: opts, Solver: c.solver, Encoding: c.encoding, POR: c.por, kinds: kinds}.Check(ctx, p)
	if err == nil && r.Verdict == verify.Unknown && cOutcomeOf(r).kind != ir.Unsupported {
		return r, fmt.Errorf("no verdict within %v: %s", limit, r.Note)
	}
	return r, err
}

// cAgree compares a symbolic result with the reference DFS's: the same
// verdict, violation kind and model cut. An engine reports the first
// violation (or unsupported step) its search reaches, so when they differ the
// engine is asked again for the kind DFS reported, which it must find.
func cAgree(p *ir.Program, opts verify.Options, c combo, ref, got *verify.Result, limit time.Duration) error {
	want, have := cOutcomeOf(ref), cOutcomeOf(got)
	if want == have {
		return nil
	}
	if want.kind == ir.NoViolation || have.kind == ir.NoViolation {
		return fmt.Errorf("symbolic says %s, dfs says %s", have, want)
	}
	again, err := cRun(p, opts, c, limit, want.kind)
	if err != nil {
		return fmt.Errorf("symbolic says %s, dfs says %s; looking for %s: %v", have, want, want.kind, err)
	}
	if o := cOutcomeOf(again); o.verdict != want.verdict || o.kind != want.kind {
		return fmt.Errorf("symbolic says %s, dfs says %s; looking for %s only it says %s", have, want, want.kind, o)
	}
	return nil
}

func compileC(t testing.TB, name string, src []byte) *ir.Program {
	t.Helper()
	p, err := cfront.Compile(name, src, cfront.Config{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// TestCTestdata runs every testdata C program that is not expected to be
// rejected on every solver × encoding combination (the portfolio, which
// races gini and Z3, with -symbolic.heavy) and compares verdict,
// violation kind and model cut with the reference DFS, and the verdict with
// the program's annotation. Every unsafe result has been replayed
// (verify.Validate), every unsupported step too.
func TestCTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.c"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata C programs: %v", err)
	}
	cs := combos(t)
	limit := 2 * time.Minute
	programs, runs := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		a, err := annotation.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if a.Expect == "error" || !forSymbolic(a.Engines) {
			continue
		}
		name := filepath.Base(file)
		if slices.Equal(a.Args, []string{"--property", "no-overflow"}) {
			// The symbolic engine does not check it: it must say so.
			t.Run(name, func(t *testing.T) {
				p := compileC(t, file, src)
				p.SelectProperty(ir.Overflow)
				_, err := symbolicRun(p, verify.Options{}, cs[0], limit)
				var unsup *verify.UnsupportedError
				if !errors.As(err, &unsup) || !strings.Contains(unsup.Msg, "no-overflow") {
					t.Errorf("--property no-overflow: %v; want a refusal naming it", err)
				}
			})
			continue
		}
		// The step encoding checks no-data-race; the partial-order
		// encoding refuses it by name.
		races := slices.Equal(a.Args, []string{"--property", "no-data-race"})
		if len(a.Args) > 0 && !races {
			t.Fatalf("%s: //@ args: %v: this test reads none (add what it needs)", file, a.Args)
		}
		programs++
		t.Run(name, func(t *testing.T) {
			p := compileC(t, file, src)
			if races {
				p.SelectProperty(ir.DataRace)
			}
			opts := verify.Options{}
			if d, ok := cDepth[name]; ok {
				opts.Depth = d.depth
				t.Logf("at depth %d: %s", d.depth, d.why)
			}
			ref, err := dfs(context.Background(), p, opts)
			var ue *verify.UnsupportedError
			explicitRefuses := errors.As(err, &ue)
			switch {
			case explicitRefuses:
				t.Logf("dfs refuses the program (%v): the symbolic engine is checked against the annotation", err)
			case err != nil:
				t.Fatalf("dfs: %v", err)
			}
			for _, c := range cs {
				t.Run(c.String(), func(t *testing.T) {
					if why, ok := tooBig[name][c.variant()]; ok && !*heavy {
						t.Skipf("too big for the default run (-symbolic.heavy runs it): %s", why)
					}
					if c.solver == "portfolio" && !*heavy {
						// It races gini and Z3, which run alone in every
						// combination; TestTestdata and TestRandom check
						// the portfolio itself.
						t.Skip("the portfolio: in -symbolic.heavy")
					}
					runs++
					r, err := cRun(p, opts, c, limit)
					if races && c.encoding == "partial-order" {
						if !isUnsupported(err) || !strings.Contains(err.Error(), "no-data-race") {
							t.Fatalf("%v, %v; want the refusal of no-data-race", r, err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if ref != nil {
						if err := cAgree(p, opts, c, ref, r, limit); err != nil {
							t.Fatal(err)
						}
					}
					if _, ok := cDepth[name]; !ok && r.Verdict.String() != a.Expect {
						t.Fatalf("symbolic says %s, the annotation %s", cOutcomeOf(r), a.Expect)
					}
					if a.Violation != "" && ref == nil && (r.Violation == nil || r.Violation.Kind.String() != a.Violation) {
						t.Fatalf("symbolic says %s, the annotation %s", cOutcomeOf(r), a.Violation)
					}
					t.Logf("%s at depth %d: %d variables, %d clauses, %d solver calls, %v", cOutcomeOf(r), r.Stats.Depth,
						r.Stats.Variables, r.Stats.Clauses, r.Stats.SolverCalls, r.Stats.Time.Round(time.Millisecond))
				})
			}
		})
	}
	t.Logf("%d programs × %d combinations: %d runs", programs, len(cs), runs)
}

// TestCSemantics checks, on small C programs, the corners of ir's semantics
// the encoding must reproduce, on every combination against DFS (or, where
// DFS cannot enumerate the draws, against the expected outcome).
func TestCSemantics(t *testing.T) {
	tests := []struct {
		name, src string
		want      cOutcome // checked when DFS refuses the program
	}{
		{"a join inside an atomic section waits, its writes undone", `
#include <pthread.h>
extern void reach_error(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
int x, r;
void *w(void *a) { x = 1; return 0; }
void *seer(void *a) { if (r == 2) reach_error(); return 0; }
int main(void) {
    pthread_t t, s;
    pthread_create(&t, 0, w, 0);
    pthread_create(&s, 0, seer, 0);
    __VERIFIER_atomic_begin();
    r = 2;
    pthread_join(t, 0);
    r = x;
    __VERIFIER_atomic_end();
    if (r != 1) reach_error();
    return 0;
}`, cOutcome{}},
		{"char read of an int cell is unsupported", `
#include <pthread.h>
int x = 5;
void *t(void *a) { x = 7; return 0; }
int main(void) {
    pthread_t h;
    pthread_create(&h, 0, t, 0);
    char *p = (char *)&x;
    return *p;
}`, cOutcome{}},
		{"a bug before the unsupported step", `
extern void reach_error(void);
int x = 5;
int main(void) {
    char *p = (char *)&x;
    if (x == 5) reach_error();
    return *p;
}`, cOutcome{}},
		{"a char store into a _Bool keeps its value", `
extern void reach_error(void);
_Bool b;
int main(void) {
    char *p = (char *)&b;
    *p = 2;
    _Bool c = b;
    if (c == 1) reach_error();
    if (!b) reach_error();
    return 0;
}`, cOutcome{}},
		{"a _Bool read of a char cell", `
extern void reach_error(void);
char buf[2] = {0, 3};
int main(void) {
    _Bool *q = (_Bool *)&buf[1];
    if (*q && *q != 1) reach_error();
    return 0;
}`, cOutcome{}},
		{"64-bit nondets, signed and unsigned", `
extern void reach_error(void);
extern long long __VERIFIER_nondet_longlong(void);
extern unsigned long long __VERIFIER_nondet_ulonglong(void);
int main(void) {
    long long x = __VERIFIER_nondet_longlong();
    unsigned long long y = __VERIFIER_nondet_ulonglong();
    if (x == -5 && y > 18000000000000000000ull && y / 3 == 6148914691236517204ull) reach_error();
    return 0;
}`, cOutcome{verdict: verify.Unsafe, kind: ir.ReachError}},
		{"64-bit wrap-around", `
#include <assert.h>
extern long long __VERIFIER_nondet_longlong(void);
extern void __VERIFIER_assume(int);
int main(void) {
    long long x = __VERIFIER_nondet_longlong();
    __VERIFIER_assume(x > 0);
    long long y = x + 1;
    assert(y > 0);
    return 0;
}`, cOutcome{verdict: verify.Unsafe, kind: ir.ReachError}},
		{"a pointer from nondet is no object", `
extern unsigned long __VERIFIER_nondet_ulong(void);
int g;
int main(void) {
    int *p = (int *)__VERIFIER_nondet_ulong();
    if (p != 0) return *p;
    return 0;
}`, cOutcome{verdict: verify.Unsafe, kind: ir.InvalidDeref}},
		{"a symbolic index walks off the end", `
extern unsigned char __VERIFIER_nondet_uchar(void);
int a[4];
int main(void) {
    unsigned char i = __VERIFIER_nondet_uchar();
    int *p = a + (i % 8);
    *p = 1;
    return 0;
}`, cOutcome{}},
		{"shift by the type's width", `
extern unsigned char __VERIFIER_nondet_uchar(void);
int main(void) {
    unsigned char s = __VERIFIER_nondet_uchar();
    unsigned int u = 1u << (s % 40);
    return u == 0;
}`, cOutcome{}},
		{"free of a global", `
#include <stdlib.h>
int g;
int main(void) {
    int *p = &g;
    free(p);
    return 0;
}`, cOutcome{}},
		{"malloc(0) is null", `
#include <stdlib.h>
extern unsigned char __VERIFIER_nondet_uchar(void);
int main(void) {
    unsigned char n = __VERIFIER_nondet_uchar() % 3;
    int *p = malloc(n * sizeof(int));
    *p = 1;
    free(p);
    return 0;
}`, cOutcome{}},
		{"main reads back what it wrote while a thread runs", `
#include <pthread.h>
extern void reach_error(void);
int g, x;
void *t(void *a) { x = 1; return 0; }
int main(void) {
    pthread_t h;
    pthread_create(&h, 0, t, 0);
    g = 5;
    if (g == 5 && x == 1) reach_error();
    return 0;
}`, cOutcome{}},
		{"a thread counts in a cell only it writes", `
#include <pthread.h>
extern void reach_error(void);
int c;
void *t(void *a) { while (c < 2) c = c + 1; if (c == 2) reach_error(); return 0; }
int main(void) {
    pthread_t h;
    pthread_create(&h, 0, t, 0);
    return 0;
}`, cOutcome{}},
		{"spawn inside an atomic section with the pool full", `
#include <pthread.h>
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern _Bool __VERIFIER_nondet_bool(void);
int n;
void *w(void *a) { n++; return 0; }
int main(void) {
    pthread_t t;
    while (__VERIFIER_nondet_bool()) {
        __VERIFIER_atomic_begin();
        n = n + 10;
        pthread_create(&t, 0, w, 0);
        __VERIFIER_atomic_end();
    }
    return 0;
}`, cOutcome{}},
	}
	cs := combos(t)
	limit := 2 * time.Minute
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compileC(t, "test.c", []byte(tt.src))
			opts := verify.Options{Depth: 30}
			ref, err := dfs(context.Background(), p, opts)
			var ue *verify.UnsupportedError
			switch {
			case errors.As(err, &ue):
				if tt.want == (cOutcome{}) {
					t.Fatalf("dfs refuses the program and the test expects nothing: %v", err)
				}
				ref = nil
			case err != nil:
				t.Fatalf("dfs: %v", err)
			default:
				t.Logf("dfs: %s", cOutcomeOf(ref))
			}
			for _, c := range cs {
				if c.solver == "portfolio" && !*heavy {
					continue // gini and Z3 run alone; see TestCTestdata
				}
				t.Run(c.String(), func(t *testing.T) {
					r, err := cRun(p, opts, c, limit)
					if err != nil {
						t.Fatal(err)
					}
					if ref == nil {
						if got := cOutcomeOf(r); got != tt.want {
							t.Fatalf("symbolic says %s, want %s", got, tt.want)
						}
						return
					}
					if err := cAgree(p, opts, c, ref, r, limit); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}
