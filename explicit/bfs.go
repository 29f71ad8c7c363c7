package explicit

import (
	"context"
	"fmt"

	"kbmc/ir"
	"kbmc/verify"
)

// BFS explores the reachable states level by level, breadth first, with a
// visited set: the first violation it reaches is one of the fewest steps, so its
// counterexample is a shortest one (kbmc check --shortest). Every state is
// stored once, with the state and step it was first reached from, which is how
// the trace is rebuilt; the store's insertion order is the search's queue.
//
// It runs on one worker: the levels are not shared out (docs/explicit.md, "bfs").
type BFS struct {
	Options
}

// Check runs the search.
func (b BFS) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	return check(ctx, p, "bfs", b)
}

func (b BFS) options() Options { return b.Options }

func (b BFS) start(x *executor, sh *sharing) (runner, error) {
	sh.workers = 1 // one queue, one worker
	return bfsRun{b}, nil
}

type bfsRun struct{ b BFS }

func (bfsRun) finish() error { return nil }

func (r bfsRun) search(w *worker) search {
	return &bfsSearch{x: w, localDeadlock: r.b.LocalDeadlock}
}

// bfsStep is what the search keeps of a stored state: its number in the store
// (the order it was reached in), and how it was first reached: from state
// parent (-1 for the initial state) by a step of thread with the drawn values
// draws[at : at+n] of the search.
type bfsStep struct {
	id, parent, thread int32
	at, n              int32
}

type bfsSearch struct {
	x     *worker
	store *visitedStore[bfsStep]
	draws []int64 // the drawn values of every stored state's first step
	// heads are the channels' heads of every stored state, as it was first
	// reached, which the store does not keep (ir.Program.IdentityCells): the
	// states the search reports (Options.Terminal) are whole states of real
	// executions.
	heads []int64
	// cutAtBound: some state lay at the depth bound, unexpanded, so the
	// explored graph may not be all that is reachable.
	cutAtBound bool
	// The explored graph, for the longest executions (beyond): the successors
	// of state i are edges[firstEdge[i]:firstEdge[i+1]].
	edges, firstEdge []int32
	// moves[:d] is the path to the state chain[d] (chain[0]: the initial
	// state), the last one rebuilt (pathTo); moves[d], beyond it, is the step
	// being executed.
	moves []ir.Move
	chain []int32
	it    successors
	ev    ir.Event
	// localDeadlock: record the explored graph for the analysis.
	localDeadlock bool
	graph         *stateGraph
}

// explore searches the whole state space below the initial state, level by
// level, up to the depth bound.
func (s *bfsSearch) explore(*task) {
	x := s.x
	p := x.p
	s.store = newVisitedStore[bfsStep](storeMode{})
	init := x.initial()
	root, _ := s.store.visit(p.IdentityCells(init))
	root.own = bfsStep{id: 0, parent: -1}
	s.heads = append(s.heads, init[p.HeadBase:]...)
	if s.localDeadlock {
		s.graph = &stateGraph{}
		s.graph.add(s.store.blocks.packed(root.state), -1, ir.Move{}, 0)
	}
	s.chain = []int32{0}
	cur, next := make(ir.State, p.StateSize), make(ir.State, p.StateSize)
	level, levelEnd := 0, 1
	for i := 0; i < s.store.len(); i++ {
		if i == levelEnd {
			s.levelDone(level)
			level, levelEnd = level+1, s.store.len()
		}
		if x.done() {
			break
		}
		cur = s.state(int32(i), cur)
		s.firstEdge = append(s.firstEdge, int32(len(s.edges)))
		s.expand(int32(i), level, cur, next)
	}
	s.firstEdge = append(s.firstEdge, int32(len(s.edges)))
	x.stats.States += int64(s.store.len())
	if x.halted() {
		return
	}
	s.levelDone(level)
	s.beyond()
	if s.graph != nil && !x.halted() {
		if v, trace := s.graph.localDeadlock(p); v != nil {
			x.found(v, trace)
		}
	}
}

// levelDone records that every state of at most level steps has been expanded:
// no execution of that many steps has a violation. A run stopped later reports
// it (verify.Outcome.Reached).
func (s *bfsSearch) levelDone(level int) {
	x := s.x
	x.mu.Lock()
	x.facts.Reached = level
	x.mu.Unlock()
}

// expand executes every step from cur, state i at level steps from the initial
// state, and stores the successors it has not seen; or ends an execution at cur
// when no thread is enabled or the depth bound is reached.
func (s *bfsSearch) expand(i int32, level int, cur, next ir.State) {
	x := s.x
	p := x.p
	s.pathTo(i, level)
	x.stats.Depth = max(x.stats.Depth, int64(level))
	first := 0
	for first < len(p.Threads) && !p.Enabled(cur, first) {
		first++
	}
	switch {
	case first == len(p.Threads):
		x.terminal(cur, s.moves[:level])
		if s.graph != nil {
			s.graph.expanded(i)
		}
		return
	case level >= x.budget:
		s.cutAtBound = true
		if !x.cutTraced {
			x.cutAt(s.moves[:level])
		}
		x.bounded("depth bound reached")
		if s.graph != nil {
			s.graph.cutAt(i)
		}
		return
	}
	s.chain[level+1] = -1 // moves[level] is overwritten by each step below
	x.stats.Depth = int64(level + 1)
	for t := first; t < len(p.Threads); t++ {
		if t != first && !p.Enabled(cur, t) {
			continue
		}
		s.it.start(cur, next, t, &s.ev, &s.moves, level+1)
		for x.next(&s.it) {
			s.reached(i, level, next)
			if x.done() {
				return
			}
		}
		if x.halted() {
			return
		}
	}
	if s.graph != nil {
		s.graph.expanded(i)
	}
}

// reached records next, reached from state i by the step moves[level].
func (s *bfsSearch) reached(i int32, level int, next ir.State) {
	e, fresh := s.store.visit(s.x.p.IdentityCells(next))
	if fresh {
		mv := s.moves[level]
		e.own = bfsStep{id: int32(s.store.len() - 1), parent: i, thread: int32(mv.Thread),
			at: int32(len(s.draws)), n: int32(len(mv.Choices))}
		s.draws = append(s.draws, mv.Choices...)
		s.heads = append(s.heads, next[s.x.p.HeadBase:]...)
		if s.graph != nil {
			s.graph.add(s.store.blocks.packed(e.state), i, mv, level+1)
		}
	}
	s.edges = append(s.edges, e.own.id)
	if s.graph != nil {
		s.graph.nodes[i].succ = append(s.graph.nodes[i].succ, e.own.id)
	}
}

// state returns stored state i, in dst if it has room.
func (s *bfsSearch) state(i int32, dst ir.State) ir.State {
	p := s.x.p
	dst = unpackState(p, s.store.blocks.packed(s.store.at(i).state), dst)
	n := p.StateSize - p.HeadBase
	copy(dst[p.HeadBase:], s.heads[int(i)*n:])
	return dst
}

// pathTo makes moves[:level] the path by which state i, at level, was first
// reached. Consecutive states of a level mostly share their ancestors, so only
// the part below the last common one is rebuilt.
func (s *bfsSearch) pathTo(i int32, level int) {
	for len(s.chain) < level+2 {
		s.chain = append(s.chain, -1)
	}
	for len(s.moves) < level+1 {
		s.moves = append(s.moves, ir.Move{})
	}
	for d := level; d > 0 && s.chain[d] != i; d-- {
		s.chain[d] = i
		st := s.store.at(i).own
		m := &s.moves[d-1]
		m.Thread = int(st.thread)
		m.Choices = append(m.Choices[:0], s.draws[st.at:st.at+st.n]...)
		i = st.parent
	}
}

// beyond decides, once every state within the bound has been expanded, whether
// some execution runs past the bound: breadth first, the search reached each
// state by a shortest path, but a longer path to it may continue past the depth
// bound, and a cycle of states runs for ever. Either makes the verdict
// bounded-safe, as it is for dfs. A depth-first walk of the explored graph finds
// a cycle, or the longest path from the initial state.
func (s *bfsSearch) beyond() {
	x := s.x
	n := s.store.len()
	limit := int32(x.budget) + 1
	height := make([]int32, n) // the longest path from a state, at most limit
	color := make([]uint8, n)  // 0 not yet walked, 1 on the walk's stack, 2 done
	stack := []bfsFrame{{0, s.firstEdge[0]}}
	color[0] = 1
	for len(stack) > 0 {
		if x.done() {
			return
		}
		f := &stack[len(stack)-1]
		if f.edge < s.firstEdge[f.node+1] {
			j := s.edges[f.edge]
			f.edge++
			switch color[j] {
			case 0:
				color[j] = 1
				stack = append(stack, bfsFrame{j, s.firstEdge[j]})
			case 1:
				s.cycle(j, stack)
				return
			default:
				height[f.node] = min(max(height[f.node], 1+height[j]), limit)
			}
			continue
		}
		color[f.node] = 2
		stack = stack[:len(stack)-1]
		if len(stack) > 0 {
			u := stack[len(stack)-1].node
			height[u] = min(max(height[u], 1+height[f.node]), limit)
		}
	}
	if height[0] < limit {
		return
	}
	// The longest path runs past the bound: its first budget steps are the
	// cut execution, following the tallest successor.
	trace := make([]ir.Move, 0, x.budget)
	for u := int32(0); len(trace) < x.budget; {
		best := int32(-1)
		for _, j := range s.edges[s.firstEdge[u]:s.firstEdge[u+1]] {
			if best < 0 || height[j] > height[best] {
				best = j
			}
		}
		trace = append(trace, s.edgeMove(u, best))
		u = best
	}
	x.cutAt(trace)
	x.bounded("depth bound reached")
}

// bfsFrame is a state on beyond's walk, and the next of its edges to follow.
type bfsFrame struct{ node, edge int32 }

// cycle records the cycle the walk closed when its top state stepped to j, a
// state on its stack: the shortest path to j, then the stack from j back to j.
func (s *bfsSearch) cycle(j int32, stack []bfsFrame) {
	at := 0
	for stack[at].node != j {
		at++
	}
	var trace []ir.Move
	for i := j; i != 0; i = s.store.at(i).own.parent {
		st := s.store.at(i).own
		trace = append(trace, ir.Move{Thread: int(st.thread), Choices: append([]int64(nil), s.draws[st.at:st.at+st.n]...)})
	}
	for a, b := 0, len(trace)-1; a < b; a, b = a+1, b-1 {
		trace[a], trace[b] = trace[b], trace[a]
	}
	for k := at; k < len(stack); k++ {
		to := j
		if k+1 < len(stack) {
			to = stack[k+1].node
		}
		trace = append(trace, s.edgeMove(stack[k].node, to))
	}
	s.x.cycleAt(trace)
	s.x.bounded(verify.CycleNote)
	if !s.cutAtBound {
		// Every reachable state was expanded before the bound: the cycle
		// only revisits them.
		s.x.mu.Lock()
		s.x.facts.Closed = true
		s.x.mu.Unlock()
	}
}

// edgeMove is a step that leads from state from to state to, found by
// executing from's steps again.
func (s *bfsSearch) edgeMove(from, to int32) ir.Move {
	x := s.x
	p := x.p
	cur := s.state(from, nil)
	next := make(ir.State, p.StateSize)
	moves := make([]ir.Move, 1)
	var it successors
	var ev ir.Event
	for t := range p.Threads {
		if !p.Enabled(cur, t) {
			continue
		}
		it.start(cur, next, t, &ev, &moves, 1)
		for x.next(&it) {
			if e := s.store.lookup(p.IdentityCells(next)); e != nil && e.own.id == to {
				return ir.CloneMoves(moves)[0]
			}
		}
	}
	// The graph holds only edges the search executed: not reached.
	panic(fmt.Sprintf("bfs: no step from state %d to state %d", from, to))
}
