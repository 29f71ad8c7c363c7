package explicit

import (
	"context"

	"kbmc/ir"
	"kbmc/verify"
)

// DFS explores every interleaving and every nondeterministic value up to the depth
// bound: the reference oracle. With Stateful it skips states already explored with at
// least as much remaining depth.
type DFS struct {
	Options
}

// Check runs the search.
func (d DFS) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	x, err := newExecutor(ctx, p, d.Options)
	if err != nil {
		return nil, err
	}
	k := x.opts.Depth
	s := &dfsSearch{x: x, states: make([]ir.State, k+1), moves: make([]ir.Move, k),
		choices: make([]ir.Choices, k)}
	for i := range s.states {
		s.states[i] = make(ir.State, p.StateSize)
	}
	copy(s.states[0], p.Initial())
	if d.Stateful {
		s.visited = newStateSet()
	}
	s.explore(0)
	keys := []string(nil)
	if d.Stateful {
		x.stats.States = int64(s.visited.len())
		keys = append(keys, "states")
	}
	name := "dfs"
	return x.result(name, keys...)
}

type dfsSearch struct {
	x       *executor
	states  []ir.State   // states[i]: the state after i steps on the current path
	moves   []ir.Move    // the current path
	choices []ir.Choices // per depth, so that a step's alternatives survive the recursion
	ev      ir.Event
	visited *stateSet
}

func (s *dfsSearch) explore(depth int) {
	x := s.x
	p := x.p
	cur := s.states[depth]
	if s.visited != nil && !s.visited.add(cur, x.opts.Depth-depth) {
		return
	}
	enabled := false
	for t := range p.Threads {
		if x.done() {
			return
		}
		if !p.Enabled(cur, t) {
			continue
		}
		enabled = true
		if depth == x.opts.Depth {
			x.bounded("depth bound reached")
			return
		}
		ch := &s.choices[depth]
		var fixed []int64
		for {
			next := s.states[depth+1]
			copy(next, cur)
			ch.Reset(fixed)
			x.step(next, t, ch, &s.ev)
			mv := &s.moves[depth]
			mv.Thread = t
			mv.Choices = values(mv.Choices, ch.Made)
			if s.ev.Violation != nil {
				x.stats.Executions++
				x.failed(s.ev.Violation, s.moves[:depth+1])
				return
			}
			s.explore(depth + 1)
			if x.done() {
				return
			}
			var more bool
			if fixed, more = ch.Next(fixed); !more {
				break
			}
		}
	}
	if !enabled {
		x.terminal(cur, s.moves[:depth])
	}
}
