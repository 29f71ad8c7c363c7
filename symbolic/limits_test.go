package symbolic

import (
	"context"
	"sync"
	"testing"

	"kbmc/lang"
	"kbmc/verify"
)

// countdown is a context that ends at the n-th look at it (Err): a stop in
// the middle of the encoding at a point that does not depend on the
// machine's speed.
type countdown struct {
	context.Context
	mu   sync.Mutex
	n    int
	done chan struct{}
}

func newCountdown(n int) *countdown {
	return &countdown{Context: context.Background(), n: n, done: make(chan struct{})}
}

func (c *countdown) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n > 0 {
		c.n--
		if c.n == 0 {
			close(c.done)
		}
	}
	if c.n == 0 {
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} { return c.done }

// TestStopWhileEncoding ends the context a few looks into the first step of
// encodings that take seconds to minutes to build (1,024 threads; the
// monotonic reduction is cubic in the threads): the engine must notice it
// inside the encoding, before any solver call, and answer unknown stopped by
// the context, not an error.
func TestStopWhileEncoding(t *testing.T) {
	p := compileSrc(t, "shared int x;\nthread t[1024] { x++; }\n", lang.Config{})
	for _, c := range combos(t) {
		ctx := newCountdown(3)
		e := Engine{Options: verify.Options{Depth: 100}, Solver: c.solver, Encoding: c.encoding, POR: c.por, NoIncremental: true}
		r, err := e.Check(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if r.Verdict != verify.Unknown || r.Stopped != "interrupt" || r.Stats.SolverCalls != 0 {
			t.Errorf("%s: %s, stopped %q after %d solver calls (%s)", c, r.Verdict, r.Stopped, r.Stats.SolverCalls, r.Note)
		}
	}
}
