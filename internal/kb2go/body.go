package kb2go

import (
	"fmt"
	"slices"
	"strings"

	"kbmc/lang/syntax"
)

// A sym is a variable a body sees: a process variable or a local.
type sym struct {
	goName string
	typ    typ
	size   int // array length; 0: a scalar
}

// element is the Go name of element i of an array.
func (s *sym) element(i int) string { return fmt.Sprintf("kba_%s_%d", s.goName, i) }

// A loop is an enclosing loop: its label, and whether break or continue
// names it.
type loop struct {
	label string
	used  bool
}

// A body writes the statements of one goroutine.
type body struct {
	t      *translator
	pids   int // the instances of the process: pid is in [0, pids)
	w      *strings.Builder
	indent int
	scopes []map[string]*sym
	loops  []*loop
	temps  int
}

func (b *body) line(format string, args ...any) {
	b.w.WriteString(strings.Repeat("\t", b.indent))
	fmt.Fprintf(b.w, format, args...)
	b.w.WriteString("\n")
}

func (b *body) push() { b.scopes = append(b.scopes, map[string]*sym{}) }
func (b *body) pop()  { b.scopes = b.scopes[:len(b.scopes)-1] }

func (b *body) lookup(name string) *sym {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if s, ok := b.scopes[i][name]; ok {
			return s
		}
	}
	return nil
}

func (b *body) temp(prefix string) string {
	b.temps++
	return fmt.Sprintf("%s%d", prefix, b.temps)
}

func (b *body) errorf(pos syntax.Pos, format string, args ...any) {
	b.t.errorf(pos, format, args...)
}

// varDecl declares a process variable or a local: a scalar, or an array as
// one scalar per element. Each is marked used, as .kb does not require it.
func (b *body) varDecl(d *syntax.VarDecl) {
	s := &sym{goName: goName(d.Name.Name), typ: typeOf(d.Type)}
	if d.Size != nil {
		n, _, ok := b.t.constValue(b, d.Size)
		if !ok {
			b.errorf(d.Size.Pos(), "internal error: array size without a value")
			return
		}
		s.size = int(n)
	}
	if s.size == 0 {
		init := "" // the zero value
		if d.Init != nil {
			init = " = " + b.hoist(d.Init)
		}
		b.scopes[len(b.scopes)-1][d.Name.Name] = s
		b.line("var %s %s%s", s.goName, s.typ.Go(), init)
		b.line("_ = %s", s.goName)
		return
	}
	var elems []syntax.Expr
	if l, ok := d.Init.(*syntax.InitList); ok {
		elems = l.Elems
	}
	for i := range s.size {
		init := ""
		if i < len(elems) {
			init = " = " + b.hoist(elems[i])
		}
		b.line("var %s %s%s", s.element(i), s.typ.Go(), init)
		b.line("_ = %s", s.element(i))
	}
	b.scopes[len(b.scopes)-1][d.Name.Name] = s
}

func (b *body) stmts(list []syntax.Stmt) {
	for _, s := range list {
		b.stmt(s)
	}
}

// lens counts the reads of channel lengths in n: each is a step of its own
// in Go, where the .kb statement that holds them is one step.
func lens(n syntax.Node) int {
	k := 0
	if n == nil {
		return 0
	}
	syntax.Inspect(n, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.LenExpr); ok {
			k++
		}
		return true
	})
	return k
}

// oneStep refuses a statement whose expressions read more than max channel
// lengths: Go would read them in steps of their own, where .kb reads them
// in one.
func (b *body) oneStep(pos syntax.Pos, max int, nodes ...syntax.Node) bool {
	k := 0
	for _, n := range nodes {
		k += lens(n)
	}
	if k > max {
		if max == 0 {
			b.errorf(pos, "len of a channel in a statement that is a step of its own in Go (a channel operation, a select, a wait): Go reads the length in another step")
		} else {
			b.errorf(pos, "%d reads of channel lengths in one statement: each is a step of its own in Go, and the .kb statement is one", k)
		}
		return false
	}
	return true
}

func (b *body) block(s syntax.Stmt) {
	b.indent++
	b.push()
	if blk, ok := s.(*syntax.BlockStmt); ok {
		b.stmts(blk.List)
	} else {
		b.stmt(s)
	}
	b.pop()
	b.indent--
}

func (b *body) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.EmptyStmt:
	case *syntax.BlockStmt:
		b.line("{")
		b.block(s)
		b.line("}")
	case *syntax.VarDecl:
		if b.oneStep(s.Pos(), 1, s.Init) {
			if lens(s.Init) > 0 {
				b.cut(s.Init)
			}
			b.varDecl(s)
		}
	case *syntax.AssignStmt:
		if b.oneStep(s.Pos(), 1, s.LHS, s.RHS) {
			op := "="
			switch s.Tok {
			case syntax.ADD_ASSIGN:
				op = "+="
			case syntax.SUB_ASSIGN:
				op = "-="
			}
			if lens(s.LHS)+lens(s.RHS) > 0 {
				b.cut(s.LHS, s.RHS)
			}
			b.store(s.LHS, op, b.hoist(s.RHS))
		}
	case *syntax.IncDecStmt:
		if b.oneStep(s.Pos(), 1, s.X) {
			if lens(s.X) > 0 {
				b.cut(s.X)
			}
			op := "++"
			if s.Tok == syntax.DEC {
				op = "--"
			}
			b.store(s.X, op, "")
		}
	case *syntax.IfStmt:
		if !b.oneStep(s.Pos(), 1, s.Cond) {
			return
		}
		if lens(s.Cond) > 0 {
			b.cut(s.Cond)
		}
		b.line("if %s {", b.hoist(s.Cond))
		b.block(s.Then)
		for s.Else != nil {
			if elif, ok := s.Else.(*syntax.IfStmt); ok && lens(elif.Cond) == 0 && !b.hoisted(elif.Cond) {
				// else if: the condition is local code, folded in both forms.
				b.line("} else if %s {", b.expr(elif.Cond))
				b.block(elif.Then)
				s = elif
				continue
			}
			b.line("} else {")
			b.block(s.Else)
			break
		}
		b.line("}")
	case *syntax.WhileStmt:
		if b.oneStep(s.Pos(), 1, s.Cond) {
			b.loop(nil, s.Cond, nil, s.Body)
		}
	case *syntax.ForStmt:
		if b.oneStep(s.Pos(), 1, s.Cond) && b.oneStep(s.Pos(), 1, s.Init) && b.oneStep(s.Pos(), 1, s.Post) {
			b.loop(s.Init, s.Cond, s.Post, s.Body)
		}
	case *syntax.BranchStmt:
		if len(b.loops) == 0 {
			b.errorf(s.Pos(), "internal error: %s outside a loop", s.Tok)
			return
		}
		l := b.loops[len(b.loops)-1]
		l.used = true
		// Labelled: a break in a select's clause would leave the select.
		b.line("%s %s", s.Tok, l.label)
	case *syntax.ReturnStmt:
		if s.Result != nil {
			b.errorf(s.Pos(), "internal error: return with a value in a thread")
		}
		b.line("return")
	case *syntax.AssertStmt:
		if !b.oneStep(s.Pos(), 1, s.Cond) {
			return
		}
		if lens(s.Cond) > 0 {
			b.cut(s.Cond)
		}
		msg := AssertionPanic
		if s.Msg != nil {
			msg += ": " + s.Msg.Value
		}
		b.line("if !(%s) {", b.hoist(s.Cond))
		b.line("\tpanic(%q)", msg)
		b.line("}")
	case *syntax.GuardStmt:
		b.guard(s)
	case *syntax.LockStmt:
		b.errorf(s.Pos(), "%s: mutexes do not translate (Go's relock blocks where .kb reports it)", s.Tok)
	case *syntax.JoinStmt:
		b.errorf(s.Pos(), "join: only processes of one thread each translate")
	case *syntax.YieldStmt:
		b.t.runtime = true
		b.line("runtime.Gosched()")
	case *syntax.ChanStmt:
		if b.oneStep(s.Pos(), 0, s) {
			b.chanStmt(s)
		}
	case *syntax.AtomicStmt:
		b.atomic(s)
	case *syntax.SelectStmt:
		b.selectStmt(s)
	case *syntax.ExprStmt:
		b.errorf(s.Pos(), "%s: calls and cas do not translate", b.text(s))
	case *syntax.EndStmt:
		b.errorf(s.Pos(), "end label: Go has no valid end state but the end of every goroutine")
	default:
		b.errorf(s.Pos(), "internal error: statement %T", s)
	}
}

// text is the source of a node, for messages.
func (b *body) text(n syntax.Node) string {
	src := b.t.file.Src
	from, to := n.Pos().Offset, n.End().Offset
	if from < 0 || to > len(src) || from > to {
		return "statement"
	}
	return string(src[from:to])
}

// guard translates await(c) over a goroutine's own memory: the condition
// cannot change while the goroutine waits, so a false one waits for ever,
// as select {} does. assume has no Go form: a false one cuts the execution,
// where a Go goroutine would wait or go on.
func (b *body) guard(s *syntax.GuardStmt) {
	if s.Tok == syntax.ASSUME {
		b.errorf(s.Pos(), "assume: Go has no statement that cuts an execution")
		return
	}
	if lens(s.Cond) > 0 {
		b.errorf(s.Pos(), "await on a channel's length: Go has no statement that waits for a condition on shared state")
		return
	}
	b.gosched("await")
	b.line("if !(%s) {", b.expr(s.Cond))
	b.line("\tselect {} // waits for ever: nothing else writes the goroutine's memory")
	b.line("}")
}

// atomic translates an atomic block: it reads and writes the goroutine's
// own memory only (channel operations may not be in it), with at most one
// read of a channel's length, so that it is at most one Go step too.
func (b *body) atomic(s *syntax.AtomicStmt) {
	if !b.oneStep(s.Pos(), 1, s.Body) {
		return
	}
	// With a read of a channel's length inside, that read is the Go step,
	// and what comes before it folds into the step before, which changes
	// nothing unless it may fail.
	if lens(s.Body) == 0 || !b.failFreeBlock(s.Body) {
		b.gosched("the atomic block")
		b.t.split = b.t.split || lens(s.Body) > 0
	}
	b.line("{")
	b.block(s.Body)
	b.line("}")
}

// loop translates while and for loops. Each is labelled, so that break and
// continue name it from inside a select's clause too; the label is written
// only when used (Go refuses an unused one).
func (b *body) loop(init syntax.Stmt, cond syntax.Expr, post syntax.Stmt, loopBody syntax.Stmt) {
	b.line("{")
	b.indent++
	b.push()
	if init != nil {
		b.stmt(init)
	}
	p := ""
	if post != nil {
		p = b.simple(post)
	}
	l := &loop{label: b.temp("kbL")}
	b.loops = append(b.loops, l)
	outer := b.w
	var inner strings.Builder
	b.w = &inner
	b.indent++
	// Each evaluation of the condition starts a .kb transition, and gofront
	// makes a loop's header a cut point too: the loop head is a step in
	// both forms, with nothing in between. A read of a channel's length in
	// the condition is one more Go step.
	b.t.split = b.t.split || lens(cond) > 0
	if cond != nil {
		b.line("if !(%s) {", b.hoist(cond))
		b.line("\tbreak")
		b.line("}")
	}
	b.indent--
	b.block(loopBody)
	b.w = outer
	b.loops = b.loops[:len(b.loops)-1]
	if l.used {
		b.indent--
		b.line("%s:", l.label)
		b.indent++
	}
	if p == "" {
		b.line("for {")
	} else {
		b.line("for ; ; %s {", p)
	}
	b.w.WriteString(inner.String())
	b.line("}")
	b.pop()
	b.indent--
	b.line("}")
}

// gosched writes a step that does nothing, where .kb starts a transition
// that Go would otherwise fold into the step before: an atomic block, an
// await, or a statement whose evaluation before its channel operation may
// fail. Go then fails in a step that starts where .kb's
// does, after the same interleavings.
func (b *body) gosched(what string) {
	b.t.runtime = true
	b.line("runtime.Gosched() // %s: .kb's transition starts here", what)
}

// cut writes a Gosched before a statement with a channel operation (or a
// read of a channel's length) when the evaluation that precedes the
// operation may fail: .kb evaluates it in the operation's step, Go in the
// step before.
func (b *body) cut(exprs ...syntax.Expr) {
	for _, e := range exprs {
		if e != nil && !b.safe(e) {
			b.gosched("the statement")
			b.t.split = true
			return
		}
	}
}

// simple is a for loop's post statement as a Go simple statement.
func (b *body) simple(s syntax.Stmt) string {
	var lhs syntax.Expr
	switch s := s.(type) {
	case *syntax.AssignStmt:
		lhs = s.LHS
	case *syntax.IncDecStmt:
		lhs = s.X
	}
	if as, ok := s.(*syntax.AssignStmt); ok && b.hoisted(as.RHS) {
		b.errorf(s.Pos(), "a conditional whose branches may fail or draw, in a for loop's post statement: Go's post statement is a simple statement, with no room for the statements that evaluate the branch taken only")
		return ""
	}
	if lens(s) > 0 {
		b.errorf(s.Pos(), "len of a channel in a for loop's post statement: Go's post statement runs where .kb's statement starts no step")
		return ""
	}
	id, ok := lhs.(*syntax.Ident)
	if !ok || b.lookup(id.Name) == nil || b.lookup(id.Name).size > 0 {
		b.errorf(s.Pos(), "a for loop's post statement that is not an assignment of a scalar: Go's post statement is a simple statement")
		return ""
	}
	outer := b.w
	var w strings.Builder
	b.w = &w
	indent := b.indent
	b.indent = 0
	b.stmt(s)
	b.w, b.indent = outer, indent
	return strings.TrimSpace(w.String())
}

// store assigns to a variable or an array element: op is =, +=, -=, ++ or
// --, x its value's Go text (evaluated before the element's index, as .kb
// does).
func (b *body) store(lhs syntax.Expr, op, x string) {
	assign := func(name string) string {
		if op == "++" || op == "--" {
			return name + op
		}
		return name + " " + op + " " + x
	}
	switch e := syntax.Unparen(lhs).(type) {
	case *syntax.Ident:
		s := b.lookup(e.Name)
		if s == nil {
			b.errorf(e.Pos(), "internal error: %s is no variable", e.Name)
			return
		}
		b.line("%s", assign(s.goName))
	case *syntax.IndexExpr:
		s := b.lookup(e.X.Name)
		if s == nil || s.size == 0 {
			b.errorf(e.Pos(), "internal error: %s is no array", e.X.Name)
			return
		}
		if i, _, ok := b.t.constValue(b, e.Index); ok && i >= 0 && i < int64(s.size) {
			b.line("%s", assign(s.element(int(i))))
			return
		}
		b.line("{")
		b.indent++
		if x != "" {
			v := b.temp("kbv")
			b.line("var %s %s = %s", v, s.typ.Go(), x)
			x = v
		}
		b.line("switch %s {", b.expr(e.Index))
		for i := range s.size {
			b.line("case %d:", i)
			b.line("\t%s", assign(s.element(i)))
		}
		b.line("default:")
		b.line("\tpanic(%q)", BoundsPanic)
		b.line("}")
		b.indent--
		b.line("}")
	default:
		b.errorf(lhs.Pos(), "internal error: assignment to %T", e)
	}
}

// channelOf is the Go expression of a channel operand, and its channel.
func (b *body) channelOf(x syntax.Expr) (string, *channel) {
	switch e := syntax.Unparen(x).(type) {
	case *syntax.Ident:
		if c := b.t.chans[e.Name]; c != nil {
			return c.goName, c
		}
	case *syntax.IndexExpr:
		if c := b.t.chans[e.X.Name]; c != nil {
			if i, _, ok := b.t.constValue(b, e.Index); ok && i >= 0 && i < int64(c.size) {
				return c.element(int(i)), c
			}
			args := []string{b.hoist(e.Index)}
			for i := range c.size {
				args = append(args, c.element(i))
			}
			return fmt.Sprintf("%s(%s)", b.t.chanHelper(c.elem(), c.size), strings.Join(args, ", ")), c
		}
	}
	b.errorf(x.Pos(), "internal error: %s is no channel", b.text(x))
	return "nil", nil
}

// message is the Go value of a message: the field, or the fields packed.
func (b *body) message(c *channel, fields []syntax.Expr) string {
	var xs []string
	for i, f := range fields {
		x := b.hoist(f)
		if i+1 < len(fields) && slices.ContainsFunc(fields[i+1:], b.hoisted) {
			// A later field's statements must not run before this one.
			v := b.temp("kbt")
			ty := tInt
			if b.boolExpr(f) {
				ty = tBool
			}
			b.line("var %s %s = %s", v, ty.Go(), x)
			x = v
		}
		xs = append(xs, x)
	}
	if len(c.fields) == 1 {
		return xs[0]
	}
	return fmt.Sprintf("%s(%s)", b.t.packHelper(c), strings.Join(xs, ", "))
}

// received stores a received message m (ok its flag, "" without one) into
// the recv's destinations, in order, then ok into ok(b)'s.
func (b *body) received(c *channel, s *syntax.ChanStmt, m, ok string) {
	for i, d := range s.Args[1:] {
		b.store(d, "=", c.unpack(m, i))
	}
	if s.OK != nil {
		b.store(s.OK, "=", ok)
	}
}

func (b *body) chanStmt(s *syntax.ChanStmt) {
	if s.Tok == syntax.SEND && !b.messageSafe(s) {
		return
	}
	b.cut(s.Args[0])
	switch s.Tok {
	case syntax.SEND:
		c := b.channel(s)
		if c == nil {
			return
		}
		// The message first, then the channel: .kb evaluates the fields
		// before the channel's index.
		msg := b.message(c, s.Args[1:])
		if ix, ok := syntax.Unparen(s.Args[0]).(*syntax.IndexExpr); ok && b.hoisted(ix.Index) {
			// The index's statements must not run before the message.
			v := b.temp("kbt")
			b.line("var %s %s = %s", v, c.elem(), msg)
			msg = v
		}
		ch, _ := b.channelOf(s.Args[0])
		b.line("%s <- %s", ch, msg)
	case syntax.RECV:
		ch, c := b.channelOf(s.Args[0])
		if c == nil {
			return
		}
		m := b.temp("kbm")
		b.line("{")
		b.indent++
		if s.OK != nil {
			ok := b.temp("kbok")
			b.line("%s, %s := <-%s", m, ok, ch)
			b.received(c, s, m, ok)
		} else {
			b.line("%s := <-%s", m, ch)
			b.received(c, s, m, "")
		}
		b.indent--
		b.line("}")
	case syntax.CLOSE:
		ch, _ := b.channelOf(s.Args[0])
		b.line("close(%s)", ch)
	}
}

// channel is the channel a channel statement names.
func (b *body) channel(s *syntax.ChanStmt) *channel {
	x := syntax.Unparen(s.Args[0])
	if ix, ok := x.(*syntax.IndexExpr); ok {
		x = ix.X
	}
	if id, ok := x.(*syntax.Ident); ok {
		if c := b.t.chans[id.Name]; c != nil {
			return c
		}
	}
	b.errorf(s.Pos(), "internal error: %s is no channel", b.text(s.Args[0]))
	return nil
}

// selectStmt translates a select: a when guard is Go's nil channel, which
// no case is ever ready on. lang evaluates the messages of the send cases
// before the select, in case order, and the channels' indices and the
// guards in the select's step; so does the Go form, with the messages in
// temporaries (Go would evaluate each case's channel and message in turn).
func (b *body) selectStmt(s *syntax.SelectStmt) {
	for _, cl := range s.Clauses {
		if cl.Comm == nil {
			continue
		}
		if !b.oneStep(cl.Comm.Pos(), 0, cl.Comm, cl.When) {
			return
		}
		if cl.When != nil && !b.safe(cl.When) {
			b.errorf(cl.When.Pos(), "a when guard that may fail or draw: Go evaluates it with the case's channel")
			return
		}
	}
	// Whether a rendezvous receiver waits is what a select with a default
	// sees of a rendezvous send case, and a Go goroutine reaches its first
	// receive by a step of its own (its start), where a .kb thread is at
	// its first statement from the initial state.
	deflt := slices.ContainsFunc(s.Clauses, func(cl *syntax.CommClause) bool { return cl.Comm == nil })
	var pre []syntax.Expr
	for _, cl := range s.Clauses {
		if cl.Comm == nil {
			continue
		}
		if c := b.channel(cl.Comm); deflt && c != nil && c.cap == 0 && cl.Comm.Tok == syntax.SEND {
			b.errorf(cl.Comm.Pos(), "a select with a default and a send case on a rendezvous channel: it sees whether a receiver already waits, and a goroutine reaches its first receive by a step that a .kb thread does not take")
			return
		}
		if cl.Comm.Tok == syntax.SEND && !b.messageSafe(cl.Comm) {
			return
		}
		pre = append(pre, cl.Comm.Args[0], cl.When)
	}
	b.cut(pre...)
	b.line("{")
	b.indent++
	msgs := map[*syntax.CommClause]string{}
	for _, cl := range s.Clauses {
		if cl.Comm == nil || cl.Comm.Tok != syntax.SEND {
			continue
		}
		c := b.channel(cl.Comm)
		if c == nil {
			return
		}
		m := b.temp("kbs")
		b.line("var %s %s = %s", m, c.elem(), b.message(c, cl.Comm.Args[1:]))
		msgs[cl] = m
	}
	// The channels, after the messages: an index that needs statements of
	// its own (hoist) gets them here, outside the select.
	chans := map[*syntax.CommClause]string{}
	for _, cl := range s.Clauses {
		if cl.Comm == nil {
			continue
		}
		c := b.channel(cl.Comm)
		if c == nil {
			return
		}
		if cl.When == nil {
			chans[cl], _ = b.channelOf(cl.Comm.Args[0])
			continue
		}
		// The channel is nil, on which Go never takes a case, while the
		// guard is false; its index is evaluated only when it is true, as
		// lang does.
		ch := b.temp("kbch")
		b.line("var %s chan %s", ch, c.elem())
		b.line("if %s {", b.expr(cl.When))
		b.indent++
		x, _ := b.channelOf(cl.Comm.Args[0])
		b.line("%s = %s", ch, x)
		b.indent--
		b.line("}")
		chans[cl] = ch
	}
	b.line("select {")
	for _, cl := range s.Clauses {
		if cl.Comm == nil {
			b.line("default:")
			b.block(cl.Body)
			continue
		}
		ch, c := chans[cl], b.channel(cl.Comm)
		if cl.Comm.Tok == syntax.SEND {
			b.line("case %s <- %s:", ch, msgs[cl])
			b.block(cl.Body)
			continue
		}
		m := b.temp("kbm")
		ok := ""
		if cl.Comm.OK != nil {
			ok = b.temp("kbok")
			b.line("case %s, %s := <-%s:", m, ok, ch)
		} else {
			b.line("case %s := <-%s:", m, ch)
		}
		b.indent++
		b.received(c, cl.Comm, m, ok)
		b.indent--
		b.block(cl.Body)
	}
	b.line("}")
	b.indent--
	b.line("}")
}

// bounds returns an interval that holds every value of the int expression
// e, when it knows one: constants, pid and tid, and the sums, remainders
// and masks of them that index rings of channels ((pid + 1) % N), so that
// such an index is known to be in range.
func (b *body) bounds(e syntax.Expr) (lo, hi int64, known bool) {
	if v, _, ok := b.t.constValue(b, e); ok {
		return v, v, true
	}
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return b.bounds(e.X)
	case *syntax.PidExpr:
		return 0, int64(b.pids - 1), true
	case *syntax.TidExpr:
		return 0, 0, true // one thread per process instance
	case *syntax.BinaryExpr:
		xl, xh, ok1 := b.bounds(e.X)
		yl, yh, ok2 := b.bounds(e.Y)
		if e.Op == syntax.AND {
			// A mask k >= 0 keeps any int in [0, k].
			switch {
			case ok2 && yl == yh && yl >= 0:
				return 0, yl, true
			case ok1 && xl == xh && xl >= 0:
				return 0, xl, true
			}
		}
		if !ok1 || !ok2 || xl < 0 || yl < 0 || xh > 1<<20 || yh > 1<<20 {
			return 0, 0, false
		}
		switch e.Op {
		case syntax.ADD:
			return xl + yl, xh + yh, true
		case syntax.REM:
			if yl == yh && yl > 0 {
				return 0, min(xh, yl-1), true
			}
		case syntax.AND:
			return 0, min(xh, yh), true
		}
	}
	return 0, 0, false
}

// failFreeBlock reports whether nothing in a block can fail: no assert, no
// expression that may fail.
func (b *body) failFreeBlock(blk *syntax.BlockStmt) bool {
	ok := true
	syntax.Inspect(blk, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssertStmt:
			ok = false
		case syntax.Expr:
			ok = ok && b.failFree(n)
			return false
		}
		return ok
	})
	return ok
}

// messageSafe refuses a send whose message may fail: Go evaluates a send's
// message before it waits, .kb when the send proceeds, so a send that
// waits for ever fails in Go and not in .kb. (A draw in the message is
// local: drawn earlier, it changes nothing.)
func (b *body) messageSafe(s *syntax.ChanStmt) bool {
	for _, f := range s.Args[1:] {
		if !b.failFree(f) {
			b.errorf(f.Pos(), "a message that may fail: Go evaluates a send's message before the send waits, .kb when it proceeds")
			return false
		}
	}
	return true
}

// safe reports whether evaluating e can neither fail nor draw a value: then
// evaluating it where .kb would not (a conditional's branch not taken, a
// select case's guard or message) changes nothing.
func (b *body) safe(e syntax.Expr) bool { return b.pure(e, false) }

// failFree reports whether evaluating e cannot fail; it may draw.
func (b *body) failFree(e syntax.Expr) bool { return b.pure(e, true) }

// pure reports whether evaluating e can neither fail nor, unless draws,
// draw a value.
func (b *body) pure(e syntax.Expr, draws bool) bool {
	ok := true
	syntax.Inspect(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.NondetExpr:
			ok = draws // its bounds are constants
		case *syntax.CallExpr, *syntax.CasExpr:
			ok = false
		case *syntax.IndexExpr:
			s := b.lookup(n.X.Name)
			size := 0
			if s != nil {
				size = s.size
			} else if c := b.t.chans[n.X.Name]; c != nil {
				size = c.size
			}
			if lo, hi, known := b.bounds(n.Index); !known || lo < 0 || hi >= int64(size) {
				ok = false
			}
		case *syntax.BinaryExpr:
			switch n.Op {
			case syntax.QUO, syntax.REM:
				if y, _, c := b.t.constValue(b, n.Y); !c || y == 0 {
					ok = false
				}
			case syntax.SHL, syntax.SHR:
				if y, _, c := b.t.constValue(b, n.Y); !c || y < 0 || y >= Width {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}
