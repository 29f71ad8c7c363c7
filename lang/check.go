package lang

import (
	"fmt"
	"slices"
	"strings"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// MaxArraySize bounds every array, and the shared state as a whole, by the same
// limit ir puts on the whole state vector.
const MaxArraySize = ir.MaxStateCells

// checker resolves names, computes types and constant values, and reports every
// violation of the language's static rules.
type checker struct {
	file    *syntax.File
	arith   arith
	defines map[string]int64
	errs    syntax.ErrorList

	globals map[string]object
	consts  []*constObj
	shared  []*varObj
	mutexes []*mutexObj
	funcs   []*funcObj
	threads []*threadObj
	procs   []*processObj
	chans   []*chanObj

	// Invariants (invariant.go): the declarations; while one is checked,
	// inInvariant is set and quants holds the quantifiers in scope; quantOf
	// and members record what its names and member accesses stand for.
	invariants  []*syntax.InvariantDecl
	inInvariant bool
	quants      *quantScope
	quantOf     map[*syntax.Ident]*syntax.QuantExpr
	members     map[*syntax.MemberExpr]memberRef

	uses   map[*syntax.Ident]object // name uses
	defs   map[*syntax.Ident]object // declarations of locals and parameters
	types  map[syntax.Expr]operand  // every checked expression
	funcOf map[*syntax.CallExpr]*funcObj

	// guards are operands that are evaluated to decide whether a thread is
	// enabled (await and assume conditions, lock and join indices). They must be
	// plain expressions, checked after all bodies (see checkGuards).
	guards []guardUse
}

type guardUse struct {
	x    syntax.Expr
	what string // "await condition", "lock index", …
}

func newChecker(f *syntax.File, width int, defines map[string]int64) *checker {
	return &checker{
		file:    f,
		arith:   arith{width},
		defines: defines,
		globals: map[string]object{},
		uses:    map[*syntax.Ident]object{},
		defs:    map[*syntax.Ident]object{},
		types:   map[syntax.Expr]operand{},
		funcOf:  map[*syntax.CallExpr]*funcObj{},
		quantOf: map[*syntax.Ident]*syntax.QuantExpr{},
		members: map[*syntax.MemberExpr]memberRef{},
	}
}

func (c *checker) errorf(pos syntax.Pos, format string, args ...any) {
	c.errs = append(c.errs, c.file.NewError(pos, fmt.Sprintf(format, args...)))
}

func exprString(x syntax.Expr) string { return syntax.ExprString(x) }

// describe renders an operand for messages: "x + 1 (int)".
func describe(x syntax.Expr, t typ) string {
	return fmt.Sprintf("%s (%s)", exprString(x), t)
}

// check runs every static check of the file.
func (c *checker) check() {
	c.collect()
	c.applyDefines()
	for _, o := range c.consts {
		c.resolveConst(o)
	}
	c.checkProcesses()
	c.checkChannels()
	c.checkShared()
	c.checkMutexes()
	c.checkThreadCounts()
	for _, f := range c.funcs {
		c.checkSignature(f)
	}
	for _, f := range c.funcs {
		c.checkFuncBody(f)
	}
	for _, t := range c.threads {
		c.checkThreadBody(t)
	}
	c.checkInvariants()
	c.checkRecursion()
	c.checkGuards()
	if len(c.threads) == 0 {
		// Nothing would run, and every property would hold vacuously: a
		// "safe" verdict would only hide the mistake.
		c.errorf(syntax.Pos{}, "no thread: declare at least one (thread name { … }, or a thread inside a process)")
	}
}

// collect declares every top-level name: they are all visible in the whole file.
// The members of a process are visible in that process's bodies, before and
// after their declaration.
func (c *checker) collect() {
	for _, d := range c.file.Decls {
		switch d := d.(type) {
		case *syntax.ConstDecl:
			o := &constObj{id: d.Name, decl: d}
			if c.declareGlobal(o) {
				c.consts = append(c.consts, o)
			}
		case *syntax.ChanDecl:
			o := &chanObj{id: d.Name, decl: d}
			if c.declareGlobal(o) {
				c.chans = append(c.chans, o)
			}
		case *syntax.InvariantDecl:
			c.collectInvariant(d)
		case *syntax.ProcessDecl:
			o := &processObj{id: d.Name, decl: d, names: map[string]object{}}
			if c.declareGlobal(o) {
				c.procs = append(c.procs, o)
				for _, m := range d.Decls {
					c.collectMember(o, m)
				}
			}
		default:
			c.collectMember(nil, d)
		}
	}
	// A process member may not hide a name of the file: "leader" would mean two
	// things in the process's bodies.
	for _, p := range c.procs {
		for name, o := range p.names {
			if g, ok := c.globals[name]; ok {
				c.errorf(o.ident().Pos(), "%s redeclared in process %s (previous declaration as %s at %s)",
					name, p.id.Name, kindOf(g), g.ident().Pos())
			}
		}
	}
}

// collectMember declares a shared variable, mutex, function or thread of process
// p, or at top level when p is nil.
func (c *checker) collectMember(p *processObj, d syntax.Decl) {
	declare := func(o object) bool {
		if p == nil {
			return c.declareGlobal(o)
		}
		id := o.ident()
		if prev, ok := p.names[id.Name]; ok {
			c.errorf(id.Pos(), "%s redeclared in process %s (previous declaration as %s at %s)",
				id.Name, p.id.Name, kindOf(prev), prev.ident().Pos())
			return false
		}
		p.names[id.Name] = o
		c.defs[id] = o
		return true
	}
	switch d := d.(type) {
	case *syntax.VarDecl:
		o := &varObj{id: d.Name, typ: typeOf(d.Type), shared: true, decl: d, proc: p}
		if declare(o) {
			c.shared = append(c.shared, o)
		}
	case *syntax.MutexDecl:
		o := &mutexObj{id: d.Name, decl: d, proc: p}
		if declare(o) {
			c.mutexes = append(c.mutexes, o)
		}
	case *syntax.FuncDecl:
		o := &funcObj{id: d.Name, decl: d, result: voidType, proc: p}
		if declare(o) {
			c.funcs = append(c.funcs, o)
		}
	case *syntax.ThreadDecl:
		o := &threadObj{id: d.Name, decl: d, proc: p}
		if declare(o) {
			c.threads = append(c.threads, o)
		}
	case *syntax.ConstDecl:
		c.errorf(d.Pos(), "constant %s declared inside process %s: constants are declared at top level", d.Name.Name, p.id.Name)
	case *syntax.ChanDecl:
		c.errorf(d.Pos(), "channel %s declared inside process %s: channels are declared at top level", d.Name.Name, p.id.Name)
	case *syntax.ProcessDecl:
		c.errorf(d.Pos(), "process %s declared inside process %s: processes cannot be nested", d.Name.Name, p.id.Name)
	case *syntax.InvariantDecl:
		c.errorf(d.Pos(), "invariant %s declared inside process %s: invariants are declared at top level "+
			"(they read every process's memory, as %s[i].x)", d.Name.Name, p.id.Name, p.id.Name)
	}
}

// checkProcesses checks the process counts and the rule that makes a program with
// processes distributed: every thread belongs to a process, and nothing is shared
// outside one.
func (c *checker) checkProcesses() {
	for _, p := range c.procs {
		if p.decl.Count != nil {
			n, ok := c.size(nil, p.decl.Count, "process count", ir.MaxThreads)
			if !ok {
				p.count = -1
				continue
			}
			p.count = n
		}
	}
	if len(c.procs) == 0 {
		return
	}
	for _, v := range c.shared {
		if v.proc == nil {
			c.errorf(v.decl.Pos(), "shared variable %s outside a process: processes share no memory; use a channel, "+
				"or declare %s inside a process", v.id.Name, v.id.Name)
		}
	}
	for _, m := range c.mutexes {
		if m.proc == nil {
			c.errorf(m.decl.Pos(), "mutex %s outside a process: processes share no memory; declare it inside a process", m.id.Name)
		}
	}
	for _, t := range c.threads {
		if t.proc == nil {
			c.errorf(t.decl.Pos(), "thread %s outside a process: in a program with processes every thread belongs to a process", t.id.Name)
		}
	}
}

// checkChannels checks each channel declaration: its count, fields and capacity.
func (c *checker) checkChannels() {
	for _, ch := range c.chans {
		d := ch.decl
		if d.Size != nil {
			n, ok := c.size(nil, d.Size, "channel array size", MaxArraySize)
			if !ok {
				n = -1
			}
			ch.size = n
		}
		if len(d.Fields) == 0 {
			c.errorf(d.Rparen, "channel %s has no fields: a message has at least one (int or bool)", ch.id.Name)
		}
		for _, f := range d.Fields {
			ch.fields = append(ch.fields, typeOf(f))
		}
		if n, ok := c.constInt(nil, d.Cap, "capacity of channel "+ch.id.Name); ok {
			switch {
			case n < 0:
				c.errorf(d.Cap.Pos(), "capacity of channel %s must be at least 0, is %d", ch.id.Name, n)
			case n == 0 && d.Lossy.IsValid():
				c.errorf(d.Lossy, "channel %s is a rendezvous (capacity 0): it holds no message to lose", ch.id.Name)
			case n == 0 && d.Unordered.IsValid():
				c.errorf(d.Unordered, "channel %s is a rendezvous (capacity 0): it holds no messages to reorder", ch.id.Name)
			case n > MaxArraySize:
				c.errorf(d.Cap.Pos(), "capacity of channel %s too large: %d (limit %d)", ch.id.Name, n, MaxArraySize)
			default:
				ch.capacity = int(n)
			}
		}
	}
}

func (c *checker) declareGlobal(o object) bool {
	id := o.ident()
	if prev, ok := c.globals[id.Name]; ok {
		c.errorf(id.Pos(), "%s redeclared in this file (previous declaration as %s at %s)",
			id.Name, kindOf(prev), prev.ident().Pos())
		return false
	}
	c.globals[id.Name] = o
	c.defs[id] = o
	return true
}

// applyDefines checks the -D overrides; resolveConst uses their values.
func (c *checker) applyDefines() {
	names := make([]string, 0, len(c.defines))
	for n := range c.defines {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v := c.defines[n]
		switch o := c.globals[n].(type) {
		case *constObj:
			if v < c.arith.min() || v > c.arith.max() {
				c.errorf(syntax.Pos{}, "-D %s=%d: value out of range for %d-bit int (%d..%d)",
					n, v, c.arith.width, c.arith.min(), c.arith.max())
			}
		case nil:
			c.errorf(syntax.Pos{}, "-D %s=%d: undefined: no constant %s is declared", n, v, n)
		default:
			c.errorf(syntax.Pos{}, "-D %s=%d: %s is a %s, not a constant", n, v, n, kindOf(o))
		}
	}
}

// resolveConst evaluates a constant declaration, once. Constants may refer to
// constants declared later; a cycle is an error.
func (c *checker) resolveConst(o *constObj) {
	if o.state != unresolved {
		return
	}
	o.state = resolving
	if v, ok := c.constInt(nil, o.decl.Value, "constant "+o.id.Name+":"); ok {
		o.val, o.ok = v, true
	}
	if v, ok := c.defines[o.id.Name]; ok {
		o.val, o.ok = c.arith.wrap(v), true
	}
	o.state = resolved
}

// constInt checks that x is an integer constant expression and returns its value.
// what names the place for messages ("array size", "value of constant N").
func (c *checker) constInt(b *body, x syntax.Expr, what string) (int64, bool) {
	return c.constOfType(b, x, intType, what)
}

// constOfType checks that x is a constant of type t and returns its value.
func (c *checker) constOfType(b *body, x syntax.Expr, t typ, what string) (int64, bool) {
	op := c.expr(b, x)
	switch {
	case op.typ == invalid:
		return 0, false
	case op.typ != t:
		c.errorf(x.Pos(), "cannot use %s as %s value in %s", describe(x, op.typ), t, what)
		return 0, false
	case op.constErr != "":
		c.errorf(x.Pos(), "%s %s is not a constant: %s", what, exprString(x), op.constErr)
		return 0, false
	case !op.isConst:
		c.errorf(x.Pos(), "%s %s is not a constant", what, exprString(x))
		return 0, false
	}
	return op.val, true
}

// size checks an array size or thread count: a constant in 1..limit.
func (c *checker) size(b *body, x syntax.Expr, what string, limit int) (int, bool) {
	v, ok := c.constInt(b, x, what)
	if !ok {
		return 0, false
	}
	if v <= 0 {
		c.errorf(x.Pos(), "%s %s must be positive, is %d", what, exprString(x), v)
		return 0, false
	}
	if v > int64(limit) {
		c.errorf(x.Pos(), "%s %d too large (limit %d)", what, v, limit)
		return 0, false
	}
	return int(v), true
}

func (c *checker) checkShared() {
	total := 0
	for _, v := range c.shared {
		d := v.decl
		if d.Size != nil {
			n, ok := c.size(nil, d.Size, "array size", MaxArraySize)
			if !ok {
				v.size = -1
				c.exprsOnly(nil, d.Init)
				continue
			}
			v.size = n
		}
		total += max(v.size, 1)
		if total > MaxArraySize {
			c.errorf(d.Pos(), "too much shared state: more than %d cells", MaxArraySize)
			return
		}
		if d.Init != nil {
			v.init = c.sharedInit(v)
		}
	}
}

// exprs checks each expression of list for its own errors.
func (c *checker) exprs(b *body, list []syntax.Expr) {
	for _, x := range list {
		c.expr(b, x)
	}
}

// exprsOnly checks the expressions of an initialiser that cannot be used, for
// their own errors.
func (c *checker) exprsOnly(b *body, x syntax.Expr) {
	if l, ok := x.(*syntax.InitList); ok {
		c.exprs(b, l.Elems)
	} else if x != nil {
		c.expr(b, x)
	}
}

// sharedInit computes a shared variable's initial values, all constants.
func (c *checker) sharedInit(v *varObj) []int64 {
	d := v.decl
	what := "initial value of shared " + v.id.Name
	list, isList := d.Init.(*syntax.InitList)
	switch {
	case v.size == 0 && isList:
		c.errorf(d.Init.Pos(), "cannot initialise scalar %s with a list", v.id.Name)
		c.exprsOnly(nil, d.Init)
		return nil
	case v.size > 0 && !isList:
		c.errorf(d.Init.Pos(), "cannot initialise array %s with a single value (use a list {…})", v.id.Name)
		c.expr(nil, d.Init)
		return nil
	case v.size == 0:
		if x, ok := c.constOfType(nil, d.Init, v.typ, what); ok {
			return []int64{x}
		}
		return nil
	}
	if len(list.Elems) > v.size {
		c.errorf(list.Elems[v.size].Pos(), "too many initialisers for %s[%d]: %d", v.id.Name, v.size, len(list.Elems))
		c.exprsOnly(nil, list)
		return nil
	}
	init := make([]int64, v.size)
	for i, e := range list.Elems {
		init[i], _ = c.constOfType(nil, e, v.typ, what)
	}
	return init
}

func (c *checker) checkMutexes() {
	total := 0
	for _, m := range c.mutexes {
		if m.decl.Size != nil {
			n, ok := c.size(nil, m.decl.Size, "mutex array size", MaxArraySize)
			if !ok {
				m.size = -1
				continue
			}
			m.size = n
		}
		total += max(m.size, 1)
		if total > MaxArraySize {
			c.errorf(m.decl.Pos(), "too many mutexes: more than %d", MaxArraySize)
			return
		}
	}
}

func (c *checker) checkThreadCounts() {
	total := 0
	for _, t := range c.threads {
		if t.decl.Count != nil {
			n, ok := c.size(nil, t.decl.Count, "thread count", ir.MaxThreads)
			if !ok {
				t.count = -1
				continue
			}
			t.count = n
		}
		instances := max(t.count, 1)
		if t.proc != nil {
			instances *= max(t.proc.count, 1)
		}
		total += instances
		if total > ir.MaxThreads {
			c.errorf(t.decl.Pos(), "too many threads: more than %d instances", ir.MaxThreads)
			return
		}
	}
}

func (c *checker) checkSignature(f *funcObj) {
	d := f.decl
	seen := map[string]*syntax.Ident{}
	for _, p := range d.Params {
		v := &varObj{id: p.Name, typ: typeOf(p.Type), param: true, fn: f}
		if prev, ok := seen[p.Name.Name]; ok {
			c.errorf(p.Name.Pos(), "%s redeclared in this function (previous declaration at %s)", p.Name.Name, prev.Pos())
		}
		seen[p.Name.Name] = p.Name
		c.defs[p.Name] = v
		f.params = append(f.params, v)
	}
	if d.Result != nil {
		f.result = typeOf(d.Result)
	}
	if d.Result != nil && len(d.Body.List) == 1 {
		if r, ok := d.Body.List[0].(*syntax.ReturnStmt); ok && r.Result != nil {
			f.exprBody = r.Result
		}
	}
}

func (c *checker) checkFuncBody(f *funcObj) {
	b := &body{fn: f, scope: &scope{names: map[string]*varObj{}}}
	for _, p := range f.params {
		if _, dup := b.scope.names[p.id.Name]; !dup {
			b.scope.names[p.id.Name] = p
		}
	}
	c.block(b, f.decl.Body.List, false)
	if f.result != voidType && !terminates(f.decl.Body) {
		c.errorf(f.decl.Body.Rbrace, "missing return at end of function %s (it returns %s)", f.id.Name, f.result)
	}
}

func (c *checker) checkThreadBody(t *threadObj) {
	b := &body{thread: t, scope: &scope{names: map[string]*varObj{}}}
	c.block(b, t.decl.Body.List, false)
}

// terminates reports whether control cannot fall off the end of s: the
// function's "missing return" rule, after Go's terminating statements.
func terminates(s syntax.Stmt) bool {
	switch s := s.(type) {
	case *syntax.ReturnStmt:
		return true
	case *syntax.BlockStmt:
		return len(s.List) > 0 && terminates(s.List[len(s.List)-1])
	case *syntax.AtomicStmt:
		return terminates(s.Body)
	case *syntax.IfStmt:
		return s.Else != nil && terminates(s.Then) && terminates(s.Else)
	case *syntax.WhileStmt:
		return isTrue(s.Cond) && !hasBreak(s.Body)
	case *syntax.ForStmt:
		return (s.Cond == nil || isTrue(s.Cond)) && !hasBreak(s.Body)
	}
	return false
}

func isTrue(x syntax.Expr) bool {
	b, ok := syntax.Unparen(x).(*syntax.BoolLit)
	return ok && b.Value
}

// hasBreak reports whether s contains a break that leaves the loop whose body s is.
func hasBreak(s syntax.Stmt) bool {
	switch s := s.(type) {
	case *syntax.BranchStmt:
		return s.Tok == syntax.BREAK
	case *syntax.BlockStmt:
		return slices.ContainsFunc(s.List, hasBreak)
	case *syntax.AtomicStmt:
		return hasBreak(s.Body)
	case *syntax.IfStmt:
		return hasBreak(s.Then) || s.Else != nil && hasBreak(s.Else)
	}
	return false // a nested loop's breaks are its own
}

// checkRecursion reports every cycle in the call graph.
func (c *checker) checkRecursion() {
	const (
		white = iota
		grey
		black
	)
	color := map[*funcObj]uint8{}
	var stack []*funcObj
	var visit func(f *funcObj)
	visit = func(f *funcObj) {
		color[f] = grey
		stack = append(stack, f)
		for _, cs := range f.calls {
			switch color[cs.callee] {
			case grey:
				i := slices.Index(stack, cs.callee)
				var names []string
				for _, g := range stack[i:] {
					names = append(names, g.id.Name)
				}
				names = append(names, cs.callee.id.Name)
				if len(names) == 2 {
					c.errorf(cs.call.Pos(), "recursive call: %s calls itself", f.id.Name)
				} else {
					c.errorf(cs.call.Pos(), "recursive call: %s", strings.Join(names, " → "))
				}
			case white:
				visit(cs.callee)
			}
		}
		stack = stack[:len(stack)-1]
		color[f] = black
	}
	for _, f := range c.funcs {
		if color[f] == white {
			visit(f)
		}
	}
}

// checkGuards rejects guard operands that could not be evaluated as one plain
// expression when deciding enabledness: a cas would need an operation of its own
// before the guard, and a nondet value would be drawn by nobody.
func (c *checker) checkGuards() {
	s := newEffectScan(c)
	for _, g := range c.guards {
		if s.hasCas(g.x) {
			c.errorf(g.x.Pos(), "cas not allowed in %s", g.what)
		} else if s.hasNondet(g.x) {
			c.errorf(g.x.Pos(), "nondet not allowed in %s", g.what)
		}
	}
}
