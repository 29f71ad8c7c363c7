package encode

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/solver"
	"kbmc/solver/gini"
)

func compile(t testing.TB, src string) *ir.Program {
	t.Helper()
	p, err := lang.Compile("test.kb", []byte(src), lang.Config{})
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	return p
}

// unrolling returns an unrolling of p to depth k on a fresh gini backend.
func unrolling(t testing.TB, p *ir.Program, por string, k int) (*Unrolling, solver.Backend) {
	t.Helper()
	red, err := NewReduction(por)
	if err != nil {
		t.Fatal(err)
	}
	b := solver.NewBuilder()
	be, err := gini.New(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	u, err := New(p, b, be, Options{Reduction: red})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.ExtendTo(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return u, be
}

// admitted enumerates the schedules of the complete executions of exactly k
// steps that the encoding admits, with blocking clauses on the sel variables.
func admitted(t testing.TB, u *Unrolling, be solver.Backend, k int) [][]int {
	t.Helper()
	lit, err := u.Complete(k)
	if err != nil {
		t.Fatal(err)
	}
	b := u.Builder()
	var out [][]int
	for {
		st, err := be.Check(context.Background(), lit)
		if err != nil {
			t.Fatal(err)
		}
		if st == solver.Unsat {
			return out
		}
		if st != solver.Sat {
			t.Fatalf("check: %v", st)
		}
		moves, v, err := u.Moves(be, k)
		if err != nil {
			t.Fatal(err)
		}
		if v != nil || len(moves) != k {
			t.Fatalf("complete execution with %d moves, violation %v", len(moves), v)
		}
		sched := make([]int, k)
		var same []*solver.Term
		for i, m := range moves {
			sched[i] = m.Thread
			same = append(same, u.Selects(i, m.Thread))
		}
		out = append(out, sched)
		if len(out) > 100000 {
			t.Fatal("too many schedules")
		}
		if err := be.Assert(b.Not(b.And(same...))); err != nil {
			t.Fatal(err)
		}
	}
}

func scheduleStrings(ss [][]int) []string {
	var out []string
	for _, s := range ss {
		var sb strings.Builder
		for _, t := range s {
			fmt.Fprint(&sb, t)
		}
		out = append(out, sb.String())
	}
	sort.Strings(out)
	return out
}

// complete enumerates every interleaving of p by concrete execution (every
// schedule; the programs have no nondeterminism) and returns the schedules of the
// complete executions: every thread terminated, no step failed.
func complete(t testing.TB, p *ir.Program) [][]int {
	t.Helper()
	var out [][]int
	var sched []int
	var rec func(s ir.State)
	rec = func(s ir.State) {
		any := false
		for th := range p.Threads {
			if !p.Enabled(s, th) {
				continue
			}
			any = true
			next := s.Clone()
			var ev ir.Event
			p.Step(next, th, nil, &ev)
			if ev.Violation != nil {
				continue
			}
			sched = append(sched, th)
			rec(next)
			sched = sched[:len(sched)-1]
		}
		if any {
			return
		}
		for th := range p.Threads {
			if !p.Done(s, th) {
				return
			}
		}
		out = append(out, append([]int(nil), sched...))
	}
	rec(p.Initial())
	return out
}

// classOf returns the Mazurkiewicz class of a complete schedule as a canonical
// key: its events (thread, index in the thread, concrete accesses) and the order
// of every dependent pair. Two events are dependent when they are of different
// threads and access a common location, at least one writing (ir.Conflicts);
// program order orders a thread's own events.
func classOf(t testing.TB, p *ir.Program, sched []int) string {
	t.Helper()
	moves := make([]ir.Move, len(sched))
	for i, th := range sched {
		moves[i] = ir.Move{Thread: th}
	}
	run, err := p.Replay(moves)
	if err != nil {
		t.Fatalf("schedule %v does not replay: %v", sched, err)
	}
	type event struct {
		thread, index int
		acc           []ir.Access
	}
	counts := map[int]int{}
	var events []event
	var key []string
	for _, ev := range run.Events {
		e := event{ev.Thread, counts[ev.Thread], ev.Accesses}
		counts[ev.Thread]++
		events = append(events, e)
		key = append(key, fmt.Sprintf("%d.%d%v", e.thread, e.index, e.acc))
	}
	for a := range events {
		for c := a + 1; c < len(events); c++ {
			if events[a].thread != events[c].thread && dependent(events[a].acc, events[c].acc) {
				key = append(key, fmt.Sprintf("%d.%d<%d.%d", events[a].thread, events[a].index, events[c].thread, events[c].index))
			}
		}
	}
	sort.Strings(key)
	return strings.Join(key, " ")
}

func dependent(a, b []ir.Access) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Loc == y.Loc && (x.Kind == ir.Write || y.Kind == ir.Write) {
				return true
			}
		}
	}
	return false
}
