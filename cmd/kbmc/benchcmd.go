package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"kbmc/bench"
	"kbmc/verify"
)

func benchCommand() *cli.Command {
	flags := append(engineFlags(),
		&cli.StringFlag{Name: "suite", Value: "thesis", Usage: "suite (" + strings.Join(bench.Suites(), ", ") + ") or comma-separated family names"},
		&cli.StringFlag{Name: "engines", Value: "explicit/dfs", Usage: "comma-separated engines, e.g. explicit/lazypor,explicit/dpor"},
		&cli.StringFlag{Name: "n", Value: "1..4", Usage: "range of N: FROM..TO"},
		&cli.IntFlag{Name: "width", Value: 32, Usage: "integer width W in bits"},
		&cli.BoolFlag{Name: "no-fold", Usage: "one transition per statement"},
		&cli.StringFlag{Name: "csv", Usage: "write the rows as CSV to this file, each as it is measured"},
		&cli.StringFlag{Name: "md", Usage: "write the rows as a Markdown table to this file, each as it is measured"},
		&cli.StringFlag{Name: "plot", Usage: "write a log-scale PNG plot of time, executions and peak heap to this file"},
		&cli.BoolFlag{Name: "json", Usage: "print the rows as one JSON object (docs/output.md)"},
		&cli.StringSliceFlag{Name: "from-csv", Usage: "measure nothing: read the rows from these --csv files (a campaign run in pieces) and write the reports"},
	)
	for i, f := range flags {
		if tf, ok := f.(*cli.GenericFlag); ok && tf.Name == "timeout" {
			flags[i] = timeoutFlag(benchTimeout, "time limit per run; a family stops growing N at its first timeout")
		}
	}
	return &cli.Command{
		Name:   "bench",
		Usage:  "run benchmark families over a range of N and report time, executions and memory",
		Flags:  flags,
		Action: benchAction,
	}
}

const benchTimeout = 60 * time.Second

func parseRange(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		b = a
	}
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || from < 0 || to < from {
		return 0, 0, usageErr("--n %s: want FROM..TO with 0 <= FROM <= TO", s)
	}
	return from, to, nil
}

func benchAction(c *cli.Context) error {
	if c.Args().Len() != 0 {
		return usageErr("bench takes no arguments (use --suite)")
	}
	if err := rejectEngineChoice(c); err != nil {
		return err
	}
	fams, err := bench.Families(c.String("suite"))
	if err != nil {
		return usageErr("--suite: %v", err)
	}
	from, to, err := parseRange(c.String("n"))
	if err != nil {
		return err
	}
	base, err := readEngineConfig(c)
	if err != nil {
		return err
	}
	engines := splitList(c.String("engines"))
	for _, e := range engines {
		if _, err := engineByName(e, base); err != nil {
			return err
		}
	}
	asJSON := c.Bool("json")
	// Reports are written row by row: an interrupted or failed campaign keeps
	// the rows it measured.
	var onRow []func(bench.Row) error
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	create := func(flag string) (*os.File, error) {
		f, err := os.Create(c.String(flag))
		if err != nil {
			return nil, &exitError{exitUsage, fmt.Errorf("--%s: %w", flag, err)}
		}
		files = append(files, f)
		return f, nil
	}
	if c.String("csv") != "" {
		f, err := create("csv")
		if err != nil {
			return err
		}
		cw, err := bench.NewCSVWriter(f)
		if err != nil {
			return &exitError{exitInternal, err}
		}
		onRow = append(onRow, cw.Write)
	}
	if c.String("md") != "" {
		f, err := create("md")
		if err != nil {
			return err
		}
		if err := bench.MarkdownHeader(f); err != nil {
			return &exitError{exitInternal, err}
		}
		onRow = append(onRow, func(r bench.Row) error { return bench.MarkdownRow(f, r) })
	}
	stdoutTable := c.String("csv") == "" && c.String("md") == "" && c.String("plot") == "" && !asJSON
	if stdoutTable {
		if err := bench.MarkdownHeader(c.App.Writer); err != nil {
			return err
		}
		onRow = append(onRow, func(r bench.Row) error { return bench.MarkdownRow(c.App.Writer, r) })
	}
	cfg := bench.Config{
		Families: fams, Engines: engines, From: from, To: to, Timeout: base.Timeout, Memory: base.Bounds.Memory,
		Width: c.Int("width"), NoFold: c.Bool("no-fold"), Log: c.App.ErrWriter,
		Bound: base.Bounds.Depth, Version: version,
		New: func(name string) (verify.Engine, error) {
			ec, err := engineByName(name, base)
			if err != nil {
				return nil, err
			}
			// bench.Config.Memory bounds each row (bench's measure).
			return ec.engine()
		},
		OnRow: func(r bench.Row) error {
			for _, f := range onRow {
				if err := f(r); err != nil {
					return err
				}
			}
			return nil
		},
	}
	if asJSON {
		cfg.Log = nil
	}
	var rows []bench.Row
	if paths := c.StringSlice("from-csv"); len(paths) > 0 {
		rows, err = rowsFromCSV(paths, cfg.OnRow)
		if err != nil {
			return &exitError{exitUsage, fmt.Errorf("--from-csv: %w", err)}
		}
	} else {
		rows, err = bench.Run(c.Context, cfg)
	}
	interrupted := errors.Is(err, context.Canceled) || c.Context.Err() != nil
	if err != nil && !interrupted {
		return &exitError{exitInternal, err}
	}
	if path := c.String("plot"); path != "" {
		f, err := create("plot")
		if err != nil {
			return err
		}
		if err := bench.WritePlot(f, rows); err != nil {
			return &exitError{exitInternal, fmt.Errorf("--plot %s: %w", path, err)}
		}
	}
	if asJSON {
		j := struct {
			Rows        []map[string]any `json:"rows"`
			Interrupted bool             `json:"interrupted,omitempty"`
		}{Rows: []map[string]any{}, Interrupted: interrupted}
		for _, r := range rows {
			j.Rows = append(j.Rows, r.JSON())
		}
		if err := writeJSONValue(c.App.Writer, j); err != nil {
			return &exitError{exitInternal, err}
		}
	}
	if interrupted {
		fmt.Fprintln(c.App.ErrWriter, "kbmc: bench interrupted; the reports hold the rows measured so far")
		return &exitError{exitUnknown, nil}
	}
	return nil
}

// rowsFromCSV reads the rows of earlier campaigns and hands each to onRow, as
// bench.Run does with the rows it measures.
func rowsFromCSV(paths []string, onRow func(bench.Row) error) ([]bench.Row, error) {
	var rows []bench.Row
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		some, err := bench.ReadCSV(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rows = append(rows, some...)
	}
	for _, r := range rows {
		if err := onRow(r); err != nil {
			return nil, err
		}
	}
	return rows, nil
}
