package cfront

import (
	"fmt"

	"modernc.org/cc/v4"

	"kbmc/ir"
)

// body lowers a thread's start routine (main, or a created thread's routine
// whose start cells are start) as the thread's whole code.
func (b *builder) body(fn *cc.FunctionDefinition, start *ir.Var) {
	t := b.t
	b.open = []*int{&t.Entry}
	b.frame = &frame{fn: fn, vars: map[*cc.Declarator]*local{}, top: true,
		labels: map[string]int{}, gotos: map[string][]*int{}, gotoAt: map[string]cc.Node{}}
	params := paramsOf(fn.Declarator.Type().(*cc.FunctionType))
	b.begin(fn.Declarator, fn.Declarator.Name()+"(…)")
	switch {
	case start != nil:
		var lhs *ir.LValue
		if len(params) > 0 && params[0].Declarator != nil {
			loc := b.declare(params[0].Declarator)
			lhs = b.cellLV(loc.v, nil, ir.Ptr)
			if loc.lay.n() != 1 || loc.lay.cells[0].typ != ir.Ptr {
				b.errorf(params[0].Declarator, "start routine %s: its parameter is not a pointer", fn.Declarator.Name())
			}
		}
		b.emit(&ir.Node{Op: ir.OpStart, LHS: lhs})
		b.foldStart = !b.l.cfg.NoFold
	default:
		// main(argc, argv): one argument, no argv (a dereference of it fails).
		for i, p := range params {
			if p.Declarator == nil {
				continue
			}
			loc := b.declare(p.Declarator)
			if i == 0 {
				b.assign(b.cellLV(loc.v, nil, loc.lay.cells[0].typ), constant(loc.lay.cells[0].typ, 1))
			}
		}
	}
	b.compound(fn.CompoundStatement)
	b.finishFrame()
	b.patch(b.open, ir.Exit)
	b.open = nil
	b.uninit()
	b.foldLoopHeads()
	if t.Entry == ir.Exit || len(t.Nodes) == 0 {
		t.Nodes = append(t.Nodes, &ir.Node{Op: ir.OpNop, Next: ir.Exit, Pos: b.cur.pos, Text: fn.Declarator.Name()})
		t.Entry = len(t.Nodes) - 1
	}
	t.Nodes[t.Entry].Cut = true
}

// finishFrame patches the frame's returns to the current point and reports
// gotos to labels it never saw.
func (b *builder) finishFrame() {
	f := b.frame
	b.open = append(b.open, f.returns...)
	for name, edges := range f.gotos {
		if len(edges) > 0 {
			b.errorf(f.gotoAt[name], "goto %s: no such label in %s", name, f.fn.Declarator.Name())
		}
	}
}

func (b *builder) compound(cs *cc.CompoundStatement) {
	if cs == nil {
		return
	}
	for list := cs.BlockItemList; list != nil; list = list.BlockItemList {
		b.blockItem(list.BlockItem)
	}
}

func (b *builder) blockItem(bi *cc.BlockItem) {
	if bi == nil {
		return
	}
	switch bi.Case {
	case cc.BlockItemDecl:
		b.declaration(bi.Declaration)
	case cc.BlockItemStmt:
		b.stmt(bi.Statement)
	case cc.BlockItemLabel:
		// a GNU label declaration: nothing to do
	case cc.BlockItemFuncDef:
		b.errorf(bi, "a nested function definition is not supported")
	}
}

func (b *builder) stmt(s *cc.Statement) {
	if s == nil || b.l.tooBig {
		return
	}
	if !b.reachable() && s.Case != cc.StatementLabeled && s.Case != cc.StatementCompound {
		return // dead code: nothing jumps here (labels may)
	}
	switch s.Case {
	case cc.StatementLabeled:
		b.labeled(s.LabeledStatement)
	case cc.StatementCompound:
		b.compound(s.CompoundStatement)
	case cc.StatementExpr:
		es := s.ExpressionStatement
		if es.ExpressionList == nil {
			return
		}
		start := b.begin(es, b.l.text(es))
		b.effect(es.ExpressionList)
		b.end(start)
	case cc.StatementSelection:
		b.selection(s.SelectionStatement)
	case cc.StatementIteration:
		b.iteration(s.IterationStatement)
	case cc.StatementJump:
		b.jump(s.JumpStatement)
	case cc.StatementAsm:
		b.errorf(s, "inline assembly is not supported")
	}
}

// labeled lowers a label, case or default: a point the code may jump to.
func (b *builder) labeled(ls *cc.LabeledStatement) {
	f := b.frame
	var name string
	switch ls.Case {
	case cc.LabeledStatementLabel:
		name = ls.Token.SrcStr()
	case cc.LabeledStatementCaseLabel, cc.LabeledStatementDefault:
		name = caseLabel(ls)
	case cc.LabeledStatementRange:
		name = caseLabel(ls)
	}
	// The labelled statement starts at a node of its own, so that jumps have
	// a target; a backward jump to it makes a loop, whose head must be a cut
	// point (patched in jump).
	b.begin(ls, name+":")
	n := b.emit(&ir.Node{Op: ir.OpNop})
	idx := len(b.t.Nodes) - 1
	f.labels[name] = idx
	b.patch(f.gotos[name], idx)
	delete(f.gotos, name)
	_ = n
	b.stmt(ls.Statement)
}

// caseLabel is the synthetic label of a case or default of a switch.
func caseLabel(ls *cc.LabeledStatement) string {
	return fmt.Sprintf("case#%p#%d", ls.Switch(), ls.CaseOrdinal())
}

func (b *builder) selection(ss *cc.SelectionStatement) {
	switch ss.Case {
	case cc.SelectionStatementIf, cc.SelectionStatementIfElse:
		text := b.l.text(ss.ExpressionList)
		if b.l.lines.to == nil {
			text = "if (" + text + ")"
		}
		start := b.begin(ss.ExpressionList, text)
		c := b.cond(ss.ExpressionList)
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
		b.end(start)
		atomic := b.atomic
		b.open = []*int{&br.Next}
		b.stmt(ss.Statement)
		then := b.open
		thenAtomic := b.atomic
		b.atomic = atomic
		b.open = []*int{&br.Else}
		if ss.Case == cc.SelectionStatementIfElse {
			b.stmt(ss.Statement2)
		}
		if len(then) > 0 && len(b.open) > 0 && thenAtomic != b.atomic {
			b.errorf(ss, "the branches of this if leave different atomic sections open (__VERIFIER_atomic_begin/end): not supported")
		}
		if len(b.open) == 0 {
			b.atomic = thenAtomic
		}
		b.open = append(b.open, then...)
	case cc.SelectionStatementSwitch:
		b.switchStmt(ss)
	}
}

// switchStmt compares the value with each case in turn, then lowers the body,
// whose case labels are the jump targets.
func (b *builder) switchStmt(ss *cc.SelectionStatement) {
	start := b.begin(ss.ExpressionList, "switch ("+b.l.text(ss.ExpressionList)+")")
	v := b.stable(b.rv(ss.ExpressionList))
	b.end(start)
	f := b.frame
	var dflt *cc.LabeledStatement
	for _, ls := range ss.LabeledStatements() {
		if ls.Switch() != ss || ls.Case == cc.LabeledStatementLabel {
			continue // a nested switch's case, or a goto's label
		}
		if ls.Case == cc.LabeledStatementDefault {
			dflt = ls
			continue
		}
		cv, ok := constValue(ls.ConstantExpression)
		if !ok {
			b.errorf(ls, "case label is not an integer constant")
			continue
		}
		eq := &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: v, Y: constant(v.Type, cv), Pos: b.cur.pos}
		if ls.Case == cc.LabeledStatementRange {
			// GNU's case LO ... HI: LO <= v && v <= HI, compared in v's type.
			hi, ok := constValue(ls.ConstantExpression2)
			if !ok {
				b.errorf(ls, "case label is not an integer constant")
				continue
			}
			eq = &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, Pos: b.cur.pos,
				X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: constant(v.Type, cv), Y: v, Pos: b.cur.pos},
				Y: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: v, Y: constant(v.Type, hi), Pos: b.cur.pos}}
		}
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: eq})
		name := caseLabel(ls)
		f.gotos[name] = append(f.gotos[name], &br.Next)
		f.gotoAt[name] = ls
		b.open = []*int{&br.Else}
	}
	if dflt != nil {
		name := caseLabel(dflt)
		f.gotos[name] = append(f.gotos[name], b.open...)
		f.gotoAt[name] = dflt
		b.open = nil
	}
	lp := &loopCtx{parent: f.loop, isSwitch: true}
	f.loop = lp
	skip := b.open // no case matched and no default: past the body
	b.open = nil
	b.stmt(ss.Statement)
	f.loop = lp.parent
	b.open = append(append(b.open, skip...), lp.breaks...)
}

// iteration lowers a loop. Its head (the condition) is a cut point: a
// transition never runs a loop. do { } while (0), which macros use for
// grouping, is no loop.
func (b *builder) iteration(is *cc.IterationStatement) {
	f := b.frame
	if is.Case == cc.IterationStatementDo {
		if v, ok := constValue(is.ExpressionList); ok && v == 0 {
			lp := &loopCtx{parent: f.loop}
			f.loop = lp
			b.stmt(is.Statement)
			f.loop = lp.parent
			b.open = append(append(b.open, lp.continues...), lp.breaks...)
			return
		}
	}
	if b.atomic > 0 {
		b.errorf(is, "a loop inside an atomic section (__VERIFIER_atomic_begin/end or a __VERIFIER_atomic_ function) is not supported")
		return
	}
	if n, ok := b.unrollable(is); ok {
		b.unroll(is, n)
		return
	}
	trip := b.tripCount(is)
	outer := b.trip
	b.trip = min(outer*trip, maxPool)
	defer func() { b.trip = outer }()
	lp := &loopCtx{parent: f.loop}
	f.loop = lp
	defer func() { f.loop = lp.parent }()
	switch is.Case {
	case cc.IterationStatementWhile:
		head := b.loopHead(is.ExpressionList, b.header(is, "while", is.ExpressionList))
		b.stmt(is.Statement)
		b.patch(b.open, head)
		b.patch(lp.continues, head)
		b.open = append(b.exits(head), lp.breaks...)
	case cc.IterationStatementDo:
		// The body first; the condition is the loop's head.
		bodyStart := len(b.t.Nodes)
		b.begin(is, "do")
		top := b.emit(&ir.Node{Op: ir.OpNop})
		top.Cut = true
		_ = bodyStart
		topIdx := len(b.t.Nodes) - 1
		b.loopCuts = append(b.loopCuts, topIdx)
		b.stmt(is.Statement)
		b.open = append(b.open, lp.continues...)
		start := b.begin(is.ExpressionList, b.header(is, "while", is.ExpressionList))
		c := b.cond(is.ExpressionList)
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
		b.end(start)
		br.Next = topIdx
		b.open = append([]*int{&br.Else}, lp.breaks...)
	case cc.IterationStatementFor, cc.IterationStatementForDecl:
		cond, step := is.ExpressionList2, is.ExpressionList3
		if is.Case == cc.IterationStatementForDecl {
			b.declaration(is.Declaration)
			cond, step = is.ExpressionList, is.ExpressionList2
		} else if is.ExpressionList != nil {
			start := b.begin(is.ExpressionList, b.l.text(is.ExpressionList))
			b.effect(is.ExpressionList)
			b.end(start)
		}
		var head int
		if cond != nil {
			head = b.loopHead(cond, b.header(is, "for", cond))
		} else {
			b.begin(is, "for (;;)")
			n := b.emit(&ir.Node{Op: ir.OpNop})
			n.Cut = true
			head = len(b.t.Nodes) - 1
			b.loopCuts = append(b.loopCuts, head)
			b.loopExit = append(b.loopExit, nil)
		}
		b.stmt(is.Statement)
		b.open = append(b.open, lp.continues...)
		if step != nil && b.reachable() {
			start := b.begin(step, b.l.text(step))
			b.effect(step)
			b.end(start)
		}
		b.patch(b.open, head)
		b.open = append(b.exits(head), lp.breaks...)
	}
}

// header is a loop's head as traces show it: its source line for a .c file,
// else "while (c)" or "for (…; c; …)".
func (b *builder) header(is *cc.IterationStatement, kw string, cond cc.ExpressionNode) string {
	if b.l.lines.to != nil {
		return b.l.text(cond)
	}
	if kw == "for" {
		return "for (…; " + b.l.text(cond) + "; …)"
	}
	return kw + " (" + b.l.text(cond) + ")"
}

// loopHead emits a loop's condition, a cut point, and returns its first node;
// b.open is then the way into the body.
func (b *builder) loopHead(cond cc.ExpressionNode, text string) int {
	b.begin(cond, text)
	head := len(b.t.Nodes)
	// The head's first node must be the cut point even when evaluating the
	// condition first loads shared memory into temporaries.
	b.cutNext = true
	c := b.cond(cond)
	if len(b.t.Nodes) == head { // a constant condition: no node yet
		b.cutNext = true
	}
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: c})
	b.t.Nodes[head].Cut = true
	b.loopCuts = append(b.loopCuts, head)
	b.open = []*int{&br.Next}
	b.loopExit = append(b.loopExit, &br.Else)
	return head
}

// exits returns the loop's exit edge recorded by loopHead for head (none for
// a loop without condition).
func (b *builder) exits(head int) []*int {
	e := b.loopExit[len(b.loopExit)-1]
	b.loopExit = b.loopExit[:len(b.loopExit)-1]
	if e == nil {
		return nil
	}
	return []*int{e}
}

// tripCount is how many times a loop runs when cfront can tell (exactTrips,
// at most maxPool); else the configured bound for pools.
func (b *builder) tripCount(is *cc.IterationStatement) int {
	if n, ok := b.exactTrips(is); ok {
		return min(n, maxPool)
	}
	return b.l.cfg.LoopThreads
}

// exactTrips is how many times a loop runs, when cfront can tell: for (i = a;
// i < c; i++) with constants a and c and i not assigned in the body.
func (b *builder) exactTrips(is *cc.IterationStatement) (int, bool) {
	const unknown = 0
	if is.Case != cc.IterationStatementFor && is.Case != cc.IterationStatementForDecl {
		return unknown, false
	}
	var name string
	var from int64
	switch is.Case {
	case cc.IterationStatementFor:
		a, ok := stripParens(is.ExpressionList).(*cc.AssignmentExpression)
		if !ok || a.Case != cc.AssignmentExpressionAssign {
			return unknown, false
		}
		name = funcName(a.UnaryExpression)
		v, ok := constValue(a.AssignmentExpression)
		if !ok {
			return unknown, false
		}
		from = v
	case cc.IterationStatementForDecl:
		d := is.Declaration
		if d == nil || d.InitDeclaratorList == nil || d.InitDeclaratorList.InitDeclaratorList != nil {
			return unknown, false
		}
		id := d.InitDeclaratorList.InitDeclarator
		if id.Initializer == nil || id.Initializer.Case != cc.InitializerExpr {
			return unknown, false
		}
		v, ok := constValue(id.Initializer.AssignmentExpression)
		if !ok {
			return unknown, false
		}
		name, from = id.Declarator.Name(), v
	}
	cond, step := is.ExpressionList2, is.ExpressionList3
	if is.Case == cc.IterationStatementForDecl {
		cond, step = is.ExpressionList, is.ExpressionList2
	}
	rel, ok := stripParens(cond).(*cc.RelationalExpression)
	if !ok || name == "" || funcName(rel.RelationalExpression) != name {
		return unknown, false
	}
	to, ok := constValue(rel.ShiftExpression)
	if !ok {
		return unknown, false
	}
	if rel.Case == cc.RelationalExpressionLeq {
		to++
	} else if rel.Case != cc.RelationalExpressionLt {
		return unknown, false
	}
	if !isIncrement(step, name) || assigns(is.Statement, name) {
		return unknown, false
	}
	if to-from < 0 {
		return 0, true
	}
	return int(min(to-from, 1<<30)), true
}

// isIncrement reports whether e is name++, ++name or name += 1.
func isIncrement(e cc.ExpressionNode, name string) bool {
	switch x := stripParens(e).(type) {
	case *cc.PostfixExpression:
		return x.Case == cc.PostfixExpressionInc && funcName(x.PostfixExpression) == name
	case *cc.UnaryExpression:
		return x.Case == cc.UnaryExpressionInc && funcName(x.UnaryExpression) == name
	case *cc.AssignmentExpression:
		v, ok := constValue(x.AssignmentExpression)
		return x.Case == cc.AssignmentExpressionAdd && ok && v == 1 && funcName(x.UnaryExpression) == name
	}
	return false
}

// assigns reports whether n may assign the variable name, or take its address.
func assigns(n cc.Node, name string) bool {
	found := false
	walk(n, func(m cc.Node) bool {
		switch x := m.(type) {
		case *cc.AssignmentExpression:
			if x.Case != cc.AssignmentExpressionCond && funcName(x.UnaryExpression) == name {
				found = true
			}
		case *cc.PostfixExpression:
			if (x.Case == cc.PostfixExpressionInc || x.Case == cc.PostfixExpressionDec) && funcName(x.PostfixExpression) == name {
				found = true
			}
		case *cc.UnaryExpression:
			if (x.Case == cc.UnaryExpressionInc || x.Case == cc.UnaryExpressionDec || x.Case == cc.UnaryExpressionAddrof) &&
				funcName(x.UnaryExpression) == name || x.Case == cc.UnaryExpressionAddrof && funcName(x.CastExpression) == name {
				found = true
			}
		}
		return !found
	})
	return found
}

func (b *builder) jump(js *cc.JumpStatement) {
	f := b.frame
	switch js.Case {
	case cc.JumpStatementGoto:
		name := js.Token2.SrcStr()
		if idx, ok := f.labels[name]; ok {
			// A backward jump: its target heads a loop.
			if b.atomic > 0 {
				b.errorf(js, "a backward goto inside an atomic section (a loop) is not supported")
			}
			b.t.Nodes[idx].Cut = true
			b.loopCuts = append(b.loopCuts, idx)
			b.patch(b.open, idx)
		} else {
			f.gotos[name] = append(f.gotos[name], b.open...)
			f.gotoAt[name] = js
		}
		b.open = nil
	case cc.JumpStatementGotoExpr:
		b.errorf(js, "a computed goto is not supported")
	case cc.JumpStatementContinue:
		lp := f.loop
		for lp != nil && lp.isSwitch {
			lp = lp.parent
		}
		if lp == nil {
			b.errorf(js, "continue outside a loop")
			return
		}
		lp.continues = append(lp.continues, b.open...)
		b.open = nil
	case cc.JumpStatementBreak:
		if f.loop == nil {
			b.errorf(js, "break outside a loop or switch")
			return
		}
		f.loop.breaks = append(f.loop.breaks, b.open...)
		b.open = nil
	case cc.JumpStatementReturn:
		start := b.begin(js, b.l.text(js))
		b.returnStmt(js)
		b.end(start)
	}
}

// returnStmt stores the returned value and leaves the frame; from a created
// thread's start routine, the value is the thread's result.
func (b *builder) returnStmt(js *cc.JumpStatement) {
	f := b.frame
	if js.ExpressionList != nil {
		switch {
		case f.top && b.start != nil:
			x := b.convert(b.rv(js.ExpressionList), js.ExpressionList.Type(), nil, ir.Ptr)
			if b.l.results {
				b.assign(b.cellLV(b.start, constant(ir.I64, ir.StartReturn), ir.Ptr), x)
			}
		case f.result != nil:
			b.copyInto(place{v: f.result, typ: f.resultT}, js.ExpressionList)
		default:
			b.effect(js.ExpressionList)
		}
	}
	if b.atomic != f.atomic && !f.top {
		b.errorf(js, "a return inside an atomic section the function opened is not supported")
	}
	f.returns = append(f.returns, b.open...)
	b.open = nil
}

// declaration lowers a block's declarations: each local, with its initializer.
func (b *builder) declaration(d *cc.Declaration) {
	if d == nil || d.Case != cc.DeclarationDecl {
		return
	}
	for list := d.InitDeclaratorList; list != nil; list = list.InitDeclaratorList {
		id := list.InitDeclarator
		dr := id.Declarator
		if dr.IsTypename() || dr.Type().Kind() == cc.Function || dr.IsExtern() {
			continue
		}
		if dr.IsStatic() {
			b.staticLocal(dr, id.Initializer)
			continue
		}
		start := b.begin(id, b.l.text(id))
		loc := b.declare(dr)
		if id.Initializer != nil {
			b.initLocal(loc, id.Initializer)
		} else if !loc.v.Shared && loc.v.Len == 0 && loc.lay.cells[0].typ != ir.Ptr {
			// Perhaps read before it is written: uninit decides once the
			// thread's code is lowered.
			n := b.emit(&ir.Node{Op: ir.OpNop})
			b.uninits = append(b.uninits, uninitDecl{v: loc.v, node: len(b.t.Nodes) - 1, name: dr.Name()})
			_ = n
		}
		b.end(start)
	}
}

// staticLocal records a static local: a global, initialized before main
// starts, created when the code first uses it.
func (b *builder) staticLocal(d *cc.Declarator, init *cc.Initializer) {
	if b.l.statics[d] == nil {
		b.l.statics[d] = &global{name: b.frame.fn.Declarator.Name() + "::" + d.Name(), decl: d, init: init}
	}
}

// initLocal runs a local's initializer: a value, or braces cell by cell (the
// cells not named are zero).
func (b *builder) initLocal(loc *local, in *cc.Initializer) {
	pl := place{v: loc.v, typ: loc.typ}
	if in.Case == cc.InitializerExpr {
		if isStringInit(in, loc.lay.cells[0].typ) {
			s := string(in.AssignmentExpression.Value().(cc.StringValue))
			for i := range loc.lay.n() {
				c := int64(0)
				if i < len(s) {
					c = int64(s[i])
				}
				b.assign(b.cellLV(loc.v, constant(ir.I64, int64(i)), loc.lay.cells[i].typ), constant(loc.lay.cells[i].typ, c))
			}
			return
		}
		b.copyInto(pl, in.AssignmentExpression)
		return
	}
	if opaque[typedefName(loc.typ)] {
		b.assign(b.cellLV(loc.v, nil, ir.MutexCell), constant(ir.MutexCell, 0))
		return
	}
	set := map[int]bool{}
	b.initList(loc, in, set)
	for i := range loc.lay.n() {
		if !set[i] {
			t := loc.lay.cells[i].typ
			b.assign(b.cellLV(loc.v, constant(ir.I64, int64(i)), t), constant(t, 0))
		}
	}
}

func (b *builder) initList(loc *local, in *cc.Initializer, set map[int]bool) {
	switch in.Case {
	case cc.InitializerExpr:
		if loc.lay.inOpaque(in.Offset()) {
			return
		}
		c := loc.lay.cellAt(in.Offset())
		if c < 0 {
			b.errorf(in, "initializer: no scalar at byte %d of %s", in.Offset(), loc.v.Name)
			return
		}
		if in.Type().Kind() == cc.Struct || in.Type().Kind() == cc.Array {
			// A struct initialized from a struct value inside braces.
			sub, err := b.l.layoutOf(in.Type())
			if err != nil {
				b.errorf(in, "%v", err)
				return
			}
			b.copyInto(place{v: loc.v, index: constant(ir.I64, int64(c)), typ: in.Type()}, in.AssignmentExpression)
			for i := range sub.n() {
				set[c+i] = true
			}
			return
		}
		t := loc.lay.cells[c].typ
		x := b.convert(b.rvAs(in.AssignmentExpression, in.Type()), in.AssignmentExpression.Type(), in.Type(), t)
		b.assign(b.cellLV(loc.v, constant(ir.I64, int64(c)), t), x)
		set[c] = true
	case cc.InitializerInitList:
		if loc.lay.inOpaque(in.Offset()) {
			return
		}
		for list := in.InitializerList; list != nil; list = list.InitializerList {
			if list.Initializer != nil {
				b.initList(loc, list.Initializer, set)
			}
		}
	}
}
