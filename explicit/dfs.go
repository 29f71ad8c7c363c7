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

// explore searches below states[depth] and returns the length of the longest
// execution it found from there (budget+1 if some went past the depth bound).
func (s *dfsSearch) explore(depth int) int {
	x := s.x
	cur := s.states[depth]
	budget := x.opts.Depth - depth
	var seen *visit
	if s.visited != nil {
		if seen = s.visited.lookup(cur); seen != nil {
			switch {
			case seen.onStack:
				// A cycle: some execution runs forever, so past any bound.
				x.bounded("a cycle of states runs past the depth bound")
				return budget + 1
			case seen.budget >= budget:
				if seen.height > budget {
					x.bounded("depth bound reached")
				}
				return min(seen.height, budget+1)
			}
		} else {
			seen = s.visited.insert(cur)
		}
		seen.onStack, seen.budget = true, budget
		defer func() { seen.onStack = false }()
	}
	height := s.successors(depth)
	if seen != nil {
		seen.height = height
	}
	return height
}

func (s *dfsSearch) successors(depth int) int {
	x := s.x
	p := x.p
	cur := s.states[depth]
	enabled := false
	height := 0
	for t := range p.Threads {
		if x.done() {
			return height
		}
		if !p.Enabled(cur, t) {
			continue
		}
		enabled = true
		if depth == x.opts.Depth {
			x.bounded("depth bound reached")
			return 1
		}
		ch := &s.choices[depth]
		var fixed []int64
		for {
			next := s.states[depth+1]
			copy(next, cur)
			if !x.move(next, t, ch, fixed, &s.ev, s.moves[:depth+1]) {
				return height
			}
			height = max(height, 1+s.explore(depth+1))
			if x.done() {
				return height
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
	return height
}
