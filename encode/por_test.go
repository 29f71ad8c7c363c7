package encode

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/solver"
)

// Worked examples of the reductions (docs/symbolic.md, "Tests"), whose admitted
// schedules are worked out by hand below. Thread numbers follow declaration order.
const (
	exampleE2 = `
shared int x; shared int y; shared int z;
thread t0 { x = 1; y = 1; }            // a1 writes x, a2 writes y
thread t1 { int r = x; z = 1; }        // b1 reads x, b2 writes z
`
	exampleE3 = `
shared int x; shared int y;
thread t0 { x = 1; }                   // a writes x
thread t1 { y = 1; }                   // b writes y
thread t2 { int r = x; }               // c reads x
`
	exampleE4 = `
shared int x; shared int y;
thread t0 { x = 1; }
thread t1 { y = 1; }
`
)

// TestExamplesE2E3 checks that the complete executions each encoding admits
// are exactly the ones worked out by hand (a = thread 0, b = 1, c = 2).
func TestExamplesE2E3(t *testing.T) {
	tests := []struct {
		name, src, por string
		k              int
		want           []string
	}{
		{"E2", exampleE2, "none", 4, []string{"0011", "0101", "0110", "1001", "1010", "1100"}},
		{"E2", exampleE2, "peephole", 4, []string{"0011", "1001"}},  // a1 a2 b1 b2, b1 a1 a2 b2
		{"E2", exampleE2, "monotonic", 4, []string{"0011", "1001"}}, // the same
		{"E3", exampleE3, "none", 3, []string{"012", "021", "102", "120", "201", "210"}},
		{"E3", exampleE3, "peephole", 3, []string{"012", "120", "201"}}, // abc, bca, cab
		{"E3", exampleE3, "monotonic", 3, []string{"012", "201"}},       // abc, cab
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.por, func(t *testing.T) {
			p := compile(t, tt.src)
			u, be := unrolling(t, p, tt.por, tt.k)
			got := scheduleStrings(admitted(t, u, be, tt.k))
			if !slices.Equal(got, tt.want) {
				t.Errorf("admitted %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExampleE4 checks that the state where T1 has moved and T0 has not is
// reachable under both reductions: the execution "T1" halts there. Its only
// complete extension "T1 T0" is pruned (an independent higher-numbered step
// followed by a lower-numbered one), so without halting it would be lost.
func TestExampleE4(t *testing.T) {
	for _, por := range []string{"none", "peephole", "monotonic"} {
		t.Run(por, func(t *testing.T) {
			p := compile(t, exampleE4)
			u, be := unrolling(t, p, por, 2)
			b := u.Builder()
			x, y := p.Shared[0].Offset, p.Shared[1].Offset
			bad := func(i int) *solver.Term {
				return b.And(b.Eq(u.Value(i, y), b.BV(1, p.Width)), b.Eq(u.Value(i, x), b.BV(0, p.Width)))
			}
			// With halting: some state of an execution of at most 2 steps.
			lit := b.BoolVar("e4")
			if err := be.Assert(b.Implies(lit, b.Or(bad(0), bad(1), bad(2)))); err != nil {
				t.Fatal(err)
			}
			st, err := be.Check(context.Background(), lit)
			if err != nil || st != solver.Sat {
				t.Fatalf("violation not found: %v %v", st, err)
			}
			moves, _, err := u.Moves(be, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(moves) == 0 || moves[0].Thread != 1 || por != "none" && len(moves) != 1 {
				t.Errorf("violating execution %v, want T1 first (alone under a reduction)", moves)
			}
			// Complete executions only: "T1 T0" is the only one through the bad
			// state, and the reductions prune it.
			full, err := u.Complete(2)
			if err != nil {
				t.Fatal(err)
			}
			st, err = be.Check(context.Background(), full, lit)
			want := solver.Unsat
			if por == "none" {
				want = solver.Sat
			}
			if err != nil || st != want {
				t.Errorf("complete executions through the bad state: %v (%v), want %v", st, err, want)
			}
		})
	}
}

// straightLine returns a random program without branches or loops: 2 or 3
// threads of 1 to 3 visible statements over shared scalars, an array indexed by
// values read from shared state (so that conflicts depend on the state), cas, and
// lock/unlock pairs; no nondeterminism and no run-time errors. With chans, the
// statements also send to, receive from and take the length of channels of an
// array, indexed by shared values too.
func straightLine(r *rand.Rand, threads int, chans bool) string {
	var sb strings.Builder
	sb.WriteString("shared int x0; shared int x1; shared int x2; shared int a[3]; mutex m;\n")
	kinds := 8
	if chans {
		sb.WriteString("chan (int) c[2] capacity 2;\n")
		kinds = 11
	}
	x := func() string { return fmt.Sprintf("x%d", r.IntN(3)) }
	for th := 0; th < threads; th++ {
		fmt.Fprintf(&sb, "thread t%d {\n", th)
		locals := 0
		local := func() string {
			if locals == 0 {
				return "1"
			}
			return fmt.Sprintf("r%d", r.IntN(locals))
		}
		n := 1 + r.IntN(3)
		for i := 0; i < n; i++ {
			switch r.IntN(kinds) {
			case 0:
				fmt.Fprintf(&sb, "  %s = %d;\n", x(), 1+r.IntN(2))
			case 1:
				fmt.Fprintf(&sb, "  int r%d = %s;\n", locals, x())
				locals++
			case 2:
				fmt.Fprintf(&sb, "  %s = %s + 1;\n", x(), x())
			case 3:
				fmt.Fprintf(&sb, "  a[%s %% 3] = %s;\n", x(), local())
			case 4:
				fmt.Fprintf(&sb, "  int r%d = a[%s %% 3];\n", locals, local())
				locals++
			case 5:
				fmt.Fprintf(&sb, "  cas(%s, 0, %d);\n", x(), 1+r.IntN(2))
			case 6:
				fmt.Fprintf(&sb, "  lock(m);\n  %s = %s;\n  unlock(m);\n", x(), local())
			case 7:
				fmt.Fprintf(&sb, "  a[%s %% 3] = a[%s %% 3] + 1;\n", local(), x())
			case 8:
				fmt.Fprintf(&sb, "  send(c[%s %% 2], %s);\n", x(), local())
			case 9:
				fmt.Fprintf(&sb, "  int r%d; recv(c[%d], r%d);\n", locals, r.IntN(2), locals)
				locals++
			case 10:
				fmt.Fprintf(&sb, "  int r%d = len(c[%s %% 2]);\n", locals, x())
				locals++
			}
		}
		sb.WriteString("}\n")
	}
	return sb.String()
}

// TestOptimality enumerates, on random straight-line programs, the complete
// schedules each reduction admits and compares them with the Mazurkiewicz
// classes computed by brute force: every class must be represented (soundness);
// monotonic must admit exactly one schedule per class, and peephole too for two
// threads (docs/symbolic.md, "Tests"). Programs with
// channels check that sends, receives and len are in the footprints the
// reductions compare.
func TestOptimality(t *testing.T) {
	for _, chans := range []bool{false, true} {
		t.Run(fmt.Sprintf("channels=%v", chans), func(t *testing.T) { testOptimality(t, chans) })
	}
}

func testOptimality(t *testing.T, chans bool) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	totalClasses, totalInterleavings := 0, 0
	totalAdmitted := map[string]int{}
	defer func() {
		t.Logf("%d programs: %d complete interleavings, %d classes; admitted: peephole %d, monotonic %d",
			seeds, totalInterleavings, totalClasses, totalAdmitted["peephole"], totalAdmitted["monotonic"])
	}()
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		threads := 2 + seed%2
		src := straightLine(r, threads, chans)
		p := compile(t, src)
		for _, tm := range p.Templates {
			for _, n := range tm.Nodes {
				if n.Op == ir.OpBranch {
					t.Fatalf("seed %d: not straight-line code\n%s", seed, src)
				}
			}
		}
		all := complete(t, p)
		if len(all) == 0 {
			continue // every interleaving blocks
		}
		k := len(all[0])
		classes := map[string]bool{}
		for _, s := range all {
			classes[classOf(t, p, s)] = true
		}
		totalClasses += len(classes)
		totalInterleavings += len(all)
		for _, por := range []string{"peephole", "monotonic"} {
			u, be := unrolling(t, p, por, k)
			got := admitted(t, u, be, k)
			totalAdmitted[por] += len(got)
			seen := map[string]bool{}
			dup := 0
			for _, s := range got {
				c := classOf(t, p, s)
				if seen[c] {
					dup++
				}
				seen[c] = true
			}
			missing := 0
			for c := range classes {
				if !seen[c] {
					missing++
				}
			}
			switch {
			case missing > 0:
				t.Errorf("seed %d, %s: %d of %d classes have no admitted schedule (%d interleavings)\n%s",
					seed, por, missing, len(classes), len(all), src)
			case (por == "monotonic" || threads == 2) && dup > 0:
				t.Errorf("seed %d, %s: %d schedules for %d classes\n%s", seed, por, len(got), len(classes), src)
			}
		}
	}
}
