package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/verify"
	"kbmc/witness"
)

func runCommand() *cli.Command {
	flags := append(programFlags(),
		&cli.StringFlag{Name: "schedule", Value: "random", Usage: "random, rr (round robin), or a list of threads by number or name: 0,1,1,2 or w[0],w[1],m"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed for --schedule random and for nondet values; with --runs, of the first run (run i has seed S+i)"},
		&cli.IntFlag{Name: "depth", Value: verify.DefaultDepth, Usage: "stop after this many steps (at least 1)"},
		&cli.IntFlag{Name: "runs", Value: 1, Usage: "make this many random runs, until one ends in a violation, and summarize how they ended"},
		&cli.IntFlag{Name: "pct", Usage: "schedule by PCT for bugs of this depth (random priorities with depth-1 changes) instead of uniformly at random"},
		&cli.BoolFlag{Name: "no-deadlock", Usage: "a run that ends in a deadlock is no violation (with --runs: counted)"},
		timeoutFlag(0, "stop the runs after this long (a duration, or seconds; 0: no limit); the summary says how far they went"),
		&cli.StringFlag{Name: "replay", Usage: "re-execute a counterexample written by kbmc check --trail, or a violation witness kbmc wrote (.graphml, .yml, .yaml: check --witness, svcomp --witness-dir); FILE may then be left out"},
		&cli.BoolFlag{Name: "json", Usage: "print the run as one JSON object (docs/output.md)"},
		&cli.StringFlag{Name: "trace", Value: "text", Usage: "trace format: text or json"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only how the run ended"},
		&cli.BoolFlag{Name: "threads", Usage: "trace: say which threads could move at each step"},
		recordFlag("the execution"),
		memoryFlag(),
	)
	return &cli.Command{
		Name:      "run",
		Usage:     "simulate one execution, or replay a trail, and print its trace",
		ArgsUsage: "FILE",
		Flags:     flags,
		Action:    runAction,
	}
}

func runAction(c *cli.Context) error {
	format := c.String("trace")
	if format != "text" && format != "json" {
		return usageErr("--trace %s: want text or json", format)
	}
	asJSON := c.Bool("json") || format == "json"
	if err := checkRunsFlags(c); err != nil {
		return err
	}
	var tr *trail
	var wit *witnessReplay
	if f := c.String("replay"); f != "" {
		for _, fl := range []string{"schedule", "seed", "depth", "width", "D", "no-fold", "runs", "pct", "pool", "data-model"} {
			if c.IsSet(fl) {
				return usageErr("--%s does not apply with --replay: the trail or witness fixes the schedule, the values and the program's flags", fl)
			}
		}
		var err error
		if _, isWitness := witness.FormatOf(f); isWitness {
			if wit, err = readWitnessReplay(f, c.Args().First()); err != nil {
				return err
			}
		} else if tr, err = readTrail(f); err != nil {
			return err
		}
	}
	if c.Args().Len() > 1 || c.Args().Len() == 0 && tr == nil && wit == nil {
		return usageErr("run takes exactly one FILE")
	}
	path := c.Args().First()
	cfg, err := compileConfig(c)
	if err != nil {
		return err
	}
	if tr != nil {
		if path == "" {
			path = tr.File
		}
		cfg = tr.config()
	}
	depth := c.Int("depth")
	if err := checkDepth(depth); err != nil {
		return err
	}
	mem, err := parseMemory(c.String("memory"))
	if err != nil {
		return err
	}
	ctx, stop := withLimits(c.Context, timeoutOf(c), mem)
	defer stop()
	var l *loaded
	if wit != nil {
		l = wit.l
	} else if l, err = load(path, cfg); err != nil {
		return jsonInputError(c, asJSON, path, err)
	}
	p := l.prog
	var moves []ir.Move
	var viol *ir.Violation
	var end, changed string
	var many *runsReport // --runs
	if wit != nil {
		moves = wit.moves
		if _, viol, err = confirmMoves(p, moves, wit.spec); err != nil {
			return &exitError{exitInput, fmt.Errorf("--replay %s: the witness does not replay: %v", c.String("replay"), err)}
		}
		end = "the witness's violation, reproduced"
	} else if tr != nil {
		if got := sha256Hex(l.src); got != tr.SHA256 {
			// After a fix: replay the schedule by thread names as far as it
			// applies, and say where it stops applying.
			changed = fmt.Sprintf("%s has changed since the trail was written (SHA-256 %.12s…, the trail's %.12s…): its schedule is replayed by thread names",
				path, got, tr.SHA256)
			moves, viol, end = replayChanged(p, tr)
		} else {
			if moves, err = tr.moves(l); err != nil {
				return err
			}
			viol, end, err = replayTrail(p, moves, tr)
			if err != nil {
				return &exitError{exitInput, fmt.Errorf("--replay: %v", err)}
			}
		}
	} else if c.IsSet("runs") {
		if many, err = manyRuns(ctx, c, l, depth); err != nil {
			return err
		}
		if many.sum.Violation == nil {
			return writeRunsSummary(c, l, many)
		}
		moves, viol, end = many.sum.Violation.Trace, many.sum.Violation.Violation, many.sum.Violation.End
	} else {
		rng := explicit.SeedRand(c.Uint64("seed"))
		sched, err := explicit.ParseSchedule(c.String("schedule"), p, rng)
		if err != nil {
			return usageErr("--schedule %s: %v", c.String("schedule"), err)
		}
		if pct := c.Int("pct"); pct > 0 {
			// The run --runs --pct makes from this seed.
			span, err := explicit.PCTSpan(ctx, p, depth)
			if err != nil {
				return usageErr("--pct: %v", err)
			}
			sched = explicit.RunScheduler(p, rng, pct, span)
		}
		sim, err := explicit.Simulate(ctx, p, depth, sched, rng)
		if err != nil {
			return usageErr("--schedule %s: %v", c.String("schedule"), err)
		}
		moves, viol, end = sim.Trace, sim.Violation, sim.End
		if viol != nil && viol.Kind.Deadlocks() && c.Bool("no-deadlock") {
			viol, end = nil, end+" (not reported: --no-deadlock)"
		}
	}
	if err := record(c, l, moves); err != nil {
		return err
	}
	opts := traceOptions{threads: c.Bool("threads")}
	run, err := p.Replay(moves)
	if err != nil {
		return &exitError{exitInternal, fmt.Errorf("%w: %v", verify.ErrReplay, err)}
	}
	r := traceSteps(l, run, opts)
	out := c.App.Writer
	switch {
	case asJSON:
		j := &jsonRun{File: l.path, Engine: "run", Outcome: end, Trace: r.steps, State: finalState(l, r.run.Final()), Changed: changed}
		if many != nil {
			j.Runs = many.json(l)
		}
		if viol != nil {
			j.Violation = violationJSON(l, viol)
			if viol.Kind.Deadlocks() {
				j.Waiting = waits(l, r.run.Final())
			}
		}
		if err := writeJSONValue(out, j); err != nil {
			return &exitError{exitInternal, err}
		}
	default:
		if changed != "" {
			fmt.Fprintf(out, "note: %s\n", changed)
		}
		if many != nil {
			fmt.Fprintln(out, many.header())
		}
		if !c.Bool("quiet") {
			printSteps(out, r.steps, opts)
		}
		fmt.Fprintf(out, "outcome: %s\n", end)
		if viol != nil {
			fmt.Fprintf(out, "%s: %s: %s\n", posText(l, viol.Pos), viol.Kind, viol.Msg)
		}
		if !c.Bool("quiet") {
			fmt.Fprintln(out, "final state:")
			for _, cell := range finalState(l, r.run.Final()) {
				fmt.Fprintf(out, "  %s = %s\n", cell.Name, cell.Value)
			}
		}
		if many != nil && !c.Bool("quiet") {
			many.writeSummary(out, l)
		}
	}
	if viol != nil {
		return &exitError{exitUnsafe, nil}
	}
	return nil
}

// replayTrail re-executes a trail's schedule and says how it ended: with the
// violation the trail records (confirmed by ir.Program.Confirm), or how else.
func replayTrail(p *ir.Program, moves []ir.Move, tr *trail) (*ir.Violation, string, error) {
	kind := ir.NoViolation
	if tr.Violation != nil {
		kind, _ = ir.ParseViolationKind(tr.Violation.Kind)
	}
	if kind != ir.NoViolation && kind != ir.LocalDeadlock {
		_, v, err := p.Confirm(moves, kind)
		if err != nil {
			return nil, "", err
		}
		return v, "the trail's violation, reproduced", nil
	}
	run, err := p.Replay(moves)
	if err != nil {
		return nil, "", err
	}
	if v := run.Violation(); v != nil {
		return v, "a violation", nil
	}
	return nil, fmt.Sprintf("the trail's %d steps, replayed", len(moves)), nil
}

// replayChanged replays a trail on a program that has changed since it was
// written: step by step, by thread names, as far as the schedule applies. It
// stops at the first step whose thread the program no longer has, cannot move,
// or draws other values, and says so in the outcome; otherwise the outcome
// says whether the trail's violation still occurs.
func replayChanged(p *ir.Program, tr *trail) ([]ir.Move, *ir.Violation, string) {
	byName := map[string]int{}
	for _, th := range p.Threads {
		byName[th.Name] = th.ID
	}
	n := len(tr.Steps)
	stopped := func(applied int, why string) string {
		return fmt.Sprintf("the trail's schedule applies to the changed program for %d of its %d steps; step %d does not: %s", applied, n, applied+1, why)
	}
	var moves []ir.Move
	for i, st := range tr.Steps {
		id, ok := byName[st.Thread]
		if !ok {
			run, _ := p.Replay(moves)
			return moves, run.Violation(), stopped(i, fmt.Sprintf("the program has no thread %s", st.Thread))
		}
		moves = append(moves, ir.Move{Thread: id, Choices: st.Nondet})
		run, err := p.Replay(moves)
		if err == nil {
			continue
		}
		moves = moves[:i]
		s := run.Final()
		switch {
		case i > 0 && run.Events[i-1].Violation != nil:
			return moves, run.Events[i-1].Violation, stopped(i, "the step before it fails in the changed program")
		case p.Status(s, id) == ir.Terminated:
			return moves, nil, stopped(i, fmt.Sprintf("thread %s has terminated", st.Thread))
		case p.Status(s, id) != ir.Enabled:
			return moves, nil, stopped(i, fmt.Sprintf("thread %s cannot move: it waits for %s", st.Thread, p.WaitsFor(s, id)))
		}
		return moves, nil, stopped(i, strings.TrimPrefix(err.Error(), fmt.Sprintf("step %d: ", i+1)))
	}
	run, _ := p.Replay(moves)
	kind := ir.NoViolation
	if tr.Violation != nil {
		kind, _ = ir.ParseViolationKind(tr.Violation.Kind)
	}
	v := run.Violation()
	if v == nil && kind.Deadlocks() {
		v = p.Deadlock(run.Final())
	}
	switch {
	case v == nil && kind == ir.LocalDeadlock:
		return moves, nil, fmt.Sprintf("the trail's %d steps, replayed on the changed program (whether a process can never move again after them, kbmc check --local-deadlock decides)", n)
	case v != nil && v.Kind == kind:
		return moves, v, fmt.Sprintf("the trail's %d steps, replayed on the changed program: the trail's violation still occurs", n)
	case v != nil:
		return moves, v, fmt.Sprintf("the trail's %d steps, replayed on the changed program: another violation occurs", n)
	}
	return moves, nil, fmt.Sprintf("the trail's %d steps, replayed on the changed program: no violation (the trail's %s no longer occurs on this schedule)", n, kind)
}

// jsonRun is kbmc run's --json object: the execution and how it ended.
type jsonRun struct {
	File      string         `json:"file"`
	Engine    string         `json:"engine"`
	Outcome   string         `json:"outcome"`
	Changed   string         `json:"changed,omitempty"` // --replay on a changed program: says so
	Violation *jsonViolation `json:"violation,omitempty"`
	Trace     []traceStep    `json:"trace"`
	Waiting   []waitInfo     `json:"waiting,omitempty"`
	State     []stateCell    `json:"state"`
	Runs      *jsonRuns      `json:"runs,omitempty"` // --runs: how the runs went
}

func irCommand() *cli.Command {
	return &cli.Command{
		Name:      "ir",
		Usage:     "print the lowered transitions of every thread",
		ArgsUsage: "FILE",
		Flags:     programFlags(),
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return usageErr("ir takes exactly one FILE")
			}
			cfg, err := compileConfig(c)
			if err != nil {
				return err
			}
			l, err := load(c.Args().First(), cfg)
			if err != nil {
				return err
			}
			return ir.Print(c.App.Writer, l.prog)
		},
	}
}
