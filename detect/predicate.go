package detect

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"kbmc/lang/syntax"
)

// Predicates are .kb expressions over P.x: the variable x of process P, where P is
// a process instance or host name as the computation spells it (node[1], alice)
// or, for names that are not identifiers, a string ("10.0.0.7:8080".state). Both P
// and x may be indexed with constant expressions (node[N-1].slot[2]). Other names
// are -D constants or, failing that, words (alice.state == commit). Integers are
// 64-bit and wrap around; words compare only with == and !=.
//
// The .kb syntax has no ".", so references are found first and each is replaced by
// an identifier of the same length before the expression goes to the .kb parser:
// every position in an error is then the position in the predicate as written.

// A Predicate is a global predicate Φ compiled for one computation.
type Predicate struct {
	Name string // the name errors use as the file name, e.g. "predicate"
	Src  string

	c    *Computation
	conj []*conjunct
	ev   *evalState
}

// A conjunct is one top-level conjunct of Φ: Φ = conj[0] && conj[1] && ….
type conjunct struct {
	text  string
	procs []int32 // its support: the processes it reads, ascending
	fn    func(cut []int32) int64
	konst bool // reads no process; its value is val
	val   int64
}

type evalState struct{ err *syntax.Error }

// An EvalError is a predicate that has no value in some global state: a division
// by zero or a shift out of range.
type EvalError struct {
	Err *syntax.Error
	Cut string // the global state, rendered
}

func (e *EvalError) Error() string { return e.Err.Error() + "\nin the global state " + e.Cut }

type vtype uint8

const (
	tInt vtype = iota
	tBool
	tWord
)

func (t vtype) String() string { return [...]string{"int", "bool", "word"}[t] }

// operand is a compiled subexpression.
type operand struct {
	typ   vtype
	fn    func(cut []int32) int64
	konst bool
	val   int64
	procs []int32
	word  string // for a word literal: its text, for messages
}

// CompilePredicate compiles the predicate src for computation c. consts are the -D
// values. Errors are a syntax.ErrorList with positions in src, named name.
func CompilePredicate(name, src string, c *Computation, consts map[string]int64) (*Predicate, error) {
	pc := &predCompiler{name: name, src: []byte(src), c: c, consts: consts, ev: &evalState{}}
	pc.orig = &syntax.File{Name: name, Src: pc.src}
	x := pc.parse(pc.src)
	if len(pc.errs) > 0 {
		pc.errs.Sort()
		return nil, pc.errs
	}
	p := &Predicate{Name: name, Src: src, c: c, ev: pc.ev}
	for _, cx := range splitConjuncts(x) {
		o := pc.compile(cx)
		if o == nil {
			continue
		}
		if o.typ != tBool {
			pc.errorf(cx.Pos(), "the predicate must be a condition (bool), not %s", describe(o))
			continue
		}
		p.conj = append(p.conj, &conjunct{text: string(pc.src[cx.Pos().Offset:cx.End().Offset]),
			procs: o.procs, fn: o.fn, konst: o.konst, val: o.val})
	}
	if len(pc.errs) > 0 {
		pc.errs.Sort()
		return nil, pc.errs
	}
	return p, nil
}

// splitConjuncts flattens the top-level && chain of x, through parentheses.
func splitConjuncts(x syntax.Expr) []syntax.Expr {
	switch e := x.(type) {
	case *syntax.ParenExpr:
		return splitConjuncts(e.X)
	case *syntax.BinaryExpr:
		if e.Op == syntax.LAND {
			return append(splitConjuncts(e.X), splitConjuncts(e.Y)...)
		}
	}
	return []syntax.Expr{x}
}

// Conjuncts returns the text of each top-level conjunct of Φ.
func (p *Predicate) Conjuncts() []string {
	out := make([]string, len(p.conj))
	for i, c := range p.conj {
		out[i] = c.text
	}
	return out
}

// OneLocal reports whether Φ is a conjunction of 1-local predicates: each
// top-level conjunct reads at most one process (Stoller §5's condition for PS_Def).
func (p *Predicate) OneLocal() bool {
	for _, c := range p.conj {
		if len(c.procs) > 1 {
			return false
		}
	}
	return true
}

// Holds evaluates Φ in the global state cut (events done per process), which must
// be a consistent cut of the computation.
func (p *Predicate) Holds(cut []int) (bool, error) {
	if len(cut) != p.c.N() {
		return false, fmt.Errorf("the cut has %d entries for %d processes", len(cut), p.c.N())
	}
	c32 := make([]int32, len(cut))
	for i, k := range cut {
		if k < 0 || k > len(p.c.Procs[i].Events) {
			return false, fmt.Errorf("the cut gives %s %d events; it has %d", p.c.Procs[i].Name, k, len(p.c.Procs[i].Events))
		}
		c32[i] = int32(k)
	}
	ok := p.eval(c32)
	return ok, p.failure(c32)
}

// eval evaluates every conjunct, in order, until one is false.
func (p *Predicate) eval(cut []int32) bool {
	for _, c := range p.conj {
		if !c.holds(cut) {
			return false
		}
	}
	return true
}

func (c *conjunct) holds(cut []int32) bool {
	if c.konst {
		return c.val != 0
	}
	return c.fn(cut) != 0
}

// failure returns the evaluation error of the last evaluations, if any, and
// clears it.
func (p *Predicate) failure(cut []int32) error {
	if p.ev.err == nil {
		return nil
	}
	e := &EvalError{Err: p.ev.err, Cut: p.c.formatCut(cut)}
	p.ev.err = nil
	return e
}

func (c *Computation) formatCut(cut []int32) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, k := range cut {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s after %d events", c.Procs[i].Name, k)
	}
	b.WriteByte(')')
	return b.String()
}

type predCompiler struct {
	name   string
	src    []byte
	orig   *syntax.File
	c      *Computation
	consts map[string]int64
	ev     *evalState
	errs   syntax.ErrorList
	refs   map[int]*ref // by offset of the placeholder
}

func (pc *predCompiler) errorf(pos syntax.Pos, format string, args ...any) {
	pc.errs = append(pc.errs, pc.orig.NewError(pos, fmt.Sprintf(format, args...)))
}

// posAt is the position of byte offset off of the predicate.
func (pc *predCompiler) posAt(off int) syntax.Pos {
	line, col := 1, 1
	for _, ch := range pc.src[:off] {
		if ch == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return syntax.Pos{Offset: off, Line: line, Col: col}
}

// A ref is one P.x reference found in the predicate text.
type ref struct {
	lo, hi  int    // its span
	proc    string // P as written (unquoted if it was a string)
	procIdx span   // the index after P, or none
	varName string
	varIdx  span
}

type span struct{ lo, hi int } // lo < 0: none

// parse finds the references in src (the predicate, or a copy with everything
// but one index blanked out), replaces each by a placeholder and parses the
// result with the .kb parser.
func (pc *predCompiler) parse(src []byte) syntax.Expr {
	refs := findRefs(src)
	masked := slices.Clone(src)
	if pc.refs == nil {
		pc.refs = map[int]*ref{}
	}
	for _, r := range refs {
		if slices.Contains(src[r.lo:r.hi], '\n') {
			pc.errorf(pc.posAt(r.lo), "a reference P.x must be on one line")
			continue
		}
		for i := r.lo; i < r.hi; i++ {
			masked[i] = '_'
		}
		pc.refs[r.lo] = r
	}
	x, err := syntax.ParseExpr(pc.name, masked)
	if err != nil {
		var list syntax.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				// Show the line as the user wrote it, not its masked copy.
				e.Source = lineOf(pc.src, e.Pos.Line)
				pc.errs = append(pc.errs, e)
			}
		}
		return nil
	}
	return x
}

// lineOf returns line n (from 1) of src.
func lineOf(src []byte, n int) string {
	lines := strings.Split(string(src), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSuffix(lines[n-1], "\r")
}

// A refToken is a token of the reference finder: identifiers (i), strings (s),
// numbers (n), ".", "[", "]", and any other byte (o).
type refToken struct {
	kind   byte
	lo, hi int
}

func refTokens(src []byte) []refToken {
	var toks []refToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := i + 2
			for j+1 < len(src) && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			i = min(j+2, len(src))
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(src) && src[j] == '"' {
				j++
			}
			j = min(j, len(src))
			toks = append(toks, refToken{'s', i, j})
			i = j
		case isIdentByte(c) && !isDigit(c):
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			toks = append(toks, refToken{'i', i, j})
			i = j
		case isDigit(c):
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			toks = append(toks, refToken{'n', i, j})
			i = j
		case c == '.' || c == '[' || c == ']':
			toks = append(toks, refToken{c, i, i + 1})
			i++
		default:
			toks = append(toks, refToken{'o', i, i + 1})
			i++
		}
	}
	return toks
}

// findRefs returns the outermost P.x references in src, in order.
func findRefs(src []byte) []*ref {
	toks := refTokens(src)
	var refs []*ref
	for t, tok := range toks {
		if tok.kind != '.' || t == 0 || t+1 == len(toks) || toks[t+1].kind != 'i' {
			continue
		}
		r := &ref{procIdx: span{-1, -1}, varIdx: span{-1, -1}}
		left := toks[t-1]
		switch left.kind {
		case 'i':
			r.lo, r.proc = left.lo, string(src[left.lo:left.hi])
		case 's':
			s, err := strconv.Unquote(string(src[left.lo:left.hi]))
			if err != nil {
				continue
			}
			r.lo, r.proc = left.lo, s
		case ']':
			open := matching(toks, t-1, -1)
			if open < 1 || toks[open-1].kind != 'i' {
				continue
			}
			name := toks[open-1]
			r.lo, r.proc = name.lo, string(src[name.lo:name.hi])
			r.procIdx = span{toks[open].hi, left.lo}
		default:
			continue
		}
		v := toks[t+1]
		r.varName, r.hi = string(src[v.lo:v.hi]), v.hi
		if t+2 < len(toks) && toks[t+2].kind == '[' {
			if cl := matching(toks, t+2, +1); cl > 0 {
				r.varIdx = span{toks[t+2].hi, toks[cl].lo}
				r.hi = toks[cl].hi
			}
		}
		refs = append(refs, r)
	}
	// Keep the outermost: node[a.i].x contains a.i, which the index's own parse
	// finds again.
	slices.SortStableFunc(refs, func(a, b *ref) int { return a.lo - b.lo })
	var out []*ref
	for _, r := range refs {
		for len(out) > 0 && r.lo <= out[len(out)-1].lo && r.hi >= out[len(out)-1].hi {
			out = out[:len(out)-1]
		}
		if len(out) > 0 && r.lo < out[len(out)-1].hi {
			continue // inside, or overlapping, an earlier reference
		}
		out = append(out, r)
	}
	return out
}

// matching returns the index of the bracket that matches toks[at], searching in
// direction dir, or -1.
func matching(toks []refToken, at, dir int) int {
	depth := 0
	for i := at; i >= 0 && i < len(toks); i += dir {
		switch toks[i].kind {
		case '[':
			depth += dir
		case ']':
			depth -= dir
		}
		if depth == 0 {
			return i
		}
	}
	return -1
}

// compile type-checks x and turns it into a closure; nil after an error.
func (pc *predCompiler) compile(x syntax.Expr) *operand {
	switch e := x.(type) {
	case *syntax.ParenExpr:
		return pc.compile(e.X)
	case *syntax.IntLit:
		if e.Overflow || e.Value > math.MaxInt64 {
			pc.errorf(e.Pos(), "integer %s out of range", e.Lit)
			return nil
		}
		return konst(tInt, int64(e.Value))
	case *syntax.BoolLit:
		if e.Value {
			return konst(tBool, 1)
		}
		return konst(tBool, 0)
	case *syntax.Ident:
		if r := pc.refs[e.Pos().Offset]; r != nil {
			return pc.reference(r)
		}
		if v, ok := pc.consts[e.Name]; ok {
			return konst(tInt, v)
		}
		o := konst(tWord, -1)
		if id, ok := pc.c.wordID[e.Name]; ok {
			o.val = id
		}
		o.word = e.Name
		return o
	case *syntax.UnaryExpr:
		return pc.unary(e)
	case *syntax.BinaryExpr:
		return pc.binary(e)
	case *syntax.CondExpr:
		return pc.cond(e)
	case *syntax.IndexExpr:
		pc.errorf(e.Pos(), "only a process instance and its variables can be indexed here: write %s[i].x", e.X.Name)
	case *syntax.CallExpr:
		pc.errorf(e.Pos(), "a call is not allowed in a predicate")
	case *syntax.NondetExpr:
		pc.errorf(e.Pos(), "nondet is not allowed in a predicate")
	case *syntax.CasExpr:
		pc.errorf(e.Pos(), "cas is not allowed in a predicate")
	case *syntax.TidExpr:
		pc.errorf(e.Pos(), "tid is not allowed in a predicate")
	case *syntax.MemberExpr:
		pc.errorf(e.Pos(), "not a process's variable of the computation: a process's variable is written process[i].name")
	case *syntax.QuantExpr:
		pc.errorf(e.Pos(), "forall and exists are not allowed in a predicate: write the instances out")
	case *syntax.BadExpr:
	default:
		pc.errorf(x.Pos(), "not allowed in a predicate")
	}
	return nil
}

func konst(t vtype, v int64) *operand { return &operand{typ: t, konst: true, val: v} }

// describe names an operand's type for messages.
func describe(o *operand) string {
	if o.typ == tWord && o.word != "" {
		return fmt.Sprintf("word %s (no -D constant is called %s)", o.word, o.word)
	}
	return o.typ.String()
}

// constIndex evaluates an index expression, which must be constant.
func (pc *predCompiler) constIndex(sp span, what string) (int64, bool) {
	sub := slices.Clone(pc.src)
	for i := range sub {
		if (i < sp.lo || i >= sp.hi) && sub[i] != '\n' {
			sub[i] = ' '
		}
	}
	x := pc.parse(sub)
	if x == nil {
		return 0, false
	}
	o := pc.compile(x)
	switch {
	case o == nil:
		return 0, false
	case o.typ != tInt:
		pc.errorf(x.Pos(), "the index of %s must be an int, not %s", what, describe(o))
		return 0, false
	case !o.konst:
		pc.errorf(x.Pos(), "the index of %s must be a constant", what)
		return 0, false
	}
	return o.val, true
}

// reference resolves P.x to the variable's values in every state of P.
func (pc *predCompiler) reference(r *ref) *operand {
	pos := pc.posAt(r.lo)
	name := r.proc
	if r.procIdx.lo >= 0 {
		i, ok := pc.constIndex(r.procIdx, r.proc)
		if !ok {
			return nil
		}
		name = fmt.Sprintf("%s[%d]", r.proc, i)
	}
	p, ok := pc.c.Process(name)
	if !ok {
		p, ok = pc.c.processBySpelling(name)
	}
	if !ok {
		pc.errorf(pos, "no process %q in %s (processes: %s)", name, pc.c.Name, pc.c.processList())
		return nil
	}
	proc := pc.c.Procs[p]
	vname := r.varName
	if r.varIdx.lo >= 0 {
		i, ok := pc.constIndex(r.varIdx, proc.Name+"."+r.varName)
		if !ok {
			return nil
		}
		vname = fmt.Sprintf("%s[%d]", r.varName, i)
	}
	v := proc.vars[vname]
	if v == nil {
		pc.errorf(pos, "%s has no variable %q (its variables: %s)", proc.Name, vname, varList(proc))
		return nil
	}
	if v.Mixed {
		pc.errorf(pos, "%s.%s has values of different kinds (set at %s and at %s); a predicate cannot compare it",
			proc.Name, vname, pc.c.Where(v.mixed[0]), pc.c.Where(v.mixed[1]))
		return nil
	}
	col := pc.c.column(p, v)
	t := map[ValueKind]vtype{IntValue: tInt, BoolValue: tBool, WordValue: tWord}[v.Kind]
	pi := int32(p)
	return &operand{typ: t, procs: []int32{pi}, fn: func(cut []int32) int64 { return col[cut[pi]] }}
}

// processBySpelling finds a process whose name, with every character that cannot
// be in an identifier replaced by "_", is name: the way to write hosts such as
// client-1 as client_1. It must be the only such process.
func (c *Computation) processBySpelling(name string) (int, bool) {
	found := -1
	for i, p := range c.Procs {
		if identSpelling(p.Name) == name {
			if found >= 0 {
				return 0, false
			}
			found = i
		}
	}
	return found, found >= 0
}

func identSpelling(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !isIdentByte(c) && c != '[' && c != ']' {
			b[i] = '_'
		}
	}
	return string(b)
}

func (c *Computation) processList() string {
	var names []string
	for i, p := range c.Procs {
		if i == 12 {
			names = append(names, fmt.Sprintf("… %d more", len(c.Procs)-i))
			break
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func varList(p *Process) string {
	var names []string
	for i, v := range p.Vars {
		if i == 12 {
			names = append(names, fmt.Sprintf("… %d more", len(p.Vars)-i))
			break
		}
		names = append(names, v.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// column returns the value of v in every local state of process p.
func (c *Computation) column(p int, v *Var) []int64 {
	n := len(c.Procs[p].Events) + 1
	col := make([]int64, n)
	for i, at := range v.at {
		end := int32(n)
		if i+1 < len(v.at) {
			end = v.at[i+1]
		}
		for k := at; k < end; k++ {
			col[k] = v.val[i]
		}
	}
	return col
}

func unionProcs(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// fold makes an operand from fn over its operands, evaluating it at once when
// they are all constant (so that a constant division by zero is a compile
// error, with its position).
func (pc *predCompiler) fold(t vtype, fn func(cut []int32) int64, ops ...*operand) *operand {
	o := &operand{typ: t, fn: fn}
	allConst := true
	for _, x := range ops {
		o.procs = unionProcs(o.procs, x.procs)
		allConst = allConst && x.konst
	}
	if allConst {
		o.konst, o.val, o.fn = true, fn(nil), nil
		if pc.ev.err != nil {
			pc.errs = append(pc.errs, pc.ev.err)
			pc.ev.err = nil
		}
	}
	return o
}

// get returns an evaluator for o.
func get(o *operand) func(cut []int32) int64 {
	if o.konst {
		v := o.val
		return func([]int32) int64 { return v }
	}
	return o.fn
}

func (pc *predCompiler) unary(e *syntax.UnaryExpr) *operand {
	x := pc.compile(e.X)
	if x == nil {
		return nil
	}
	f := get(x)
	switch e.Op {
	case syntax.NOT:
		if x.typ != tBool {
			pc.errorf(e.Pos(), "operator ! needs a bool, not %s", describe(x))
			return nil
		}
		return pc.fold(tBool, func(c []int32) int64 { return 1 - f(c) }, x)
	case syntax.SUB, syntax.TILDE:
		if x.typ != tInt {
			pc.errorf(e.Pos(), "operator %s needs an int, not %s", e.Op, describe(x))
			return nil
		}
		if e.Op == syntax.SUB {
			return pc.fold(tInt, func(c []int32) int64 { return -f(c) }, x)
		}
		return pc.fold(tInt, func(c []int32) int64 { return ^f(c) }, x)
	}
	pc.errorf(e.Pos(), "operator %s is not allowed in a predicate", e.Op)
	return nil
}

func (pc *predCompiler) binary(e *syntax.BinaryExpr) *operand {
	x, y := pc.compile(e.X), pc.compile(e.Y)
	if x == nil || y == nil {
		return nil
	}
	f, g := get(x), get(y)
	pos := e.OpPos
	ev := pc.ev
	fail := func(msg string) {
		if ev.err == nil {
			ev.err = pc.orig.NewError(pos, msg)
		}
	}
	switch e.Op {
	case syntax.LAND, syntax.LOR:
		if x.typ != tBool || y.typ != tBool {
			pc.errorf(pos, "operator %s needs bools, not %s and %s", e.Op, describe(x), describe(y))
			return nil
		}
		if e.Op == syntax.LAND {
			return pc.fold(tBool, func(c []int32) int64 {
				if f(c) == 0 {
					return 0
				}
				return g(c)
			}, x, y)
		}
		return pc.fold(tBool, func(c []int32) int64 {
			if f(c) != 0 {
				return 1
			}
			return g(c)
		}, x, y)
	case syntax.EQL, syntax.NEQ:
		if x.typ != y.typ {
			pc.errorf(pos, "mismatched types: %s %s %s", describe(x), e.Op, describe(y))
			return nil
		}
		if x.typ == tWord && x.konst && y.konst && x.word != "" && y.word != "" {
			// Two word literals: compare their spellings, which may both be
			// absent from the computation.
			eq := x.word == y.word
			return konst(tBool, b2i(eq == (e.Op == syntax.EQL)))
		}
		if e.Op == syntax.EQL {
			return pc.fold(tBool, func(c []int32) int64 { return b2i(f(c) == g(c)) }, x, y)
		}
		return pc.fold(tBool, func(c []int32) int64 { return b2i(f(c) != g(c)) }, x, y)
	}
	if x.typ != tInt || y.typ != tInt {
		pc.errorf(pos, "operator %s needs ints, not %s and %s", e.Op, describe(x), describe(y))
		return nil
	}
	var fn func(c []int32) int64
	switch e.Op {
	case syntax.ADD:
		fn = func(c []int32) int64 { return f(c) + g(c) }
	case syntax.SUB:
		fn = func(c []int32) int64 { return f(c) - g(c) }
	case syntax.MUL:
		fn = func(c []int32) int64 { return f(c) * g(c) }
	case syntax.QUO, syntax.REM:
		quo := e.Op == syntax.QUO
		fn = func(c []int32) int64 {
			a, b := f(c), g(c)
			if b == 0 {
				fail("division by zero")
				return 0
			}
			if quo {
				return a / b // Go wraps MinInt64 / -1 to MinInt64, as .kb does
			}
			return a % b
		}
	case syntax.SHL, syntax.SHR:
		left := e.Op == syntax.SHL
		fn = func(c []int32) int64 {
			a, b := f(c), g(c)
			if b < 0 || b >= 64 {
				fail(fmt.Sprintf("shift by %d, outside [0, 64)", b))
				return 0
			}
			if left {
				return a << b
			}
			return a >> b
		}
	case syntax.AND:
		fn = func(c []int32) int64 { return f(c) & g(c) }
	case syntax.OR:
		fn = func(c []int32) int64 { return f(c) | g(c) }
	case syntax.XOR:
		fn = func(c []int32) int64 { return f(c) ^ g(c) }
	case syntax.LSS:
		return pc.fold(tBool, func(c []int32) int64 { return b2i(f(c) < g(c)) }, x, y)
	case syntax.LEQ:
		return pc.fold(tBool, func(c []int32) int64 { return b2i(f(c) <= g(c)) }, x, y)
	case syntax.GTR:
		return pc.fold(tBool, func(c []int32) int64 { return b2i(f(c) > g(c)) }, x, y)
	case syntax.GEQ:
		return pc.fold(tBool, func(c []int32) int64 { return b2i(f(c) >= g(c)) }, x, y)
	default:
		pc.errorf(pos, "operator %s is not allowed in a predicate", e.Op)
		return nil
	}
	return pc.fold(tInt, fn, x, y)
}

func (pc *predCompiler) cond(e *syntax.CondExpr) *operand {
	c, x, y := pc.compile(e.Cond), pc.compile(e.X), pc.compile(e.Y)
	if c == nil || x == nil || y == nil {
		return nil
	}
	if c.typ != tBool {
		pc.errorf(e.Cond.Pos(), "the condition of ?: must be a bool, not %s", describe(c))
		return nil
	}
	if x.typ != y.typ {
		pc.errorf(e.Question, "mismatched types in ?: %s and %s", describe(x), describe(y))
		return nil
	}
	fc, f, g := get(c), get(x), get(y)
	o := pc.fold(x.typ, func(cut []int32) int64 {
		if fc(cut) != 0 {
			return f(cut)
		}
		return g(cut)
	}, c, x, y)
	if x.word != "" && y.word != "" && x.word == y.word {
		o.word = x.word
	}
	return o
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
