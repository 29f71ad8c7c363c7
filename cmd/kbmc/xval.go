package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"kbmc/solver/z3"
	"kbmc/verify"
)

func xvalCommand() *cli.Command {
	flags := append(programFlags(), engineFlags()...)
	flags = append(flags,
		&cli.StringFlag{Name: "engines", Usage: "comma-separated engines (default: symbolic/z3 and symbolic/gini under monotonic POR, explicit/lazypor, explicit/dpor, and explicit/dfs with a 10 s budget)"},
	)
	return &cli.Command{
		Name:      "xval",
		Usage:     "cross-validate: run several engines on each file with the same bounds; fail on any disagreement",
		ArgsUsage: "FILE...",
		Flags:     flags,
		Action:    xvalAction,
	}
}

// dfsBudget keeps the reference search to programs small enough for it: a run that
// does not finish in time is inconclusive, not a disagreement.
const dfsBudget = 10 * time.Second

func xvalEngines(list string) []string {
	if list != "" {
		return splitList(list)
	}
	var names []string
	if z3.Available() {
		names = append(names, "symbolic/z3/monotonic")
	}
	return append(names, "symbolic/gini/monotonic", "explicit/lazypor", "explicit/dpor", "explicit/dfs")
}

// xvalCell is one engine's answer on one file.
type xvalCell struct {
	verdict string // a verdict, "error" (input not supported) or "internal error"
	res     *verify.Result
}

func (c xvalCell) String() string {
	if c.res != nil && c.res.Violation != nil {
		return c.verdict + " (" + c.res.Violation.Kind.String() + ")"
	}
	return c.verdict
}

// disagree reports why two answers on the same program under the same depth bound
// are incompatible, or "". Unknown and unsupported answers are inconclusive. Two
// unsafe answers with different violation kinds agree: both traces were replayed,
// so both violations are real (an engine reports the first one it reaches).
func disagree(a, b xvalCell) string {
	conclusive := func(c xvalCell) bool { return c.res != nil && c.res.Verdict != verify.Unknown }
	if !conclusive(a) || !conclusive(b) {
		return ""
	}
	if a.res.Verdict != b.res.Verdict {
		return fmt.Sprintf("%s vs %s", a, b)
	}
	return ""
}

func xvalAction(c *cli.Context) error {
	if c.Args().Len() == 0 {
		return usageErr("xval takes one or more FILE")
	}
	cfg, err := compileConfig(c)
	if err != nil {
		return err
	}
	base, err := readEngineConfig(c)
	if err != nil {
		return err
	}
	engines := xvalEngines(c.String("engines"))
	configs := make([]engineConfig, len(engines))
	for i, name := range engines {
		ec, err := engineByName(name, base)
		if err != nil {
			return err
		}
		if name == "explicit/dfs" && c.String("engines") == "" && (ec.Timeout == 0 || ec.Timeout > dfsBudget) {
			ec.Timeout = dfsBudget
		}
		configs[i] = ec
	}
	out := c.App.Writer
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "program\t%s\n", strings.Join(engines, "\t"))
	var problems []string
	inputErrors := 0
	for _, file := range c.Args().Slice() {
		l, err := load(file, cfg)
		if err != nil {
			fmt.Fprintf(tw, "%s\tinput error\n", filepath.Base(file))
			problems = append(problems, err.Error())
			inputErrors++
			continue
		}
		cells := make([]xvalCell, len(engines))
		for i, name := range engines {
			res, err := runEngine(context.Background(), l, configs[i])
			var ee *exitError
			switch {
			case err == nil:
				cells[i] = xvalCell{verdict: res.Verdict.String(), res: res}
			case errors.As(err, &ee) && ee.code == exitInput:
				cells[i] = xvalCell{verdict: "error"}
			default:
				cells[i] = xvalCell{verdict: "internal error"}
				problems = append(problems, fmt.Sprintf("%s [%s]: %v", file, name, err))
			}
		}
		fmt.Fprint(tw, filepath.Base(file))
		for _, cell := range cells {
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
		for i := range cells {
			for j := i + 1; j < len(cells); j++ {
				if why := disagree(cells[i], cells[j]); why != "" {
					problems = append(problems, fmt.Sprintf("%s: %s and %s disagree: %s", file, engines[i], engines[j], why))
				}
			}
		}
	}
	tw.Flush()
	for _, p := range problems {
		fmt.Fprintln(c.App.ErrWriter, p)
	}
	switch {
	case len(problems) > inputErrors:
		return &exitError{exitInternal, fmt.Errorf("cross-validation failed: %d problem(s)", len(problems)-inputErrors)}
	case inputErrors > 0:
		return &exitError{exitInput, nil}
	}
	return nil
}
