package main

import (
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
		&cli.StringFlag{Name: "csv", Usage: "write the rows as CSV to this file"},
		&cli.StringFlag{Name: "md", Usage: "write the rows as a Markdown table to this file"},
		&cli.StringFlag{Name: "plot", Usage: "write a log-scale PNG plot of time and executions to this file"},
	)
	return &cli.Command{
		Name:   "bench",
		Usage:  "run benchmark families over a range of N and report time, executions and memory",
		Flags:  flags,
		Action: benchAction,
	}
}

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
	cfg := bench.Config{
		Families: fams, Engines: engines, From: from, To: to, Timeout: base.Timeout,
		Width: c.Int("width"), NoFold: c.Bool("no-fold"), Log: c.App.ErrWriter,
		New: func(name string) (verify.Engine, error) {
			ec, err := engineByName(name, base)
			if err != nil {
				return nil, err
			}
			return ec.engine()
		},
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	rows, err := bench.Run(c.Context, cfg)
	if err != nil {
		return &exitError{exitInternal, err}
	}
	outputs := []struct {
		flag  string
		write func(*os.File) error
	}{
		{"csv", func(f *os.File) error { return bench.WriteCSV(f, rows) }},
		{"md", func(f *os.File) error { return bench.WriteMarkdown(f, rows) }},
		{"plot", func(f *os.File) error { return bench.WritePlot(f, rows) }},
	}
	wrote := false
	for _, o := range outputs {
		path := c.String(o.flag)
		if path == "" {
			continue
		}
		wrote = true
		f, err := os.Create(path)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		err = o.write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return &exitError{exitInternal, fmt.Errorf("--%s %s: %w", o.flag, path, err)}
		}
	}
	if !wrote {
		return bench.WriteMarkdown(c.App.Writer, rows)
	}
	return nil
}
