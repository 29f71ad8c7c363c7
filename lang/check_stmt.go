package lang

import (
	"fmt"
	"strings"

	"kbmc/lang/syntax"
)

// body is the context of the statement being checked.
type body struct {
	fn     *funcObj   // the function, or nil in a thread body
	thread *threadObj // the thread, or nil in a function body
	scope  *scope
	loops  int // enclosing loops (of this body)
	atomic int // enclosing atomic blocks
}

func (b *body) push() { b.scope = &scope{parent: b.scope, names: map[string]*varObj{}} }

// proc is the process whose body b is part of, or nil.
func (b *body) proc() *processObj {
	switch {
	case b == nil:
		return nil
	case b.thread != nil:
		return b.thread.proc
	case b.fn != nil:
		return b.fn.proc
	}
	return nil
}
func (b *body) pop() { b.scope = b.scope.parent }

// block checks a statement list. guardOK says whether its first statement is the
// first statement of an atomic block (where await and assume are allowed).
func (c *checker) block(b *body, list []syntax.Stmt, guardOK bool) {
	for i, s := range list {
		c.stmt(b, s, guardOK && i == 0)
	}
}

// scoped checks s in a scope of its own (the body of an if, while or for).
func (c *checker) scoped(b *body, s syntax.Stmt) {
	b.push()
	c.stmt(b, s, false)
	b.pop()
}

func (c *checker) stmt(b *body, s syntax.Stmt, guardOK bool) {
	switch s := s.(type) {
	case *syntax.BadStmt, *syntax.EmptyStmt:
	case *syntax.BlockStmt:
		b.push()
		c.block(b, s.List, guardOK)
		b.pop()
	case *syntax.VarDecl:
		c.localDecl(b, s)
	case *syntax.AssignStmt:
		c.assign(b, s)
	case *syntax.IncDecStmt:
		t := c.lvalue(b, s.X)
		if t != invalid && t != intType {
			c.errorf(s.TokPos, "invalid operation: %s%s (%s is %s, not int)", exprString(s.X), s.Tok, exprString(s.X), t)
		}
	case *syntax.ExprStmt:
		c.exprStmt(b, s)
	case *syntax.IfStmt:
		c.cond(b, s.Cond, "if statement")
		c.scoped(b, s.Then)
		if s.Else != nil {
			c.scoped(b, s.Else)
		}
	case *syntax.WhileStmt:
		c.loopInAtomic(b, s.While)
		c.cond(b, s.Cond, "while loop")
		b.loops++
		c.scoped(b, s.Body)
		b.loops--
	case *syntax.ForStmt:
		c.loopInAtomic(b, s.For)
		b.push()
		if s.Init != nil {
			c.forClause(b, s.Init, "init")
		}
		if s.Cond != nil {
			c.cond(b, s.Cond, "for loop")
		}
		b.loops++
		if s.Post != nil {
			c.forClause(b, s.Post, "step")
		}
		c.scoped(b, s.Body)
		b.loops--
		b.pop()
	case *syntax.BranchStmt:
		if b.loops == 0 {
			c.errorf(s.TokPos, "%s outside loop", s.Tok)
		}
	case *syntax.ReturnStmt:
		c.returnStmt(b, s)
	case *syntax.AssertStmt:
		c.cond(b, s.Cond, "assert")
	case *syntax.GuardStmt:
		if b.atomic > 0 && !guardOK {
			c.errorf(s.TokPos, "%s must be the first statement of atomic", s.Tok)
		}
		c.cond(b, s.Cond, s.Tok.String())
		c.guards = append(c.guards, guardUse{s.Cond, s.Tok.String() + " condition"})
	case *syntax.LockStmt:
		if s.Tok == syntax.LOCK && b.atomic > 0 {
			c.errorf(s.TokPos, "lock inside atomic")
		}
		c.mutexOperand(b, s)
	case *syntax.JoinStmt:
		if b.atomic > 0 {
			c.errorf(s.Join, "join inside atomic")
		}
		c.joinOperand(b, s)
	case *syntax.YieldStmt:
		if b.atomic > 0 {
			c.errorf(s.Yield, "yield inside atomic")
		}
	case *syntax.ChanStmt:
		if b.atomic > 0 {
			c.errorf(s.TokPos, "%s inside atomic: a channel operation is a step of its own", s.Tok)
		}
		c.chanStmt(b, s)
	case *syntax.EndStmt:
		switch in := s.Stmt.(type) {
		case *syntax.ChanStmt, *syntax.JoinStmt, *syntax.SelectStmt:
		case *syntax.LockStmt:
			if in.Tok != syntax.LOCK {
				c.errorf(s.EndPos, "end: marks a statement a thread may wait at (send, recv, lock, join, await); unlock never waits")
			}
		case *syntax.GuardStmt:
			if in.Tok != syntax.AWAIT {
				c.errorf(s.EndPos, "end: marks a statement a thread may wait at (send, recv, lock, join, await); a false assume cuts the run, it is no end")
			}
		default:
			c.errorf(s.EndPos, "end: marks a statement a thread may wait at (send, recv, select, lock, join, await), not this one")
		}
		c.stmt(b, s.Stmt, guardOK)
	case *syntax.SelectStmt:
		if b.atomic > 0 {
			c.errorf(s.Select, "select inside atomic: a message is sent or received on its own")
		}
		defaults := 0
		for _, cl := range s.Clauses {
			if cl.Comm == nil {
				if defaults++; defaults > 1 {
					c.errorf(cl.Case, "select has more than one default")
				}
			} else {
				c.chanStmt(b, cl.Comm)
			}
			if cl.When != nil {
				c.cond(b, cl.When, "when")
				c.guards = append(c.guards, guardUse{cl.When, "a select case's when condition"})
			}
			c.stmt(b, cl.Body, false)
		}
		if len(s.Clauses) == defaults {
			c.errorf(s.Select, "select needs at least one case send(…) or case recv(…)")
		}
	case *syntax.AtomicStmt:
		// A nested atomic block is part of the outer one: only the outermost
		// block's first statement may be a guard.
		first := guardOK || b.atomic == 0
		b.atomic++
		b.push()
		c.block(b, s.Body.List, first)
		b.pop()
		b.atomic--
	}
}

func (c *checker) loopInAtomic(b *body, pos syntax.Pos) {
	if b.atomic > 0 {
		c.errorf(pos, "loop inside atomic")
	}
}

// forClause checks the init or step of a for loop.
func (c *checker) forClause(b *body, s syntax.Stmt, what string) {
	switch s.(type) {
	case *syntax.VarDecl, *syntax.ExprStmt:
		if what != "init" {
			c.errorf(s.Pos(), "for step must be an assignment, += or -=, ++ or --")
			return
		}
	}
	c.stmt(b, s, false)
}

// cond checks a condition: a bool expression.
func (c *checker) cond(b *body, x syntax.Expr, where string) {
	op := c.expr(b, x)
	if op.typ != invalid && op.typ != boolType {
		c.errorf(x.Pos(), "non-bool condition in %s: %s", where, describe(x, op.typ))
	}
}

// declare adds a local to the current scope. A name visible from an enclosing
// block of the same body may not be declared again; sibling blocks may reuse it.
func (c *checker) declare(b *body, v *varObj) {
	if prev := b.scope.lookup(v.id.Name); prev != nil {
		c.errorf(v.id.Pos(), "%s redeclared (previous declaration at %s)", v.id.Name, prev.id.Pos())
		return
	}
	b.scope.names[v.id.Name] = v
}

func (c *checker) localDecl(b *body, d *syntax.VarDecl) {
	v := &varObj{id: d.Name, typ: typeOf(d.Type), decl: d, fn: b.fn}
	c.defs[d.Name] = v
	if d.Size != nil {
		n, ok := c.size(b, d.Size, "array size", MaxArraySize)
		if ok {
			v.size = n
		} else {
			v.size = -1
		}
	}
	// The initialiser is checked before the name is declared: in "int x = x;"
	// the right x is an outer one.
	if d.Init != nil {
		c.localInit(b, v, d.Init)
	}
	c.declare(b, v)
}

func (c *checker) localInit(b *body, v *varObj, init syntax.Expr) {
	list, isList := init.(*syntax.InitList)
	switch {
	case v.size == 0 && isList:
		c.errorf(init.Pos(), "cannot initialise scalar %s with a list", v.id.Name)
		c.exprs(b, list.Elems)
	case v.size != 0 && !isList:
		if v.size > 0 {
			c.errorf(init.Pos(), "cannot initialise array %s with a single value (use a list {…})", v.id.Name)
		}
		c.expr(b, init)
	case isList:
		if v.size > 0 && len(list.Elems) > v.size {
			c.errorf(list.Elems[v.size].Pos(), "too many initialisers for %s[%d]: %d", v.id.Name, v.size, len(list.Elems))
		}
		for _, e := range list.Elems {
			c.assignable(b, e, v.typ, "initialisation of "+v.id.Name, false)
		}
	default:
		c.assignable(b, init, v.typ, "initialisation of "+v.id.Name, true)
	}
}

// assignable checks that x can be stored in a location of type t. stmtCall allows
// x to be a call of a statement function (the whole right-hand side).
func (c *checker) assignable(b *body, x syntax.Expr, t typ, context string, stmtCall bool) {
	op := c.exprMode(b, x, exprMode{stmtCall: stmtCall})
	if op.typ != invalid && t != invalid && op.typ != t {
		c.errorf(x.Pos(), "cannot use %s as %s value in %s", describe(x, op.typ), t, context)
	}
}

func (c *checker) assign(b *body, s *syntax.AssignStmt) {
	t := c.lvalue(b, s.LHS)
	if s.Tok != syntax.ASSIGN && t != invalid && t != intType {
		c.errorf(s.TokPos, "invalid operation: operator %s not defined on %s", s.Tok, describe(s.LHS, t))
		t = invalid
	}
	c.assignable(b, s.RHS, t, "assignment", true)
}

func (c *checker) exprStmt(b *body, s *syntax.ExprStmt) {
	switch x := syntax.Unparen(s.X).(type) {
	case *syntax.CallExpr:
		c.exprMode(b, x, exprMode{stmtCall: true})
		return
	case *syntax.CasExpr:
		c.expr(b, x)
		return
	}
	op := c.expr(b, s.X)
	if op.typ != invalid {
		c.errorf(s.X.Pos(), "%s is not used", describe(s.X, op.typ))
	}
}

func (c *checker) returnStmt(b *body, s *syntax.ReturnStmt) {
	switch {
	case b.thread != nil:
		if s.Result != nil {
			c.errorf(s.Result.Pos(), "return value in thread %s (\"return;\" ends the thread)", b.thread.id.Name)
			c.expr(b, s.Result)
		}
	case b.fn.result == voidType:
		if s.Result != nil {
			c.errorf(s.Result.Pos(), "return value in void function %s", b.fn.id.Name)
			c.expr(b, s.Result)
		}
	case s.Result == nil:
		c.errorf(s.Return, "missing return value (function %s returns %s)", b.fn.id.Name, b.fn.result)
	default:
		c.assignable(b, s.Result, b.fn.result, "return statement", false)
	}
}

// lookupName resolves a name at a use, reporting it if undefined: a local, a
// member of the body's process, a name of the file.
func (c *checker) lookupName(b *body, id *syntax.Ident) object {
	var o object
	if b != nil {
		if v := b.scope.lookup(id.Name); v != nil {
			o = v
		}
	}
	if p := b.proc(); o == nil && p != nil {
		o = p.names[id.Name]
	}
	if o == nil {
		o = c.globals[id.Name]
	}
	if o == nil {
		c.errorf(id.Pos(), "undefined: %s%s", id.Name, c.elsewhere(b, id.Name))
		return nil
	}
	c.uses[id] = o
	return o
}

// elsewhere explains an undefined name that is a member of another process.
func (c *checker) elsewhere(b *body, name string) string {
	for _, p := range c.procs {
		if o, ok := p.names[name]; ok && p != b.proc() {
			return fmt.Sprintf(" (%s %s belongs to process %s; a process sees only its own memory, "+
				"mutexes, functions and threads, and talks to others through channels)", kindOf(o), name, p.id.Name)
		}
	}
	return ""
}

// chanOperand checks the channel operand of send, recv or len: a channel, or an
// element of a channel array. It returns the channel, or nil after an error.
func (c *checker) chanOperand(b *body, x syntax.Expr, what string) *chanObj {
	switch e := syntax.Unparen(x).(type) {
	case *syntax.Ident:
		switch o := c.lookupName(b, e).(type) {
		case nil:
		case *chanObj:
			if o.size != 0 {
				c.errorf(e.Pos(), "channel array %s used without index in %s", e.Name, what)
				return nil
			}
			return o
		default:
			c.errorf(e.Pos(), "%s is not a channel (it is a %s) in %s", e.Name, kindOf(o), what)
		}
		return nil
	case *syntax.IndexExpr:
		switch o := c.lookupName(b, e.X).(type) {
		case nil:
			c.expr(b, e.Index)
		case *chanObj:
			c.index(b, e.Index)
			c.guards = append(c.guards, guardUse{e.Index, "channel index"})
			if o.size == 0 {
				c.errorf(e.Lbrack, "cannot index channel %s (not an array)", e.X.Name)
				return nil
			}
			return o
		default:
			c.errorf(e.X.Pos(), "%s is not a channel (it is a %s) in %s", e.X.Name, kindOf(o), what)
			c.expr(b, e.Index)
		}
		return nil
	case *syntax.BadExpr:
		return nil
	}
	c.expr(b, x)
	c.errorf(x.Pos(), "%s is not a channel in %s", exprString(x), what)
	return nil
}

// chanStmt checks send(c, e…) and recv(c, lv…) [ok(b)]: a channel, then one
// value or one location per field of its messages, of the field's type (and
// a bool location for ok); close(c): a channel alone.
func (c *checker) chanStmt(b *body, s *syntax.ChanStmt) {
	what := s.Tok.String()
	if s.Tok == syntax.CLOSE {
		if len(s.Args) != 1 {
			c.errorf(s.Rparen, "close takes one channel: close(c), have %d arguments", len(s.Args))
			return
		}
		c.chanOperand(b, s.Args[0], what)
		return
	}
	if s.OK != nil {
		if t := c.lvalue(b, s.OK); t != invalid && t != boolType {
			c.errorf(s.OK.Pos(), "ok(…) needs a bool location, not %s", describe(s.OK, t))
		}
	}
	if len(s.Args) == 0 {
		c.errorf(s.Rparen, "%s needs a channel and the message's fields: %s(c, …)", what, what)
		return
	}
	ch := c.chanOperand(b, s.Args[0], what)
	fields := s.Args[1:]
	if ch != nil && len(fields) != len(ch.fields) && len(ch.fields) > 0 {
		c.errorf(s.Rparen, "wrong number of fields in %s on channel %s: have %d, want %d %s",
			what, ch.id.Name, len(fields), len(ch.fields), fieldList(ch.fields))
	}
	for i, x := range fields {
		want := invalid
		if ch != nil && i < len(ch.fields) {
			want = ch.fields[i]
		}
		context := fmt.Sprintf("field %d of %s", i+1, what)
		if s.Tok == syntax.SEND {
			c.assignable(b, x, want, context, false)
			continue
		}
		if t := c.lvalue(b, x); t != invalid && want != invalid && t != want {
			c.errorf(x.Pos(), "cannot receive %s field %d of channel %s into %s", want, i+1, ch.id.Name, describe(x, t))
		}
	}
}

func fieldList(fs []typ) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.String())
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// lvalue checks an assignable location and returns its type.
func (c *checker) lvalue(b *body, x syntax.Expr) typ {
	switch e := syntax.Unparen(x).(type) {
	case *syntax.Ident:
		switch o := c.lookupName(b, e).(type) {
		case nil:
		case *varObj:
			switch {
			case o.size < 0:
			case o.size > 0:
				c.errorf(e.Pos(), "array used without index: %s", e.Name)
			default:
				c.types[e] = operand{typ: o.typ}
				return o.typ
			}
		case *constObj:
			c.errorf(e.Pos(), "cannot assign to constant %s", e.Name)
		default:
			c.errorf(e.Pos(), "cannot assign to %s %s", kindOf(o), e.Name)
		}
		return invalid
	case *syntax.IndexExpr:
		op := c.expr(b, e)
		return op.typ
	case *syntax.TidExpr:
		c.errorf(e.Pos(), "cannot assign to tid")
	case *syntax.PidExpr:
		c.errorf(e.Pos(), "cannot assign to pid")
	case *syntax.BadExpr:
	default:
		c.expr(b, e)
		c.errorf(e.Pos(), "cannot assign to %s (not a variable)", exprString(e))
	}
	return invalid
}

// mutexOperand checks the operand of lock or unlock: a mutex or a mutex array
// element.
func (c *checker) mutexOperand(b *body, s *syntax.LockStmt) {
	switch e := syntax.Unparen(s.Mutex).(type) {
	case *syntax.Ident:
		switch o := c.lookupName(b, e).(type) {
		case nil:
		case *mutexObj:
			if o.size > 0 {
				c.errorf(e.Pos(), "array used without index: mutex array %s", e.Name)
			}
		default:
			c.errorf(e.Pos(), "%s is not a mutex (it is a %s)", e.Name, kindOf(o))
		}
		return
	case *syntax.IndexExpr:
		switch o := c.lookupName(b, e.X).(type) {
		case nil:
			c.expr(b, e.Index)
		case *mutexObj:
			if o.size == 0 {
				c.errorf(e.Lbrack, "cannot index mutex %s (not an array)", e.X.Name)
			}
			c.index(b, e.Index)
			c.guards = append(c.guards, guardUse{e.Index, s.Tok.String() + " index"})
		default:
			c.errorf(e.X.Pos(), "%s is not a mutex (it is a %s)", e.X.Name, kindOf(o))
			c.expr(b, e.Index)
		}
		return
	case *syntax.BadExpr:
		return
	}
	c.expr(b, s.Mutex)
	c.errorf(s.Mutex.Pos(), "%s is not a mutex", exprString(s.Mutex))
}

// joinOperand checks the operand of join: a thread or one instance of a thread
// declared with a count.
func (c *checker) joinOperand(b *body, s *syntax.JoinStmt) {
	switch e := syntax.Unparen(s.Thread).(type) {
	case *syntax.Ident:
		switch o := c.lookupName(b, e).(type) {
		case nil, *threadObj:
		default:
			c.errorf(e.Pos(), "%s is not a thread (it is a %s)", e.Name, kindOf(o))
		}
		return
	case *syntax.IndexExpr:
		switch o := c.lookupName(b, e.X).(type) {
		case nil:
			c.expr(b, e.Index)
		case *threadObj:
			if o.count == 0 {
				c.errorf(e.Lbrack, "cannot index thread %s (declared without a count)", e.X.Name)
			}
			c.index(b, e.Index)
			c.guards = append(c.guards, guardUse{e.Index, "join index"})
		default:
			c.errorf(e.X.Pos(), "%s is not a thread (it is a %s)", e.X.Name, kindOf(o))
			c.expr(b, e.Index)
		}
		return
	case *syntax.BadExpr:
		return
	}
	c.expr(b, s.Thread)
	c.errorf(s.Thread.Pos(), "%s is not a thread", exprString(s.Thread))
}

// index checks an array index: an int.
func (c *checker) index(b *body, x syntax.Expr) {
	op := c.expr(b, x)
	if op.typ != invalid && op.typ != intType {
		c.errorf(x.Pos(), "invalid array index %s: must be int", describe(x, op.typ))
	}
}
