package explicit

import "kbmc/ir"

// Local deadlocks ("Reduction Techniques for Distributed Applications" §2): process
// p is deadlocked in a state s when one of its threads has not terminated and no
// state reachable from s enables a thread of p — p is stuck for good while others
// may go on (a server that loops, a client that waits on a channel nobody will
// send to again). A global deadlock is the case where nobody can move.
//
// It is a property of the states below s, so it is decided after a stateful
// search, on the graph the search explored: a backward fixpoint from the states
// where p can move marks every state from which p can still move; a reachable
// state outside that set where p is stuck is a local deadlock. A state below which
// the depth bound cut the search counts as "p may still move": it never yields a
// report. Only a search that explores every successor of every state it keeps
// (dfs --stateful) has a graph with which "no state reachable from s" is exact; a
// reduced search keeps a subgraph on which p may look stuck although it is not.

// stateGraph is the explored graph of a stateful search: per stored state its
// successors, whether the depth bound kept it from being expanded, and how the
// search first reached it (for the trace).
type stateGraph struct {
	nodes []graphNode
}

type graphNode struct {
	state    packedState // as stored in the visited set
	parent   int32       // the state it was first reached from; -1 for the initial state
	move     ir.Move     // the step from parent
	depth    int32
	succ     []int32
	expanded bool // its successors are recorded
	cut      bool // a thread can move, but the depth bound kept the search from it
}

// add records a newly stored state, reached from parent by move, and returns its
// number.
func (g *stateGraph) add(s packedState, parent int32, move ir.Move, depth int) int32 {
	g.nodes = append(g.nodes, graphNode{state: s, parent: parent, depth: int32(depth),
		move: ir.Move{Thread: move.Thread, Choices: append([]int64(nil), move.Choices...)}})
	return int32(len(g.nodes) - 1)
}

// cutAt records that the depth bound kept the search from expanding node id.
func (g *stateGraph) cutAt(id int32) {
	if n := &g.nodes[id]; !n.expanded {
		n.cut = true
	}
}

// expanded records that every successor of node id has been recorded (see
// dfsSearch.link): the first exploration of its state has completed.
func (g *stateGraph) expanded(id int32) {
	if n := &g.nodes[id]; !n.expanded {
		n.expanded, n.cut = true, false
	}
}

// localDeadlock looks for a reachable state where some process is deadlocked and
// returns the first one found (the shallowest), with the process's violation and
// the schedule that reaches it.
func (g *stateGraph) localDeadlock(p *ir.Program) (*ir.Violation, []ir.Move) {
	n := len(g.nodes)
	pred := make([][]int32, n)
	for i, nd := range g.nodes {
		for _, j := range nd.succ {
			pred[j] = append(pred[j], int32(i))
		}
	}
	var found *ir.Violation
	at := -1
	canMove := newBitSet(n)
	var work []int32
	var st ir.State // the state of a node, unpacked
	for q := range p.NumProcesses() {
		canMove.clear()
		work = work[:0]
		for i, nd := range g.nodes {
			if !nd.cut {
				st = unpackState(p, nd.state, st)
			}
			if nd.cut || !nd.expanded && anyEnabled(p, st) || processEnabled(p, st, q) {
				canMove.add(i)
				work = append(work, int32(i))
			}
		}
		for len(work) > 0 {
			j := work[len(work)-1]
			work = work[:len(work)-1]
			for _, i := range pred[j] {
				if !canMove.has(int(i)) {
					canMove.add(int(i))
					work = append(work, i)
				}
			}
		}
		for i, nd := range g.nodes {
			if canMove.has(i) || at >= 0 && nd.depth >= g.nodes[at].depth {
				continue
			}
			st = unpackState(p, nd.state, st)
			if v := p.Stuck(st, q); v != nil {
				found, at = v, i
			}
		}
	}
	if found == nil {
		return nil, nil
	}
	var trace []ir.Move
	for i := int32(at); g.nodes[i].parent >= 0; i = g.nodes[i].parent {
		trace = append(trace, g.nodes[i].move)
	}
	for i, j := 0, len(trace)-1; i < j; i, j = i+1, j-1 {
		trace[i], trace[j] = trace[j], trace[i]
	}
	return found, trace
}

func processEnabled(p *ir.Program, s ir.State, q int) bool {
	for t := range p.Threads {
		if p.ProcessOf(t) == q && p.Enabled(s, t) {
			return true
		}
	}
	return false
}

func anyEnabled(p *ir.Program, s ir.State) bool {
	for t := range p.Threads {
		if p.Enabled(s, t) {
			return true
		}
	}
	return false
}
