package cfront

import (
	"kbmc/ir"
)

// uninitDecl is a scalar local declared without a value, and the node (a
// placeholder) where its declaration executes.
type uninitDecl struct {
	v    *ir.Var
	node int
	name string
}

// uninit gives every scalar local that the thread may read before writing it
// any value of its type at its declaration, as C leaves it indeterminate;
// the others keep their placeholder, a no-op. Whether a read may come first is
// a data-flow analysis over the thread's code (the nodes): a local is surely
// written at a node when every path from its declaration there writes it.
// Arrays, structs and pointers are not tracked: they start zeroed (docs/c.md).
func (b *builder) uninit() {
	t := b.t
	if len(b.uninits) == 0 || len(t.Nodes) == 0 {
		return
	}
	bit := map[*ir.Var]int{}
	decl := map[int]int{} // placeholder node -> bit
	for i, u := range b.uninits {
		bit[u.v] = i
		decl[u.node] = i
	}
	n := len(b.uninits)
	words := (n + 63) / 64
	full := func() []uint64 {
		s := make([]uint64, words)
		for i := range s {
			s[i] = ^uint64(0)
		}
		return s
	}
	// in[i]: the locals surely written before node i (nil: not reached yet).
	in := make([][]uint64, len(t.Nodes))
	in[t.Entry] = full()
	work := []int{t.Entry}
	out := make([]uint64, words)
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		node := t.Nodes[i]
		copy(out, in[i])
		if d, ok := decl[i]; ok {
			out[d/64] &^= 1 << (d % 64)
		}
		for lv := range node.LValues() {
			if j, ok := bit[lv.Var]; ok && lv.Ptr == nil {
				out[j/64] |= 1 << (j % 64)
			}
		}
		succ := []int{node.Next}
		if node.Op == ir.OpBranch {
			succ = append(succ, node.Else)
		}
		for _, s := range succ {
			if s == ir.Exit {
				continue
			}
			if in[s] == nil {
				in[s] = append([]uint64(nil), out...)
				work = append(work, s)
				continue
			}
			changed := false
			for w := range in[s] {
				if m := in[s][w] & out[w]; m != in[s][w] {
					in[s][w], changed = m, true
				}
			}
			if changed {
				work = append(work, s)
			}
		}
	}
	maybe := make([]bool, n)
	for i, node := range t.Nodes {
		if in[i] == nil {
			continue
		}
		for e := range node.Exprs() {
			ir.Inspect(e, func(x *ir.Expr) bool {
				if x.Op == ir.EVar || x.Op == ir.EIndex {
					if j, ok := bit[x.Var]; ok && in[i][j/64]&(1<<(j%64)) == 0 {
						maybe[j] = true
					}
				}
				return true
			})
		}
	}
	for i, u := range b.uninits {
		if !maybe[i] {
			continue
		}
		p := t.Nodes[u.node]
		p.Op = ir.OpAssign
		p.LHS = &ir.LValue{Var: u.v, Pos: p.Pos}
		p.X = b.nondet(u.v.Type, "the uninitialized "+u.name, p.Pos)
	}
}
