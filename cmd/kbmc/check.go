package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"kbmc/verify"
)

func checkCommand() *cli.Command {
	flags := append(programFlags(), engineFlags()...)
	flags = append(flags,
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object (DESIGN.md §7)"},
		&cli.StringFlag{Name: "trace", Value: "text", Usage: "counterexample format: text, json or dot"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the verdict line"},
		recordFlag("the counterexample"),
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
	cfg, err := compileConfig(c)
	if err != nil {
		return err
	}
	ec, err := readEngineConfig(c)
	if err != nil {
		return err
	}
	format := c.String("trace")
	if format != "text" && format != "json" && format != "dot" {
		return usageErr("--trace %s: want text, json or dot", format)
	}
	asJSON := c.Bool("json")
	if asJSON {
		format = "json"
	}
	l, err := load(c.Args().First(), cfg)
	if err != nil {
		return err
	}
	l.settings = verdictSettings(c)
	stderr := c.App.ErrWriter
	if !asJSON && !c.Bool("quiet") && isTerminal(stderr) {
		ec.Bounds.Progress = progressPrinter(stderr)
	}
	res, err := runEngine(c.Context, l, ec)
	if ec.Bounds.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if res.Verdict == verify.Unsafe {
		if err := record(c, l, res.Trace); err != nil {
			return err
		}
	} else if c.String("record") != "" {
		fmt.Fprintf(stderr, "kbmc: --record: %s: no counterexample to record\n", res.Verdict)
	}
	out := c.App.Writer
	switch {
	case asJSON:
		err = writeJSON(out, l, res)
	case c.Bool("quiet"):
		fmt.Fprintln(out, verdictLine(l, res))
	default:
		err = writeText(out, l, res, format)
	}
	if err != nil {
		return &exitError{exitInternal, err}
	}
	if code := res.Verdict.ExitCode(); code != exitOK {
		return &exitError{code, nil}
	}
	return nil
}

// runEngine runs the configured engine on a loaded program under its time limit.
func runEngine(ctx context.Context, l *loaded, ec engineConfig) (*verify.Result, error) {
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

// progressPrinter reports executions, rate and elapsed time on one terminal line.
func progressPrinter(w io.Writer) func(*verify.Stats) {
	return func(s *verify.Stats) {
		secs := s.Time.Seconds()
		rate := 0.0
		if secs > 0 {
			rate = float64(s.Executions) / secs
		}
		fmt.Fprintf(w, "\r\033[K%d executions, %d steps, %.0f exec/s, %s elapsed",
			s.Executions, s.Transitions, rate, s.Time.Round(100*time.Millisecond))
	}
}
