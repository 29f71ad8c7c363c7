package cfront

import (
	"modernc.org/cc/v4"

	"kbmc/ir"
)

// main's thread creations as one step. A .kb program's threads exist from the
// start; a C program's main creates them one pthread_create at a time, in a
// loop, and every creation is a step that a search interleaves with the
// steps of the threads already running (and the symbolic encoding makes an
// event of). cfront lowers such a loop of main as copies of its body, and
// makes creations with only local computation between them one step.
//
// Why one step loses no behaviour: a creation writes only the new slot's
// start cells (its flag and argument), which nothing but the new thread's
// start reads, and reads the flags of its pool, which only creations into
// the pool write. When main is the only thread that creates threads of the
// pool, a creation of main commutes with every step of every other thread,
// except the start of the thread it creates, which it enables and which
// cannot come before it. It cannot block either: each creation runs at most
// once (it lies on no cycle) and the pool has a slot for each. So in any
// execution, main's next creation can be moved back to just after its
// previous one, past steps independent of it, and the result reaches the same
// states and violations; the local code between them reads and writes only
// main's locals, which no other thread sees. (No deadlock is lost either: a
// thread between two creations is enabled, so no deadlocked state has main
// there.) The depth of an execution shrinks by the steps folded.

// maxUnroll bounds the trip count of a loop unrolled.
const maxUnroll = 64

// unrollable reports whether main's loop is for (int i = a; i < b; i++) with
// constants a and b, no more than maxUnroll trips, i not assigned in the body
// nor its address taken, and a body that creates or joins a thread and has
// no declaration, loop, label or jump (break, continue, goto, return): then
// it can be lowered as n copies of its body, the condition known each time.
// (A loop of joins unrolled lets SpecializePrefix in ir make the joins one
// step.)
func (b *builder) unrollable(is *cc.IterationStatement) (int, bool) {
	if b.start != nil || b.trip != 1 || b.atomic > 0 || b.l.cfg.NoFold || !b.frame.top ||
		is.Case != cc.IterationStatementForDecl {
		return 0, false
	}
	n, exact := b.exactTrips(is)
	if !exact || n > maxUnroll {
		return 0, false
	}
	d := is.Declaration.InitDeclaratorList.InitDeclarator.Declarator
	if b.l.taken[d] {
		return 0, false
	}
	ok, creates := true, false
	walk(is.Statement, func(m cc.Node) bool {
		switch x := m.(type) {
		case *cc.LabeledStatement, *cc.JumpStatement, *cc.IterationStatement, *cc.Declaration:
			ok = false
		case *cc.PostfixExpression:
			if x.Case == cc.PostfixExpressionCall {
				if name := funcName(x.PostfixExpression); name == "pthread_create" || name == "pthread_join" {
					creates = true
				}
			}
		}
		return ok
	})
	return n, ok && creates
}

// unroll lowers a loop unrollable found to run n times.
func (b *builder) unroll(is *cc.IterationStatement, n int) {
	b.declaration(is.Declaration)
	step := is.ExpressionList2
	for range n {
		b.stmt(is.Statement)
		if !b.reachable() {
			return
		}
		start := b.begin(step, b.l.text(step))
		b.effect(step)
		b.end(start)
	}
}

// foldSpawns makes each pthread_create of main that follows another with
// only local computation between them (no branch, nothing visible) part of
// the other's step, when it creates a thread of a pool only main creates
// threads of, lies on no cycle of main's code, and the pool has a slot for
// every creation of main (see above). The step is marked atomic from the
// first creation to the last, as a __VERIFIER_atomic_ section would be.
func (l *lowerer) foldSpawns(mt *ir.Template) {
	if l.cfg.NoFold {
		return
	}
	nodes := mt.Nodes
	creations := map[*ir.Pool]int{}
	preds := make([]int, len(nodes))
	for _, n := range nodes {
		if n.Op == ir.OpSpawn {
			creations[n.Pool]++
		}
		for _, s := range [2]int{n.Next, n.Else} {
			if s != ir.Exit && (s == n.Next || n.Op == ir.OpBranch) {
				preds[s]++
			}
		}
	}
	others := map[*ir.Pool]bool{}
	for _, t := range l.prog.Templates {
		if t == mt {
			continue
		}
		for _, n := range t.Nodes {
			if n.Op == ir.OpSpawn {
				others[n.Pool] = true
			}
		}
	}
	// A pool some creation of main creates threads of more than once (on a
	// cycle) may be full when a later creation runs.
	cyclic := map[*ir.Pool]bool{}
	for i, n := range nodes {
		if n.Op == ir.OpSpawn && onCycle(nodes, i) {
			cyclic[n.Pool] = true
		}
	}
	// A creation folded into the step before it must touch nothing another
	// thread may see but its pool: its argument reads only locals (cfront
	// makes a shared read a step of its own), and the thread's value goes to
	// a local (a global handle may be read by any thread).
	foldable := func(i int) bool {
		n := nodes[i]
		return n.Op == ir.OpSpawn && !n.Atomic && preds[i] == 1 && !others[n.Pool] && !cyclic[n.Pool] &&
			creations[n.Pool] <= len(n.Pool.Slots) && !n.X.ReadsShared() && (n.LHS == nil || !n.LHS.Shared())
	}
	for i, n := range nodes {
		if n.Op != ir.OpSpawn || !n.Cut || n.Atomic {
			continue
		}
		chain := []int{i}
		var path []int
		for j := n.Next; j != ir.Exit; {
			m := nodes[j]
			if m.Cut {
				if !foldable(j) {
					break
				}
				chain = append(append(chain, path...), j)
				path = path[:0]
				j = m.Next
				continue
			}
			if m.Op == ir.OpBranch || m.Atomic || m.Visible() || preds[j] != 1 {
				break
			}
			path = append(path, j)
			j = m.Next
		}
		if len(chain) == 1 {
			continue
		}
		for _, k := range chain {
			nodes[k].Cut = k == i
			nodes[k].Atomic = true
		}
	}
}

// onCycle reports whether some path from node i leads back to it.
func onCycle(nodes []*ir.Node, i int) bool {
	seen := make([]bool, len(nodes))
	stack := []int{i}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := nodes[k]
		for _, s := range [2]int{n.Next, n.Else} {
			if s == ir.Exit || s != n.Next && n.Op != ir.OpBranch {
				continue
			}
			if s == i {
				return true
			}
			if !seen[s] {
				seen[s] = true
				stack = append(stack, s)
			}
		}
	}
	return false
}
