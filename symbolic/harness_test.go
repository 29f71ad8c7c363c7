package symbolic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/solver"
	"kbmc/solver/solvers"
	"kbmc/verify"
)

// outcome is what differential tests compare: the verdict and the violation kind.
type outcome struct {
	verdict verify.Verdict
	kind    ir.ViolationKind
}

func (o outcome) String() string {
	if o.verdict == verify.Unsafe {
		return fmt.Sprintf("%s (%s)", o.verdict, o.kind)
	}
	return o.verdict.String()
}

func outcomeOf(r *verify.Result) outcome {
	o := outcome{verdict: r.Verdict}
	if r.Violation != nil {
		o.kind = r.Violation.Kind
	}
	return o
}

// combo is one solver × encoding × reduction combination.
type combo struct{ solver, encoding, por string }

// variant is the reduction of the step encoding, or the name of another
// encoding (which takes no reduction).
func (c combo) variant() string {
	if c.encoding == "step" {
		return c.por
	}
	return c.encoding
}

func (c combo) String() string { return c.solver + "/" + c.variant() }

// combos are the combinations the differential tests run: every reduction of
// the step encoding and every other encoding, on every solver this build has.
func combos(t testing.TB) []combo {
	var cs []combo
	for _, s := range Solvers() {
		if err := solverAvailable(s); err != nil {
			t.Logf("solver %s is not available in this build: %v", s, err)
			continue
		}
		for _, enc := range Encodings() {
			if enc != "step" {
				cs = append(cs, combo{s, enc, "none"})
				continue
			}
			for _, p := range PORs() {
				if s == "portfolio" && p != "monotonic" && !*heavy {
					// The portfolio runs gini and Z3, each checked alone in
					// every combination: by default only the two defaults.
					continue
				}
				cs = append(cs, combo{s, enc, p})
			}
		}
	}
	return cs
}

// dfs runs the reference oracle.
func dfs(ctx context.Context, p *ir.Program, opts verify.Options) (*verify.Result, error) {
	return explicit.DFS{Options: explicit.Options{Options: opts}}.Check(ctx, p)
}

// symbolicRun runs the engine with a generous time limit; a time-out is a
// test failure, never a silent pass. kinds restricts the violations looked for.
func symbolicRun(p *ir.Program, opts verify.Options, c combo, limit time.Duration, kinds ...ir.ViolationKind) (*verify.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	r, err := Engine{Options: opts, Solver: c.solver, Encoding: c.encoding, POR: c.por, kinds: kinds}.Check(ctx, p)
	if err == nil && r.Verdict == verify.Unknown {
		return r, fmt.Errorf("no verdict within %v: %s", limit, r.Note)
	}
	return r, err
}

func isUnsupported(err error) bool {
	var ue *verify.UnsupportedError
	return errors.As(err, &ue)
}

// agree compares a symbolic result with the reference DFS's. Both must have the
// same verdict. An engine reports the first violation its search reaches
// (verify.Outcome), so when several kinds are reachable the two may differ: the
// symbolic one has been replayed, and the engine is asked again for the kind DFS
// reported, which it must find.
func agree(p *ir.Program, opts verify.Options, c combo, ref, got *verify.Result, limit time.Duration) error {
	want, have := outcomeOf(ref), outcomeOf(got)
	if want.verdict != have.verdict {
		return fmt.Errorf("symbolic says %s, dfs says %s", have, want)
	}
	if want == have {
		return nil
	}
	again, err := symbolicRun(p, opts, c, limit, want.kind)
	if err != nil {
		return fmt.Errorf("symbolic says %s, dfs says %s; looking for %s: %v", have, want, want.kind, err)
	}
	if outcomeOf(again) != want {
		return fmt.Errorf("symbolic says %s, dfs says %s; looking for %s only it says %s", have, want, want.kind, outcomeOf(again))
	}
	return nil
}

// matchesDFS checks p, written to end in want, with dfs, then with every
// combo of cs: each agrees with dfs (agree), except a combo for which
// refused names what its refusal must say (any one of the texts): it must
// refuse the program so.
func matchesDFS(t *testing.T, p *ir.Program, opts verify.Options, want outcome, cs []combo, refused func(combo) []string) {
	t.Helper()
	ref, err := dfs(context.Background(), p, opts)
	if err != nil {
		t.Fatalf("dfs: %v", err)
	}
	if got := outcomeOf(ref); got != want {
		t.Fatalf("dfs says %s, the program was written to be %s", got, want)
	}
	for _, c := range cs {
		r, err := symbolicRun(p, opts, c, 2*time.Minute)
		if texts := refused(c); texts != nil {
			var unsup *verify.UnsupportedError
			if !errors.As(err, &unsup) || !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(unsup.Msg, s) }) {
				t.Errorf("%s: %v, %v; want a refusal saying %q", c, r, err, texts)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if err := agree(p, opts, c, ref, r, 2*time.Minute); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}

// refusesNothing is matchesDFS's refused for programs every combo encodes.
func refusesNothing(combo) []string { return nil }

// solverAvailable reports why a solver cannot be constructed in this build (Z3
// without cgo).
func solverAvailable(name string) error {
	be, err := solvers.New(name, solver.NewBuilder())
	if err != nil {
		return err
	}
	return be.Close()
}
