package explicit

import (
	"slices"

	"kbmc/ir"
	"kbmc/verify"
)

// Coverage (Options.Coverage, kbmc check --coverage) is counted where every
// algorithm executes its steps, worker.draw: each worker marks the nodes its
// steps execute in a bitset of its own, with one bit per node of every
// template, and the executor merges the workers' sets when the run ends. The
// nodes a step executed come from ir.Event.Visits, which the step records
// when coverage is on; nothing is allocated per step once the event's buffers
// have grown. A search that takes a successor from a probe without stepping
// (persistent's cache) reports it through coverProbed.

// coverage is one worker's: the nodes its steps executed, the states they
// reached and the deepest of them.
type coverage struct {
	base    []int  // per thread: the bit of node 0 of its template
	nodes   bitSet // bit base[t]+n: node n of thread t's template was executed
	steps   int64  // steps that reached a state (a failing step reaches none)
	deepest int    // the greatest depth, from the initial state, a step reached

	// Scratch for executing a probed step again (coverProbed).
	state ir.State
	ch    ir.Choices
	ev    ir.Event
}

// coverBits numbers the nodes of p's templates for coverage: the first bit of
// each template's nodes, in Program.Templates order, and the number of bits.
func coverBits(p *ir.Program) (first map[*ir.Template]int, n int) {
	first = make(map[*ir.Template]int, len(p.Templates))
	for _, tm := range p.Templates {
		first[tm] = n
		n += len(tm.Nodes)
	}
	return first, n
}

func newCoverage(p *ir.Program) *coverage {
	first, n := coverBits(p)
	c := &coverage{base: make([]int, len(p.Threads)), nodes: newBitSet(n)}
	for t, th := range p.Threads {
		c.base[t] = first[th.Template]
	}
	return c
}

// add records the step ev (run with TraceLocals), which reached depth steps
// from the initial state, or failed.
func (c *coverage) add(ev *ir.Event, depth int) {
	base := c.base[ev.Thread]
	for _, v := range ev.Visits {
		if v.Partner { // a rendezvous receiver's code (ir/rendezvous.go)
			c.nodes.add(c.base[ev.Partner] + v.Node)
			continue
		}
		c.nodes.add(base + v.Node)
	}
	if ev.Violation == nil {
		c.steps++
		c.deepest = max(c.deepest, depth)
	}
}

// coverStart makes the worker's next step record the nodes it executes, when
// the run counts coverage.
func (w *worker) coverStart(ev *ir.Event) {
	if w.cover != nil {
		ev.TraceLocals = true
	}
}

// covered counts the step ev, which the search took to the depth of its own
// path (below its task's prefix).
func (w *worker) covered(ev *ir.Event, depth int) {
	if w.cover != nil {
		w.cover.add(ev, w.prefixLen()+depth)
	}
}

// coverProbed counts a step the search explores without executing it, because
// a probe already did (its successor was kept): thread t's step from s with
// the draws made, reaching depth steps below the task's prefix. It executes
// the step again, into scratch, only when the run counts coverage.
func (w *worker) coverProbed(s ir.State, t int, made []ir.Choice, depth int) {
	c := w.cover
	if c == nil {
		return
	}
	c.state = append(c.state[:0], s...)
	c.ch.Reset(values(c.ch.Fixed, made))
	c.ev.TraceLocals = true
	w.p.Step(c.state, t, &c.ch, &c.ev)
	c.add(&c.ev, w.prefixLen()+depth)
}

// coverageOf merges the coverage of the run's workers: the result's Coverage.
// states is the run's count of stored states, which a stateless search does
// not have.
func (x *executor) coverageOf(states int64) *verify.Coverage {
	r := verify.NewCoverage(x.p)
	r.Generated = 1 // the initial state
	first, n := coverBits(x.p)
	nodes := newBitSet(n)
	x.mu.Lock()
	for _, c := range x.covers {
		nodes.or(c.nodes)
		r.Generated += c.steps
		r.Diameter = max(r.Diameter, int64(c.deepest))
	}
	x.mu.Unlock()
	for i, tm := range x.p.Templates {
		for node := range tm.Nodes {
			r.Executed[i][node] = nodes.has(first[tm] + node)
		}
	}
	switch {
	case !slices.Contains(x.algo.statKeys(x.opts), "states"):
		r.WhyNoDistinct = x.algo.name + " counts no stored states"
	case x.storedTwice.Load():
		r.WhyNoDistinct = x.algo.name + "'s bounded phase stored the states again: the states statistic counts some twice"
	default:
		r.Distinct = states
	}
	return r
}
