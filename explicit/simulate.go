package explicit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"kbmc/ir"
)

// Simulation is the explicit engine's one-execution strategy (kbmc run): instead of
// searching, it follows a Scheduler from the initial state until the execution
// ends, and reports what happened.

// A Scheduler chooses the thread that moves next in a simulation.
type Scheduler interface {
	// Pick returns one of enabled (the enabled threads, ascending, never empty)
	// for the step numbered step (from 0), given the thread that moved last (-1
	// before the first step); -1 ends the simulation. An error ends it too, as a
	// usage error: the schedule does not fit the program.
	Pick(step int, enabled []int, last int) (int, error)
}

// RandomScheduler picks uniformly among the enabled threads.
func RandomScheduler(rng *rand.Rand) Scheduler { return randomScheduler{rng} }

type randomScheduler struct{ rng *rand.Rand }

func (r randomScheduler) Pick(_ int, enabled []int, _ int) (int, error) {
	return enabled[r.rng.IntN(len(enabled))], nil
}

// RoundRobin picks the next enabled thread after the one that moved last.
func RoundRobin() Scheduler { return roundRobin{} }

type roundRobin struct{}

func (roundRobin) Pick(_ int, enabled []int, last int) (int, error) {
	for _, t := range enabled {
		if t > last {
			return t, nil
		}
	}
	return enabled[0], nil
}

// ListScheduler follows a list of thread numbers, one per step, and ends the
// simulation when the list does; a thread that is not enabled at its step is an
// error.
func ListScheduler(p *ir.Program, threads []int) Scheduler { return listScheduler{p, threads} }

type listScheduler struct {
	p    *ir.Program
	list []int
}

func (l listScheduler) Pick(step int, enabled []int, _ int) (int, error) {
	if step >= len(l.list) {
		return -1, nil
	}
	for _, t := range enabled {
		if t == l.list[step] {
			return t, nil
		}
	}
	return 0, fmt.Errorf("step %d: thread %s is not enabled", step+1, l.p.Threads[l.list[step]].Name)
}

// ParseSchedule reads a schedule as kbmc run's --schedule gives it: "random"
// (with rng), "rr" (round robin), or a comma-separated list of threads, each a
// thread number or a name as traces print it ("reader[1]").
func ParseSchedule(spec string, p *ir.Program, rng *rand.Rand) (Scheduler, error) {
	switch spec {
	case "random":
		return RandomScheduler(rng), nil
	case "rr":
		return RoundRobin(), nil
	}
	var list []int
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		t, err := strconv.Atoi(f)
		if err != nil {
			t = -1
			for _, th := range p.Threads {
				if th.Name == f {
					t = th.ID
				}
			}
		}
		if t < 0 || t >= len(p.Threads) {
			return nil, fmt.Errorf("%q is neither a thread number 0..%d nor a thread's name", f, len(p.Threads)-1)
		}
		list = append(list, t)
	}
	return ListScheduler(p, list), nil
}

// A Simulation is one execution and how it ended.
type Simulation struct {
	Trace     []ir.Move
	Violation *ir.Violation // the violation it ends in (a failed step or a deadlock), or nil
	End       string        // why it ended, for people
	// Ending is how it ended where no thread could move (ir.Program.End);
	// Running when it ended otherwise: a failed step, the depth bound
	// (DepthCut), the schedule or the context.
	Ending   ir.Ending
	DepthCut bool
	Final    ir.State // the state it ended in
}

// Simulate runs one execution of p: at every step sched picks one of the enabled
// threads, and nondeterministic values are drawn from rng (their low end when rng
// is nil). It ends at a violation, in a state where no thread is enabled, after
// depth steps, when the scheduler says so, or when ctx ends.
func Simulate(ctx context.Context, p *ir.Program, depth int, sched Scheduler, rng *rand.Rand) (*Simulation, error) {
	sim := &Simulation{}
	err := simulate(ctx, p, depth, sched, &ir.Choices{Rand: rng}, sim)
	return sim, err
}

// simulate is Simulate with the values drawn by ch, into sim, whose trace's
// buffer it reuses.
func simulate(ctx context.Context, p *ir.Program, depth int, sched Scheduler, ch *ir.Choices, sim *Simulation) error {
	*sim = Simulation{Trace: sim.Trace[:0]}
	if v := p.InitialViolation(); v != nil {
		sim.Violation, sim.End = v, v.Kind.String()
		return nil
	}
	s := p.Initial()
	sim.Final = s // stepped in place
	var ev ir.Event
	var enabled []int
	last := -1
	for step := 0; ; step++ {
		enabled = enabled[:0]
		for t := range p.Threads {
			if p.Enabled(s, t) {
				enabled = append(enabled, t)
			}
		}
		if len(enabled) == 0 {
			end, v := p.End(s)
			sim.Ending = end
			switch end {
			case ir.Deadlocked:
				sim.Violation, sim.End = v, "deadlock"
				if v.Kind == ir.Leak {
					sim.End = "goroutine leak"
				}
			case ir.CutByAssume:
				sim.End = "cut by a false assume"
			case ir.CutByLimit:
				sim.End = "cut: a thread pool or heap pool of the model ran out"
			default:
				sim.End = "every thread terminated"
			}
			return nil
		}
		if step == depth {
			sim.DepthCut = true
			sim.End = fmt.Sprintf("depth bound %d reached", depth)
			return nil
		}
		if err := ctx.Err(); err != nil {
			sim.End = fmt.Sprintf("stopped after %d steps: %v", step, context.Cause(ctx))
			return nil
		}
		t, err := sched.Pick(step, enabled, last)
		if err != nil {
			return err
		}
		if t < 0 {
			sim.End = "schedule ended"
			return nil
		}
		ch.Reset(nil)
		p.Step(s, t, ch, &ev)
		sim.Trace = append(sim.Trace, ir.Move{Thread: t, Choices: values(nil, ch.Made)})
		last = t
		if ev.Violation != nil {
			sim.Violation, sim.End = ev.Violation, ev.Violation.Kind.String()
			return nil
		}
	}
}
