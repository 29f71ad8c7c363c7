package ir

// Locals that nothing reads. A C thread copies its argument into locals (int
// tid = (int)(long)arg; int lo = ...), keeps pthread_create's thread handles and
// the old values of atomic operations; once SpecializePrefix has replaced the
// reads of locals with known values by constants, many of them are written and
// never read. dead.go already clears them after each step, so they hold 0 in
// every stored state, but they are still cells of it: a stateful search hashes,
// compares and packs every cell of every state, and philosophers.c's states
// were six times as long as the .kb form's.
//
// DropUnreadLocals removes such a local from its template's frame, and the
// stores into it: an assignment becomes a no-op (a step still, if it was one),
// the left-hand side of a start, a pthread_create or a pthread_join goes (the
// start then does not read its argument cell, the join not the thread's
// result; those cells are set once and for good, and no other step's
// dependency changes). Only stores that cannot do anything else qualify: an
// assignment whose value reads no shared cell, draws nothing and cannot fail
// (no index, shift, dereference or pointer arithmetic, no division but by a
// constant other than 0), into the whole local. A local any node reads, or that a cas, a recv or a trylock
// writes, stays. What is left has no effect on any state but through the
// removed cells, which nothing reads: every execution keeps its steps, its
// accesses other than the argument and result reads above, its verdict. Traces
// no longer show values that nothing used. Not under --no-fold.

// DropUnreadLocals removes the locals nothing reads, and the stores into them
// (see above). It reports whether it changed any template; the caller then runs
// Finish again.
func (p *Program) DropUnreadLocals() bool {
	if p.NoFold {
		return false
	}
	changed := false
	for _, t := range p.Templates {
		if p.dropUnread(t) {
			changed = true
		}
	}
	return changed
}

func (p *Program) dropUnread(t *Template) bool {
	local := map[*Var]bool{}
	for _, v := range t.Locals {
		local[v] = true
	}
	keep := map[*Var]bool{}
	for _, n := range t.Nodes {
		for e := range n.Exprs() {
			Inspect(e, func(x *Expr) bool {
				if x.Var != nil && local[x.Var] {
					keep[x.Var] = true
				}
				return true
			})
		}
		for lv := range n.LValues() {
			if lv.Var == nil || !local[lv.Var] {
				continue
			}
			droppable := lv.Index == nil && lv.Ptr == nil && lv == n.LHS &&
				(n.Op == OpAssign && pureLocal(n.X, local) || n.Op == OpStart || n.Op == OpSpawn || n.Op == OpJoin)
			if !droppable {
				keep[lv.Var] = true
			}
		}
	}
	var kept []*Var
	for _, v := range t.Locals {
		if keep[v] {
			kept = append(kept, v)
		}
	}
	if len(kept) == len(t.Locals) {
		return false
	}
	for i, n := range t.Nodes {
		if n.LHS == nil || n.LHS.Var == nil || !local[n.LHS.Var] || keep[n.LHS.Var] {
			continue
		}
		c := *n
		if n.Op == OpAssign {
			c = Node{Op: OpNop, Next: n.Next, Else: Exit, Cut: n.Cut, Atomic: n.Atomic, Pos: n.Pos, Text: n.Text}
		} else {
			c.LHS = nil
		}
		t.Nodes[i] = &c
	}
	t.Locals = kept
	return true
}

// pureLocal reports whether e reads only locals (local) and constants and
// cannot fail or draw: evaluating it has no effect but its value.
func pureLocal(e *Expr, local map[*Var]bool) bool {
	return !Any(e, func(x *Expr) bool {
		switch x.Op {
		case EVar:
			return !local[x.Var] || x.Var.Len != 0
		case EConst, ETid, ESelf, ENeg, ENot, ECompl, EAdd, ESub, EMul,
			EAnd, EXor, EOr, ELAnd, ELOr, ECond, EConv,
			EEq, ENe, ELt, ELe, EGt, EGe:
			return false
		case EDiv, ERem: // only division by zero fails
			return x.Y.Op != EConst || x.Y.Val == 0
		}
		return true // anything else may read memory, draw or fail
	})
}
