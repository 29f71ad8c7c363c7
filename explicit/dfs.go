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
	return check(ctx, p, "dfs", d)
}

func (d DFS) options() Options { return d.Options }

func (d DFS) start(x *executor, sh *sharing) (runner, error) {
	if d.LocalDeadlock {
		sh.workers = 1 // the analysis runs on one state graph
	}
	return dfsRun{d: d, sh: sh}, nil
}

// dfsRun is one run of DFS: its searches share the driver's visited store, if
// it has one (dfs --stateful split at a frontier).
type dfsRun struct {
	d  DFS
	sh *sharing
}

func (r dfsRun) finish() error { return nil }

func (r dfsRun) search(w *worker) search {
	s := &dfsSearch{x: w, states: make([]ir.State, 1), moves: make([]ir.Move, 0, min(w.depth, 64))}
	if r.d.Stateful && r.sh.visited != nil {
		s.shared, s.owner, s.path = r.sh.visited, w.id, newSharedPath[struct{}](w.id)
	}
	s.stateful, s.localDeadlock = r.d.Stateful, r.d.LocalDeadlock
	return s
}

// explore searches below the task's root.
func (s *dfsSearch) explore(*task) {
	x := s.x
	s.states[0] = x.initial()
	if s.stateful && s.shared == nil {
		s.visited = newVisitedStore[int32](x.opts.storeMode())
	}
	if s.localDeadlock {
		s.graph = &stateGraph{}
		s.ids = []int32{-1}
	}
	s.subtree(0)
	if s.visited != nil {
		x.stats.States += int64(s.visited.len())
	}
	if s.graph != nil && !x.halted() {
		if v, trace := s.graph.localDeadlock(x.p); v != nil {
			x.found(v, trace)
		}
	}
}

type dfsSearch struct {
	x      *worker
	states []ir.State   // states[i]: the state after i steps on the current path
	moves  []ir.Move    // the current path
	succ   []successors // per depth, so that a step's alternatives survive the recursion
	ev     ir.Event
	// stateful: keep a visited set (visited, or shared); localDeadlock:
	// record the explored graph for the analysis.
	stateful, localDeadlock bool
	visited                 *visitedStore[int32] // with the state's number in graph
	graph                   *stateGraph          // --local-deadlock: the explored graph
	ids                     []int32              // graph: ids[d] is the number of states[d]

	// A parallel run's shared store (see sharedVisited) instead of visited: the
	// search counts the states it stores.
	shared *sharedVisited[struct{}]
	owner  int // this search's records in shared
	path   sharedPath[struct{}]
	// reverse makes successors take the threads in reverse order: for a state
	// another worker is exploring, which goes through them in order, so that the
	// two meet in the middle instead of doing the same work side by side.
	reverse bool
	// later holds, per depth, the successors put off because another worker
	// was exploring them (see subtreeShared); retry tells subtreeShared that
	// it is called for one of them, which is not put off again.
	later []postponed
	retry bool
}

// resume explores the successors of the state at depth that were put off and
// returns the height found below them.
func (s *dfsSearch) resume(depth int) int {
	height := 0
	s.later[depth].drain(s.states[depth+1], &s.moves[depth], func() bool {
		s.retry = true
		height = max(height, 1+s.subtree(depth+1))
		return !s.x.done()
	})
	return height
}

// grow makes room for the state and move of depth d+1: buffers grow with the depth
// the search reaches, never with the bound.
func (s *dfsSearch) grow(d int) {
	if len(s.states) <= d+1 {
		s.states = append(s.states, make(ir.State, s.x.p.StateSize))
		s.succ = append(s.succ, successors{})
		if s.shared != nil {
			s.later = append(s.later, postponed{})
		}
	}
	if len(s.moves) <= d {
		s.moves = append(s.moves, ir.Move{})
	}
	if s.graph != nil && len(s.ids) <= d+1 {
		s.ids = append(s.ids, -1)
	}
}

// subtree searches below states[depth] and returns the length of the longest
// execution it found from there (budget+1 if some went past the depth bound).
func (s *dfsSearch) subtree(depth int) int {
	if s.shared != nil {
		return s.subtreeShared(depth)
	}
	x := s.x
	cur := s.states[depth]
	budget := x.budget - depth
	var seen *visit[int32]
	if s.visited != nil {
		var fresh bool
		seen, fresh = s.visited.visit(s.x.p.IdentityCells(cur))
		if s.graph != nil {
			s.link(depth, seen, fresh)
		}
		if !fresh {
			if h, ok := s.revisit(depth, seen.active > 0, int(seen.budget), int(seen.height)); ok {
				return h
			}
		}
		seen.active, seen.budget = 1, int32(budget)
	}
	height := s.successors(depth)
	if seen != nil {
		seen.active, seen.height = 0, int32(height)
	}
	return height
}

// link records the state at depth in the state graph (--local-deadlock): a new
// node when it is fresh, and the edge from the state before it on the path
// while that one's successors are being recorded (its first exploration).
func (s *dfsSearch) link(depth int, seen *visit[int32], fresh bool) {
	g := s.graph
	parent := int32(-1)
	var mv ir.Move
	if depth > 0 {
		mv, parent = s.moves[depth-1], s.ids[depth-1]
	}
	if fresh {
		seen.own = g.add(s.visited.blocks.packed(seen.state), parent, mv, depth)
	}
	s.ids[depth] = seen.own
	if parent >= 0 && !g.nodes[parent].expanded {
		g.nodes[parent].succ = append(g.nodes[parent].succ, seen.own)
	}
}

// revisit decides a state the search has stored before: on the search's own
// path (onPath) it closes a cycle, an execution that runs forever, so past any
// bound; explored before with at least the remaining budget, it has the height
// found then. It returns the state's height and true in those cases, false
// when the state must be explored (again).
func (s *dfsSearch) revisit(depth int, onPath bool, seenBudget, seenHeight int) (int, bool) {
	x := s.x
	budget := x.budget - depth
	switch {
	case onPath:
		x.cycleAt(s.moves[:depth])
		x.bounded(verify.CycleNote)
		return budget + 1, true
	case seenBudget >= budget:
		if seenHeight > budget {
			x.bounded("depth bound reached")
		}
		return min(seenHeight, budget+1), true
	}
	return 0, false
}

// subtreeShared is subtree with the store the workers of a parallel run share.
// The budget is what is left of the run's depth bound, so the searches of all
// subtrees measure it alike. A record is trusted only once an exploration of the
// state has completed (see sharedVisited); heights are exact whoever computed
// them, because each is min(longest execution, budget+1): a cycle on the
// search's own stack is an execution that runs forever, and a trusted record's
// height was computed the same way.
func (s *dfsSearch) subtreeShared(depth int) int {
	x := s.x
	cur := s.states[depth]
	budget := x.budget - depth
	retry := s.retry
	s.retry = false
	e, fresh := s.shared.visit(s.x.p.IdentityCells(cur), s.owner)
	if fresh {
		x.stats.States++
	} else {
		b, h := e.completed()
		if h, ok := s.revisit(depth, s.path.onStack(e, depth), b, h); ok {
			return h
		}
		// Never explored, explored with less budget, or under way on another
		// worker only: explored here (again); under way elsewhere, after its
		// siblings (see postponed).
		if s.path.putsOff(e, depth, retry) {
			return putOff
		}
	}
	s.reverse = !fresh && s.path.elsewhere(e)
	s.path.enter(e, depth)
	height := s.successors(depth)
	s.path.leave(e)
	// A search stopped part way has not covered the subtree; the run is over then.
	if !x.halted() {
		e.publish(budget, height)
	}
	return height
}

// successors explores every successor of the state at depth (subtree) and
// returns the height found below it. The graph of --local-deadlock is kept in
// subtree and link, not here: this is the loop every dfs search spends its
// time in.
func (s *dfsSearch) successors(depth int) int {
	x := s.x
	p := x.p
	reverse := s.reverse
	s.reverse = false
	cur := s.states[depth]
	// first is the first enabled thread (len(p.Threads): none); the loop below
	// starts there, so no thread's guard is evaluated twice.
	first := 0
	for first < len(p.Threads) && !p.Enabled(cur, first) {
		first++
	}
	if leaf, cut := x.leaf(cur, first < len(p.Threads), s.moves[:depth]); leaf {
		if !cut {
			return 0
		}
		if s.graph != nil {
			s.graph.cutAt(s.ids[depth])
		}
		return 1
	}
	s.grow(depth)
	if s.later != nil {
		s.later[depth].clear() // a search stopped part way may have left some
	}
	height := 0
	it := &s.succ[depth]
	for i := first; i < len(p.Threads); i++ {
		t := i
		if reverse { // from the last thread down to first
			t = len(p.Threads) - 1 - (i - first)
		}
		if x.done() {
			return height
		}
		if t != first && !p.Enabled(cur, t) {
			continue
		}
		it.start(cur, s.states[depth+1], t, &s.ev, &s.moves, depth+1)
		for x.next(it) {
			if h := s.subtree(depth + 1); h != putOff {
				height = max(height, 1+h)
			} else {
				s.later[depth].add(s.states[depth+1], s.moves[depth])
			}
			if x.done() {
				return height
			}
		}
	}
	if s.later != nil && s.later[depth].len() > 0 {
		height = max(height, s.resume(depth))
	}
	if s.graph != nil {
		s.graph.expanded(s.ids[depth])
	}
	return height
}
