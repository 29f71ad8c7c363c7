package detect_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kbmc/detect"
	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/lang"
)

var recordSeeds = flag.Int("detect.record", 10, "random schedules per program in TestRecordedPrograms")

// processPrograms compiles every testdata program that declares processes.
func processPrograms(t *testing.T) []*ir.Program {
	t.Helper()
	paths, err := filepath.Glob("../testdata/*.kb")
	if err != nil {
		t.Fatal(err)
	}
	var out []*ir.Program
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte("process ")) || strings.Contains(filepath.Base(path), "err-") {
			continue
		}
		p, err := lang.Compile(path, src, lang.Config{})
		if err != nil || len(p.Processes) == 0 {
			continue // an error program, or "process" only in a comment
		}
		out = append(out, p)
	}
	if len(out) < 20 {
		t.Fatalf("found %d testdata programs with processes; want the dist-* programs", len(out))
	}
	return out
}

// simulate runs p under a random schedule.
func simulate(t *testing.T, p *ir.Program, seed uint64) []ir.Move {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x6b626d63))
	sim, err := explicit.Simulate(context.Background(), p, 200, explicit.RandomScheduler(rng), rng)
	if err != nil {
		t.Fatalf("%s seed %d: %v", p.File, seed, err)
	}
	return sim.Trace
}

// TestRecordedPrograms records random executions of the testdata programs with
// processes, reads each recording back, and checks it against the execution:
// the same histories and memories, clocks that put every prefix of the
// execution on a consistent cut and every receive after its send; then it
// decides random predicates over the recorded memories with every search,
// against the lattice and brute force. -detect.record sets the schedules per
// program.
func TestRecordedPrograms(t *testing.T) {
	runs, disagreements, brute, computations := 0, 0, 0, 0
	for _, p := range processPrograms(t) {
		for seed := uint64(1); seed <= uint64(*recordSeeds); seed++ {
			what := fmt.Sprintf("%s seed %d", p.File, seed)
			moves := simulate(t, p, seed)
			rec, err := detect.Record(p, moves)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var buf bytes.Buffer
			if err := rec.Write(&buf); err != nil {
				t.Fatal(err)
			}
			c, err := detect.ReadJSON(detect.File{Name: what, Data: buf.Bytes()})
			if err != nil {
				t.Fatalf("%s: the recording does not read back: %v\n%s", what, err, buf.Bytes())
			}
			checkRecording(t, what, p, moves, rec, c)
			rng := rand.New(rand.NewPCG(seed, 7))
			preds := []string{recordedPredicate(rng, c, true), recordedPredicate(rng, c, false)}
			r, d, b := compare(t, c, what, preds)
			runs, disagreements, brute, computations = runs+r, disagreements+d, brute+b, computations+1
		}
	}
	t.Logf("%d recorded computations, %d searches, %d disagreements; %d predicate checks against brute force",
		computations, runs, disagreements, brute)
}

// checkRecording checks c, read back from rec, against the execution moves of p.
func checkRecording(t *testing.T, what string, p *ir.Program, moves []ir.Move, rec *detect.Recording, c *detect.Computation) {
	t.Helper()
	if c.N() != p.NumProcesses() {
		t.Fatalf("%s: %d processes read back, the program has %d", what, c.N(), p.NumProcesses())
	}
	run, err := p.Replay(moves)
	if err != nil {
		t.Fatal(err)
	}
	// Every prefix of the execution is a consistent cut.
	cut := make([]int, c.N())
	for k, ev := range run.Events {
		proc := p.ProcessOf(ev.Thread)
		cut[proc]++
		if ev.Partner >= 0 && p.ProcessOf(ev.Partner) != proc {
			cut[p.ProcessOf(ev.Partner)]++ // a rendezvous: the receiver's event too
		}
		if !c.Consistent(cut) {
			t.Fatalf("%s: after step %d the cut %v is not consistent", what, k+1, cut)
		}
	}
	for i, rp := range rec.Processes {
		if got := len(c.Procs[i].Events); got != len(rp.Events) || got != cut[i] {
			t.Fatalf("%s: %s has %d events read back, %d recorded, %d in the execution", what, rp.Name, got, len(rp.Events), cut[i])
		}
		for k := 0; k <= len(rp.Events); k++ {
			state := rp.Initial
			if k > 0 {
				state = rp.Events[k-1].State
				clock := c.Clock(i, k)
				for j, v := range rp.Events[k-1].Clock {
					if int64(clock[j]) != v {
						t.Fatalf("%s: %s event %d: clock %v read back, %v recorded", what, rp.Name, k, clock, rp.Events[k-1].Clock)
					}
				}
			}
			for name, v := range state {
				checkValue(t, what, c, i, k, name, v)
			}
		}
	}
	// A receive happens after the send of its message: with FIFO channels, the
	// n-th receive on a channel takes the n-th send's message.
	sends := map[int][][2]int{} // channel → (process, event index) of its sends
	recvs := map[int]int{}
	done := make([]int, c.N())
	for _, ev := range run.Events {
		proc := p.ProcessOf(ev.Thread)
		done[proc]++
		if q := p.ProcessOf(max(ev.Partner, 0)); ev.Partner >= 0 && q != proc {
			// A rendezvous: the receiver's event knows the send.
			done[q]++
			if got := c.Clock(q, done[q])[proc]; got < done[proc] {
				t.Fatalf("%s: a rendezvous receive by %s knows %d events of %s, but its message was handed over by event %d",
					what, c.Procs[q].Name, got, c.Procs[proc].Name, done[proc])
			}
			continue
		}
		if ev.Channel < 0 {
			continue
		}
		switch p.Threads[ev.Thread].Template.Transitions[ev.From].EntryNode().Op {
		case ir.OpSend:
			sends[ev.Channel] = append(sends[ev.Channel], [2]int{proc, done[proc]})
		case ir.OpRecv:
			s := sends[ev.Channel][recvs[ev.Channel]]
			recvs[ev.Channel]++
			if got := c.Clock(proc, done[proc])[s[0]]; s[0] != proc && got < s[1] {
				t.Fatalf("%s: a receive by %s knows %d events of %s, but its message was sent by event %d",
					what, c.Procs[proc].Name, got, c.Procs[s[0]].Name, s[1])
			}
		}
	}
}

// checkValue checks variable name (an array: each element) of process i in
// local state k against the recorded value v.
func checkValue(t *testing.T, what string, c *detect.Computation, i, k int, name string, v any) {
	t.Helper()
	if arr, ok := v.([]any); ok {
		for j, e := range arr {
			checkValue(t, what, c, i, k, fmt.Sprintf("%s[%d]", name, j), e)
		}
		return
	}
	got, ok := c.ValueAt(i, k, name)
	want := detect.Value{}
	switch v := v.(type) {
	case bool:
		want = detect.BoolVal(v)
	case int64:
		want = detect.IntVal(v)
	default:
		t.Fatalf("%s: %s.%s: unexpected recorded value %v (%T)", what, c.Procs[i].Name, name, v, v)
	}
	if !ok || got != want {
		t.Fatalf("%s: %s.%s in state %d is %v read back, %v recorded", what, c.Procs[i].Name, name, k, got, want)
	}
}

// recordedPredicate makes a random predicate over c's variables, comparing them
// with values they take in the history so that both verdicts occur: a
// conjunction of 1-local atoms if local, else atoms may relate two processes.
func recordedPredicate(rng *rand.Rand, c *detect.Computation, local bool) string {
	type variable struct {
		proc int
		v    *detect.Var
	}
	var vars []variable
	for i, p := range c.Procs {
		for _, v := range p.Vars {
			if !v.Mixed {
				vars = append(vars, variable{i, v})
			}
		}
	}
	ref := func(x variable) string { return c.Procs[x.proc].Name + "." + x.v.Name }
	someValue := func(x variable) detect.Value {
		val, _ := c.ValueAt(x.proc, rng.IntN(len(c.Procs[x.proc].Events)+1), x.v.Name)
		return val
	}
	atom := func() string {
		x := vars[rng.IntN(len(vars))]
		y := vars[rng.IntN(len(vars))]
		if !local && x.v.Kind == detect.IntValue && y.v.Kind == detect.IntValue && rng.IntN(2) == 0 {
			return fmt.Sprintf("%s + %s %s %d", ref(x), ref(y), []string{"==", "!=", ">=", "<"}[rng.IntN(4)],
				someValue(x).Int+someValue(y).Int)
		}
		if !local && x.v.Kind == y.v.Kind && rng.IntN(2) == 0 {
			return fmt.Sprintf("%s != %s", ref(x), ref(y))
		}
		op := []string{"==", "!="}[rng.IntN(2)]
		return fmt.Sprintf("%s %s %s", ref(x), op, someValue(x))
	}
	if len(vars) == 0 {
		return "true"
	}
	parts := make([]string, 1+rng.IntN(3))
	for i := range parts {
		parts[i] = atom()
	}
	return strings.Join(parts, " && ")
}
