package ir

import "iter"

// Inspect traverses an expression depth-first, like go/ast.Inspect: it calls f(e)
// and, if f returns true, inspects e's operands X, Y and Z in order. e may be nil
// (then f is not called). It is the one walker over expressions; analyses that need
// every subexpression use it instead of recursing on their own.
func Inspect(e *Expr, f func(*Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	Inspect(e.X, f)
	Inspect(e.Y, f)
	Inspect(e.Z, f)
}

// Exprs yields every expression the node evaluates: its operands X and Y, the
// indices of its mutex, joined thread and channel (or the mutex's address and
// the joined thread's value), the fields of a message it sends, and the
// indices and pointers of its lvalues; for a select, its cases' too, with
// their When conditions.
func (n *Node) Exprs() iter.Seq[*Expr] {
	return func(yield func(*Expr) bool) {
		for _, c := range n.Cases { // their destinations are n's LValues
			if c.When != nil && !yield(c.When) {
				return
			}
			if c.CIndex != nil && !yield(c.CIndex) {
				return
			}
			for _, e := range c.Args {
				if !yield(e) {
					return
				}
			}
		}
		for _, e := range [...]*Expr{n.X, n.Y, n.MIndex, n.JIndex, n.CIndex, n.Addr, n.JThread} {
			if e != nil && !yield(e) {
				return
			}
		}
		for _, e := range n.Args {
			if !yield(e) {
				return
			}
		}
		for _, e := range n.JAlso {
			if !yield(e) {
				return
			}
		}
		for lv := range n.LValues() {
			if lv.Index != nil && !yield(lv.Index) || lv.Ptr != nil && !yield(lv.Ptr) {
				return
			}
		}
	}
}

// LValues yields every location the node assigns: an assignment's or cas's
// left-hand side, a cas's result, the destinations and ok flag of a recv
// (and of a select's recv cases), a select's chosen case.
func (n *Node) LValues() iter.Seq[*LValue] {
	return func(yield func(*LValue) bool) {
		for _, c := range n.Cases {
			for _, lv := range c.Dsts {
				if !yield(lv) {
					return
				}
			}
			if c.OK != nil && !yield(c.OK) {
				return
			}
		}
		for _, lv := range [...]*LValue{n.LHS, n.Result, n.OK} {
			if lv != nil && !yield(lv) {
				return
			}
		}
		for _, lv := range n.Dsts {
			if !yield(lv) {
				return
			}
		}
	}
}

// Guard is the expression that decides, with the state, whether the node's
// operation can proceed: an await's or assume's condition, the index (or
// address) of a lock's mutex, the index (or value) of a joined thread, the index
// of a channel, the size an allocation asks for. It is nil for operations that
// do not block, and for a lock, join, send or recv of a single mutex, every
// instance, or a single channel. A select has one guard per case: its cases'
// Guard, and their When conditions (CaseGuards). (A spawn, an allocation and a created thread's
// start also wait on cells no expression names: the pool's.)
func (n *Node) Guard() *Expr {
	switch n.Op {
	case OpAwait, OpAssume, OpAlloc:
		return n.X
	case OpLock:
		if n.Addr != nil {
			return n.Addr
		}
		return n.MIndex
	case OpJoin:
		if n.JThread != nil {
			return n.JThread
		}
		return n.JIndex
	case OpSend, OpRecv:
		return n.CIndex
	}
	return nil
}

// Any reports whether f holds for e or one of its subexpressions; e may be nil.
func Any(e *Expr, f func(*Expr) bool) bool {
	found := false
	Inspect(e, func(x *Expr) bool {
		found = found || f(x)
		return !found
	})
	return found
}

// CaseGuards yields what decides whether select n's cases can proceed, with
// the state: each case's When condition and its Guard (nil ones left out).
func (n *Node) CaseGuards() iter.Seq[*Expr] {
	return func(yield func(*Expr) bool) {
		for _, c := range n.Cases {
			for _, e := range [...]*Expr{c.When, c.Guard()} {
				if e != nil && !yield(e) {
					return
				}
			}
		}
	}
}
