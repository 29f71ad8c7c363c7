package ir_test

import (
	"math/rand"
	"slices"
	"testing"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
)

// TestChannelIndependence checks, on generated programs with processes and
// channels (and selects, lossy and unordered channels) and random runs of them, what the partial-order reductions assume
// of the dependency relation (dependency.go) for every two consecutive steps
// e1, e2 of different threads:
//
//   - if they do not conflict, e2's thread could go first: its step there makes
//     the same accesses, e1's step after it too, and the two orders end in the
//     same state (heads included): they commute, and neither enables the other;
//   - if every conflict between them is on an ordered location (a message
//     slot), e2's thread could not go first: the conflict is no race.
func TestChannelIndependence(t *testing.T) {
	pairs, ordered, selects, handoffs := 0, 0, 0, 0
	for seed := range uint64(600) {
		cfg := progen.DistributedConfig()
		if seed >= 150 { // and the same with selects, lossy and unordered channels (ir/select.go)
			cfg.Features |= progen.ChannelKinds
		}
		if seed >= 300 { // and with rendezvous channels (ir/rendezvous.go)
			cfg.Features |= progen.Rendezvous
		}
		if seed >= 450 { // and with close, ok-receives and guarded cases
			cfg.Features |= progen.Close
		}
		src := progen.Generate(seed, cfg)
		p, err := lang.Compile("gen.kb", []byte(src), lang.Config{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if p.NumChannels == 0 {
			continue
		}
		rng := rand.New(rand.NewSource(int64(seed)))
		for range 20 {
			s := p.Initial()
			var prev *step
			for range 80 {
				var en []int
				for th := range p.Threads {
					if p.Status(s, th) == ir.Enabled {
						en = append(en, th)
					}
				}
				if len(en) == 0 {
					break
				}
				cur := take(p, s, en[rng.Intn(len(en))], rng)
				if cur.ev.Violation != nil {
					break
				}
				if tr := p.Threads[cur.thread].Template.Transitions[cur.ev.From]; tr.EntryNode().Op == ir.OpSelect {
					selects++
				}
				if cur.ev.Partner >= 0 {
					handoffs++
				}
				if prev != nil && prev.thread != cur.thread {
					pairs++
					if !ir.Conflict(prev.ev.Accesses, cur.ev.Accesses) {
						checkCommute(t, seed, p, prev, cur, src)
					} else if p.OrderedOnly(prev.ev.Accesses, cur.ev.Accesses) {
						ordered++
						if p.Status(prev.before, cur.thread) == ir.Enabled {
							t.Fatalf("seed %d: %s's step conflicts with %s's only on message slots (%v, %v), yet it could go first\n%s",
								seed, p.Threads[cur.thread].Name, p.Threads[prev.thread].Name, prev.ev.Accesses, cur.ev.Accesses, src)
						}
					}
				}
				prev = cur
				s = cur.after
			}
		}
	}
	if pairs == 0 || ordered == 0 || selects == 0 || handoffs == 0 {
		t.Fatalf("%d consecutive pairs, %d ordered only, %d selects, %d rendezvous: the runs did not exercise the relation",
			pairs, ordered, selects, handoffs)
	}
	t.Logf("%d consecutive pairs of steps, %d of them ordered by a message slot alone; %d select steps; %d rendezvous",
		pairs, ordered, selects, handoffs)
}

// A step is one step of a run: the state before and after it, its thread, its
// event and its draws.
type step struct {
	before, after ir.State
	thread        int
	ev            ir.Event
	draws         []int64
}

func take(p *ir.Program, s ir.State, th int, rng *rand.Rand) *step {
	st := &step{before: s.Clone(), after: s.Clone(), thread: th}
	ch := &ir.Choices{Draw: func(lo, hi int64) int64 { return lo + rng.Int63n(hi-lo+1) }}
	ch.Reset(nil)
	p.Step(st.after, th, ch, &st.ev)
	st.ev.Accesses = slices.Clone(st.ev.Accesses)
	for _, c := range ch.Made {
		st.draws = append(st.draws, c.Value)
	}
	return st
}

// replay takes thread th's step in s with the given draws.
func replay(p *ir.Program, s ir.State, th int, draws []int64) *step {
	st := &step{before: s.Clone(), after: s.Clone(), thread: th, draws: draws}
	ch := &ir.Choices{}
	ch.Reset(draws)
	p.Step(st.after, th, ch, &st.ev)
	st.ev.Accesses = slices.Clone(st.ev.Accesses)
	return st
}

func checkCommute(t *testing.T, seed uint64, p *ir.Program, e1, e2 *step, src string) {
	t.Helper()
	name := func(e *step) string { return p.Threads[e.thread].Name }
	if p.Status(e1.before, e2.thread) != ir.Enabled {
		t.Fatalf("seed %d: %s's step (%v) is independent of %s's (%v) but enabled only after it\n%s",
			seed, name(e2), e2.ev.Accesses, name(e1), e1.ev.Accesses, src)
	}
	f2 := replay(p, e1.before, e2.thread, e2.draws)
	if f2.ev.Violation != nil || p.Status(f2.after, e1.thread) != ir.Enabled {
		t.Fatalf("seed %d: %s's step (%v) disables %s's (%v), which is independent of it\n%s",
			seed, name(e2), e2.ev.Accesses, name(e1), e1.ev.Accesses, src)
	}
	f1 := replay(p, f2.after, e1.thread, e1.draws)
	switch {
	case !sameLocations(f2.ev.Accesses, e2.ev.Accesses) || !sameLocations(f1.ev.Accesses, e1.ev.Accesses):
		t.Fatalf("seed %d: swapping the independent steps of %s and %s changes their accesses: %v, %v; swapped %v, %v\n%s",
			seed, name(e1), name(e2), e1.ev.Accesses, e2.ev.Accesses, f1.ev.Accesses, f2.ev.Accesses, src)
	case !slices.Equal(f1.after, e2.after):
		t.Fatalf("seed %d: the independent steps of %s (%v) and %s (%v) do not commute\n%s",
			seed, name(e1), e1.ev.Accesses, name(e2), e2.ev.Accesses, src)
	}
}

// TestChannelLocations: a send and a recv that can both go do not conflict;
// the k-th send and the k-th recv conflict on a message slot only, and so do
// the k-th recv and the (k+Cap)-th send; two sends conflict on the sending
// end; len conflicts with both.
func TestChannelLocations(t *testing.T) {
	p := compile(t, `
chan (int) c capacity 2;
shared int n;
thread a { send(c, 1); send(c, 2); send(c, 3); }
thread b { int x; recv(c, x); recv(c, x); recv(c, x); }
thread d { n = len(c); }
`, 8)
	s := p.Initial()
	do := func(th int) []ir.Access {
		var ev ir.Event
		p.Step(s, th, nil, &ev)
		return slices.Clone(ev.Accesses)
	}
	send0 := do(0) // c: [1]
	send1 := do(0) // c: [1 2], full
	recv0 := do(1) // c: [2]
	send2 := do(0) // c: [2 3]: the slot recv0 freed
	lenAcc := do(2)
	recv1 := do(1)
	for _, tc := range []struct {
		name          string
		a, b          []ir.Access
		conflict, ord bool
	}{
		{"send 0, recv 0", send0, recv0, true, true},
		{"send 1, recv 0", send1, recv0, false, true},
		{"recv 0, send 2", recv0, send2, true, true},
		{"send 1, recv 1", send1, recv1, true, true},
		{"send 2, recv 1", send2, recv1, false, true},
		{"send 0, send 1", send0, send1, true, false},
		{"recv 0, recv 1", recv0, recv1, true, false},
		{"len, send 2", lenAcc, send2, true, false},
		{"len, recv 1", lenAcc, recv1, true, false},
	} {
		if got := ir.Conflict(tc.a, tc.b); got != tc.conflict {
			t.Errorf("%s: Conflict(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.conflict)
		}
		if got := p.OrderedOnly(tc.a, tc.b); got != tc.ord {
			t.Errorf("%s: OrderedOnly(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.ord)
		}
	}
	for _, a := range append(send0, recv0...) {
		if k, c := p.Locate(a.Loc); k != ir.LocChannel || c != 0 {
			t.Errorf("Locate(%d) = %v %d, want channel 0", a.Loc, k, c)
		}
	}
	if got := p.LocationName(send2[1].Loc); got != "c (slot 0)" {
		t.Errorf("the third send's slot is %q, want c (slot 0)", got)
	}
	if got := len(p.IdentityCells(s)); got != p.StateSize-p.NumChannels {
		t.Errorf("IdentityCells keeps %d cells of %d, want all but the %d heads", got, p.StateSize, p.NumChannels)
	}
}

// sameLocations reports whether two access lists access the same locations in
// the same ways (values aside: they are no part of the dependency relation).
func sameLocations(a, b []ir.Access) bool {
	return slices.EqualFunc(a, b, func(x, y ir.Access) bool { return x.Loc == y.Loc && x.Kind == y.Kind })
}
