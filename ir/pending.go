package ir

// Pending returns the accesses of the first operation of thread t's next transition
// in s without executing it: for a blocked thread, what its guard reads (an await's or
// assume's condition, the joined threads' status) or the lock it waits for; for an
// enabled one, the same for its guard, or for an operation that does not block, the
// accesses of executing it from s with every nondeterministic draw at its low end
// (on a scratch copy). Dynamic partial-order reduction uses it to find races with
// transitions that have not happened yet. It appends to buf and returns nil for a
// terminated thread.
func (p *Program) Pending(s State, t int, scratch State, buf []Access) []Access {
	tr := p.Transition(s, t)
	if tr == nil {
		return nil
	}
	n := tr.EntryNode()
	ev := Event{Accesses: buf[:0]}
	m := p.newMachine(s, t, nil, &ev)
	switch n.Op {
	case OpAwait, OpAssume:
		m.eval(n.X)
		return ev.Accesses
	case OpLock:
		i := m.lockIndex(n)
		if !m.failed {
			ev.Accesses = append(ev.Accesses, Access{p.LockLocation(i), Write, int64(t + 1)})
		}
		return ev.Accesses
	case OpJoin:
		lo, hi := m.joinRange(n)
		for u := lo; u < hi; u++ {
			ev.Accesses = append(ev.Accesses, Access{p.ThreadLocation(u), Read, 0})
		}
		return ev.Accesses
	}
	copy(scratch, s)
	p.Step(scratch, t, nil, &ev)
	return ev.Accesses
}
