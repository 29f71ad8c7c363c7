package encode

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/solver"
)

// TestChannelKinds compares the encodings of select, lossy and unordered
// channels (select.go, channel.go) with ir: on small loop-free programs, the
// final shared cells over the complete executions the step encoding admits,
// and the partial-order encoding where it applies (not on unordered
// channels), are exactly those of the complete executions ir runs, with every
// channel draw tried. Every execution the step encoding admits also replays
// through ir, with the channel draws the encoding read back, to the same
// final cells: the draws are in ir's order and range.
func TestChannelKinds(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{"select draws among ready receives", `
chan (int) a capacity 1;
chan (int) b capacity 1;
shared int o[4];
thread pa { send(a, 1); }
thread pb { send(b, 2); }
thread m {
	int x = 0;
	int k = 0;
	select { case recv(a, x): o[0] = x; case recv(b, x): o[0] = x; }
	o[1] = x;
	select { case recv(a, x): o[2] = x; case recv(b, x): o[2] = x; }
	o[3] = x;
}`},
		{"select with a default", `
chan (int) a capacity 1;
shared int o[2];
thread p { send(a, 4); }
thread m {
	int x = 0;
	select { case recv(a, x): o[0] = 1; default: o[0] = 2; }
	o[1] = x;
}`},
		{"select of a send and a receive", `
chan (int) a capacity 1;
chan (int) b capacity 1;
shared int o[3];
thread p { send(b, 7); }
thread m {
	int y = 0;
	select { case send(a, 3): o[0] = 1; case recv(b, y): o[0] = 2; }
	o[1] = len(a);
	o[2] = y;
}`},
		{"select over three cases, a channel array and a computed index", `
chan (int) c[2] capacity 2;
shared int o[3];
thread p { send(c[0], 1); send(c[1], 2); send(c[0], 3); }
thread m {
	int i = 1;
	int x = 0;
	select { case recv(c[0], x): o[0] = x; case recv(c[i], x): o[0] = 10 + x; case send(c[1 - i], 9): o[0] = 20; default: o[0] = 30; }
	o[1] = len(c[0]);
	o[2] = len(c[1]);
}`},
		{"a lossy send may lose its message, always when full", `
chan (int) c capacity 2 lossy;
shared int o[3];
thread p { send(c, 1); send(c, 2); send(c, 3); }
thread m {
	int x = 0;
	o[0] = len(c);
	select { case recv(c, x): o[1] = x; default: o[1] = -1; }
	o[2] = len(c);
}`},
		{"an unordered receive takes any message", `
chan (int) c capacity 3 unordered;
shared int o[3];
thread p { send(c, 1); send(c, 2); send(c, 3); }
thread m { recv(c, o[0]); recv(c, o[1]); recv(c, o[2]); }`},
		{"unordered and lossy with select", `
chan (int, bool) c capacity 2 unordered lossy;
shared int o[2];
shared bool f[2];
thread p { send(c, 1, true); send(c, 2, false); send(c, 3, true); }
thread m {
	select { case recv(c, o[0], f[0]): ; default: o[0] = -1; }
	select { case recv(c, o[1], f[1]): ; default: o[1] = -1; }
}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compile(t, tt.src)
			want := irFinalDrawn(t, p, p.Width)
			if len(want) < 2 {
				t.Fatalf("%d final states: the program tests no choice", len(want))
			}
			if got := stepFinal(t, p); !slices.Equal(got, want) {
				t.Errorf("final shared cells of complete executions:\nstep encoding %v\nir            %v", got, want)
			}
			if slices.ContainsFunc(p.Channels, func(c *ir.Channel) bool { return c.Unordered }) {
				return // the partial-order encoding refuses it (TestUnorderedRefused)
			}
			w := newCore(p, solver.NewBuilder(), nil, Options{Steps: SumBounds(StaticBounds(p)) + 1}).w
			if got, want := poFinal(t, p), irFinalDrawn(t, p, w); !slices.Equal(got, want) {
				t.Errorf("final shared cells of complete executions:\npartial-order encoding %v\nir                     %v", got, want)
			}
		})
	}
}

// TestUnorderedRefused checks that the partial-order encoding refuses an
// unordered channel at its declaration, naming it.
func TestUnorderedRefused(t *testing.T) {
	p := compile(t, "chan (int) c capacity 2 unordered;\nthread a { send(c, 1); }")
	b := solver.NewBuilder()
	_, err := NewPartialOrder(p, b, nil, Options{}, 4)
	if err == nil || !strings.Contains(err.Error(), "unordered") || !strings.Contains(err.Error(), "1:") {
		t.Errorf("NewPartialOrder: %v; want the refusal of unordered channel c at line 1", err)
	}
}

// finalCells renders the shared cells of s as unsigned w-bit numbers.
func finalCells(p *ir.Program, s ir.State, w int) string {
	var parts []string
	for c := range p.SharedSize {
		parts = append(parts, fmt.Sprint(uint64(s[c])&solver.Mask(w)))
	}
	return strings.Join(parts, " ")
}

// irFinalDrawn is the sorted set of final shared cells of p's complete
// executions, by running every schedule with every combination of draws
// (ir.Choices.Next).
func irFinalDrawn(t *testing.T, p *ir.Program, w int) []string {
	t.Helper()
	set := map[string]bool{}
	var rec func(s ir.State)
	rec = func(s ir.State) {
		moved := false
		for th := range p.Threads {
			if !p.Enabled(s, th) {
				continue
			}
			moved = true
			var ch ir.Choices
			var fixed []int64
			for {
				ch.Reset(fixed)
				next := s.Clone()
				var ev ir.Event
				p.Step(next, th, &ch, &ev)
				if ev.Violation == nil {
					rec(next)
				}
				var more bool
				if fixed, more = ch.Next(nil); !more {
					break
				}
			}
		}
		if moved {
			return
		}
		for th := range p.Threads {
			if !p.Done(s, th) {
				return
			}
		}
		set[finalCells(p, s, w)] = true
	}
	rec(p.Initial())
	return sortedKeys(set)
}

// stepFinal is the same set read from the step encoding at p's width, by
// enumerating for each length the models of its complete executions; each
// model's execution is replayed through ir and must end in the same cells.
func stepFinal(t *testing.T, p *ir.Program) []string {
	t.Helper()
	k := SumBounds(StaticBounds(p))
	u, be := unrolling(t, p, "none", k)
	b := u.Builder()
	set := map[string]bool{}
	for n := 0; n <= k; n++ {
		lit, err := u.Complete(n)
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			st, err := be.Check(context.Background(), lit)
			if err != nil {
				t.Fatal(err)
			}
			if st == solver.Unsat {
				break
			}
			var same []*solver.Term
			cells := make(ir.State, p.SharedSize)
			for c := range p.SharedSize {
				x := u.Value(n, c)
				if x.IsBool() {
					on, err := be.BoolValue(x)
					if err != nil {
						t.Fatal(err)
					}
					if on {
						cells[c] = 1
					}
					same = append(same, b.Iff(x, b.Bool(on)))
					continue
				}
				v, err := be.BVValue(x)
				if err != nil {
					t.Fatal(err)
				}
				cells[c] = int64(v)
				same = append(same, b.Eq(x, b.BV(v, x.Width())))
			}
			got := finalCells(p, cells, p.Width)
			moves, v, err := u.Moves(be, n)
			if err != nil || v != nil {
				t.Fatalf("moves of a complete execution: %v, %v", v, err)
			}
			run, err := p.Replay(moves)
			if err != nil {
				t.Fatalf("the execution %v does not replay: %v", moves, err)
			}
			if replayed := finalCells(p, run.Final(), p.Width); replayed != got {
				t.Fatalf("the execution %v ends in %s in the encoding, in %s in ir", moves, got, replayed)
			}
			set[got] = true
			if err := be.Assert(b.Or(b.Not(lit), b.Not(b.And(same...)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sortedKeys(set)
}
