package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/urfave/cli/v2"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/verify"
)

func runCommand() *cli.Command {
	flags := append(programFlags(),
		&cli.StringFlag{Name: "schedule", Value: "random", Usage: "random, rr (round robin), or a thread list like 0,1,1,2"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed for --schedule random and for nondet values"},
		&cli.IntFlag{Name: "depth", Value: verify.DefaultDepth, Usage: "stop after this many steps"},
		&cli.BoolFlag{Name: "json", Usage: "print the trace as JSON"},
		recordFlag("the execution"),
		memoryFlag(),
	)
	return &cli.Command{
		Name:      "run",
		Usage:     "simulate one execution and print its trace",
		ArgsUsage: "FILE",
		Flags:     flags,
		Action:    runAction,
	}
}

func runAction(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return usageErr("run takes exactly one FILE")
	}
	cfg, err := compileConfig(c)
	if err != nil {
		return err
	}
	l, err := load(c.Args().First(), cfg)
	if err != nil {
		return err
	}
	p := l.prog
	rng := rand.New(rand.NewPCG(c.Uint64("seed"), 0x6b626d63))
	sched, err := explicit.ParseSchedule(c.String("schedule"), p, rng)
	if err != nil {
		return usageErr("--schedule %s: %v", c.String("schedule"), err)
	}
	if err := checkDepth(c.Int("depth")); err != nil {
		return err
	}
	mem, err := parseMemory(c.String("memory"))
	if err != nil {
		return err
	}
	ctx, stop := withLimits(c.Context, 0, mem)
	defer stop()
	sim, err := explicit.Simulate(ctx, p, c.Int("depth"), sched, rng)
	if err != nil {
		return usageErr("--schedule %s: %v", c.String("schedule"), err)
	}
	steps, err := traceSteps(l, sim.Trace)
	if err != nil {
		return &exitError{exitInternal, err}
	}
	if err := record(c, l, sim.Trace); err != nil {
		return err
	}
	out := c.App.Writer
	viol := sim.Violation
	if c.Bool("json") {
		j := &jsonRun{File: l.path, Engine: "run", Outcome: sim.End, Trace: steps}
		if viol != nil {
			j.Violation = violationJSON(l, viol)
		}
		if err := writeJSONValue(out, j); err != nil {
			return &exitError{exitInternal, err}
		}
	} else {
		printSteps(out, steps)
		fmt.Fprintf(out, "outcome: %s\n", sim.End)
		if viol != nil {
			fmt.Fprintf(out, "%s:%d:%d: %s: %s\n", l.path, viol.Pos.Line, viol.Pos.Col, viol.Kind, viol.Msg)
		}
	}
	if viol != nil {
		return &exitError{exitUnsafe, nil}
	}
	return nil
}

// jsonRun is kbmc run's --json object: the execution and how it ended.
type jsonRun struct {
	File      string         `json:"file"`
	Engine    string         `json:"engine"`
	Outcome   string         `json:"outcome"`
	Violation *jsonViolation `json:"violation,omitempty"`
	Trace     []traceStep    `json:"trace"`
}

func irCommand() *cli.Command {
	return &cli.Command{
		Name:      "ir",
		Usage:     "print the lowered transitions of every thread",
		ArgsUsage: "FILE",
		Flags:     programFlags(),
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return usageErr("ir takes exactly one FILE")
			}
			cfg, err := compileConfig(c)
			if err != nil {
				return err
			}
			l, err := load(c.Args().First(), cfg)
			if err != nil {
				return err
			}
			return ir.Print(c.App.Writer, l.prog)
		},
	}
}
