package symbolic

import (
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

var rdvSeeds = flag.Int("symbolic.rdv-seeds", 500, "TestRandomRendezvous: random distributed programs with rendezvous channels (progen.Rendezvous); seeds whose program has none are skipped")

// usesRendezvous reports whether p has a channel of capacity 0, which the
// partial-order encoding refuses (encode.NewPartialOrder) and the step
// encoding encodes (encode/rendezvous.go).
func usesRendezvous(p *ir.Program) bool {
	for _, ch := range p.Channels {
		if ch.Rendezvous() {
			return true
		}
	}
	return false
}

// rendezvousUses counts what a program does with its rendezvous channels:
// selects with a case on one, and closes of one.
func rendezvousUses(p *ir.Program) (sel, close bool) {
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			if n.Op == ir.OpClose && n.Chan.Rendezvous() {
				close = true
			}
			for _, c := range n.Cases {
				sel = sel || c.Chan.Rendezvous()
			}
		}
	}
	return sel, close
}

// TestRandomRendezvous compares the symbolic engine with the reference DFS on
// seeded random distributed programs with rendezvous channels: verdict and
// violation kind, on both solvers and every reduction of the step encoding,
// and the default encoding, which falls back to the step encoding; the
// partial-order encoding must refuse them by name. Two programs in three have
// selects (progen.ChannelKinds), every fifth Go's constructs (close,
// ok-receives, guarded select cases, an entry goroutine: asGo). The engine
// replays every counterexample it reports. -symbolic.rdv-seeds sets the
// number of seeds (from -symbolic.from).
func TestRandomRendezvous(t *testing.T) {
	n := *rdvSeeds
	if testing.Short() {
		n = min(n, 10)
	}
	var cs []combo
	for _, s := range []string{"gini", "z3"} {
		if err := solverAvailable(s); err != nil {
			t.Logf("solver %s is not available in this build: %v", s, err)
			continue
		}
		for _, por := range PORs() {
			cs = append(cs, combo{s, "step", por})
		}
		cs = append(cs, combo{s, "partial-order", "none"}, combo{s, "", "monotonic"})
	}
	var programs, withSelect, withClose, unsafe, runs, disagree int
	for seed := *firstSeed; seed < *firstSeed+uint64(n); seed++ {
		cfg := randomConfig(seed, 0)
		cfg.Features = progen.DistributedConfig().Features | progen.Rendezvous
		cfg.MaxInterleavings = progen.DistributedConfig().MaxInterleavings
		if seed%3 != 0 {
			cfg.Features |= progen.ChannelKinds
		}
		if goSeed(seed) {
			cfg.Features |= progen.Close
		}
		src := progen.Generate(seed, cfg)
		p, err := lang.Compile("gen.kb", []byte(src), lang.Config{Width: cfg.Width, NoFold: cfg.NoFold})
		if err != nil {
			t.Fatalf("seed %d: compile: %v\n%s", seed, err, src)
		}
		if !usesRendezvous(p) {
			continue
		}
		if goSeed(seed) {
			if err := asGo(p); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, src)
			}
		}
		programs++
		sel, cl := rendezvousUses(p)
		withSelect, withClose = withSelect+b2i(sel), withClose+b2i(cl)
		opts := verify.Options{}
		ref, err := dfs(context.Background(), p, opts)
		if err != nil {
			t.Fatalf("seed %d: dfs: %v\n%s", seed, err, src)
		}
		unsafe += b2i(ref.Verdict == verify.Unsafe)
		for _, c := range cs {
			if cfg.Invariants > 0 && c.encoding == "partial-order" {
				continue // it refuses invariants (TestInvariants)
			}
			r, err := symbolicRun(p, opts, c, 2*time.Minute)
			runs++
			if c.encoding == "partial-order" {
				var unsup *verify.UnsupportedError
				if !errors.As(err, &unsup) || !strings.Contains(unsup.Msg, "rendezvous") {
					disagree++
					t.Errorf("seed %d, %s: %v, %v; want the refusal of a rendezvous\n%s", seed, c, r, err, src)
				}
				continue
			}
			if err == nil {
				err = agree(p, opts, c, ref, r, 2*time.Minute)
			}
			if err != nil {
				disagree++
				t.Errorf("seed %d, %s/%s: %v\n%s", seed, c.solver, c.variant(), err, src)
			}
		}
	}
	t.Logf("%d seeds: %d programs with a rendezvous (%d with a select on one, %d with a close of one, %d unsafe); %d runs, %d disagreements",
		n, programs, withSelect, withClose, unsafe, runs, disagree)
	if programs == 0 {
		t.Fatal("no program with a rendezvous channel")
	}
}

// TestRendezvous checks the step encoding of rendezvous channels against the
// reference DFS, and against the verdict each program was written to have,
// on every solver × encoding × reduction combination (the partial-order
// encoding must refuse them by name): who may receive (a recv, a select
// without default with a case whose When holds and whose index names the
// channel; never a select with a default), the draw of the receiver among
// several, the receiver's transition run inside the sender's step (its
// draws, writes and failures, its arrival at another receive), close, and
// deadlocks of threads waiting on either side.
func TestRendezvous(t *testing.T) {
	tests := []struct {
		name string
		src  string
		noDL bool
		want verify.Verdict
		kind ir.ViolationKind
	}{
		{name: "the receiver's later steps follow the send", want: verify.Safe, src: `
chan (int) c capacity 0;
shared int seen = 0;
thread s { send(c, 5); }
thread r { int x; recv(c, x); seen = x; }
thread check { join(r); assert(seen == 5, "the receiver has run"); }`},
		{name: "its failure is the receiver's", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 0;
thread s { send(c, 5); }
thread r { int x; recv(c, x); assert(x != 5, "received"); }`},
		{name: "its draws come after the receiver's draw", noDL: true, want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 0;
shared int sum = 0;
thread s { send(c, nondet(1, 2)); int k = nondet(0, 1); sum = sum + k; }
thread r1 { int x; recv(c, x); int y = nondet(0, 3); sum = sum + x * 10 + y + 100; }
thread r2 { int x; recv(c, x); int y = nondet(0, 3); sum = sum + x * 10 + y + 200; }
thread check { join(s); assert(sum != 223, "r2 got 2, drew 2, then s drew 1"); }`},
		{name: "a receiver arrives at a receive again", want: verify.Safe, src: `
chan (int) c capacity 0;
thread s { for (int i = 1; i <= 3; i++) { send(c, i); } }
thread r { for (int k = 1; k <= 3; k++) { int x; recv(c, x); assert(x == k, "out of order"); } }`},
		{name: "two senders, one receiver", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 0;
thread a { send(c, 1); }
thread b { send(c, 2); }
thread r { int x; recv(c, x); }`},
		{name: "a select with a default never receives", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 0;
thread r { int x = 0; select { case recv(c, x): default: } }
thread s { send(c, 1); }`},
		{name: "a select's send waits for a receiver, its default does not", noDL: true, want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 0;
shared int sent = 0;
thread s { select { case send(c, 1): sent = 1; default: sent = 2; } }
thread r { int x = 0; recv(c, x) ; }
thread check { join(s); assert(sent == 2, "the receiver was waiting"); }`},
		{name: "a when false: not waiting", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 0;
chan (int) d capacity 0;
thread r { int x = 0; bool on = false; select { case recv(c, x) when (on): case recv(d, x): } }
thread s { send(c, 1); }`},
		{name: "two cases on one channel: the select draws", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 0;
shared int which = 0;
thread r { int x = 0; select { case recv(c, x): which = 1; case recv(c, x): which = 2; } }
thread s { send(c, 1); assert(which == 1, "the second case"); }`},
		{name: "channel arrays, indices computed at run time", want: verify.Safe, src: `
chan (int) c[2] capacity 0;
process p[2] { thread run { int x; recv(c[pid], x); assert(x == pid + 10); } }
process snd { thread run { for (int i = 1; i >= 0; i--) { send(c[i], i + 10); } } }`},
		{name: "an index out of bounds in a receiver's case", want: verify.Unsafe, kind: ir.Bounds, src: `
chan (int) c[2] capacity 0;
shared int i = 2;
thread r { int x = 0; select { case recv(c[i], x): case recv(c[0], x): } }
thread s { send(c[0], 1); }`},
		{name: "a close wakes the receivers", want: verify.Safe, src: `
chan (int) c capacity 0;
thread r[2] { int x = 7; bool ok = true; recv(c, x) ok(ok); assert(!ok && x == 0); }
thread closer { close(c); }`},
		{name: "a send after a close panics", want: verify.Unsafe, kind: ir.Panic, src: `
chan (int) c capacity 0;
thread r { int x = 0; bool ok = true; recv(c, x) ok(ok); }
thread s { send(c, 1); }
thread closer { close(c); }`},
		{name: "both ways in one select", want: verify.Safe, src: `
chan (int) c capacity 0;
shared int got = 0;
thread a { int x = 0; select { case recv(c, x): got = got + x; case send(c, 1): } }
thread b { int y = 0; select { case recv(c, y): got = got + y; case send(c, 2): } }
thread check { join(a); join(b); assert(got == 1 || got == 2); }`},
		{name: "nobody waits, no deadlock reported", want: verify.Safe, noDL: true, src: `
chan (int) c capacity 0;
thread s { send(c, 1); }`},
	}
	cs := combos(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := lang.Compile("test.kb", []byte(tt.src), lang.Config{})
			if err != nil {
				t.Fatalf("compile: %v\n%s", err, tt.src)
			}
			matchesDFS(t, p, verify.Options{NoDeadlock: tt.noDL}, outcome{verdict: tt.want, kind: tt.kind}, cs, func(c combo) []string {
				if c.encoding == "partial-order" {
					return []string{"rendezvous"}
				}
				return nil
			})
		})
	}
}
