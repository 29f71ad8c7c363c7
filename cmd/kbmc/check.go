package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"kbmc/gofront"
	"kbmc/ir"
	"kbmc/verify"
)

func checkCommand() *cli.Command {
	flags := append(programFlags(), engineFlags()...)
	flags = append(flags,
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object (docs/output.md); input errors too"},
		&cli.StringFlag{Name: "trace", Value: "text", Usage: "counterexample format: text, json, dot, msc (a message sequence chart in SVG) or mermaid (the chart as a Mermaid sequenceDiagram)"},
		&cli.BoolFlag{Name: "shortest", Usage: "find a counterexample of the fewest steps (explicit engine, breadth-first: --algo bfs)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the verdict line"},
		recordFlag("the counterexample"),
		&cli.BoolFlag{Name: "threads", Usage: "trace: say which threads could move at each step"},
		&cli.BoolFlag{Name: "relevant", Usage: "trace: hide steps that touch nothing the violation depends on"},
		&cli.StringFlag{Name: "trail", Usage: "write the counterexample to this file (JSON, docs/output.md), for kbmc run --replay"},
		&cli.StringFlag{Name: "witness", Usage: "C programs: write the counterexample as an SV-COMP violation witness to this file, GraphML 1.0 (.graphml) or YAML 2.2 (.yml, .yaml) (docs/svcomp.md)"},
		&cli.StringFlag{Name: "witness-format", Usage: "with --witness: graphml or yaml, whatever the file's extension"},
		&cli.BoolFlag{Name: "show-properties", Usage: "list the program's properties (assertions and run-time checks) with their ids, and exit"},
		&cli.StringFlag{Name: "property", Usage: "check only the property with this id (see --show-properties)"},
		&cli.BoolFlag{Name: "coverage", Usage: "explicit engine: after the verdict, list the statements the search never executed, the states it generated and stored, and its greatest depth"},
		&cli.StringSliceFlag{Name: "invariant", Usage: "check only the invariant of this name (repeatable); the others are ignored"},
	)
	return &cli.Command{
		Name:      "check",
		Usage:     "check one program: can any execution within the bounds violate a property?",
		ArgsUsage: "FILE",
		Flags:     flags,
		Action:    checkAction,
	}
}

func checkAction(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return usageErr("check takes exactly one FILE")
	}
	asJSON := c.Bool("json")
	cfg, err := compileConfig(c)
	if err != nil {
		return err
	}
	ec, err := readEngineConfig(c)
	if err != nil {
		return err
	}
	if c.Bool("shortest") {
		if ec, err = shortestConfig(c, ec); err != nil {
			return err
		}
	}
	if err := checkApplicable(c, ec); err != nil {
		return err
	}
	if c.Bool("coverage") {
		if err := coverageApplies(ec); err != nil {
			return err
		}
		ec.Explicit.Coverage = true
	}
	format := c.String("trace")
	if !slices.Contains(traceFormats, format) {
		return usageErr("--trace %s: want text, json, dot, msc or mermaid", format)
	}
	if asJSON && c.IsSet("trace") && format != "json" {
		return usageErr("--json prints the trace as JSON; --trace %s does not apply", format)
	}
	if asJSON {
		format = "json"
	}
	wreq, err := readWitnessFlags(c.String("witness"), c.String("witness-format"))
	if err != nil {
		return err
	}
	path := c.Args().First()
	if entries := goEntries(path, cfg); len(entries) > 1 {
		return checkEntries(c, path, cfg, entries, func(cfg sourceConfig) error {
			return checkFile(c, path, cfg, ec, asJSON, format, wreq)
		})
	}
	return checkFile(c, path, cfg, ec, asJSON, format, wreq)
}

// goEntries returns the entry points of a Go file checked without --entry
// when it has more than one to check (main and tests: the tests; several
// tests: each); nil otherwise, and for anything but Go input (whose errors
// the check itself reports).
func goEntries(path string, cfg sourceConfig) []string {
	if cfg.Entry != "" || !gofront.IsGo(path) {
		return nil
	}
	entries, err := gofront.Entries(path)
	if err != nil {
		return nil
	}
	var tests []string
	for _, e := range entries {
		if e != "main" {
			tests = append(tests, e)
		}
	}
	return tests
}

// checkEntries checks each entry point of a Go file in turn, under a heading
// each, as go test runs each test. The exit code is the worst verdict's
// (unsafe before unknown before safe); outputs that describe one run (a
// trail, a witness, JSON, a recording) need --entry.
func checkEntries(c *cli.Context, path string, cfg sourceConfig, entries []string, check func(sourceConfig) error) error {
	for _, flag := range []string{"json", "trail", "witness", "record", "show-properties"} {
		if c.IsSet(flag) {
			return usageErr("%s has %d entry points (%s): --%s describes one run, so name the entry with --entry",
				path, len(entries), strings.Join(entries, ", "), flag)
		}
	}
	worst := exitOK
	for i, e := range entries {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		fmt.Fprintf(c.App.Writer, "=== %s\n", e)
		cfg.Entry = e
		err := check(cfg)
		var ee *exitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.err == nil:
			if ee.code == exitUnsafe || ee.code == exitUnknown && worst != exitUnsafe {
				worst = ee.code
			}
		default:
			return err
		}
	}
	if worst != exitOK {
		return &exitError{worst, nil}
	}
	return nil
}

// checkFile checks one program: load, run, report.
func checkFile(c *cli.Context, path string, cfg sourceConfig, ec engineConfig, asJSON bool, format string, wreq *witnessRequest) error {
	l, err := load(path, cfg)
	if err != nil {
		return jsonInputError(c, asJSON, path, err)
	}
	if c.Bool("show-properties") {
		return showProperties(c.App.Writer, l, asJSON, ec.Explicit.LocalDeadlock)
	}
	ec = ec.forProgram(l.prog)
	if names := c.StringSlice("invariant"); len(names) > 0 {
		if err := l.prog.SelectInvariants(names); err != nil {
			return usageErr("--invariant: %v", err)
		}
	}
	if id := c.String("property"); id != "" {
		if err := l.selectProperty(id, ec.Explicit.LocalDeadlock); err != nil {
			return err
		}
	}
	l.settings = verdictSettings(c, ec)
	stderr := c.App.ErrWriter
	var prog *progress
	if !asJSON && !c.Bool("quiet") && isTerminal(stderr) {
		prog = newProgress(stderr, ec)
		ec.Bounds.Progress = prog.report
	}
	res, err := runEngine(c.Context, l, ec)
	prog.clear()
	if err != nil {
		return jsonInputError(c, asJSON, path, err)
	}
	if trail := c.String("trail"); trail != "" {
		if res.Verdict != verify.Unsafe {
			fmt.Fprintf(stderr, "kbmc: %s: no counterexample, so no trail written to %s\n", res.Verdict, trail)
		} else if err := writeTrail(trail, l, cfg, ec, res); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	if wreq != nil {
		if res.Verdict != verify.Unsafe {
			fmt.Fprintf(stderr, "kbmc: %s: no counterexample, so no witness written to %s\n", res.Verdict, wreq.path)
		} else if err := writeWitness(wreq, l, cfg, res); err != nil {
			return &exitError{exitUsage, fmt.Errorf("--witness: %w", err)}
		}
	}
	if res.Verdict == verify.Unsafe {
		if err := record(c, l, res.Trace); err != nil {
			return err
		}
	} else if c.String("record") != "" {
		fmt.Fprintf(stderr, "kbmc: --record: %s: no counterexample to record\n", res.Verdict)
	}
	out := c.App.Writer
	opts := traceOptions{threads: c.Bool("threads"), relevant: c.Bool("relevant")}
	switch {
	case asJSON:
		err = writeJSON(out, l, ec, res, opts)
	case c.Bool("quiet"):
		fmt.Fprintln(out, verdictLine(l, res))
	default:
		err = writeText(out, l, ec, res, format, opts)
	}
	if err != nil {
		return &exitError{exitInternal, err}
	}
	if code := verdictExit(res.Verdict); code != exitOK {
		return &exitError{code, nil}
	}
	return nil
}

// traceFormats are the values of check's --trace.
var traceFormats = []string{"text", "json", "dot", "msc", "mermaid"}

// shortestConfig makes the run find a counterexample of the fewest steps: the
// breadth-first search (--algo bfs), whose first violation is a shortest one.
// An engine or algorithm named beside --shortest that cannot promise that is
// refused rather than replaced.
func shortestConfig(c *cli.Context, ec engineConfig) (engineConfig, error) {
	switch {
	case ec.Engine != "explicit":
		return ec, usageErr("--shortest needs the explicit engine's breadth-first search (--algo bfs): "+
			"--engine %s does not promise a counterexample of the fewest steps", ec.Engine)
	case c.IsSet("algo") && ec.Algo != "bfs":
		return ec, usageErr("--shortest needs the breadth-first search (--algo bfs): "+
			"--algo %s does not find a counterexample of the fewest steps first", ec.Algo)
	}
	ec.Algo, ec.DefaultAlgo = "bfs", false
	ec.Explicit.Stateful = false // the default's dfs setting, which bfs has no use for
	_, err := ec.engine()
	return ec, err
}

// runEngine runs the configured engine on a loaded program under its time limit.
func runEngine(ctx context.Context, l *loaded, ec engineConfig) (*verify.Result, error) {
	if l.property != nil && !l.property.kind.Deadlocks() {
		ec.Bounds.NoDeadlock = true
	}
	if l.property != nil && l.property.kind != ir.LocalDeadlock {
		// --local-deadlock with another property selected: that property
		// alone is checked (docs/decisions.md, "Property ids").
		ec.Explicit.LocalDeadlock = false
	}
	eng, err := ec.engine()
	if err != nil {
		return nil, err
	}
	ctx, stop := withLimits(ctx, ec.Timeout, ec.Bounds.Memory)
	defer stop()
	res, err := eng.Check(ctx, l.prog)
	if err != nil {
		return nil, l.inputError(err)
	}
	if res.Verdict == verify.Unknown && res.Stopped == "" && ctx.Err() != nil {
		res.Stopped = verify.StopReason(context.Cause(ctx))
	}
	return res, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress reports on one terminal line how a long run goes: executions and
// their rate for the explicit engine, the depth reached and the time in the
// solver for the symbolic one; cut to the terminal's width.
type progress struct {
	w        io.Writer
	symbolic bool
	width    int
	shown    bool
}

func newProgress(w io.Writer, ec engineConfig) *progress {
	p := &progress{w: w, symbolic: ec.Engine == "symbolic", width: 80}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 10 {
			p.width = cols
		}
	}
	return p
}

func (p *progress) report(s *verify.Stats) {
	var line string
	if p.symbolic {
		line = fmt.Sprintf("depth %d done, %s in the solver, %s elapsed", s.Depth,
			formatDuration(s.SolveTime), formatDuration(s.Time.Round(100*time.Millisecond)))
	} else {
		rate := 0.0
		if secs := s.Time.Seconds(); secs > 0 {
			rate = float64(s.Executions) / secs
		}
		line = fmt.Sprintf("%s executions (%s cut by the depth bound), %s steps, %s exec/s, %s elapsed",
			formatCount(s.Executions), formatCount(s.Cut), formatCount(s.Transitions), formatCount(int64(rate)),
			formatDuration(s.Time.Round(100*time.Millisecond)))
	}
	if r := []rune(line); len(r) > p.width-1 {
		line = string(r[:p.width-1])
	}
	p.shown = true
	fmt.Fprint(p.w, "\r\033[K"+line)
}

// clear removes the progress line, if one was shown.
func (p *progress) clear() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
