package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"kbmc/explicit"
	"kbmc/internal/annotation"
	"kbmc/lang"
	"kbmc/solver/z3"
	"kbmc/symbolic"
)

func regressCommand() *cli.Command {
	return &cli.Command{
		Name:      "regress",
		Usage:     "run annotated programs (//@ expect: …) and compare with their expectations",
		ArgsUsage: "DIR|FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "engines", Usage: "comma-separated engines to try, e.g. explicit/dfs (default: every engine that supports the program)"},
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "time limit per program and engine"},
			&cli.BoolFlag{Name: "table", Usage: "end with a summary table: one row per program, one column per engine"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print passing runs too"},
		},
		Action: regressAction,
	}
}

// defaultEngines are tried on every program whose annotations name no engines:
// every unbounded explicit algorithm, and the symbolic engine with each solver under
// monotonic POR (the other reductions are a --engines away, and covered by the
// symbolic package's own tests).
func defaultEngines() []string {
	var names []string
	for _, a := range explicit.Algorithms() {
		if strings.HasPrefix(a, "bpor-") {
			continue // a preemption or fair bound answers a different question
		}
		names = append(names, "explicit/"+a)
	}
	if z3.Available() {
		names = append(names, "symbolic/z3")
	}
	return append(names, "symbolic/gini")
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, f)
	}
	return out
}

// parseCheckArgs interprets an //@ args: line with the very flags of `kbmc check`.
func parseCheckArgs(args []string) (lang.Config, engineConfig, error) {
	var cfg lang.Config
	var ec engineConfig
	cmd := checkCommand()
	cmd.Action = func(c *cli.Context) error {
		var err error
		if cfg, err = compileConfig(c); err != nil {
			return err
		}
		ec, err = readEngineConfig(c)
		return err
	}
	app := &cli.App{Name: "args", Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard,
		DisableSliceFlagSeparator: true, ExitErrHandler: func(*cli.Context, error) {}}
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error { return err }
	err := app.Run(append(append([]string{"args", "check"}, args...), "--", "program"))
	return cfg, ec, err
}

// regressCase is one program × engine run.
type regressCase struct {
	file, engine string
	pass         bool
	got          string
	detail       string
	elapsed      time.Duration
}

func regressAction(c *cli.Context) error {
	if c.Args().Len() == 0 {
		return usageErr("regress takes one or more DIR or FILE")
	}
	files, err := collectPrograms(c.Args().Slice())
	if err != nil {
		return &exitError{exitUsage, err}
	}
	override := splitList(c.String("engines"))
	for _, e := range override {
		if _, err := engineByName(e, engineConfig{}); err != nil {
			return err
		}
	}
	out := c.App.Writer
	var cases []regressCase
	for _, f := range files {
		for _, rc := range regressFile(c.Context, f, override, c.Duration("timeout")) {
			cases = append(cases, rc)
			if !rc.pass {
				fmt.Fprintf(out, "FAIL %s [%s]: %s\n", rc.file, rc.engine, rc.detail)
			} else if c.Bool("verbose") {
				fmt.Fprintf(out, "ok   %s [%s]: %s (%s)\n", rc.file, rc.engine, rc.got, rc.elapsed.Round(time.Millisecond))
			}
		}
	}
	if c.Bool("table") {
		writeRegressTable(out, cases)
	}
	failed := 0
	for _, rc := range cases {
		if !rc.pass {
			failed++
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed\n", len(cases)-failed, failed)
	if failed > 0 {
		return &exitError{exitUsage, nil}
	}
	return nil
}

func collectPrograms(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, a)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(a, "*.kb"))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: no .kb programs", a)
		}
		sort.Strings(matches)
		files = append(files, matches...)
	}
	return files, nil
}

// engineByName configures ec for an engine named like "explicit/dfs" or
// "symbolic/z3/peephole" (symbolic/SOLVER/POR: the step encoding), or
// "symbolic/gini/partial-order" (symbolic/SOLVER/ENCODING), or "symbolic/gini"
// (the default encoding).
func engineByName(name string, ec engineConfig) (engineConfig, error) {
	eng, algo, ok := strings.Cut(name, "/")
	if !ok {
		return ec, usageErr("engine %q: want explicit/ALGO, explicit/lazypor/TCS-SOLVER, symbolic/SOLVER[/POR] or symbolic/SOLVER/ENCODING, e.g. explicit/dfs", name)
	}
	ec.Engine, ec.Algo = eng, algo
	if a, tcs, ok := strings.Cut(algo, "/"); eng == "explicit" && ok && a == "lazypor" {
		ec.Algo, ec.Explicit.TCSSolver = a, tcs
	}
	if eng == "symbolic" {
		ec.Algo = ""
		ec.Solver, ec.POR, _ = strings.Cut(algo, "/")
		switch {
		case ec.POR == "":
			// symbolic/SOLVER: the default encoding (its POR, if it is the
			// step encoding, monotonic).
			ec.Encoding, ec.POR = symbolic.Encodings()[0], "monotonic"
		case slices.Contains(symbolic.Encodings(), ec.POR):
			// symbolic/SOLVER/ENCODING; the step encoding with monotonic POR.
			ec.Encoding, ec.POR = ec.POR, "monotonic"
		default:
			// symbolic/SOLVER/POR: a reduction of the step encoding.
			ec.Encoding = "step"
		}
	}
	_, err := ec.engine()
	return ec, err
}

func regressFile(ctx context.Context, file string, override []string, timeout time.Duration) []regressCase {
	fail := func(engine, format string, args ...any) []regressCase {
		return []regressCase{{file: file, engine: engine, detail: fmt.Sprintf(format, args...)}}
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return fail("-", "%v", err)
	}
	ann, err := annotation.Parse(src)
	if err != nil {
		return fail("-", "%v", err)
	}
	cfg, base, err := parseCheckArgs(ann.Args)
	if err != nil {
		return fail("-", "//@ args: %v", err)
	}
	base.Timeout = timeout
	p, cerr := lang.Compile(file, src, cfg)
	if cerr != nil {
		rc := regressCase{file: file, engine: "compile", got: "error"}
		switch {
		case ann.Expect != "error":
			rc.detail = "unexpected input error:\n" + cerr.Error()
		case !strings.Contains(cerr.Error(), ann.Error):
			rc.detail = fmt.Sprintf("error does not mention %q:\n%s", ann.Error, cerr.Error())
		default:
			rc.pass = true
		}
		return []regressCase{rc}
	}
	engines := ann.Engines
	if len(override) > 0 {
		engines = override
	}
	if len(engines) == 0 {
		engines = defaultEngines()
	}
	l := &loaded{path: file, src: src, prog: p}
	var cases []regressCase
	for _, name := range engines {
		rc := regressCase{file: file, engine: name}
		ec, err := engineByName(name, base)
		if err != nil {
			rc.detail = err.Error()
			cases = append(cases, rc)
			continue
		}
		start := time.Now()
		res, err := runEngine(ctx, l, ec)
		rc.elapsed = time.Since(start)
		var ee *exitError
		switch {
		case err != nil && errors.As(err, &ee) && ee.code == exitInput:
			rc.got = "error"
			if ann.Expect == "error" && strings.Contains(err.Error(), ann.Error) {
				rc.pass = true
			} else {
				rc.detail = "input error: " + err.Error()
			}
		case err != nil:
			rc.got, rc.detail = "internal error", err.Error()
		default:
			rc.got = res.Verdict.String()
			if res.Violation != nil {
				rc.got += " (" + res.Violation.Kind.String() + ")"
			}
			want := ann.Expect
			if ann.Violation != "" {
				want += " (" + ann.Violation + ")"
			}
			rc.pass = rc.got == want
			if !rc.pass {
				rc.detail = fmt.Sprintf("want %s, got %s", want, rc.got)
				if res.Note != "" {
					rc.detail += ": " + res.Note
				}
			}
		}
		cases = append(cases, rc)
	}
	return cases
}

func writeRegressTable(w io.Writer, cases []regressCase) {
	var engines []string
	seen := map[string]bool{}
	rows := map[string]map[string]regressCase{}
	var files []string
	for _, rc := range cases {
		if !seen[rc.engine] {
			seen[rc.engine] = true
			engines = append(engines, rc.engine)
		}
		if rows[rc.file] == nil {
			rows[rc.file] = map[string]regressCase{}
			files = append(files, rc.file)
		}
		rows[rc.file][rc.engine] = rc
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "program\t%s\n", strings.Join(engines, "\t"))
	for _, f := range files {
		fmt.Fprint(tw, filepath.Base(f))
		for _, e := range engines {
			rc, ok := rows[f][e]
			cell := ""
			if ok {
				cell = rc.got
				if !rc.pass {
					cell = "FAIL " + cell
				}
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
