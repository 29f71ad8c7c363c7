package ir

// A Check is a run-time check a node makes when it executes: the kind of
// violation Step reports if it fails, and the position Step reports it at.
type Check struct {
	Kind ViolationKind
	Pos  Pos
}

// Checks lists the checks node n makes, in the order they appear in the node,
// with the kinds and positions Program.Step reports (exec, chanIndex,
// lockIndex, joinRange, slot, eval, and ir/memory.go's cellAt, addr, ptrAdd,
// ptrDiff, joinedBy): an assertion (or a C program's reach_error, or a Go
// panic), an index out of bounds (arrays, mutex arrays, thread arrays, channel
// arrays — len(c[i]) included), division by zero, a shift amount, relock and
// bad unlock, C's invalid dereference, invalid free and bad join, and Go's
// panics: a send on a closable channel, a close, an unlock of any owner. A check of the same kind at
// the same position is listed once. Deadlocks are properties of states, not of
// nodes: they are not listed.
func (n *Node) Checks() []Check {
	var out []Check
	add := func(k ViolationKind, pos Pos) {
		for _, c := range out {
			if c.Kind == k && c.Pos == pos {
				return
			}
		}
		out = append(out, Check{k, pos})
	}
	switch n.Op {
	case OpAssert:
		k := n.Kind
		if k == NoViolation {
			k = Assertion
		}
		add(k, n.Pos)
	case OpLock:
		if !n.AnyOwner { // Go's Lock of a held mutex waits
			add(Relock, n.Pos)
		}
	case OpUnlock:
		if n.AnyOwner {
			add(Panic, n.Pos) // Go's unlock of an unlocked mutex
		} else {
			add(BadUnlock, n.Pos)
		}
	case OpFree:
		add(InvalidFree, n.Pos)
	case OpClose:
		add(Panic, n.Pos) // close of a closed channel
	case OpSend:
		if n.Chan.Closable {
			add(Panic, n.Pos) // send on a closed channel
		}
	}
	for _, c := range n.Cases {
		if c.Op == OpSend && c.Chan.Closable {
			add(Panic, c.Pos)
		}
	}
	switch n.Op {
	case OpLock, OpUnlock, OpTryLock:
		if n.Mutex == nil && n.Addr != nil {
			add(InvalidDeref, n.Pos) // cellAt of the mutex's address
		}
	case OpJoin:
		if n.JThread != nil || len(n.JAlso) > 0 {
			add(BadJoin, n.Pos)
		}
	}
	for _, ix := range [...]*Expr{n.MIndex, n.JIndex, n.CIndex} {
		if ix != nil {
			add(Bounds, ix.Pos)
		}
	}
	for _, c := range n.Cases { // a select's channels
		if c.CIndex != nil {
			add(Bounds, c.CIndex.Pos)
		}
	}
	for lv := range n.LValues() {
		switch {
		case lv.Ptr != nil:
			add(InvalidDeref, lv.Pos)
		case lv.Index != nil:
			add(Bounds, lv.Index.Pos)
		}
	}
	for e := range n.Exprs() {
		Inspect(e, func(x *Expr) bool {
			switch x.Op {
			case EIndex:
				add(Bounds, x.Pos)
			case ELen:
				if x.X != nil {
					add(Bounds, x.X.Pos)
				}
			case EDiv, ERem:
				add(DivisionByZero, x.Pos)
			case EShl, EShr:
				add(Shift, x.Pos)
			case EDeref, EPtrAdd, EPtrDiff:
				add(InvalidDeref, x.Pos)
			case EAddr:
				if x.X != nil {
					add(InvalidDeref, x.Pos)
				}
			}
			return true
		})
	}
	return out
}
