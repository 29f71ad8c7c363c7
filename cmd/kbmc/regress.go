package main

import (
	"context"
	"encoding/xml"
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

	"golang.org/x/term"
	"kbmc/explicit"

	"kbmc/internal/annotation"
	"kbmc/solver/z3"
	"kbmc/symbolic"
	"kbmc/verify"
)

func regressCommand() *cli.Command {
	return &cli.Command{
		Name:      "regress",
		Usage:     "run annotated programs (//@ expect: …) and compare with their expectations",
		ArgsUsage: "DIR|FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "engines", Usage: "comma-separated engines to try, e.g. explicit/dfs (default: the program's //@ engines, else every engine that supports the program)"},
			timeoutFlag(time.Minute, "time budget per program and engine; a run that exceeds it counts as unknown, apart from failures"),
			memoryFlag(),
			&cli.BoolFlag{Name: "table", Usage: "end with a summary table: one row per program, one column per engine"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print passing runs too"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object: every run and the totals (docs/output.md)"},
			&cli.StringFlag{Name: "junit", Usage: "also write a JUnit XML report to this file (one testcase per program and engine)"},
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
	for _, a := range explicit.Unbounded() {
		names = append(names, "explicit/"+a)
	}
	// kbmc check's default, when it is a variant of an algorithm.
	algo, set := explicit.Default()
	var o explicit.Options
	set(&o)
	if name := "explicit/" + explicit.EngineName(algo, o); !slices.Contains(names, name) {
		names = append(names, name)
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

// parseCheckArgs interprets an //@ args: line with the very flags of `kbmc
// check`: the source and engine settings, and the property --property
// selects ("" for none).
func parseCheckArgs(args []string) (sourceConfig, engineConfig, string, error) {
	var cfg sourceConfig
	var ec engineConfig
	var property string
	cmd := checkCommand()
	cmd.Action = func(c *cli.Context) error {
		var err error
		if cfg, err = compileConfig(c); err != nil {
			return err
		}
		property = c.String("property")
		ec, err = readEngineConfig(c)
		return err
	}
	app := &cli.App{Name: "args", Commands: []*cli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard,
		DisableSliceFlagSeparator: true, ExitErrHandler: func(*cli.Context, error) {}}
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error { return err }
	err := app.Run(append(append([]string{"args", "check"}, args...), "--", "program"))
	return cfg, ec, property, err
}

// regressCase is one program × engine run.
type regressCase struct {
	File    string        `json:"file"`
	Engine  string        `json:"engine"`
	Status  string        `json:"status"` // pass, fail, unknown (time budget), unsupported (engine chosen by default)
	Got     string        `json:"got"`
	Want    string        `json:"want"`
	Detail  string        `json:"detail,omitempty"`
	Elapsed time.Duration `json:"-"`
	MS      float64       `json:"time_ms"`
}

const (
	statusPass        = "pass"
	statusFail        = "fail"
	statusUnknown     = "unknown"
	statusUnsupported = "unsupported"
)

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
	asJSON := c.Bool("json")
	budget := timeoutOf(c)
	memory, err := parseMemory(c.String("memory"))
	if err != nil {
		return err
	}
	var prog io.Writer
	if isTerminal(c.App.ErrWriter) && !asJSON {
		prog = c.App.ErrWriter
	}
	var cases []regressCase
	for i, f := range files {
		if c.Context.Err() != nil {
			break
		}
		show := func(engine string) {
			if prog != nil {
				line := fmt.Sprintf("[%d/%d] %s [%s]", i+1, len(files), f, engine)
				fmt.Fprint(prog, "\r\033[K"+truncate(line, terminalWidth(prog)))
			}
		}
		for _, rc := range regressFile(c.Context, f, override, budget, memory, show) {
			cases = append(cases, rc)
			if prog != nil {
				fmt.Fprint(prog, "\r\033[K")
			}
			if asJSON {
				continue
			}
			switch {
			case rc.Status == statusFail:
				fmt.Fprintf(out, "FAIL %s [%s]: %s\n", rc.File, rc.Engine, rc.Detail)
			case rc.Status == statusUnknown:
				fmt.Fprintf(out, "UNKNOWN %s [%s]: %s\n", rc.File, rc.Engine, rc.Detail)
			case c.Bool("verbose"):
				fmt.Fprintf(out, "%-4s %s [%s]: %s (%s)\n", map[string]string{statusPass: "ok", statusUnsupported: "skip"}[rc.Status],
					rc.File, rc.Engine, rc.Got, formatDuration(rc.Elapsed))
			}
		}
	}
	interrupted := c.Context.Err() != nil
	counts := map[string]int{}
	for _, rc := range cases {
		counts[rc.Status]++
	}
	if path := c.String("junit"); path != "" {
		if err := writeJUnit(path, cases); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	if asJSON {
		j := struct {
			Cases       []regressCase  `json:"cases"`
			Totals      map[string]int `json:"totals"`
			Budget      float64        `json:"budget_s"`
			Interrupted bool           `json:"interrupted,omitempty"`
		}{cases, map[string]int{statusPass: counts[statusPass], statusFail: counts[statusFail],
			statusUnknown: counts[statusUnknown], statusUnsupported: counts[statusUnsupported]}, budget.Seconds(), interrupted}
		if j.Cases == nil {
			j.Cases = []regressCase{}
		}
		if err := writeJSONValue(out, j); err != nil {
			return &exitError{exitInternal, err}
		}
	} else {
		if c.Bool("table") {
			writeRegressTable(out, cases)
		}
		if interrupted {
			fmt.Fprintln(out, "interrupted: the totals cover the runs that ended")
		}
		if n := counts[statusUnknown]; n > 0 {
			fmt.Fprintf(out, "%d unknown: over the time budget of %s (not counted as failures)\n", n, formatDuration(budget))
		}
		if n := counts[statusUnsupported]; n > 0 {
			fmt.Fprintf(out, "%d not run: the engine does not support the program (-v lists them)\n", n)
		}
		fmt.Fprintf(out, "%d passed, %d failed\n", counts[statusPass], counts[statusFail])
	}
	switch {
	case counts[statusFail] > 0:
		return &exitError{exitUsage, nil}
	case interrupted:
		return &exitError{exitUnknown, nil}
	}
	return nil
}

func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 10 {
			return cols
		}
	}
	return 80
}

func truncate(s string, width int) string {
	if r := []rune(s); len(r) > width-1 {
		return string(r[:width-1])
	}
	return s
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
		var matches []string
		for _, pattern := range []string{"*.kb", "*.c", "*.i", "*.go"} {
			m, err := filepath.Glob(filepath.Join(a, pattern))
			if err != nil {
				return nil, err
			}
			matches = append(matches, m...)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: no .kb, .c, .i or .go programs", a)
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
		return ec, usageErr("engine %q: want explicit/ALGO, explicit/dfs/stateful, explicit/lazypor/TCS-SOLVER, symbolic/SOLVER[/POR] or symbolic/SOLVER/ENCODING, e.g. explicit/dfs", name)
	}
	if ec.DefaultAlgo {
		// The default (dfs --stateful) gives way to the engine named here.
		ec.DefaultAlgo, ec.Explicit.Stateful = false, false
	}
	ec.Engine, ec.Algo = eng, algo
	if eng == "explicit" {
		a, err := explicit.ParseEngineName(algo, &ec.Explicit)
		if err != nil {
			return ec, usageErr("engine %q: %v", name, err)
		}
		ec.Algo = a
	}
	if eng == "symbolic" {
		ec.Algo = ""
		ec.Solver, ec.POR, _ = strings.Cut(algo, "/")
		switch {
		case ec.POR == "":
			// symbolic/SOLVER: the default encoding (its POR, if it is the
			// step encoding, monotonic).
			ec.Encoding, ec.POR = "", "monotonic"
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

// regressFile runs one annotated program on its engines, each under the time
// and memory limits of the regress command (its //@ args cannot set them).
func regressFile(ctx context.Context, file string, override []string, timeout time.Duration, memory int64, show func(engine string)) []regressCase {
	fail := func(engine, format string, args ...any) []regressCase {
		return []regressCase{{File: file, Engine: engine, Status: statusFail, Detail: fmt.Sprintf(format, args...)}}
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return fail("-", "%v", err)
	}
	ann, err := annotation.Parse(src)
	if err != nil {
		return fail("-", "%v", err)
	}
	cfg, base, property, err := parseCheckArgs(ann.Args)
	if err != nil {
		return fail("-", "//@ args: %v", err)
	}
	base.Timeout = timeout
	base.Bounds.Memory = memory
	want := ann.Expect
	if ann.Violation != "" {
		want += " (" + ann.Violation + ")"
	}
	p, cerr := compile(file, src, cfg)
	if cerr != nil {
		rc := regressCase{File: file, Engine: "compile", Got: "error", Want: want, Status: statusFail}
		switch {
		case ann.Expect != "error":
			rc.Detail = "unexpected input error:\n" + cerr.Error()
		case !strings.Contains(cerr.Error(), ann.Error):
			rc.Detail = fmt.Sprintf("error does not mention %q:\n%s", ann.Error, cerr.Error())
		default:
			rc.Status = statusPass
		}
		return []regressCase{rc}
	}
	engines := ann.Engines
	if len(override) > 0 {
		engines = override
	}
	chosen := len(engines) > 0
	if !chosen {
		engines = defaultEngines()
	}
	l := singleFile(file, src, p)
	if property != "" {
		if err := l.selectProperty(property, base.Explicit.LocalDeadlock); err != nil {
			return fail("-", "//@ args: %v", err)
		}
	}
	var cases []regressCase
	for _, name := range engines {
		rc := regressCase{File: file, Engine: name, Want: want, Status: statusFail}
		ec, err := engineByName(name, base)
		if err != nil {
			rc.Detail = err.Error()
			cases = append(cases, rc)
			continue
		}
		if show != nil {
			show(name)
		}
		start := time.Now()
		res, err := runEngine(ctx, l, ec)
		rc.Elapsed = time.Since(start)
		rc.MS = float64(rc.Elapsed.Microseconds()) / 1000
		var ee *exitError
		var un unsupported
		switch {
		case err != nil && errors.As(err, &ee) && ee.code == exitInput:
			rc.Got = "error"
			switch {
			case ann.Expect == "error" && strings.Contains(err.Error(), ann.Error):
				rc.Status = statusPass
			case !chosen && errors.As(err, &un):
				// An engine tried by default that does not support the
				// program is not a failure: regress tries every engine that
				// supports it.
				rc.Status, rc.Got, rc.Detail = statusUnsupported, "unsupported", firstLine(err.Error())
			default:
				rc.Detail = "input error: " + err.Error()
			}
		case err != nil:
			rc.Got, rc.Detail = "internal error", err.Error()
		case res.Verdict == verify.Unknown:
			rc.Got, rc.Status = "unknown", statusUnknown
			rc.Detail = unknownNote(res)
		default:
			rc.Got = res.Verdict.String()
			if res.Violation != nil {
				rc.Got += " (" + res.Violation.Kind.String() + ")"
			}
			if rc.Got == want {
				rc.Status = statusPass
			} else {
				rc.Detail = fmt.Sprintf("want %s, got %s", want, rc.Got)
				if res.Note != "" {
					rc.Detail += ": " + res.Note
				}
			}
		}
		cases = append(cases, rc)
		if ctx.Err() != nil {
			break
		}
	}
	return cases
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func writeRegressTable(w io.Writer, cases []regressCase) {
	var engines []string
	seen := map[string]bool{}
	rows := map[string]map[string]regressCase{}
	var files []string
	for _, rc := range cases {
		if !seen[rc.Engine] {
			seen[rc.Engine] = true
			engines = append(engines, rc.Engine)
		}
		if rows[rc.File] == nil {
			rows[rc.File] = map[string]regressCase{}
			files = append(files, rc.File)
		}
		rows[rc.File][rc.Engine] = rc
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "program\t%s\n", strings.Join(engines, "\t"))
	for _, f := range files {
		fmt.Fprint(tw, filepath.Base(f))
		for _, e := range engines {
			rc, ok := rows[f][e]
			cell := ""
			if ok {
				cell = rc.Got
				if rc.Status == statusFail {
					cell = "FAIL " + cell
				}
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// writeJUnit writes a JUnit XML report: one testsuite per program, one testcase
// per engine; a wrong answer is a failure, a run over the time budget an error
// (it answered nothing), an engine that does not support the program skipped.
func writeJUnit(path string, cases []regressCase) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Error     *failure `xml:"error,omitempty"`
		Skipped   *failure `xml:"skipped,omitempty"`
	}
	type suite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Name    string   `xml:"name,attr"`
		Suites  []suite  `xml:"testsuite"`
	}
	doc := suites{Name: "kbmc regress"}
	index := map[string]int{}
	for _, rc := range cases {
		i, ok := index[rc.File]
		if !ok {
			i = len(doc.Suites)
			index[rc.File] = i
			doc.Suites = append(doc.Suites, suite{Name: rc.File})
		}
		s := &doc.Suites[i]
		tc := testcase{Name: rc.Engine, Classname: rc.File, Time: fmt.Sprintf("%.3f", rc.Elapsed.Seconds())}
		msg := &failure{Message: firstLine(rc.Detail), Text: rc.Detail}
		switch rc.Status {
		case statusFail:
			tc.Failure = msg
			s.Failures++
		case statusUnknown:
			tc.Error = msg
			s.Errors++
		case statusUnsupported:
			tc.Skipped = msg
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(data, '\n')...), 0o644)
}
