package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"kbmc/ir"
	"kbmc/verify"
)

func runCommand() *cli.Command {
	flags := append(programFlags(),
		&cli.StringFlag{Name: "schedule", Value: "random", Usage: "random, rr (round robin), or a thread list like 0,1,1,2"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed for --schedule random and for nondet values"},
		&cli.IntFlag{Name: "depth", Value: verify.DefaultDepth, Usage: "stop after this many steps"},
		&cli.BoolFlag{Name: "json", Usage: "print the trace as JSON"},
	)
	return &cli.Command{
		Name:      "run",
		Usage:     "simulate one execution and print its trace",
		ArgsUsage: "FILE",
		Flags:     flags,
		Action:    runAction,
	}
}

// scheduler picks the next thread among the enabled ones, or -1 to stop.
type scheduler func(step int, enabled []int, last int) (int, error)

func newScheduler(spec string, rng *rand.Rand, threads int) (scheduler, error) {
	switch spec {
	case "random":
		return func(_ int, en []int, _ int) (int, error) { return en[rng.IntN(len(en))], nil }, nil
	case "rr":
		return func(_ int, en []int, last int) (int, error) {
			for _, t := range en {
				if t > last {
					return t, nil
				}
			}
			return en[0], nil
		}, nil
	}
	var list []int
	for _, f := range strings.Split(spec, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || t < 0 || t >= threads {
			return nil, usageErr("--schedule %s: %q is not a thread number 0..%d", spec, f, threads-1)
		}
		list = append(list, t)
	}
	return func(step int, en []int, _ int) (int, error) {
		if step >= len(list) {
			return -1, nil
		}
		for _, t := range en {
			if t == list[step] {
				return t, nil
			}
		}
		return 0, fmt.Errorf("step %d: thread %d is not enabled", step+1, list[step])
	}, nil
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
	pick, err := newScheduler(c.String("schedule"), rng, len(p.Threads))
	if err != nil {
		return err
	}
	s := p.Initial()
	ch := ir.Choices{Rand: rng}
	var ev ir.Event
	var moves []ir.Move
	var viol *ir.Violation
	outcome := ""
	last := -1
	for step := 0; ; step++ {
		var en []int
		blockedAssume := false
		for t := range p.Threads {
			switch p.Status(s, t) {
			case ir.Enabled:
				en = append(en, t)
			case ir.BlockedAssume:
				blockedAssume = true
			}
		}
		if len(en) == 0 {
			switch v := p.Deadlock(s); {
			case v != nil:
				viol, outcome = v, "deadlock"
			case blockedAssume:
				outcome = "cut by a false assume"
			default:
				outcome = "every thread terminated"
			}
			break
		}
		if step == c.Int("depth") {
			outcome = fmt.Sprintf("depth bound %d reached", step)
			break
		}
		t, err := pick(step, en, last)
		if err != nil {
			return usageErr("%v", err)
		}
		if t < 0 {
			outcome = "schedule ended"
			break
		}
		ch.Reset(nil)
		p.Step(s, t, &ch, &ev)
		moves = append(moves, ir.Move{Thread: t, Choices: values(ch.Made)})
		last = t
		if ev.Violation != nil {
			viol, outcome = ev.Violation, ev.Violation.Kind.String()
			break
		}
	}
	res := &verify.Result{Trace: moves, Verdict: verify.Unsafe, Violation: viol}
	steps, err := traceSteps(l, res)
	if err != nil {
		return &exitError{exitInternal, err}
	}
	out := c.App.Writer
	if c.Bool("json") {
		res.Engine = "run"
		j, err := jsonOf(l, res)
		if err != nil {
			return &exitError{exitInternal, err}
		}
		j.Verdict, j.Note = outcome, outcome
		if viol == nil {
			j.Violation, j.Trace = nil, steps
		}
		if err := writeJSONValue(out, j); err != nil {
			return &exitError{exitInternal, err}
		}
	} else {
		printSteps(out, steps)
		fmt.Fprintf(out, "outcome: %s\n", outcome)
		if viol != nil {
			fmt.Fprintf(out, "%s:%d:%d: %s: %s\n", l.path, viol.Pos.Line, viol.Pos.Col, viol.Kind, viol.Msg)
		}
	}
	if viol != nil {
		return &exitError{exitUnsafe, nil}
	}
	return nil
}

func values(cs []ir.Choice) []int64 {
	var out []int64
	for _, c := range cs {
		out = append(out, c.Value)
	}
	return out
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
