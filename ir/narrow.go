package ir

// NarrowNondets narrows the range of a nondeterministic value that a thread
// stores in one of its own locals and then at once assumes to lie in an
// interval: in C,
//
//	tmp = __VERIFIER_nondet_uint();
//	assume_abort_if_not(tmp < SIZE);
//
// draws from [0, SIZE-1] instead of all 2^32 values, so that the explicit
// engine enumerates it (it refuses a range wider than its --max-nondet) and
// the symbolic engine gets a smaller formula. It reports whether it changed
// anything.
//
// Why the narrowing keeps every behaviour that matters: a value outside the
// interval makes the assumption fail, which stops the thread for good (a
// false assume, or abort(), which C lowers to one), with nothing between the
// draw and the assumption: the local is the thread's own, so no other thread
// saw the value. Such an execution is the thread stopping at the
// assumption; every other thread's steps after that point are also steps of an
// execution where the thread drew a value inside the interval and has not
// been scheduled since. So no violation, race or deadlock disappears — a stop
// by an assumption is never a deadlock — provided the interval holds a value
// of the range at all; an empty one is left alone.
//
// The assumption is an OpAssume, or a branch one of whose sides is a false
// assume (C's if (!(c)) abort();), right after the assignment; its condition
// is a conjunction of comparisons of the local with constants. Ranges of 64
// bits (a long, a pointer) are left alone: their comparisons may be unsigned.
func (p *Program) NarrowNondets() bool {
	changed := false
	for _, t := range p.Templates {
		local := map[*Var]bool{}
		for _, v := range t.Locals {
			local[v] = true
		}
		for _, n := range t.Nodes {
			if n.Op != OpAssign || n.X == nil || n.X.Op != ENondet || n.X.Unbounded || n.X.Lo > n.X.Hi {
				continue
			}
			if !scalarLocal(n.LHS) || !local[n.LHS.Var] {
				continue
			}
			holds := map[*Var]bool{n.LHS.Var: true}
			cond := assumedAfter(t, n.Next, local, holds)
			if cond == nil {
				continue
			}
			r, ok := assumedRange(cond, holds, Interval{n.X.Lo, n.X.Hi})
			if ok && r.Lo <= r.Hi && r != (Interval{n.X.Lo, n.X.Hi}) {
				n.X.Lo, n.X.Hi = r.Lo, r.Hi
				changed = true
			}
		}
	}
	return changed
}

// assumedAfter returns the condition that the code from node i on assumes
// at once, or nil: an OpAssume, or a branch one of whose sides stops the
// thread (a false assume), reached through nops and copies of the drawn value into
// further locals of the thread's own (a C call's temporary into the variable),
// which it adds to holds.
func assumedAfter(t *Template, i int, local, holds map[*Var]bool) *Expr {
	for range 16 {
		if i < 0 || i >= len(t.Nodes) {
			return nil
		}
		n := t.Nodes[i]
		switch n.Op {
		case OpNop:
		case OpAssign:
			if !scalarLocal(n.LHS) || !local[n.LHS.Var] || n.X == nil || n.X.Op != EVar || n.X.X != nil ||
				!holds[n.X.Var] || n.X.Type != n.LHS.Var.Type {
				return nil
			}
			holds[n.LHS.Var] = true
		case OpAssume:
			return n.X
		case OpBranch:
			switch {
			case stops(t, n.Else):
				return n.X
			case stops(t, n.Next) && n.X.Op == ENot:
				return n.X.X // if (!(c)) abort();
			}
			return nil
		default:
			return nil
		}
		i = n.Next
	}
	return nil
}

// stops reports whether node i is a false assume: the thread stops there.
func stops(t *Template, i int) bool {
	if i < 0 || i >= len(t.Nodes) {
		return false
	}
	n := t.Nodes[i]
	return n.Op == OpAssume && n.X != nil && n.X.Op == EConst && n.X.Val == 0
}

// assumedRange narrows r, the values the variables in holds hold (one value),
// to those for which cond may be true, reading cond as a conjunction of
// comparisons of them with constants; ok is false when cond is not of that
// shape. An empty result has Lo > Hi.
func assumedRange(cond *Expr, holds map[*Var]bool, r Interval) (Interval, bool) {
	switch cond.Op {
	case ELAnd, EAnd:
		if cond.Op == EAnd && !boolean(cond.X) {
			return r, false
		}
		r, ok := assumedRange(cond.X, holds, r)
		if !ok {
			return r, false
		}
		return assumedRange(cond.Y, holds, r)
	case EConv:
		if cond.X != nil && boolean(cond.X) {
			return assumedRange(cond.X, holds, r)
		}
		return r, false
	case ENe:
		// c != 0, where c is a comparison: C's truth test of one.
		if cond.Y != nil && cond.Y.Op == EConst && cond.Y.Val == 0 && boolean(cond.X) {
			return assumedRange(cond.X, holds, r)
		}
		return r, false
	case ELt, ELe, EGt, EGe, EEq:
	default:
		return r, false
	}
	op, x, y := cond.Op, cond.X, cond.Y
	if x == nil || y == nil {
		return r, false
	}
	unsigned := !x.Type.Signed() // as the comparison is evaluated
	if isVar(y, holds) && x.Op == EConst {
		// c < v is v > c, and so on.
		x, y = y, x
		op = map[ExprOp]ExprOp{ELt: EGt, ELe: EGe, EGt: ELt, EGe: ELe, EEq: EEq}[op]
	}
	if !isVar(x, holds) || y.Op != EConst {
		return r, false
	}
	c := y.Val
	if unsigned && (c < 0 || r.Lo < 0) {
		return r, false // compared as unsigned 64-bit values
	}
	empty := Interval{1, 0}
	switch op {
	case ELt:
		if c == minInt64 {
			return empty, true
		}
		r.Hi = min(r.Hi, c-1)
	case ELe:
		r.Hi = min(r.Hi, c)
	case EGt:
		if c == maxInt64 {
			return empty, true
		}
		r.Lo = max(r.Lo, c+1)
	case EGe:
		r.Lo = max(r.Lo, c)
	case EEq:
		r = Interval{max(r.Lo, c), min(r.Hi, c)}
	}
	return r, true
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

// isVar reports whether e reads one of the scalar variables in holds, as its
// own type or converted to a type that holds every value of it (C's
// promotion of a char to int): the value compared is the variable's.
func isVar(e *Expr, holds map[*Var]bool) bool {
	if e != nil && e.Op == EConv && e.X != nil && e.X.Op == EVar {
		lo, hi := e.Type.Range(64)
		vlo, vhi := e.X.Type.Range(64)
		if !e.Type.Integer() || !e.X.Type.Integer() || e.Type == U64 || e.X.Type == U64 || lo > vlo || hi < vhi {
			return false
		}
		e = e.X
	}
	return e != nil && e.Op == EVar && holds[e.Var] && e.X == nil && e.Type == e.Var.Type
}

// boolean reports whether e is a comparison or a conjunction of them: a
// value 0 or 1.
func boolean(e *Expr) bool {
	switch e.Op {
	case ELt, ELe, EGt, EGe, EEq, ENe, ELAnd, ELOr, ENot:
		return true
	}
	return false
}
