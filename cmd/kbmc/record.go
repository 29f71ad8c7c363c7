package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"kbmc/detect"
	"kbmc/ir"
)

// recordFlag is --record FILE of run and check: the execution, written as a
// computation that kbmc detect reads.
func recordFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "record", Usage: "write " + what + " to `FILE` as a computation for kbmc detect"}
}

// record writes moves, an execution of l's program, to the --record file if
// there is one.
func record(c *cli.Context, l *loaded, moves []ir.Move) error {
	path := c.String("record")
	if path == "" {
		return nil
	}
	rec, err := detect.Record(l.prog, moves)
	if err != nil {
		return &exitError{exitInternal, err}
	}
	rec.Program = l.path
	var buf bytes.Buffer
	if err := rec.Write(&buf); err != nil {
		return &exitError{exitInternal, err}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return &exitError{exitUsage, fmt.Errorf("--record: %w", err)}
	}
	return nil
}
