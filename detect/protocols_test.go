package detect_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"kbmc/detect"
	"kbmc/explicit"
	"kbmc/lang"
)

// Stoller §6's two examples as kbmc's own protocol programs (bench/programs),
// recorded under random schedules exactly as `kbmc run --record --schedule
// random --seed SEED` records them, then searched like the simulated
// computations of BenchmarkStoller. docs/bench-detect.md has the commands and
// results; scripts/detect-bench turns the output into CSV and Markdown.

// A protocolProgram is one of §6's examples as a bench/programs program.
type protocolProgram struct {
	name      string // as in BenchmarkStoller: database or primary-secondary
	file      string
	predicate func(n int) string // the negated invariant, as a conjunction
	// rolesFirst: every node's first step sets its role (an initialiser cannot
	// use pid), so before it nobody is primary and the negated invariant holds
	// in the initial state. The search starts after those steps.
	rolesFirst bool
	// roundDone is the text of the event that ends a round: the rounds
	// completed before the cut are counted by it.
	roundDone []string
}

var (
	databaseProgram = protocolProgram{
		name: "database", file: "../bench/programs/database-partitioning.kb",
		predicate: notIdbProgram,
		roundDone: []string{"propose: chg = false"},
	}
	primarySecondaryProgram = protocolProgram{
		name: "primary-secondary", file: "../bench/programs/primary-secondary.kb",
		predicate: notIprProgram, rolesFirst: true,
		roundDone: []string{"isPrimary = false", "send(ctl[secondary], CANCEL, 0)"},
	}
)

// notIdbProgram is ¬I_db (Stoller (8)) over database-partitioning.kb's memory,
// written as a conjunction as §6 does: no node i ≥ 1 is changing the partition,
// and two nodes hold different partitions. A partition is (ver, partn): partn is
// only the proposer's number, and a node proposes again in a later round.
func notIdbProgram(n int) string {
	var parts, diff []string
	for i := 1; i < n; i++ {
		parts = append(parts, fmt.Sprintf("!node[%d].chg", i))
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			diff = append(diff, fmt.Sprintf("node[%d].partn != node[%d].partn || node[%d].ver != node[%d].ver", i, j, i, j))
		}
	}
	return strings.Join(append(parts, "("+strings.Join(diff, " || ")+")"), " && ")
}

// notIprProgram is ¬I_pr (Stoller (9)) over primary-secondary.kb's memory, by De
// Morgan a conjunction over i ≠ j: no i and j are primary and secondary naming
// each other.
func notIprProgram(n int) string {
	var parts []string
	for i := range n {
		for j := range n {
			if i != j {
				parts = append(parts, fmt.Sprintf("!(node[%d].isPrimary && node[%d].isSecondary && node[%d].secondary == %d && node[%d].primary == %d)",
					i, j, i, j, j, i))
			}
		}
	}
	return strings.Join(parts, " && ")
}

// A protocolRun is one recorded run of a protocol program, ready to search.
type protocolRun struct {
	c *detect.Computation
	// steps is the length of the recorded execution: `kbmc run -D N=n -D
	// ROUNDS=rounds --seed seed --depth steps --record FILE` writes the same
	// recording (before the rolesFirst and auditor adjustments).
	steps  int
	rounds int // rounds completed within it (proposals; hand-overs)
	// asRecorded is c before the rolesFirst adjustments (nil without them).
	asRecorded *detect.Computation
}

// recordProtocol runs prog with N = n and ROUNDS = rounds under kbmc run's
// random schedule for seed and records it. With s > 0 the execution is cut,
// as Stoller's simulator halts, at the step where some process has executed
// s − 1 events of the computation searched (so S, the most local states of a
// process, is s); rounds must be large enough that no process ends before.
// With s = 0 the whole run is recorded.
func recordProtocol(tb testing.TB, prog protocolProgram, n, rounds, s int, seed uint64) protocolRun {
	tb.Helper()
	src, err := os.ReadFile(prog.file)
	if err != nil {
		tb.Fatal(err)
	}
	// As kbmc run --record compiles it: every access to process memory a step.
	p, err := lang.Compile(prog.file, src, lang.Config{Defines: map[string]int64{"N": int64(n), "ROUNDS": int64(rounds)}, KeepPrivate: true})
	if err != nil {
		tb.Fatal(err)
	}
	skip := 0 // the role-setting first event, which the search starts after
	if prog.rolesFirst {
		skip = 1
	}
	depth := 1 << 20
	if s > 0 {
		// Every step is an event of some process; the cut comes before any
		// process has more than s − 1 + skip.
		depth = p.NumProcesses() * (s + skip)
	}
	// As kbmc run does for --schedule random --seed seed.
	rng := rand.New(rand.NewPCG(seed, 0x6b626d63))
	sched, err := explicit.ParseSchedule("random", p, rng)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err := explicit.Simulate(context.Background(), p, depth, sched, rng)
	if err != nil {
		tb.Fatal(err)
	}
	if sim.Violation != nil {
		tb.Fatalf("%s N=%d ROUNDS=%d seed %d: %s", prog.file, n, rounds, seed, sim.End)
	}
	moves := sim.Trace
	if s > 0 {
		events := make([]int, p.NumProcesses())
		cut := -1
		for k, m := range moves {
			proc := p.ProcessOf(m.Thread)
			if events[proc]++; events[proc] == s-1+skip {
				cut = k + 1
				break
			}
		}
		if cut < 0 {
			tb.Fatalf("%s N=%d ROUNDS=%d seed %d: the run ended (%s) before a process had %d events: raise ROUNDS",
				prog.file, n, rounds, seed, sim.End, s-1+skip)
		}
		moves = moves[:cut]
	}
	rec, err := detect.Record(p, moves)
	if err != nil {
		tb.Fatal(err)
	}
	run := protocolRun{steps: len(moves)}
	for _, rp := range rec.Processes {
		for _, ev := range rp.Events {
			if slices.ContainsFunc(prog.roundDone, func(t string) bool { return strings.HasSuffix(ev.Text, t) }) {
				run.rounds++
			}
		}
	}
	name := fmt.Sprintf("%s n=%d s=%d seed=%d", prog.name, n, s, seed)
	if prog.rolesFirst {
		run.asRecorded = readRecording(tb, name, rec)
		startAfterFirstEvents(tb, rec, "node[")
		dropProcess(tb, rec, "auditor")
	}
	run.c = readRecording(tb, name, rec)
	most := 0
	for _, pr := range run.c.Procs {
		most = max(most, len(pr.Events))
	}
	if s > 0 && most != s-1 {
		tb.Fatalf("%s: the busiest process has %d events, want S - 1 = %d", name, most, s-1)
	}
	return run
}

// readRecording writes rec as kbmc run --record does and reads it back.
func readRecording(tb testing.TB, name string, rec *detect.Recording) *detect.Computation {
	tb.Helper()
	var buf bytes.Buffer
	if err := rec.Write(&buf); err != nil {
		tb.Fatal(err)
	}
	c, err := detect.ReadJSON(detect.File{Name: name, Data: buf.Bytes()})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// startAfterFirstEvents makes the state after the first event of every process
// whose name starts with prefix its initial state. The first event must be
// local (no message), so dropping it takes nothing from happened-before: every
// clock that counts it counts one event fewer of that process.
func startAfterFirstEvents(tb testing.TB, rec *detect.Recording, prefix string) {
	tb.Helper()
	for i := range rec.Processes {
		rp := &rec.Processes[i]
		if !strings.HasPrefix(rp.Name, prefix) || len(rp.Events) == 0 {
			continue
		}
		if rp.Events[0].Kind != "local" {
			tb.Fatalf("%s's first event %q is a %s, not local", rp.Name, rp.Events[0].Text, rp.Events[0].Kind)
		}
		rp.Initial, rp.Events = rp.Events[0].State, rp.Events[1:]
		for j := range rec.Processes {
			for _, ev := range rec.Processes[j].Events {
				if ev.Clock[i] > 0 {
					ev.Clock[i]--
				}
			}
		}
	}
}

// dropProcess removes process name from rec. It must have sent nothing: then no
// other process learnt anything through it, and the others' happened-before is
// unchanged without its clock entry.
func dropProcess(tb testing.TB, rec *detect.Recording, name string) {
	tb.Helper()
	i := slices.IndexFunc(rec.Processes, func(rp detect.RecordedProcess) bool { return rp.Name == name })
	if i < 0 {
		tb.Fatalf("no process %s in the recording", name)
	}
	for _, ev := range rec.Processes[i].Events {
		if ev.Kind == "send" {
			tb.Fatalf("%s sent a message (%q): it cannot be left out", name, ev.Text)
		}
	}
	rec.Processes = slices.Delete(rec.Processes, i, i+1)
	for j := range rec.Processes {
		for k, ev := range rec.Processes[j].Events {
			rec.Processes[j].Events[k].Clock = slices.Delete(ev.Clock, i, i+1)
		}
	}
}

// TestProtocolProgramsAgree records whole runs of the two protocol programs
// with ROUNDS = 2 under a few random schedules and decides Poss and Def of
// their negated invariants with every search, against the lattice (compare):
// the verdicts must agree, and Poss must be false, since the protocols keep
// their invariants. It also checks that the runs have the rounds they should,
// and that primary-secondary's recording as it is, where nobody is primary
// before the nodes' first steps, does possibly violate I_pr: the reason the
// search starts after those steps.
func TestProtocolProgramsAgree(t *testing.T) {
	for _, tc := range []struct {
		prog       protocolProgram
		n, rounds  int
		wantRounds int // proposals (N-1 per round); hand-overs or cancels (one per round)
	}{
		{databaseProgram, 3, 2, 4},
		{primarySecondaryProgram, 4, 2, 2},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			what := fmt.Sprintf("%s N=%d ROUNDS=%d seed %d", tc.prog.name, tc.n, tc.rounds, seed)
			run := recordProtocol(t, tc.prog, tc.n, tc.rounds, 0, seed)
			if run.rounds != tc.wantRounds {
				t.Errorf("%s: %d rounds completed, want %d", what, run.rounds, tc.wantRounds)
			}
			pred := tc.prog.predicate(tc.n)
			compare(t, run.c, what, []string{pred})
			if got := possibly(t, run.c, pred); got != detect.No {
				t.Errorf("%s: Poss of the negated invariant is %s, want no", what, got)
			}
			if run.asRecorded != nil {
				if got := possibly(t, run.asRecorded, pred); got != detect.Yes {
					t.Errorf("%s: as recorded, with nobody primary at first, Poss of the negated invariant is %s, want yes", what, got)
				}
			}
		}
	}
}

// possibly decides Poss src on c with the default search.
func possibly(t *testing.T, c *detect.Computation, src string) detect.Verdict {
	t.Helper()
	phi, err := detect.CompilePredicate("predicate", src, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := detect.Detect(context.Background(), c, phi, detect.Possibly, detect.Options{Algorithm: detect.Persistent})
	if err != nil {
		t.Fatal(err)
	}
	return res.Verdict
}

// benchProtocol records prog at (n, s) for seed and benchmarks the search for
// Poss of its negated invariant at each level in levelIdx (indices of levels).
// ROUNDS = s is always enough: every node takes part in every round, with at
// least one event.
func benchProtocol(b *testing.B, prog protocolProgram, n, s int, seed uint64, levelIdx []int) {
	run := recordProtocol(b, prog, n, s, s, seed)
	pred := prog.predicate(n)
	for _, li := range levelIdx {
		l := levels[li]
		b.Run(fmt.Sprintf("%s/n=%d/s=%d/seed=%d/%s", prog.name, n, s, seed, l.name), func(b *testing.B) {
			search(b, run.c, pred, detect.Possibly, l.opts)
			b.ReportMetric(float64(run.steps), "steps")
			b.ReportMetric(float64(run.rounds), "rounds")
		})
	}
}

// BenchmarkStollerPrograms is §6's table from kbmc's protocol programs: Poss
// ¬I_db on database-partitioning.kb with N = 5, S = 80 and Poss ¬I_pr on
// primary-secondary.kb with N = 9, S = 60, at the four levels of optimisation,
// on -detect.seeds recorded runs each.
func BenchmarkStollerPrograms(b *testing.B) {
	all := []int{0, 1, 2, 3}
	for seed := range uint64(*benchSeeds) {
		benchProtocol(b, databaseProgram, 5, 80, seed+1, all)
	}
	for seed := range uint64(*benchSeeds) {
		benchProtocol(b, primarySecondaryProgram, 9, 60, seed+1, all)
	}
}

// BenchmarkStollerProgramsGrowth measures how N_T grows with S and with N on the
// recorded programs: database partitioning at N = 5 for S = 20 … 80, and for N =
// 3 … 9 at S = 25 without persistent sets (up to N = 6, where the lattice
// already has millions of states) and at S = 50 with them, as Fig. 4 (left) and
// BenchmarkStollerGrowth do; primary–secondary at N = 9 for S = 15 … 60, and for
// N = 3 … 8 at S = 60 (N = 9 is BenchmarkStollerPrograms's).
func BenchmarkStollerProgramsGrowth(b *testing.B) {
	type point struct {
		prog   protocolProgram
		n, s   int
		levels []int
	}
	all, plain, ps := []int{0, 1, 2, 3}, []int{0, 1}, []int{2, 3}
	var points []point
	for _, s := range []int{20, 40, 60, 80} {
		points = append(points, point{databaseProgram, 5, s, all})
	}
	for n := 3; n <= 9; n++ {
		if n <= 6 {
			points = append(points, point{databaseProgram, n, 25, plain})
		}
		points = append(points, point{databaseProgram, n, 50, ps})
	}
	for _, s := range []int{15, 30, 45, 60} {
		points = append(points, point{primarySecondaryProgram, 9, s, all})
	}
	for n := 3; n <= 8; n++ {
		points = append(points, point{primarySecondaryProgram, n, 60, all})
	}
	for _, p := range points {
		for seed := range uint64(*benchSeeds) {
			benchProtocol(b, p.prog, p.n, p.s, seed+1, p.levels)
		}
	}
}
