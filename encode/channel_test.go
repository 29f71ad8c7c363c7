package encode

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/solver"
	"kbmc/solver/gini"
)

// TestNumberedChannels compares the partial-order encoding's numbered
// channels (channel.go) with ir: on small loop-free channel programs, the
// final shared cells (where the threads leave what they received and saw)
// over the complete executions the encoding admits are exactly those of the
// complete executions ir runs. Each program
// exercises one part of the argument: FIFO order from one sender and from
// several, a send blocked while the channel is full, a receive blocked while
// it is empty, len, channel arrays with an index computed at run time, and
// Bool fields.
func TestNumberedChannels(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{"fifo from one sender", `
chan (int) c capacity 3;
shared int o[3];
thread p { send(c, 1); send(c, 2); send(c, 3); }
thread q { recv(c, o[0]); recv(c, o[1]); recv(c, o[2]); }`},
		{"two senders race", `
chan (int) c capacity 3;
shared int o[3];
thread a { send(c, 1); send(c, 2); }
thread b { send(c, 3); }
thread r { recv(c, o[0]); recv(c, o[1]); recv(c, o[2]); }`},
		{"capacity one blocks the second send", `
chan (int) c capacity 1;
shared int seen = 0;
shared int o[4];
thread p { send(c, 1); seen = 1; send(c, 2); seen = 2; }
thread q { o[0] = seen; recv(c, o[1]); o[2] = seen; recv(c, o[3]); }`},
		{"a receive waits for its message", `
chan (int) c capacity 2;
shared int v = 0;
shared int o[2];
thread p { v = 5; send(c, 7); v = 6; }
thread q { recv(c, o[0]); o[1] = v; }`},
		{"len seen by both sides", `
chan (int) c capacity 2;
shared int o[5];
thread p { o[0] = len(c); send(c, 1); o[1] = len(c); send(c, 2); }
thread q { o[2] = len(c); recv(c, o[3]); o[4] = len(c); }`},
		{"two receivers share a channel", `
chan (int) c capacity 2;
shared int o[2];
thread p { send(c, 1); send(c, 2); }
thread q { recv(c, o[0]); }
thread r { recv(c, o[1]); }`},
		{"channel array with a computed index", `
chan (int) c[2] capacity 1;
chan (int) route capacity 2;
shared int o[2];
thread a { send(route, 1); send(route, 0); }
thread b { int d; recv(route, d); send(c[d], 10 + d); int e; recv(route, e); send(c[e], 20 + e); }
thread x { recv(c[0], o[0]); }
thread y { recv(c[1], o[1]); }`},
		{"bool and int fields", `
chan (bool, int) c capacity 1;
shared bool b[2];
shared int v[2];
thread p { send(c, true, 1); send(c, false, 2); }
thread q { recv(c, b[0], v[0]); recv(c, b[1], v[1]); }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compile(t, tt.src)
			want := irFinal(t, p)
			got := poFinal(t, p)
			if !slices.Equal(got, want) {
				t.Errorf("final shared cells of complete executions:\nencoding %v\nir       %v", got, want)
			}
			if len(want) == 0 {
				t.Errorf("no complete execution: the program tests nothing")
			}
		})
	}
}

// irFinal is the sorted set of final shared cells (as unsigned w-bit
// numbers) of p's complete executions, by running every schedule.
func irFinal(t *testing.T, p *ir.Program) []string {
	w := newCore(p, solver.NewBuilder(), nil, Options{Steps: SumBounds(StaticBounds(p)) + 1}).w
	set := map[string]bool{}
	for _, sched := range complete(t, p) {
		moves := make([]ir.Move, len(sched))
		for i, th := range sched {
			moves[i] = ir.Move{Thread: th}
		}
		run, err := p.Replay(moves)
		if err != nil {
			t.Fatalf("schedule %v does not replay: %v", sched, err)
		}
		s := run.Final()
		var parts []string
		for c := range p.SharedSize {
			parts = append(parts, fmt.Sprint(uint64(s[c])&solver.Mask(w)))
		}
		set[strings.Join(parts, " ")] = true
	}
	return sortedKeys(set)
}

// poFinal is the same set read from the partial-order encoding, with every
// thread unrolled to its static bound, by enumerating the models of "every
// thread has terminated and nothing failed": the final state's view of the
// shared cells.
func poFinal(t *testing.T, p *ir.Program) []string {
	b := solver.NewBuilder()
	be, err := gini.New(b)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	bounds := StaticBounds(p)
	depth := SumBounds(bounds)
	po, err := NewPartialOrder(p, b, be, Options{Steps: depth + 1}, depth)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for th, n := range bounds {
		if err := po.Grow(ctx, th, n); err != nil {
			t.Fatal(err)
		}
	}
	u := po.u
	final := make([]val, p.SharedSize)
	for k := ir.StoreKey(0); k < p.FirstFreeKey(); k++ {
		if c, ok := u.cellOf(k); ok {
			final[c] = po.read(po.end, k)
		}
	}
	if err := po.flush(); err != nil {
		t.Fatal(err)
	}
	gen, err := po.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := b.And(append([]*solver.Term{gen, po.gen.noFail}, po.gen.status.terminated...)...)
	set := map[string]bool{}
	for range 1000 {
		st, err := be.Check(ctx, done)
		if err != nil {
			t.Fatal(err)
		}
		if st == solver.Unsat {
			return sortedKeys(set)
		}
		var parts []string
		var same []*solver.Term
		for _, v := range final {
			{
				x := u.term(v)
				var n uint64
				if x.IsBool() {
					on, err := be.BoolValue(x)
					if err != nil {
						t.Fatal(err)
					}
					if on {
						n = 1
					}
					same = append(same, b.Iff(x, b.Bool(on)))
				} else {
					if n, err = be.BVValue(x); err != nil {
						t.Fatal(err)
					}
					same = append(same, b.Eq(x, b.BV(n, x.Width())))
				}
				parts = append(parts, fmt.Sprint(n))
			}
		}
		set[strings.Join(parts, " ")] = true
		if err := u.assert([]*solver.Term{b.Not(b.And(same...))}); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("more than 1000 final states")
	return nil
}

func sortedKeys(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
