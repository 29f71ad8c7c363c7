package kb2c

import (
	"fmt"
	"strings"

	"kbmc/lang/syntax"
)

// body translates the statements of one thread or function.
type body struct {
	t      *translator
	w      *strings.Builder
	fn     *fnInfo // nil in a thread
	indent int
	scopes []map[string]*sym
	// atomic: inside a .kb atomic block, whose C section is open: statements
	// are not wrapped again, and a jump out of the block closes it first.
	atomic bool
	// loops is the nesting of loops around the statement being translated;
	// instances, the number of instances of the thread (0 in a function).
	loops, instances int
	// pure: translating a guard operand (an assume's condition, a lock or
	// join index), which must be a plain expression (see guard).
	pure    bool
	ntemp   int
	pending []string // declarations of the temporaries of the statement being translated

	joins  []joinUse // the joins in the body
	called []*fnInfo // the statement functions it calls
}

// joinUse is a join of a template, at pos.
type joinUse struct {
	name string
	pos  syntax.Pos
}

func (t *translator) newBody(w *strings.Builder, f *fnInfo) *body {
	return &body{t: t, w: w, fn: f, scopes: []map[string]*sym{{}}}
}

func (b *body) line(format string, args ...any) {
	b.w.WriteString(strings.Repeat("    ", b.indent))
	fmt.Fprintf(b.w, format, args...)
	b.w.WriteByte('\n')
}

func (b *body) lines(ls []string) {
	for _, l := range ls {
		b.line("%s", l)
	}
}

func (b *body) lookup(name string) *sym {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if s, ok := b.scopes[i][name]; ok {
			return s
		}
	}
	return b.t.top[name]
}

func (b *body) push() { b.scopes = append(b.scopes, map[string]*sym{}) }
func (b *body) pop()  { b.scopes = b.scopes[:len(b.scopes)-1] }

// temp is a fresh temporary of type ty, declared (zero) before the code of
// the statement being translated.
func (b *body) temp(ty typ) string {
	b.ntemp++
	name := fmt.Sprintf("kbh_t%d", b.ntemp)
	b.pending = append(b.pending, fmt.Sprintf("%s %s = 0;", ty.c(), name))
	return name
}

// flushTemps declares the temporaries of the statement about to be written.
func (b *body) flushTemps() {
	b.lines(b.pending)
	b.pending = b.pending[:0]
}

// emit writes the code of one statement, after its temporaries: in an atomic
// section when it is visible (touches shared memory, blocks or is a cas), as
// .kb executes every statement atomically; local code folds into the step
// before it in both forms.
func (b *body) emit(visible bool, code []string) {
	b.flushTemps()
	if visible && !b.atomic {
		b.line("__VERIFIER_atomic_begin();")
		b.lines(code)
		b.line("__VERIFIER_atomic_end();")
		return
	}
	b.lines(code)
}

func indented(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = "    " + l
	}
	return out
}

func (b *body) stmts(list []syntax.Stmt) {
	for _, s := range list {
		b.stmt(s)
	}
}

// block writes the statements of a block, in a scope of their own.
func (b *body) block(s syntax.Stmt) {
	b.indent++
	b.push()
	if bs, ok := s.(*syntax.BlockStmt); ok {
		b.stmts(bs.List)
	} else {
		b.stmt(s)
	}
	b.pop()
	b.indent--
}

func (b *body) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.EmptyStmt, *syntax.BadStmt:
	case *syntax.BlockStmt:
		b.line("{")
		b.block(s)
		b.line("}")
	case *syntax.VarDecl:
		b.localDecl(s)
	case *syntax.AssignStmt:
		if call := b.stmtCall(s.RHS); call != nil {
			b.callStmt(call, s.LHS, s.Tok, "")
			return
		}
		b.store(s.LHS, s.Tok, func() cexpr { return b.expr(s.RHS) }, b.hasCas(s.RHS), b.visible(s.RHS))
	case *syntax.IncDecStmt:
		op := "++"
		if s.Tok == syntax.DEC {
			op = "--"
		}
		target, _, pre, vis := b.lvalue(s.X, nil, false)
		b.emit(vis, append(pre, target+op+";"))
	case *syntax.ExprStmt:
		b.exprStmt(s)
	case *syntax.IfStmt:
		b.ifStmt(s)
	case *syntax.WhileStmt:
		head := b.loopHead(s.Cond)
		b.line("while (%s) {", head)
		b.loops++
		b.block(s.Body)
		b.loops--
		b.line("}")
	case *syntax.ForStmt:
		b.loops++
		b.forStmt(s)
		b.loops--
	case *syntax.BranchStmt:
		if b.atomic {
			b.line("__VERIFIER_atomic_end();")
		}
		b.line("%s;", s.Tok)
	case *syntax.ReturnStmt:
		b.returnStmt(s)
	case *syntax.AssertStmt:
		x := b.expr(s.Cond)
		check := fmt.Sprintf("if (!%s) reach_error();", paren(x.text))
		if s.Msg != nil {
			check += " /* " + strings.ReplaceAll(s.Msg.Value, "*/", "* /") + " */"
		}
		b.emit(b.visible(s.Cond), append(x.pre, check))
	case *syntax.GuardStmt:
		if s.Tok == syntax.AWAIT {
			// An assume that stays false cuts an execution; an await that
			// does is a deadlock. C has no such wait.
			b.t.errorf(s.Pos(), "await has no C equivalent with its deadlock semantics")
			return
		}
		c := b.guard(s.Cond)
		b.emit(true, []string{fmt.Sprintf("__VERIFIER_assume(%s);", c)})
	case *syntax.LockStmt:
		b.lockStmt(s)
	case *syntax.JoinStmt:
		b.joinStmt(s)
	case *syntax.YieldStmt:
		b.t.needStep = true
		b.emit(false, []string{"kbh_step();"})
	case *syntax.AtomicStmt:
		b.atomicStmt(s)
	case *syntax.ChanStmt:
		b.t.errorf(s.Pos(), "%s: the C form has no channels", s.Tok)
	default:
		b.t.errorf(s.Pos(), "internal error: unexpected statement %T", s)
	}
}

// localDecl declares a local, zero unless initialised, as .kb's are.
func (b *body) localDecl(d *syntax.VarDecl) {
	ty := typeOf(d.Type)
	name := paramName(b.t, d.Name.Name)
	size := 0
	if d.Size != nil {
		v, _, _ := b.t.constValue(b, d.Size)
		size = int(v)
	}
	s := &sym{kind: symLocal, c: name, typ: ty, size: size}
	if call := b.stmtCall(d.Init); call != nil {
		b.flushTemps()
		b.line("%s %s = 0;", ty.c(), name)
		b.callStmt(call, nil, syntax.ASSIGN, name)
		b.scopes[len(b.scopes)-1][d.Name.Name] = s
		return
	}
	switch init := d.Init.(type) {
	case nil:
		if size > 0 {
			b.emit(false, []string{fmt.Sprintf("%s %s[%d] = {0};", ty.c(), name, size)})
		} else {
			b.emit(false, []string{fmt.Sprintf("%s %s = 0;", ty.c(), name)})
		}
	case *syntax.InitList:
		xs := b.exprList(init.Elems)
		vals := make([]string, size)
		visible := false
		for i := range vals {
			vals[i] = "0"
			if i < len(init.Elems) {
				vals[i] = unparen(xs.xs[i].text)
				visible = visible || b.visible(init.Elems[i])
			}
		}
		b.emit(visible, append(xs.pre, fmt.Sprintf("%s %s[%d] = {%s};", ty.c(), name, size, strings.Join(vals, ", "))))
	default:
		x := b.expr(init)
		b.emit(b.visible(init), append(x.pre, fmt.Sprintf("%s %s = %s;", ty.c(), name, x.text)))
	}
	b.scopes[len(b.scopes)-1][d.Name.Name] = s
}

// stmtCall returns x as a call of a statement function, or nil.
func (b *body) stmtCall(x syntax.Expr) *syntax.CallExpr {
	if x == nil {
		return nil
	}
	call, ok := syntax.Unparen(x).(*syntax.CallExpr)
	if !ok {
		return nil
	}
	if f := b.t.funcs[call.Fun.Name]; f == nil || f.expr != nil {
		return nil
	}
	return call
}

// lvalue translates an assignment's target: its C text, with the value to
// store (rhs, if given), the code that must run first, and whether the
// assignment is visible (writes shared memory or reads it in the index). The
// parts run in .kb's order: an index is computed before a right-hand side
// with a cas (which could change what the index reads), after it otherwise;
// the bounds check is the store's, after both.
func (b *body) lvalue(lhs syntax.Expr, rhs func() cexpr, rhsCas bool) (target, value string, pre []string, visible bool) {
	var x cexpr
	eval := func() {
		if rhs != nil {
			x = rhs()
		}
	}
	switch l := syntax.Unparen(lhs).(type) {
	case *syntax.Ident:
		s := b.lookup(l.Name)
		eval()
		target, pre, visible = s.c, x.pre, s.kind == symShared
	case *syntax.IndexExpr:
		s := b.lookup(l.X.Name)
		var i cexpr
		if rhsCas {
			i = b.spill(b.expr(l.Index))
			eval()
			pre = append(i.pre, x.pre...)
		} else {
			eval()
			i = b.expr(l.Index)
			if len(i.pre) > 0 {
				x = b.spill(x)
			}
			pre = append(x.pre, i.pre...)
		}
		target, visible = s.c+"["+unparen(i.text)+"]", s.kind == symShared || b.visible(l.Index)
	default:
		b.t.errorf(lhs.Pos(), "internal error: assignment to %s", syntax.ExprString(lhs))
	}
	return target, unparen(x.text), pre, visible
}

// store writes "lhs tok rhs".
func (b *body) store(lhs syntax.Expr, tok syntax.Token, rhs func() cexpr, rhsCas, rhsVisible bool) {
	op := map[syntax.Token]string{syntax.ASSIGN: "=", syntax.ADD_ASSIGN: "+=", syntax.SUB_ASSIGN: "-="}[tok]
	target, value, pre, vis := b.lvalue(lhs, rhs, rhsCas)
	b.emit(vis || rhsVisible, append(pre, fmt.Sprintf("%s %s %s;", target, op, value)))
}

// callStmt calls a statement function, as a statement, as the right-hand
// side of "lhs tok f(…)", or as the initialiser of local decl. As in .kb, the
// arguments are one step (when they read shared memory), the body's
// statements steps of their own, and the store of the result another.
func (b *body) callStmt(call *syntax.CallExpr, lhs syntax.Expr, tok syntax.Token, decl string) {
	f := b.t.funcs[call.Fun.Name]
	xs := b.exprList(call.Args)
	visible := false
	for _, a := range call.Args {
		visible = visible || b.visible(a)
	}
	pre := xs.pre
	var args []string
	for _, x := range xs.xs {
		if visible && !x.stable {
			// The arguments are read in the call's step, not in the body's.
			v := b.temp(x.typ)
			pre = append(pre, fmt.Sprintf("%s = %s;", v, unparen(x.text)))
			x.text = v
		}
		args = append(args, unparen(x.text))
	}
	b.called = append(b.called, f)
	b.emit(visible, pre)
	text := fmt.Sprintf("%s(%s)", f.c, strings.Join(append([]string{"tid"}, args...), ", "))
	switch {
	case decl != "":
		b.line("%s = %s;", decl, text)
	case lhs == nil:
		b.line("%s;", text)
	default:
		if id, ok := syntax.Unparen(lhs).(*syntax.Ident); ok && tok == syntax.ASSIGN && b.lookup(id.Name).kind == symLocal {
			b.line("%s = %s;", b.lookup(id.Name).c, text)
			return
		}
		r := b.temp(f.result)
		b.flushTemps()
		b.line("%s = %s;", r, text)
		b.store(lhs, tok, func() cexpr { return cexpr{text: r, typ: f.result, stable: true} }, false, false)
	}
}

func (b *body) exprStmt(s *syntax.ExprStmt) {
	switch x := syntax.Unparen(s.X).(type) {
	case *syntax.CallExpr:
		if b.stmtCall(x) != nil {
			b.callStmt(x, nil, syntax.ASSIGN, "")
			return
		}
		c := b.expr(x)
		b.emit(b.visible(x), c.pre)
	case *syntax.CasExpr:
		c := b.expr(x)
		b.emit(true, c.pre)
	default:
		b.t.errorf(s.Pos(), "internal error: expression statement %s", syntax.ExprString(s.X))
	}
}

func (b *body) ifStmt(s *syntax.IfStmt) {
	c := b.expr(s.Cond)
	head := c.text
	if b.visible(s.Cond) && !b.atomic {
		// The condition is one step, the branch taken folds into it.
		v := b.temp(tBool)
		b.emit(true, append(c.pre, fmt.Sprintf("%s = %s;", v, c.text)))
		head = v
	} else {
		b.emit(false, c.pre)
	}
	b.line("if (%s) {", unparen(head))
	b.block(s.Then)
	switch e := s.Else.(type) {
	case nil:
	case *syntax.IfStmt:
		b.line("} else {")
		b.indent++
		b.push()
		b.ifStmt(e)
		b.pop()
		b.indent--
	default:
		b.line("} else {")
		b.block(e)
	}
	b.line("}")
}

// loopHead returns the condition of a loop as C evaluates it at the loop's
// head, a step of its own in both forms: one that reads shared memory is
// computed in an atomic section inside the condition, so that the head stays
// one step (a section before the loop would make it two). cfront forbids
// loops inside atomic sections, not atomic sections inside a loop's head.
func (b *body) loopHead(cond syntax.Expr) string {
	if cond == nil {
		return ""
	}
	c := b.expr(cond)
	visible := b.visible(cond)
	if !visible && len(c.pre) == 0 {
		b.flushTemps()
		return unparen(c.text)
	}
	v := b.temp(tBool)
	b.flushTemps()
	if len(c.pre) == 0 {
		return fmt.Sprintf("__VERIFIER_atomic_begin(), %s = %s, __VERIFIER_atomic_end(), %s", v, c.text, v)
	}
	// Code before the value (a call, a cas): a GNU statement expression.
	var parts []string
	if visible {
		parts = append(parts, "__VERIFIER_atomic_begin();")
	}
	for _, l := range c.pre {
		parts = append(parts, strings.TrimSpace(l))
	}
	parts = append(parts, fmt.Sprintf("%s = %s;", v, c.text))
	if visible {
		parts = append(parts, "__VERIFIER_atomic_end();")
	}
	parts = append(parts, v+";")
	return "({ " + strings.Join(parts, " ") + " })"
}

// forStmt writes for (init; cond; post) as { init; for (; cond; post) … }: the
// init runs once before the first head, as in .kb, and its local is scoped to
// the loop.
func (b *body) forStmt(s *syntax.ForStmt) {
	b.line("{")
	b.indent++
	b.push()
	if s.Init != nil {
		b.stmt(s.Init)
	}
	head := b.loopHead(s.Cond)
	post := ""
	if s.Post != nil {
		// The post statement, translated on its own, becomes an expression:
		// itself when it is one local statement, else a GNU statement
		// expression of its code.
		w, indent := b.w, b.indent
		var sub strings.Builder
		b.w, b.indent = &sub, 0
		b.stmt(s.Post)
		b.w, b.indent = w, indent
		ls := strings.Split(strings.TrimSpace(sub.String()), "\n")
		if len(ls) == 1 && !strings.HasPrefix(ls[0], "__VERIFIER") && strings.HasSuffix(ls[0], ";") {
			post = strings.TrimSuffix(ls[0], ";")
		} else {
			for i := range ls {
				ls[i] = strings.TrimSpace(ls[i])
			}
			post = "({ " + strings.Join(ls, " ") + " })"
		}
	}
	b.line("for (; %s; %s) {", head, post)
	b.block(s.Body)
	b.line("}")
	b.pop()
	b.indent--
	b.line("}")
}

func (b *body) returnStmt(s *syntax.ReturnStmt) {
	end := func() {
		if b.atomic {
			// The atomic block ends where the function or thread does.
			b.line("__VERIFIER_atomic_end();")
		}
	}
	switch {
	case b.fn == nil:
		end()
		b.line("return 0;")
	case s.Result == nil:
		end()
		b.line("return;")
	default:
		x := b.expr(s.Result)
		if visible := b.visible(s.Result); visible || b.atomic {
			v := b.temp(b.fn.result)
			b.emit(visible, append(x.pre, fmt.Sprintf("%s = %s;", v, x.text)))
			end()
			b.line("return %s;", v)
			return
		}
		b.emit(false, x.pre)
		b.line("return %s;", unparen(x.text))
	}
}

// guard translates an operand that decides whether a thread may move: an
// assume's condition, a lock's or join's index. cfront makes a blocking
// operation wait on its operands only when it starts its step; code before
// it (a call's argument, a nondet draw) would make it an inner guard, which
// cuts the execution where .kb waits. So the operand is one C expression: an
// expression function's body with its parameters replaced by the arguments,
// as lang inlines it; a cas or nondet, which .kb does not allow there either
// way that matters, is an error.
func (b *body) guard(x syntax.Expr) string {
	b.pure = true
	c := b.expr(x)
	b.pure = false
	if len(c.pre) > 0 {
		b.t.errorf(x.Pos(), "internal error: guard %s needs code before it", syntax.ExprString(x))
	}
	return unparen(c.text)
}

func (b *body) lockStmt(s *syntax.LockStmt) {
	fn := "pthread_mutex_lock"
	if s.Tok == syntax.UNLOCK {
		fn = "pthread_mutex_unlock"
	}
	switch m := syntax.Unparen(s.Mutex).(type) {
	case *syntax.Ident:
		// The operation starts its step: no section is needed.
		b.emit(false, []string{fmt.Sprintf("%s(&%s);", fn, b.lookup(m.Name).c)})
	case *syntax.IndexExpr:
		ms := b.lookup(m.X.Name)
		if v, _, ok := b.t.constValue(b, m.Index); ok && v >= 0 && v < int64(ms.size) {
			b.emit(false, []string{fmt.Sprintf("%s(&%s[%d]);", fn, ms.c, v)})
			return
		}
		b.t.inSizes[ms.size] = true
		idx := b.guard(m.Index)
		b.emit(true, []string{fmt.Sprintf("%s(&%s[kbh_in%d[%s]]);", fn, ms.c, ms.size, idx)})
	}
}

func (b *body) joinStmt(s *syntax.JoinStmt) {
	switch x := syntax.Unparen(s.Thread).(type) {
	case *syntax.Ident:
		ts := b.lookup(x.Name)
		b.checkSelfJoin(s, x.Name)
		if !ts.counted {
			b.emit(true, []string{fmt.Sprintf("pthread_join(kbh_h_%s, 0);", ts.c)})
			return
		}
		if ts.size == 0 {
			b.t.needStep = true
			b.emit(false, []string{"kbh_step();"})
			return
		}
		// One join for each instance: pthread_join waits for one thread.
		b.t.joinSteps = max(b.t.joinSteps, ts.size)
		switch {
		case b.t.joinExtra < 0:
		case b.fn != nil || b.loops > 0:
			b.t.joinExtra = -1
		default:
			b.t.joinExtra += (ts.size - 1) * b.instances
		}
		for i := range ts.size {
			b.emit(true, []string{fmt.Sprintf("pthread_join(kbh_h_%s[%d], 0);", ts.c, i)})
		}
	case *syntax.IndexExpr:
		ts := b.lookup(x.X.Name)
		b.checkSelfJoin(s, x.X.Name)
		idx := b.guard(x.Index)
		b.emit(true, []string{fmt.Sprintf("pthread_join(kbh_h_%s[%s], 0);", ts.c, idx)})
	}
}

// checkSelfJoin notes a join of template name, to reject a join of the
// thread's own template (emitThread).
func (b *body) checkSelfJoin(s *syntax.JoinStmt, name string) {
	b.joins = append(b.joins, joinUse{name, s.Pos()})
}

func (b *body) atomicStmt(s *syntax.AtomicStmt) {
	if b.atomic {
		// A nested block is part of the outer one.
		b.stmt(s.Body)
		return
	}
	if empty(s.Body) {
		// No operation at all: still one step in .kb.
		b.t.needStep = true
		b.emit(false, []string{"kbh_step();"})
		return
	}
	b.flushTemps()
	b.line("__VERIFIER_atomic_begin();")
	b.atomic = true
	b.line("{")
	b.block(s.Body)
	b.line("}")
	b.atomic = false
	b.line("__VERIFIER_atomic_end();")
}

// empty reports whether a statement does nothing at all.
func empty(s syntax.Stmt) bool {
	switch s := s.(type) {
	case *syntax.EmptyStmt:
		return true
	case *syntax.BlockStmt:
		for _, x := range s.List {
			if !empty(x) {
				return false
			}
		}
		return true
	}
	return false
}

// unparen strips one pair of parentheses around a whole C expression.
func unparen(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s
			}
		}
	}
	return s[1 : len(s)-1]
}

// paren parenthesises a C expression unless it is a name, a literal or
// already parenthesised.
func paren(s string) string {
	if unparen(s) != s {
		return s
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "(" + s + ")"
		}
	}
	return s
}
