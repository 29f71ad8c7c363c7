package main

import (
	"errors"
	"fmt"
	"io"
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
		&cli.StringFlag{Name: "engines", Usage: "comma-separated engines (default: symbolic/z3 and symbolic/gini under monotonic POR, explicit/lazypor, explicit/dpor, explicit/dfs/stateful and explicit/dfs)"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object: every answer, the disagreements and the totals (docs/output.md)"},
	)
	return &cli.Command{
		Name:      "xval",
		Usage:     "cross-validate: run several engines on each file with the same bounds; fail on any disagreement",
		ArgsUsage: "FILE...",
		Flags:     flags,
		Action:    xvalAction,
	}
}

// Every engine gets a time budget (--timeout, else xvalBudget; the reference
// dfs, which explodes first, dfsBudget): a run that does not finish in time is
// unknown, inconclusive, not a disagreement.
const (
	xvalBudget = 30 * time.Second
	dfsBudget  = 10 * time.Second
)

// engineChoiceFlags choose one engine; commands that take --engines reject them.
var engineChoiceFlags = []string{"engine", "algo", "solver", "por", "tcs-solver", "stateful"}

func rejectEngineChoice(c *cli.Context) error {
	for _, f := range engineChoiceFlags {
		if c.IsSet(f) {
			return usageErr("--%s chooses one engine; this command takes --engines LIST (e.g. explicit/dpor,symbolic/gini)", f)
		}
	}
	return nil
}

func xvalEngines(list string) []string {
	if list != "" {
		return splitList(list)
	}
	var names []string
	if z3.Available() {
		names = append(names, "symbolic/z3/monotonic")
	}
	return append(names, "symbolic/gini/monotonic", "explicit/lazypor", "explicit/dpor", "explicit/dfs/stateful", "explicit/dfs")
}

// xvalCell is one engine's answer on one file.
type xvalCell struct {
	verdict string // a verdict, "unsupported" (by this engine), "error" (other input errors) or "internal error"
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
	if err := rejectEngineChoice(c); err != nil {
		return err
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
		if ec.Timeout == 0 {
			ec.Timeout = xvalBudget
			if name == "explicit/dfs" {
				ec.Timeout = dfsBudget
			}
		}
		configs[i] = ec
	}
	out := c.App.Writer
	asJSON := c.Bool("json")
	var prog io.Writer
	if isTerminal(c.App.ErrWriter) && !asJSON {
		prog = c.App.ErrWriter
	}
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintf(tw, "program\t%s\n", strings.Join(engines, "\t"))
	}
	var problems []string
	var rows []xvalRow
	inputErrors, unknowns := 0, 0
	for fi, file := range c.Args().Slice() {
		if c.Context.Err() != nil {
			break
		}
		row := xvalRow{File: file, Answers: map[string]xvalAnswer{}}
		l, err := load(file, cfg)
		if err != nil {
			if !asJSON {
				fmt.Fprintf(tw, "%s\tinput error\n", filepath.Base(file))
			}
			row.Error = err.Error()
			rows = append(rows, row)
			problems = append(problems, err.Error())
			inputErrors++
			continue
		}
		cells := make([]xvalCell, len(engines))
		for i, name := range engines {
			if prog != nil {
				fmt.Fprint(prog, "\r\033[K"+truncate(fmt.Sprintf("[%d/%d] %s [%s]", fi+1, c.Args().Len(), file, name), terminalWidth(prog)))
			}
			res, err := runEngine(c.Context, l, configs[i])
			var ee *exitError
			var un unsupported // regress's mark of an engine's refusal (config.go)
			switch {
			case errors.As(err, &un):
				cells[i] = xvalCell{verdict: "unsupported"}
			case err == nil:
				cells[i] = xvalCell{verdict: res.Verdict.String(), res: res}
				if res.Verdict == verify.Unknown {
					unknowns++
				}
			case errors.As(err, &ee) && ee.code == exitInput:
				cells[i] = xvalCell{verdict: "error"}
			default:
				cells[i] = xvalCell{verdict: "internal error"}
				problems = append(problems, fmt.Sprintf("%s [%s]: %v", file, name, err))
			}
			a := xvalAnswer{Verdict: cells[i].verdict}
			if res != nil {
				a.MS = float64(res.Stats.Time.Microseconds()) / 1000
				if res.Violation != nil {
					a.Violation = res.Violation.Kind.String()
				}
			}
			row.Answers[name] = a
		}
		if prog != nil {
			fmt.Fprint(prog, "\r\033[K")
		}
		if !asJSON {
			fmt.Fprint(tw, filepath.Base(file))
			for _, cell := range cells {
				fmt.Fprintf(tw, "\t%s", cell)
			}
			fmt.Fprintln(tw)
		}
		for i := range cells {
			for j := i + 1; j < len(cells); j++ {
				if why := disagree(cells[i], cells[j]); why != "" {
					d := fmt.Sprintf("%s: %s and %s disagree: %s", file, engines[i], engines[j], why)
					problems = append(problems, d)
					row.Disagreements = append(row.Disagreements, d)
				}
			}
		}
		rows = append(rows, row)
	}
	interrupted := c.Context.Err() != nil
	if asJSON {
		j := struct {
			Engines     []string  `json:"engines"`
			Files       []xvalRow `json:"files"`
			Problems    []string  `json:"problems"`
			Unknown     int       `json:"unknown"`
			Interrupted bool      `json:"interrupted,omitempty"`
		}{engines, rows, problems, unknowns, interrupted}
		if j.Problems == nil {
			j.Problems = []string{}
		}
		if err := writeJSONValue(out, j); err != nil {
			return &exitError{exitInternal, err}
		}
	} else {
		tw.Flush()
		if unknowns > 0 {
			fmt.Fprintf(out, "%d unknown: over the time budget (inconclusive, not a disagreement)\n", unknowns)
		}
		for _, p := range problems {
			fmt.Fprintln(c.App.ErrWriter, p)
		}
	}
	switch {
	case len(problems) > inputErrors:
		return &exitError{exitInternal, fmt.Errorf("cross-validation failed: %d problem(s)", len(problems)-inputErrors)}
	case inputErrors > 0:
		return &exitError{exitInput, nil}
	case interrupted:
		return &exitError{exitUnknown, nil}
	}
	return nil
}

// xvalRow is one program's answers in xval --json.
type xvalRow struct {
	File          string                `json:"file"`
	Error         string                `json:"error,omitempty"`
	Answers       map[string]xvalAnswer `json:"answers"`
	Disagreements []string              `json:"disagreements,omitempty"`
}

type xvalAnswer struct {
	Verdict   string  `json:"verdict"` // a verdict, "error" (not supported) or "internal error"
	Violation string  `json:"violation,omitempty"`
	MS        float64 `json:"time_ms"`
}
