package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"kbmc/explicit"
	"kbmc/verify"
)

// kbmc run --runs K: K simulations, from seeds S, S+1, …, until one ends in a
// violation (printed as kbmc run prints one, with the seed that replays it),
// else a summary of how they ended (docs/guide.md, "Simulation").

// runsReport is what run --runs found, for the output.
type runsReport struct {
	sum    *explicit.RunsSummary
	asked  int
	seed   uint64
	pct    int
	depth  int
	replay string // the command that replays the violating run
}

// manyRuns makes the runs --runs asks for.
func manyRuns(ctx context.Context, c *cli.Context, l *loaded, depth int) (*runsReport, error) {
	r := &runsReport{asked: c.Int("runs"), seed: c.Uint64("seed"), pct: c.Int("pct"), depth: depth}
	opts := explicit.RunsOptions{Runs: r.asked, Seed: r.seed, Depth: depth, PCT: r.pct, NoDeadlock: c.Bool("no-deadlock")}
	var prog *progress
	if !c.Bool("json") && !c.Bool("quiet") && isTerminal(c.App.ErrWriter) {
		prog = newProgress(c.App.ErrWriter, engineConfig{Engine: "explicit"})
		opts.Progress = prog.report
	}
	sum, err := explicit.Runs(ctx, l.prog, opts)
	prog.clear()
	if err != nil {
		return nil, usageErr("--runs: %v", err)
	}
	r.sum = sum
	if v := sum.Violation; v != nil {
		// Every counterexample is replayed concretely before it is shown.
		if _, _, err := l.prog.Confirm(v.Trace, v.Violation.Kind); err != nil {
			return nil, &exitError{exitInternal, fmt.Errorf("%w: run %d (seed %d): %v", verify.ErrReplay, sum.Run+1, sum.RunSeed, err)}
		}
		r.replay = replayCommand(c, l, sum.RunSeed)
	}
	return r, nil
}

// replayCommand is the kbmc run command that replays the run of seed: its
// seed, and the flags that change the program or the run.
func replayCommand(c *cli.Context, l *loaded, seed uint64) string {
	args := []string{"kbmc run", fmt.Sprintf("--seed %d", seed)}
	for _, name := range []string{"depth", "pct", "width", "no-fold", "data-model", "pool"} {
		if !c.IsSet(name) {
			continue
		}
		if name == "no-fold" {
			args = append(args, "--no-fold")
			continue
		}
		args = append(args, fmt.Sprintf("--%s %v", name, c.Value(name)))
	}
	for _, d := range c.StringSlice("D") {
		args = append(args, "-D "+d)
	}
	return strings.Join(append(args, l.path), " ")
}

// scheduler names the runs' scheduler for people.
func (r *runsReport) scheduler() string {
	if r.pct > 0 {
		return fmt.Sprintf("PCT (bug depth %d)", r.pct)
	}
	return "uniform random"
}

// header is the line printed before the trace of the run that ended in a
// violation.
func (r *runsReport) header() string {
	return fmt.Sprintf("run %d of %d (seed %d, %s schedule) ends in a violation; replay it with: %s",
		r.sum.Run+1, r.asked, r.sum.RunSeed, r.scheduler(), r.replay)
}

// jsonRuns is the "runs" member of run --runs's JSON object (docs/output.md).
type jsonRuns struct {
	Asked       int              `json:"asked"`
	Done        int              `json:"done"`
	Seed        uint64           `json:"seed"` // run i (from 0) has seed Seed+i
	Scheduler   string           `json:"scheduler"`
	PCT         int              `json:"pct,omitempty"`
	Depth       int              `json:"depth"`
	Complete    int              `json:"complete"`
	Deadlocked  int              `json:"deadlocked"`
	CutByAssume int              `json:"cut_by_assume"`
	CutByLimit  int              `json:"cut_by_limit"`
	CutByDepth  int              `json:"cut_by_depth"`
	Steps       int64            `json:"steps"`
	Longest     int              `json:"longest"`
	Distinct    int              `json:"distinct_final_states"`
	More        int              `json:"more_final_states,omitempty"` // runs that ended beyond the distinct states told apart
	Finals      []jsonFinalState `json:"final_states"`
	Stopped     string           `json:"stopped,omitempty"`
	TimeMS      float64          `json:"time_ms"`
	// The run that ended in a violation: its number (from 1), its seed, and
	// the command that replays it.
	Run     int    `json:"run,omitempty"`
	RunSeed uint64 `json:"run_seed,omitempty"`
	Replay  string `json:"replay,omitempty"`
}

type jsonFinalState struct {
	Runs  int         `json:"runs"`
	State []stateCell `json:"state"`
}

func (r *runsReport) json(l *loaded) *jsonRuns {
	s := r.sum
	j := &jsonRuns{Asked: r.asked, Done: s.Runs, Seed: r.seed, Scheduler: "random", PCT: r.pct, Depth: r.depth,
		Complete: s.Complete, Deadlocked: s.Deadlocked, CutByAssume: s.CutByAssume, CutByLimit: s.CutByLimit, CutByDepth: s.CutByDepth,
		Steps: s.Steps, Longest: s.Longest, Distinct: len(s.Finals), More: s.MoreFinals, Finals: r.finals(l),
		TimeMS: float64(s.Time.Microseconds()) / 1000}
	if r.pct > 0 {
		j.Scheduler = "pct"
	}
	if s.Stopped != nil {
		j.Stopped = verify.StopReason(s.Stopped)
	}
	if s.Violation != nil {
		j.Run, j.RunSeed, j.Replay = s.Run+1, s.RunSeed, r.replay
	}
	return j
}

// finals are the distinct final states as the output shows them, the shared
// memory, most frequent first: states that differ only in threads' locals are
// one here.
func (r *runsReport) finals(l *loaded) []jsonFinalState {
	out := []jsonFinalState{}
	index := map[string]int{}
	for _, f := range r.sum.Finals {
		cells := finalState(l, f.State)
		var key strings.Builder
		for _, c := range cells {
			fmt.Fprintf(&key, "%s=%s;", c.Name, c.Value)
		}
		if i, ok := index[key.String()]; ok {
			out[i].Runs += f.Count
			continue
		}
		index[key.String()] = len(out)
		out = append(out, jsonFinalState{Runs: f.Count, State: cells})
	}
	return out
}

// shownFinals is how many final states the text summary shows.
const shownFinals = 10

// writeSummary prints how the runs ended.
func (r *runsReport) writeSummary(w io.Writer, l *loaded) {
	s := r.sum
	fmt.Fprintf(w, "runs: %s of %s (seeds %d..%d, %s schedules, depth %d)", formatCount(int64(s.Runs)), formatCount(int64(r.asked)),
		r.seed, r.seed+uint64(max(s.Runs, 1))-1, r.scheduler(), r.depth)
	if s.Stopped != nil {
		fmt.Fprintf(w, ", stopped: %v", s.Stopped)
	}
	fmt.Fprintln(w)
	if s.Violation != nil {
		fmt.Fprintf(w, "  1 (run %d) in the violation above\n", s.Run+1)
	}
	for _, c := range []struct {
		n    int
		what string
	}{
		{s.Complete, "complete"}, {s.Deadlocked, "deadlocked (not reported: --no-deadlock)"},
		{s.CutByAssume, "cut by a false assume"}, {s.CutByLimit, "cut by a thread or heap pool of the model"},
		{s.CutByDepth, fmt.Sprintf("cut by the depth bound (%d steps)", r.depth)},
	} {
		if c.n > 0 {
			fmt.Fprintf(w, "  %s %s\n", formatCount(int64(c.n)), c.what)
		}
	}
	fmt.Fprintf(w, "  %s steps, the longest run %s\n", formatCount(s.Steps), formatCount(int64(s.Longest)))
	finals := r.finals(l)
	if len(s.Finals) == 0 {
		return
	}
	more := ""
	if s.MoreFinals > 0 {
		more = fmt.Sprintf(" and %s runs in states beyond those", formatCount(int64(s.MoreFinals)))
	}
	fmt.Fprintf(w, "final states: %s distinct%s; by shared memory, most frequent first:\n", formatCount(int64(len(s.Finals))), more)
	for i, f := range finals {
		if i == shownFinals {
			fmt.Fprintf(w, "  … %d more (--json lists them)\n", len(finals)-shownFinals)
			break
		}
		cells := make([]string, len(f.State))
		for k, c := range f.State {
			cells[k] = c.Name + " = " + c.Value
		}
		state := strings.Join(cells, ", ")
		if state == "" {
			state = "(no shared memory)"
		}
		fmt.Fprintf(w, "  %s runs: %s\n", formatCount(int64(f.Runs)), state)
	}
}

// writeRunsSummary prints the outcome of runs none of which ended in a
// violation, and returns the exit status: unknown when the runs were stopped
// before all were made.
func writeRunsSummary(c *cli.Context, l *loaded, r *runsReport) error {
	out := c.App.Writer
	if c.Bool("json") || c.String("trace") == "json" {
		j := &jsonRun{File: l.path, Engine: "run", Outcome: r.outcome(), Runs: r.json(l), Trace: []traceStep{}, State: []stateCell{}}
		if err := writeJSONValue(out, j); err != nil {
			return &exitError{exitInternal, err}
		}
	} else {
		if !c.Bool("quiet") {
			r.writeSummary(out, l)
		}
		fmt.Fprintf(out, "outcome: %s\n", r.outcome())
	}
	if r.sum.Stopped != nil {
		return &exitError{exitUnknown, nil}
	}
	return nil
}

// outcome says how the runs ended, none in a violation.
func (r *runsReport) outcome() string {
	s := r.sum
	if s.Stopped != nil {
		return fmt.Sprintf("no violation in %s runs before the runs were stopped (%s of %s made)",
			formatCount(int64(s.Runs)), formatCount(int64(s.Runs)), formatCount(int64(r.asked)))
	}
	return fmt.Sprintf("no violation in %s runs (random runs prove nothing: kbmc check searches every execution)", formatCount(int64(s.Runs)))
}

// checkRunsFlags rejects flags that do not go with --runs or --pct.
func checkRunsFlags(c *cli.Context) error {
	if c.IsSet("runs") && c.Int("runs") < 1 {
		return usageErr("--runs %d: must be at least 1", c.Int("runs"))
	}
	if c.IsSet("pct") && c.Int("pct") < 1 {
		return usageErr("--pct %d: the depth of the bugs PCT aims at must be at least 1", c.Int("pct"))
	}
	if (c.IsSet("runs") || c.IsSet("pct")) && c.IsSet("schedule") && c.String("schedule") != "random" {
		return usageErr("--schedule %s: --runs and --pct make random schedules", c.String("schedule"))
	}
	if c.IsSet("replay") {
		for _, f := range []string{"runs", "pct", "no-deadlock"} {
			if c.IsSet(f) {
				return usageErr("--%s does not apply with --replay: the trail fixes the schedule", f)
			}
		}
	}
	if c.IsSet("runs") && c.IsSet("record") {
		return usageErr("--record records one run: find it with --runs, then record it with kbmc run --seed S --record FILE")
	}
	return nil
}
