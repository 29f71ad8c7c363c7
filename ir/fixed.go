package ir

// Fixed locals. A thread often names its neighbours once, at the start, and
// uses the names from then on: `int next = (pid + 1) % N; … send(ring[next], …)`.
// Every read of such a local sees the value of one expression of constants and
// tid, so the static analyses (Intervals) may evaluate the expression instead
// of assuming any value, and then know which cell, lock or channel the thread
// uses: a persistent set of one process instead of all of them.

// FixedLocals returns the scalar locals of t that every read sees with the value
// of one expression without variables (constants and tid: the same value in
// every execution of one instance), each with that expression: locals written
// by one node only, an assignment of such an expression, which comes before
// every node that reads them on every path from the entry.
func (t *Template) FixedLocals() map[*Var]*Expr {
	// Candidates: written by exactly one node, an assignment of a
	// variable-free expression to the whole local.
	writer := map[*Var]int{}
	for i, n := range t.Nodes {
		for lv := range n.LValues() {
			if v := lv.Var; v != nil && !v.Shared {
				if _, seen := writer[v]; seen || n.Op != OpAssign || lv != n.LHS || lv.Index != nil || lv.Ptr != nil || v.Len != 0 || !constantExpr(n.X) {
					writer[v] = -1
				} else {
					writer[v] = i
				}
			}
		}
	}
	var cand []*Var
	index := map[*Var]int{}
	for _, v := range t.Locals {
		if w, ok := writer[v]; ok && w >= 0 {
			index[v] = len(cand)
			cand = append(cand, v)
		}
	}
	if len(cand) == 0 {
		return nil
	}
	// assigned[i]: the candidates written on every path from the entry to node
	// i (before it): a forward must-analysis, from "all" down to its greatest
	// fixed point.
	words := (len(cand) + 63) / 64
	assigned := make([][]uint64, len(t.Nodes))
	for i := range assigned {
		assigned[i] = make([]uint64, words)
		if i != t.Entry {
			for w := range assigned[i] {
				assigned[i][w] = ^uint64(0)
			}
		}
	}
	out := make([]uint64, words)
	for changed := true; changed; {
		changed = false
		for i, n := range t.Nodes {
			copy(out, assigned[i])
			if j, ok := index[nodeWrites(n)]; ok && writer[cand[j]] == i {
				out[j/64] |= 1 << (j % 64)
			}
			flow := func(to int) {
				if to == Exit || to == t.Entry {
					return
				}
				for w := range out {
					if m := assigned[to][w] & out[w]; m != assigned[to][w] {
						assigned[to][w] = m
						changed = true
					}
				}
			}
			flow(n.Next)
			if n.Op == OpBranch {
				flow(n.Else)
			}
		}
	}
	fixed := map[*Var]*Expr{}
	for _, v := range cand {
		fixed[v] = t.Nodes[writer[v]].X
	}
	for i, n := range t.Nodes {
		for e := range n.Exprs() {
			Inspect(e, func(x *Expr) bool {
				if x.Op == EVar || x.Op == EIndex {
					if j, ok := index[x.Var]; ok && assigned[i][j/64]&(1<<(j%64)) == 0 {
						delete(fixed, x.Var)
					}
				}
				return true
			})
		}
	}
	return fixed
}

// nodeWrites returns the local an assignment node writes as a whole, or nil.
func nodeWrites(n *Node) *Var {
	if n.Op == OpAssign && n.LHS != nil && n.LHS.Index == nil && n.LHS.Ptr == nil {
		return n.LHS.Var
	}
	return nil
}

// constantExpr reports whether e reads no variable, memory, channel or draw:
// its value depends on the thread's tid at most.
func constantExpr(e *Expr) bool {
	if e == nil {
		return false
	}
	return !Any(e, func(x *Expr) bool {
		switch x.Op {
		case EVar, EIndex, EDeref, ELen, ENondet, ESelf, EAddr, EPtrAdd, EPtrDiff:
			return true
		}
		return false
	})
}
