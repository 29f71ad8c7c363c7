package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"kbmc/cfront"
	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/svcomp"
	"kbmc/verify"
	"kbmc/witness"
)

func svcompCommand() *cli.Command {
	return &cli.Command{
		Name:      "svcomp",
		Usage:     "answer SV-COMP verification tasks (task files .yml) and score the answers as SV-COMP does",
		ArgsUsage: "TASK.yml...",
		Flags: []cli.Flag{
			timeoutFlag(60*time.Second, "time limit per task: 30s, 2m, or a number of seconds"),
			memoryFlag(),
			&cli.StringFlag{Name: "engine", Usage: "check every task with this engine, as kbmc regress names them (explicit/dfs/stateful, symbolic/gini, …); default: chosen per task (docs/svcomp.md)"},
			&cli.StringFlag{Name: "algo", Usage: "check every task with this explicit algorithm (dfs, dfs/stateful, dpor, lazypor, persistent, bpor-preempt, …): short for --engine explicit/ALGO"},
			&cli.IntFlag{Name: "depth", Usage: "with --engine or --algo: the depth bound (default: the engine's)"},
			&cli.IntFlag{Name: "pool", Value: cfront.DefaultLoopThreads, Usage: "threads a pthread_create in a loop of unknown trip count may start, and blocks a malloc there may allocate"},
			&cli.StringSliceFlag{Name: "property", Usage: "answer only this property of each task (unreach-call, no-data-race, no-overflow, valid-memsafety, …; repeat or separate by commas); a task without it is left out"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON array, an object per task and property"},
			&cli.StringFlag{Name: "witness-dir", Usage: "for every false answer, write violation witnesses to this directory: TASK.PROPERTY.graphml (GraphML 1.0) and TASK.PROPERTY.yml (YAML 2.2), each replayed by kbmc before it is kept (docs/svcomp.md)"},
		},
		Action: svcompAction,
	}
}

// svcompRow is one answer: a task's property.
type svcompRow struct {
	Task     string  `json:"task"`
	Property string  `json:"property"`
	Result   string  `json:"result"`
	Expected *bool   `json:"expected"`
	Correct  bool    `json:"correct"`
	Score    int     `json:"score"`
	Seconds  float64 `json:"time_s"`
	Engine   string  `json:"engine,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	// Witnesses are the violation witnesses --witness-dir wrote for a false answer.
	Witnesses []string `json:"witnesses,omitempty"`
}

func svcompAction(c *cli.Context) error {
	if c.Args().Len() == 0 {
		return usageErr("svcomp takes task files: kbmc svcomp DIR/*.yml")
	}
	if c.IsSet("depth") && !c.IsSet("engine") && !c.IsSet("algo") {
		return usageErr("--depth applies to the engine --engine or --algo names")
	}
	if c.IsSet("engine") && c.IsSet("algo") {
		return usageErr("--algo ALGO is short for --engine explicit/ALGO: give one of them")
	}
	for _, name := range c.StringSlice("property") {
		if !svcomp.Known(name) {
			return usageErr("--property %s: SV-COMP has no property of that name (%s)", name, strings.Join(svcomp.Properties, ", "))
		}
	}
	if dir := c.String("witness-dir"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErr("--witness-dir: %v", err)
		}
	}
	ctx := c.Context
	memory, err := parseMemory(c.String("memory"))
	if err != nil {
		return err
	}
	var rows []svcompRow
	out := c.App.Writer
	for _, path := range c.Args().Slice() {
		for _, r := range svcompTask(ctx, c, path, memory) {
			rows = append(rows, r)
			if !c.Bool("json") {
				writeSvcompRow(out, r)
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	if c.Bool("json") {
		if rows == nil {
			rows = []svcompRow{}
		}
		if err := writeJSONValue(out, rows); err != nil {
			return &exitError{exitInternal, err}
		}
		return nil
	}
	writeSvcompSummary(out, rows)
	return nil
}

// svcompTask answers every property of one task.
func svcompTask(ctx context.Context, c *cli.Context, path string, memory int64) []svcompRow {
	task, err := svcomp.ReadTask(path)
	if err != nil {
		return []svcompRow{{Task: path, Property: "-", Result: "unknown", Reason: err.Error()}}
	}
	var rows []svcompRow
	var prog, huntProg *ir.Program
	var loadErr error
	var src []byte
	var cfg cfront.Config
	input := task.Inputs[0]
	switch {
	case len(task.Inputs) != 1:
		loadErr = fmt.Errorf("%d input files: kbmc reads one", len(task.Inputs))
	case !strings.EqualFold(task.Language, "C"):
		loadErr = fmt.Errorf("language %s: kbmc's svcomp reads C", task.Language)
	default:
		src, loadErr = os.ReadFile(input)
		if loadErr == nil {
			cfg = cfront.Config{DataModel: task.DataModel, LoopThreads: c.Int("pool"), LoopBlocks: c.Int("pool")}
			prog, loadErr = cfront.Compile(input, src, cfg)
			if loadErr == nil {
				// A program of its own, which runs beside prog and checks
				// races its own way (ir.Program.SampleRaces); phantoms
				// change only the pools.
				cfg.Phantoms = len(prog.Pools) > 0
				huntProg, _ = cfront.Compile(input, src, cfg) // compiles as prog did
			}
		}
	}
	only := c.StringSlice("property")
	for _, prop := range task.Properties {
		if len(only) > 0 && !slices.Contains(only, prop.Name) {
			continue
		}
		start := time.Now()
		row := svcompRow{Task: path, Property: prop.Name, Expected: prop.Expected}
		answer, reason, engine := svcomp.Unknown, "", ""
		var found *svcompFound
		if ok, why := svcomp.Supported(prop.Name); !ok {
			reason = why
		} else if loadErr != nil {
			reason = firstLine(loadErr.Error())
		} else {
			// Races and overflow are looked for only under their property,
			// which also makes a failing assertion stop its thread.
			prog.SelectProperty(svcomp.Violation(prop.Name))
			answer, reason, engine, found = svcompCheck(ctx, c, singleFile(input, src, prog), huntProg, prop, memory)
			if dir := c.String("witness-dir"); dir != "" && answer == svcomp.False && found != nil {
				var err error
				if row.Witnesses, err = svcompWitnesses(dir, path, input, src, cfg, prop, found); err != nil {
					reason = "no witness: " + firstLine(err.Error())
				}
			}
		}
		row.Result, row.Reason, row.Engine = answer.String(), reason, engine
		sub := ""
		if answer == svcomp.False && found != nil {
			// valid-memsafety's false names the sub-property, as SV-COMP's
			// results do: false(valid-deref).
			if sub, _ = svcomp.Covers(prop.Name, found.res.Violation.Kind); sub != "" {
				row.Result += "(" + sub + ")"
			}
		}
		row.Score, row.Correct = svcomp.Grade(answer, sub, prop)
		row.Seconds = time.Since(start).Seconds()
		rows = append(rows, row)
	}
	return rows
}

// svcompCheck runs the engines planned for a program (svcomp.Choose, or the
// one --engine names) until one answers, each under the task's time limit
// (what is left of it). Unless --engine or --algo chose the engine, a random
// bug hunt (explicit.Hunt) runs beside them for the whole time limit, on
// huntProg, the program lowered with phantom threads (cfront.Config.Phantoms):
// the first reach_error() (under no-data-race: the first race) either finds
// ends the task false.
func svcompCheck(ctx context.Context, c *cli.Context, l *loaded, huntProg *ir.Program, prop svcomp.Property, memory int64) (svcomp.Answer, string, string, *svcompFound) {
	attempts := svcomp.Choose(l.prog, explicit.DefaultMaxNondet)
	hunt := true
	if e := c.String("engine"); e != "" {
		attempts = []svcomp.Attempt{{Engine: e, Depth: c.Int("depth")}}
		hunt = false
	}
	if a := c.String("algo"); a != "" {
		attempts = []svcomp.Attempt{{Engine: "explicit/" + a, Depth: c.Int("depth")}}
		hunt = false
	}
	deadline := time.Now().Add(timeoutOf(c))
	engCtx, stopEngines := context.WithCancel(ctx)
	defer stopEngines()
	var hunted <-chan *verify.Result
	stopHunt := func() {}
	if hunt && huntProg != nil {
		huntProg.SelectProperty(svcomp.Violation(prop.Name))
		if prop.Name == svcomp.NoDataRace {
			huntProg.SampleRaces() // its own way: values drawn from whole ranges
		}
		var huntCtx context.Context
		huntCtx, stopHunt = context.WithDeadline(ctx, deadline)
		hunted = huntBeside(huntCtx, huntProg, prop.Name, stopEngines)
	}
	defer stopHunt()
	answer, reason, engine := svcomp.Unknown, "", ""
	if len(attempts) == 0 {
		reason = "no engine checks " + prop.Name + " on this program (the explicit engine cannot enumerate its values, the symbolic engine does not encode the property); only the random bug hunt looked"
	}
	for _, a := range attempts {
		left := time.Until(deadline)
		if left <= 0 || engCtx.Err() != nil {
			break
		}
		if a.Share > 0 {
			left = time.Duration(float64(left) * a.Share)
		}
		ec, err := engineByName(a.Engine, engineConfig{Solver: "gini", Explicit: explicit.Options{MaxNondet: explicit.DefaultMaxNondet, TCSSolver: "topo"}})
		if err != nil {
			return svcomp.Unknown, err.Error(), a.Engine, nil
		}
		ec.Bounds.Depth = a.Depth
		if ec.Bounds.Depth == 0 {
			ec.Bounds.Depth = verify.DefaultDepth
		}
		ec.Bounds.NoDeadlock = true
		ec.Bounds.Memory = memory
		ec.Timeout = left
		engine = a.Engine
		res, err := runEngine(engCtx, l, ec)
		if err != nil {
			var ee *exitError
			if errors.As(err, &ee) && ee.err != nil {
				reason = firstLine(ee.err.Error())
			} else {
				reason = firstLine(err.Error())
			}
			continue
		}
		if engCtx.Err() != nil && ctx.Err() == nil {
			break // stopped because the hunt found the error
		}
		answer, _, reason = svcomp.Judge(prop.Name, res, a.Closed)
		if answer == svcomp.Unknown && svcomp.Exhausted(res, a.Closed) {
			// Nothing to find, and the property still unanswered
			// (valid-memsafety, whose true kbmc does not answer).
			stopHunt()
			return answer, reason, engine, nil
		}
		if answer != svcomp.Unknown {
			stopHunt()
			if hunted != nil {
				<-hunted
			}
			var found *svcompFound
			if answer == svcomp.False {
				found = &svcompFound{prog: l.prog, res: res}
			}
			return answer, "", engine, found
		}
		if res.Verdict.String() == "unknown" && res.Stopped != "" {
			reason = unknownNote(res)
		}
	}
	// No engine answered: the hunt has the rest of the time.
	if hunted != nil {
		if res := <-hunted; res != nil {
			return svcomp.False, "", "explicit/random", &svcompFound{prog: huntProg, res: res, phantoms: huntProg.HasPhantoms()}
		}
	}
	return answer, reason, engine, nil
}

// svcompFound is the counterexample behind a false answer: the program it
// runs on (the hunt's has phantom threads) and the engine's result.
type svcompFound struct {
	prog     *ir.Program
	res      *verify.Result
	phantoms bool
}

// svcompWitnesses writes a false answer's witnesses, GraphML and YAML, named
// after the task file and the property, and returns their paths. The
// specification is the task's property file, as SV-COMP validators read it.
func svcompWitnesses(dir, taskPath, input string, src []byte, cfg cfront.Config, prop svcomp.Property, found *svcompFound) ([]string, error) {
	spec := ""
	if data, err := os.ReadFile(filepath.Join(filepath.Dir(taskPath), prop.File)); err == nil {
		spec = strings.TrimSpace(string(data))
	}
	if spec == "" {
		spec, _ = witness.Specification(found.res.Violation.Kind)
	}
	l := singleFile(input, src, found.prog)
	sc := sourceConfig{DataModel: cfg.DataModel, Pool: cfg.LoopThreads}
	w, err := buildWitness(l, sc, found.phantoms, found.res, spec)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(taskPath), ".yml"), ".yaml") + "." + prop.Name
	var paths []string
	for _, f := range []struct {
		ext    string
		format witness.Format
	}{{".graphml", witness.GraphML}, {".yml", witness.YAML}} {
		path := filepath.Join(dir, base+f.ext)
		if err := saveWitness(path, f.format, w, found.prog, found.res.Trace); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// huntBeside runs explicit.Hunt for a violation of property (a call of
// reach_error(), a data race, an invalid dereference) until ctx ends, and sends its result: the
// validated counterexample, after calling found, or nil.
func huntBeside(ctx context.Context, p *ir.Program, property string, found func()) <-chan *verify.Result {
	out := make(chan *verify.Result, 1)
	go func() {
		res, err := explicit.Hunt(ctx, p, explicit.HuntOptions{
			Want: func(v *ir.Violation) bool { _, ok := svcomp.Covers(property, v.Kind); return ok },
		})
		if err != nil || res.Verdict != verify.Unsafe {
			out <- nil
			return
		}
		found()
		out <- res
	}()
	return out
}

// writeSvcompRow prints one answer as it comes:
//
//	pthread/fib_bench-1.yml: unreach-call: true (expected true, +2) in 8.6ms by explicit/dfs/stateful
func writeSvcompRow(w io.Writer, r svcompRow) {
	exp := "no expected verdict"
	if r.Expected != nil {
		exp = fmt.Sprintf("expected %v, %+d", *r.Expected, r.Score)
	}
	fmt.Fprintf(w, "%s: %s: %s (%s) in %s", r.Task, r.Property, r.Result, exp,
		formatDuration(time.Duration(r.Seconds*float64(time.Second))))
	if r.Engine != "" {
		fmt.Fprintf(w, " by %s", r.Engine)
	}
	if r.Reason != "" {
		fmt.Fprintf(w, ": %s", r.Reason)
	}
	fmt.Fprintln(w)
}

// writeSvcompSummary ends the table with the counts and the total score.
func writeSvcompSummary(w io.Writer, rows []svcompRow) {
	var trueOK, falseOK, wrong, unknown, score int
	for _, r := range rows {
		score += r.Score
		switch {
		case r.Result == "unknown":
			unknown++
		case r.Expected == nil:
		case r.Correct && r.Result == "true":
			trueOK++
		case r.Correct:
			falseOK++
		default:
			wrong++
		}
	}
	fmt.Fprintf(w, "\n%d answers: %d correct true, %d correct false, %d wrong, %d unknown; score %d\n",
		len(rows), trueOK, falseOK, wrong, unknown, score)
}
