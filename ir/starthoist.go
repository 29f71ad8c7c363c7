package ir

// A created thread's start, folded into its first lock.
//
// A thread created at run time begins with OpStart, which waits for its
// pthread_create. When the code after the start up to the first operation that
// may block is local (cfront folds a start with a following step that cannot
// block), the start is a step of its own: it reads only its slot's start cells,
// which its creation set for good, and writes only its own locals, so once
// enabled it commutes with every other thread's step. A search without
// reduction still pays for every interleaving of the starts: dining
// philosophers in C, whose first operation is a lock, had four times the
// states of the .kb form, where threads exist from the beginning.
//
// HoistStarts makes the start and its local code part of the lock's step
// instead: the slot's entry transition becomes the lock, then the start, then
// the local code, then what followed the lock. This is the same sequence of
// operations with the start and the local code moved from before the lock to
// right after it, which changes nothing another thread can see when
//
//   - the lock's operand (its mutex's address or index) reads no variable: it
//     names the same mutex before and after the local code (after
//     SpecializePrefix a philosopher's fork is a constant of its slot);
//   - the local code is straight assignments to scalar locals and branches,
//     all of whose expressions read no variable and evaluate without failure
//     (so moving it later loses no violation: it has none), and no other code
//     jumps into it; the start itself stores at most into a scalar local.
//
// The thread is then Dormant at its entry until its start flag is set, whatever
// the entry's operation (Program.Status, the encoding's guard, Probe's guard of
// a thread that cannot move), and once started waits for the lock as the lock
// did. Every execution of the original maps to one of the new program: the
// start step moves forward, past steps it commutes with, to right before the
// lock; a state in which the thread has started but not locked has the same
// shared cells as the state before its start, and every thread's status the
// same (the start is enabled in one and Dormant in the other only before the
// creation, which both take). Conversely every new execution is an original one
// with the start run right before the lock. Deadlocks are the same (a thread
// blocked on the lock is blocked in both forms). Executions get one step
// shorter per started thread, as a .kb thread, which has no start step at all.
// Not under --no-fold.

// HoistStarts folds the start of each created thread whose code qualifies
// (see above) into its first lock, and skips an entry step that does nothing
// (skipEmptyEntry). It reports whether it changed any template;
// the caller then runs Finish again. p must be finished.
func (p *Program) HoistStarts() bool {
	if p.NoFold {
		return false
	}
	changed := false
	seen := map[*Template]bool{}
	for _, th := range p.Threads {
		if t := th.Template; !seen[t] {
			seen[t] = true
			if skipEmptyEntry(t) {
				changed = true
			}
			if p.hoistStart(th) {
				changed = true
			}
		}
	}
	return changed
}

// skipEmptyEntry moves a template's entry past a first step that does
// nothing: C's main usually begins with declarations without initializers,
// which lower to OpNop, a step of its own. (SpecializePrefix skips such steps
// of a main that creates threads; this covers the other programs and
// threads.) When the entry's
// transition is only OpNop nodes, leads to one cut point and nothing jumps
// back into it, the thread starts at that cut point instead: the step read,
// wrote, drew and waited for nothing and could not fail, so every state it
// led to is the state it left with the thread one location further. It
// reports whether it moved the entry.
func skipEmptyEntry(t *Template) bool {
	preds := make([]int, len(t.Nodes))
	for _, n := range t.Nodes {
		for _, m := range successors(n) {
			if m != Exit {
				preds[m]++
			}
		}
	}
	i := t.Entry
	for {
		n := t.Nodes[i]
		if n.Op != OpNop || n.Atomic || preds[i] > 0 || n.Next == Exit {
			return false
		}
		if t.Nodes[n.Next].Cut {
			break
		}
		i = n.Next
	}
	next := t.Nodes[i].Next
	old := *t.Nodes[t.Entry]
	old.Cut = false // no longer a location: nothing reaches it
	t.Nodes[t.Entry] = &old
	t.Entry = next
	return true
}

// hoistStart folds thread th's start into its first lock when it may (see
// above).
func (p *Program) hoistStart(th *Thread) bool {
	t := th.Template
	if t.Start == nil {
		return false
	}
	s := t.Nodes[t.Entry]
	if s.Op != OpStart || s.Atomic || s.LHS != nil && !scalarLocal(s.LHS) {
		return false
	}
	preds := make([][]int, len(t.Nodes))
	for i, n := range t.Nodes {
		for _, m := range successors(n) {
			if m != Exit {
				preds[m] = append(preds[m], i)
			}
		}
	}
	if len(preds[t.Entry]) > 0 {
		return false
	}
	// The start's transition: the nodes after the start up to the next cut
	// point, which must be one node, the lock.
	in := map[int]bool{t.Entry: true}
	var local []int
	x := -1
	work := []int{t.Entry}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		for _, m := range successors(t.Nodes[i]) {
			switch {
			case m == Exit:
				return false
			case t.Nodes[m].Cut:
				if x >= 0 && x != m {
					return false
				}
				x = m
			case !in[m]:
				in[m] = true
				local = append(local, m)
				work = append(work, m)
			}
		}
	}
	if x < 0 {
		return false
	}
	lock := t.Nodes[x]
	if lock.Op != OpLock || lock.Atomic {
		return false
	}
	for e := range lock.Exprs() {
		if !p.fixedValue(th, e) {
			return false
		}
	}
	for _, i := range local {
		n := t.Nodes[i]
		for _, q := range preds[i] {
			if !in[q] {
				return false // other code jumps into it
			}
		}
		if n.Atomic {
			return false
		}
		switch n.Op {
		case OpNop:
		case OpAssign:
			if !scalarLocal(n.LHS) || !p.fixedValue(th, n.X) {
				return false
			}
		case OpBranch:
			if !p.fixedValue(th, n.X) {
				return false
			}
		default:
			return false
		}
	}
	// Rewrite: the entry becomes the lock, followed by the start, the local
	// code, and what followed the lock.
	redirect := func(e int) int {
		if e == x {
			return lock.Next
		}
		return e
	}
	start := *s
	start.Cut = false
	start.Next = redirect(start.Next)
	for _, i := range local {
		c := *t.Nodes[i]
		c.Next = redirect(c.Next)
		if c.Op == OpBranch {
			c.Else = redirect(c.Else)
		}
		t.Nodes[i] = &c
	}
	entry := *lock
	entry.Cut = true
	entry.Next = len(t.Nodes)
	t.Nodes = append(t.Nodes, &start)
	t.Nodes[t.Entry] = &entry
	reached := false
	for _, q := range preds[x] {
		if !in[q] {
			reached = true
		}
	}
	if !reached {
		// Nothing else leads to the old lock: a node no transition reaches.
		t.Nodes[x] = &Node{Op: OpNop, Next: lock.Next, Else: Exit, Pos: lock.Pos, Text: lock.Text}
	}
	return true
}

// successors are the nodes n may continue at (Exit included).
func successors(n *Node) []int {
	if n.Op == OpBranch {
		return []int{n.Next, n.Else}
	}
	return []int{n.Next}
}

// fixedValue reports whether e reads no variable and no nondeterministic
// value (it may name the thread and addresses), so that it has one value in
// every state, and evaluates without failure. nil qualifies.
func (p *Program) fixedValue(th *Thread, e *Expr) bool {
	if e == nil {
		return true
	}
	if Any(e, func(x *Expr) bool {
		switch x.Op {
		case EVar, EIndex, ENondet, EDeref, ELen:
			return true
		}
		return false
	}) {
		return false
	}
	m := p.newMachine(p.Initial(), th.ID, nil, nil)
	m.eval(e)
	return !m.failed
}
