package lang

import (
	"kbmc/ir"
	"kbmc/lang/syntax"
)

// Invariants (docs/language.md, "Invariants"): "invariant NAME: condition;" at
// top level. The condition reads shared variables, every process's memory
// (node[1].leader, node.x for a process without a count, node[i].votes[j]),
// channel lengths and constants, with forall and exists over constant ranges.
// The checker types it once, with each quantified variable an int that is no
// constant; the lowerer expands the quantifiers, so that each process index
// becomes a constant and names one instance's variable, and ir sees a plain
// expression over shared cells (ir.Invariant).

// maxQuantRange bounds the values one quantifier ranges over: each is a copy
// of its body (the lowering's size budget bounds the product of nested ones).
const maxQuantRange = 1 << 16

// quantScope is the chain of quantifiers whose variables are visible where an
// invariant's checker is.
type quantScope struct {
	parent *quantScope
	q      *syntax.QuantExpr
}

func (s *quantScope) lookup(name string) *syntax.QuantExpr {
	for ; s != nil; s = s.parent {
		if s.q.Var.Name == name {
			return s.q
		}
	}
	return nil
}

// memberRef is what a process member access names: a variable of process
// proc, which instance the lowering decides.
type memberRef struct {
	proc *processObj
	v    *varObj
}

// collectInvariant records an invariant declaration; names are unique among
// invariants (their own namespace: a property id is invariant.NAME).
func (c *checker) collectInvariant(d *syntax.InvariantDecl) {
	for _, prev := range c.invariants {
		if prev.Name.Name == d.Name.Name {
			c.errorf(d.Name.Pos(), "invariant %s redeclared (previous declaration at %s)", d.Name.Name, prev.Name.Pos())
			return
		}
	}
	c.invariants = append(c.invariants, d)
}

// checkInvariants checks every invariant's condition: a bool expression over
// what an invariant may read.
func (c *checker) checkInvariants() {
	for _, d := range c.invariants {
		c.inInvariant = true
		op := c.expr(nil, d.X)
		c.inInvariant = false
		if op.typ != invalid && op.typ != boolType {
			c.errorf(d.X.Pos(), "non-bool condition in invariant %s: %s", d.Name.Name, describe(d.X, op.typ))
		}
	}
}

// invariantOnly reports an expression that only an invariant may hold (a
// process member access, a quantifier) elsewhere.
func (c *checker) invariantOnly(x syntax.Expr) operand {
	switch x.(type) {
	case *syntax.MemberExpr:
		c.errorf(x.Pos(), "%s: another process's memory can be read only in an invariant "+
			"(a process talks to others through channels; inside it, name its memory without the process)", exprString(x))
	default:
		c.errorf(x.Pos(), "forall and exists are allowed only in an invariant")
	}
	return operand{}
}

// notInInvariant reports something an invariant cannot contain: it belongs
// to no thread and changes nothing.
func (c *checker) notInInvariant(x syntax.Expr, what string) operand {
	c.errorf(x.Pos(), "%s in an invariant: an invariant reads shared variables, process memory "+
		"(node[i].x), channel lengths and constants only", what)
	return operand{}
}

// invariantName checks a name an invariant uses: a quantified variable, or a
// top-level declaration. It reports the other names with what they are.
func (c *checker) invariantName(id *syntax.Ident) (quant bool, ok bool) {
	if q := c.quants.lookup(id.Name); q != nil {
		c.quantOf[id] = q
		return true, true
	}
	if _, ok := c.globals[id.Name]; ok {
		return false, true
	}
	for _, p := range c.procs {
		if o, ok := p.names[id.Name]; ok {
			if v, isVar := o.(*varObj); isVar {
				c.errorf(id.Pos(), "undefined: %s (a variable of process %s: an invariant reads it as %s)",
					id.Name, p.id.Name, memberExample(p, v))
			} else {
				c.errorf(id.Pos(), "undefined: %s (%s %s belongs to process %s: an invariant reads only variables)",
					id.Name, kindOf(o), id.Name, p.id.Name)
			}
			return false, false
		}
	}
	for def, o := range c.defs {
		if v, isVar := o.(*varObj); isVar && !v.shared && def.Name == id.Name {
			c.errorf(id.Pos(), "undefined: %s (%s is a %s: an invariant reads shared variables and process memory, no thread's locals)",
				id.Name, id.Name, kindOf(v))
			return false, false
		}
	}
	c.errorf(id.Pos(), "undefined: %s", id.Name)
	return false, false
}

// memberExample shows how an invariant names variable v of process p.
func memberExample(p *processObj, v *varObj) string {
	s := p.id.Name
	if p.count != 0 {
		s += "[i]"
	}
	s += "." + v.id.Name
	if v.size > 0 {
		s += "[j]"
	}
	return s
}

// invariantIdent checks a name in an invariant.
func (c *checker) invariantIdent(e *syntax.Ident) operand {
	quant, ok := c.invariantName(e)
	switch {
	case !ok:
		return operand{}
	case quant:
		return operand{typ: intType}
	}
	return c.ident(nil, e)
}

// invariantIndex checks an array element in an invariant: a shared array's,
// with a constant index in range.
func (c *checker) invariantIndex(e *syntax.IndexExpr) operand {
	quant, ok := c.invariantName(e.X)
	if !ok {
		c.expr(nil, e.Index)
		return operand{}
	}
	if quant {
		c.errorf(e.Lbrack, "cannot index %s (a quantified variable, not an array)", e.X.Name)
		c.expr(nil, e.Index)
		return operand{}
	}
	op := c.indexExpr(nil, e)
	if v, isVar := c.uses[e.X].(*varObj); isVar && op.typ != invalid {
		c.constIndex(e.Index, v.size, v.id.Name)
	}
	return op
}

// constIndex reports a constant index outside 0..size-1 (a quantified
// variable's value is known only when the lowering expands it, which checks it
// then).
func (c *checker) constIndex(x syntax.Expr, size int, name string) {
	if op, ok := c.types[x]; ok && op.isConst && (op.val < 0 || op.val >= int64(size)) {
		c.errorf(x.Pos(), "index %d out of range for %s (0..%d)", op.val, name, size-1)
	}
}

// member checks a process member access: Proc[Index].Member[MIndex].
func (c *checker) member(e *syntax.MemberExpr) operand {
	bad := operand{}
	if e.Index != nil {
		if op := c.expr(nil, e.Index); op.typ != invalid && op.typ != intType {
			c.errorf(e.Index.Pos(), "invalid process index %s: must be int", describe(e.Index, op.typ))
		}
	}
	if e.MIndex != nil {
		if op := c.expr(nil, e.MIndex); op.typ != invalid && op.typ != intType {
			c.errorf(e.MIndex.Pos(), "invalid array index %s: must be int", describe(e.MIndex, op.typ))
		}
	}
	o, found := c.globals[e.Proc.Name]
	p, isProc := o.(*processObj)
	switch {
	case c.quants.lookup(e.Proc.Name) != nil || found && !isProc:
		c.errorf(e.Dot, "%s is not a process: only a process's memory is read as NAME.variable", e.Proc.Name)
		return bad
	case !found:
		c.errorf(e.Proc.Pos(), "undefined: %s (no process of that name)", e.Proc.Name)
		return bad
	case p.count < 0:
		return bad
	case p.count > 0 && e.Index == nil:
		c.errorf(e.Dot, "process %s has %d instances: name one, as %s[i].%s", p.id.Name, p.count, p.id.Name, e.Member.Name)
		return bad
	case p.count == 0 && e.Index != nil:
		c.errorf(e.Lbrack, "cannot index process %s (declared without a count): write %s.%s", p.id.Name, p.id.Name, e.Member.Name)
		return bad
	}
	c.uses[e.Proc] = p
	if e.Index != nil {
		c.constIndex(e.Index, p.count, "process "+p.id.Name)
	}
	m, ok := p.names[e.Member.Name]
	if !ok {
		c.errorf(e.Member.Pos(), "process %s has no variable %s", p.id.Name, e.Member.Name)
		return bad
	}
	v, isVar := m.(*varObj)
	if !isVar {
		if _, isThread := m.(*threadObj); isThread {
			c.errorf(e.Member.Pos(), "%s is a thread of process %s: an invariant reads the process's memory, no thread's locals",
				e.Member.Name, p.id.Name)
		} else {
			c.errorf(e.Member.Pos(), "%s is a %s of process %s: an invariant reads only variables", e.Member.Name, kindOf(m), p.id.Name)
		}
		return bad
	}
	c.uses[e.Member] = v
	switch {
	case v.size < 0:
		return bad
	case v.size > 0 && e.MIndex == nil:
		c.errorf(e.Member.Pos(), "array used without index: %s", exprString(e))
		return bad
	case v.size == 0 && e.MIndex != nil:
		c.errorf(e.MLbrack, "cannot index %s.%s (not an array)", p.id.Name, v.id.Name)
		return bad
	}
	if e.MIndex != nil {
		c.constIndex(e.MIndex, v.size, v.id.Name)
	}
	c.members[e] = memberRef{p, v}
	return operand{typ: v.typ}
}

// quant checks forall/exists: constant int bounds, a fresh variable, a bool body.
func (c *checker) quant(e *syntax.QuantExpr) operand {
	bad := operand{}
	word := "forall"
	if e.Exists {
		word = "exists"
	}
	if c.quants.lookup(e.Var.Name) != nil {
		c.errorf(e.Var.Pos(), "%s redeclared: a quantified variable of an enclosing forall or exists", e.Var.Name)
		return bad
	}
	lo, okLo := c.constInt(nil, e.Lo, "lower bound of "+word)
	hi, okHi := c.constInt(nil, e.Hi, "upper bound of "+word)
	if okLo && okHi && hi-lo >= maxQuantRange {
		c.errorf(e.Lo.Pos(), "%s ranges over %d values (limit %d)", word, hi-lo+1, maxQuantRange)
		okLo = false
	}
	c.quants = &quantScope{parent: c.quants, q: e}
	body := c.expr(nil, e.Body)
	c.quants = c.quants.parent
	if body.typ != invalid && body.typ != boolType {
		c.errorf(e.Body.Pos(), "non-bool condition in %s: %s", word, describe(e.Body, body.typ))
		return bad
	}
	if !okLo || !okHi || body.typ == invalid {
		return bad
	}
	return operand{typ: boolType}
}

// lowerInvariants lowers every invariant, expanding its quantifiers.
func (l *lowerer) lowerInvariants() {
	for _, d := range l.c.invariants {
		x := l.invariantExpr(d.X, map[*syntax.QuantExpr]int64{})
		if l.tooBig {
			return
		}
		l.prog.Invariants = append(l.prog.Invariants, &ir.Invariant{Name: d.Name.Name, Expr: x,
			Pos: irPos(d.Name.Pos()), Text: l.file.Text(d.X.Pos(), d.X.End())})
	}
}

// invMk allocates an expression node of an invariant, charging the budget.
func (l *lowerer) invMk(e ir.Expr, pos syntax.Pos) *ir.Expr {
	l.spend(1, pos)
	e.Pos = irPos(pos)
	return &e
}

// invariantExpr lowers x with the quantified variables' values env, folding
// what they make constant.
func (l *lowerer) invariantExpr(x syntax.Expr, env map[*syntax.QuantExpr]int64) *ir.Expr {
	c := l.c
	op := c.types[x]
	if l.tooBig {
		return &ir.Expr{Op: ir.EConst, Type: op.typ.ir()}
	}
	if op.isConst {
		return l.invMk(ir.Expr{Op: ir.EConst, Type: op.typ.ir(), Val: op.val}, opPos(x))
	}
	t := op.typ.ir()
	konst := func(v int64, pos syntax.Pos) *ir.Expr {
		return l.invMk(ir.Expr{Op: ir.EConst, Type: t, Val: v}, pos)
	}
	switch e := x.(type) {
	case *syntax.ParenExpr:
		return l.invariantExpr(e.X, env)
	case *syntax.Ident:
		if q := c.quantOf[e]; q != nil {
			return konst(env[q], e.Pos())
		}
		if o, ok := c.uses[e].(*varObj); ok {
			v := l.shared[instance[*varObj]{o, 0}]
			return l.invMk(ir.Expr{Op: ir.EVar, Type: v.Type, Var: v}, e.Pos())
		}
	case *syntax.IndexExpr:
		if o, ok := c.uses[e.X].(*varObj); ok {
			v := l.shared[instance[*varObj]{o, 0}]
			return l.invMk(ir.Expr{Op: ir.EIndex, Type: v.Type, Var: v, X: l.invariantIndex(e.Index, v.Len, v.Name, env)}, e.Pos())
		}
	case *syntax.MemberExpr:
		ref, ok := c.members[e]
		if !ok {
			break
		}
		pid := 0
		if e.Index != nil {
			ix := l.invariantExpr(e.Index, env)
			if ix.Op != ir.EConst {
				l.errorf(e.Index.Pos(), "process index %s is not a constant: name an instance by a constant "+
					"or a quantified variable", exprString(e.Index))
				break
			}
			if ix.Val < 0 || ix.Val >= int64(ref.proc.count) {
				l.errorf(e.Index.Pos(), "process index %d out of range for %s (0..%d)", ix.Val, ref.proc.id.Name, ref.proc.count-1)
				break
			}
			pid = int(ix.Val)
		}
		v := l.shared[instance[*varObj]{ref.v, pid}]
		if e.MIndex == nil {
			return l.invMk(ir.Expr{Op: ir.EVar, Type: v.Type, Var: v}, e.Pos())
		}
		return l.invMk(ir.Expr{Op: ir.EIndex, Type: v.Type, Var: v, X: l.invariantIndex(e.MIndex, v.Len, v.Name, env)}, e.Pos())
	case *syntax.LenExpr:
		switch ce := syntax.Unparen(e.Args[0]).(type) {
		case *syntax.Ident:
			if ch, ok := c.uses[ce].(*chanObj); ok {
				return l.invMk(ir.Expr{Op: ir.ELen, Type: ir.Int, Chan: l.chans[ch]}, e.Pos())
			}
		case *syntax.IndexExpr:
			if ch, ok := c.uses[ce.X].(*chanObj); ok {
				ix := l.invariantIndex(ce.Index, ch.size, ch.id.Name, env)
				return l.invMk(ir.Expr{Op: ir.ELen, Type: ir.Int, Chan: l.chans[ch], X: ix}, e.Pos())
			}
		}
	case *syntax.UnaryExpr:
		y := l.invariantExpr(e.X, env)
		if y.Op == ir.EConst {
			return konst(c.arith.unary(e.Op, y.Val), e.OpPos)
		}
		return l.invMk(ir.Expr{Op: unaryOp(e.Op), Type: t, X: y}, e.OpPos)
	case *syntax.BinaryExpr:
		y, z := l.invariantExpr(e.X, env), l.invariantExpr(e.Y, env)
		if y.Op == ir.EConst && z.Op == ir.EConst {
			v, err := c.arith.binary(e.Op, y.Val, z.Val)
			if err != nil {
				l.errorf(e.OpPos, "%s: %v", exprString(e), err)
				break
			}
			return konst(v, e.OpPos)
		}
		if z.Op == ir.EConst {
			// A constant operand the expansion made: its error is the
			// invariant's, not a run's.
			if _, err := c.arith.binary(e.Op, 0, z.Val); err != nil {
				l.errorf(e.OpPos, "%s: %v", exprString(e), err)
				break
			}
		}
		return l.invMk(ir.Expr{Op: binaryOp(e.Op), Type: t, X: y, Y: z}, e.OpPos)
	case *syntax.CondExpr:
		cond := l.invariantExpr(e.Cond, env)
		if cond.Op == ir.EConst {
			if cond.Val != 0 {
				return l.invariantExpr(e.X, env)
			}
			return l.invariantExpr(e.Y, env)
		}
		return l.invMk(ir.Expr{Op: ir.ECond, Type: t, X: cond, Y: l.invariantExpr(e.X, env), Z: l.invariantExpr(e.Y, env)}, e.Question)
	case *syntax.QuantExpr:
		return l.quant(e, env)
	}
	if len(l.errs) == 0 {
		l.errorf(x.Pos(), "internal error: cannot lower %s in an invariant", exprString(x))
	}
	return &ir.Expr{Op: ir.EConst, Type: t}
}

// invariantIndex lowers an index of an array (or channel array) of size n
// and reports a constant one out of range.
func (l *lowerer) invariantIndex(x syntax.Expr, n int, name string, env map[*syntax.QuantExpr]int64) *ir.Expr {
	ix := l.invariantExpr(x, env)
	if ix.Op == ir.EConst && (ix.Val < 0 || ix.Val >= int64(n)) {
		l.errorf(x.Pos(), "index %d out of range for %s (0..%d)", ix.Val, name, n-1)
	}
	return ix
}

// quant expands forall (a conjunction) or exists (a disjunction) over its
// range, in order; an empty range is true for forall, false for exists.
func (l *lowerer) quant(e *syntax.QuantExpr, env map[*syntax.QuantExpr]int64) *ir.Expr {
	lo, hi := l.c.types[e.Lo].val, l.c.types[e.Hi].val
	op := ir.ELAnd
	if e.Exists {
		op = ir.ELOr
	}
	var out *ir.Expr
	for v := lo; v <= hi && !l.tooBig; v++ {
		env[e] = v
		body := l.invariantExpr(e.Body, env)
		if out == nil {
			out = body
			continue
		}
		out = l.invMk(ir.Expr{Op: op, Type: ir.Bool, X: out, Y: body}, e.Quant)
	}
	delete(env, e)
	if out == nil {
		return l.invMk(ir.Expr{Op: ir.EConst, Type: ir.Bool, Val: b2i(!e.Exists)}, e.Quant)
	}
	return out
}
