package ir

// Dead locals. A step that leaves a thread at a control location clears (sets
// to zero) every local the thread can no longer read before writing it, and a
// thread's last step clears its whole frame. Two states that differ only in
// such cells have the same futures: every path from the location either
// overwrites the cell or never reads it, so no guard, value or violation ever
// depends on it (the classic dead-variable reduction of model checkers:
// Bozga, Fernandez and Ghirvu, "State space reduction based on live
// variables analysis"). A stateful search then merges them: without it a
// temporary that once held a shared value (C's __atomic_fetch_add keeps the
// old value in one, a reader keeps what it read) records the order in which
// threads ran for ever, and every order is a state of its own.
//
// Locals live in a thread's frame only (a local whose address is taken is a
// shared object), so only the thread's own nodes read them: through the
// expressions of Node.Exprs, and a cas through its left-hand side.

// clearDead sets the cells of the locals dead at location loc of thread th
// to zero.
func (p *Program) clearDead(s State, th *Thread, loc int) {
	t := th.Template
	frame := s[th.Base+1 : th.Base+1+t.FrameSize]
	if loc >= len(t.Transitions) {
		clear(frame)
		return
	}
	for _, r := range t.dead[loc] {
		// Most ranges are a scalar or two: a loop, not a call to clear.
		for i := range frame[r.off : r.off+r.n] {
			frame[r.off+i] = 0
		}
	}
}

// cellRange is n frame cells from offset off.
type cellRange struct{ off, n int }

// deadLocals computes, for each control location of t, the locals no path
// from it reads before writing them (t.dead). A local counts as written only
// by an assignment to the whole of it (a scalar); an element written leaves
// the array live.
func (p *Program) deadLocals(t *Template) {
	nv := len(t.Locals)
	t.dead = make([][]cellRange, len(t.Transitions))
	if nv == 0 {
		return
	}
	index := make(map[*Var]int, nv)
	for i, v := range t.Locals {
		index[v] = i
	}
	words := (nv + 63) / 64
	type set []uint64
	newSet := func() set { return make(set, words) }
	use := make([]set, len(t.Nodes))
	def := make([]set, len(t.Nodes))
	for i, n := range t.Nodes {
		use[i], def[i] = newSet(), newSet()
		mark := func(v *Var) {
			if j, ok := index[v]; ok && !v.Shared {
				use[i][j/64] |= 1 << (j % 64)
			}
		}
		for e := range n.Exprs() {
			Inspect(e, func(x *Expr) bool {
				if x.Op == EVar || x.Op == EIndex {
					mark(x.Var)
				}
				return true
			})
		}
		if n.Op == OpCas && n.LHS != nil && n.LHS.Var != nil {
			mark(n.LHS.Var) // a cas compares its target first
		}
		if lv := n.LHS; n.Op == OpAssign && lv.Var != nil && !lv.Var.Shared && lv.Index == nil && lv.Var.Len == 0 {
			if j, ok := index[lv.Var]; ok {
				def[i][j/64] |= 1 << (j % 64)
			}
		}
	}
	// live[i]: the locals some path from node i reads before writing them.
	// Backward data flow to the least fixed point: live[i] = use[i] |
	// (live[Next] | live[Else]) &^ def[i].
	live := make([]set, len(t.Nodes))
	for i := range live {
		live[i] = newSet()
	}
	for changed := true; changed; {
		changed = false
		for i := len(t.Nodes) - 1; i >= 0; i-- {
			n := t.Nodes[i]
			for w := range words {
				var out uint64
				if n.Next != Exit {
					out |= live[n.Next][w]
				}
				if n.Op == OpBranch && n.Else != Exit {
					out |= live[n.Else][w]
				}
				in := use[i][w] | out&^def[i][w]
				if in != live[i][w] {
					live[i][w] = in
					changed = true
				}
			}
		}
	}
	for l, tr := range t.Transitions {
		in := live[tr.Entry]
		var rs []cellRange
		for j, v := range t.Locals {
			if in[j/64]&(1<<(j%64)) == 0 {
				rs = append(rs, cellRange{v.Offset, v.Cells()})
			}
		}
		t.dead[l] = rs
	}
}
