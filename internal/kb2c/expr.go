package kb2c

import (
	"fmt"
	"math/bits"
	"strings"

	"kbmc/lang/syntax"
)

// A cexpr is a translated expression: C statements that must run first (a
// call, a cas: whatever cfront would lower into operations of their own), and
// then a C expression without calls or effects that computes the value.
type cexpr struct {
	pre  []string
	text string
	typ  typ
	// stable: text is a literal, tid or a temporary, whose value no
	// statement of pre changes.
	stable bool
}

// Order of evaluation. .kb evaluates a statement left to right, and the
// first run-time error in that order is the one reported; a cas in an
// expression changes what the operands to its right read. cfront lowers a
// call or a cas into operations before the expression around it, so an
// operand to the left of one is computed into a temporary first (spill), as
// lang does for a cas.

// spill computes x into a temporary, unless it is stable already.
func (b *body) spill(x cexpr) cexpr {
	if x.stable {
		return x
	}
	v := b.temp(x.typ)
	return cexpr{pre: append(x.pre, fmt.Sprintf("%s = %s;", v, unparen(x.text))), text: v, typ: x.typ, stable: true}
}

// cexprs are expressions evaluated left to right: the code of all of them,
// then their values.
type cexprs struct {
	pre []string
	xs  []cexpr // without their pre
}

func (b *body) exprList(list []syntax.Expr) cexprs {
	xs := make([]cexpr, len(list))
	for i, e := range list {
		xs[i] = b.expr(e)
	}
	var out cexprs
	for i, x := range xs {
		later := false
		for _, y := range xs[i+1:] {
			later = later || len(y.pre) > 0
		}
		if later {
			x = b.spill(x)
		}
		out.pre = append(out.pre, x.pre...)
		x.pre = nil
		out.xs = append(out.xs, x)
	}
	return out
}

var unaryOps = map[syntax.Token]string{syntax.SUB: "-", syntax.NOT: "!", syntax.TILDE: "~"}

var binaryOps = map[syntax.Token]string{
	syntax.ADD: "+", syntax.SUB: "-", syntax.MUL: "*", syntax.QUO: "/", syntax.REM: "%",
	syntax.SHL: "<<", syntax.SHR: ">>", syntax.AND: "&", syntax.OR: "|", syntax.XOR: "^",
	syntax.LAND: "&&", syntax.LOR: "||", syntax.EQL: "==", syntax.NEQ: "!=",
	syntax.LSS: "<", syntax.LEQ: "<=", syntax.GTR: ">", syntax.GEQ: ">=",
}

// expr translates an expression. Every compound C expression is
// parenthesised, so that C's precedence (the same as .kb's) never matters.
func (b *body) expr(e syntax.Expr) cexpr {
	if v, ty, ok := b.t.constValue(b, e); ok {
		// Folded as lang folds it: C sees the value.
		return cexpr{text: literal(v, ty), typ: ty, stable: true}
	}
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return b.expr(e.X)
	case *syntax.Ident:
		s := b.lookup(e.Name)
		if s == nil {
			break
		}
		return cexpr{text: s.c, typ: s.typ}
	case *syntax.TidExpr:
		return cexpr{text: "tid", stable: true}
	case *syntax.IndexExpr:
		s := b.lookup(e.X.Name)
		i := b.expr(e.Index)
		return cexpr{pre: i.pre, text: s.c + "[" + unparen(i.text) + "]", typ: s.typ}
	case *syntax.UnaryExpr:
		x := b.expr(e.X)
		ty := tInt
		if e.Op == syntax.NOT {
			ty = tBool
		}
		return cexpr{pre: x.pre, text: "(" + unaryOps[e.Op] + paren(x.text) + ")", typ: ty}
	case *syntax.BinaryExpr:
		return b.binary(e)
	case *syntax.CondExpr:
		return b.cond(e)
	case *syntax.CallExpr:
		return b.call(e)
	case *syntax.NondetExpr:
		return b.nondet(e)
	case *syntax.CasExpr:
		return b.cas(e)
	}
	b.t.errorf(e.Pos(), "%s: not in the C form", syntax.ExprString(e))
	return cexpr{text: "0"}
}

func (b *body) binary(e *syntax.BinaryExpr) cexpr {
	x := b.expr(e.X)
	y := b.expr(e.Y)
	ty := tBool
	switch e.Op {
	case syntax.ADD, syntax.SUB, syntax.MUL, syntax.QUO, syntax.REM, syntax.SHL, syntax.SHR:
		ty = tInt
	case syntax.AND, syntax.OR, syntax.XOR:
		ty = x.typ
	}
	op := binaryOps[e.Op]
	if (e.Op == syntax.LAND || e.Op == syntax.LOR) && len(y.pre) > 0 {
		// The right operand's code runs only when C would evaluate it.
		v := b.temp(tBool)
		pre := append(x.pre, fmt.Sprintf("%s = %s;", v, unparen(x.text)))
		if e.Op == syntax.LAND {
			pre = append(pre, fmt.Sprintf("if (%s) {", v))
		} else {
			pre = append(pre, fmt.Sprintf("if (!%s) {", v))
		}
		pre = append(pre, indented(append(y.pre, fmt.Sprintf("%s = %s;", v, unparen(y.text))))...)
		pre = append(pre, "}")
		return cexpr{pre: pre, text: v, typ: tBool, stable: true}
	}
	if len(y.pre) > 0 {
		x = b.spill(x)
	}
	yt := y.text
	if e.Op == syntax.SHL || e.Op == syntax.SHR {
		if v, _, ok := b.t.constValue(b, e.Y); ok && (v < 0 || v >= Width) {
			// A constant shift amount out of range is a compile-time error
			// in C, and a run-time shift violation in .kb: hide the
			// constant from C's folding.
			yt = fmt.Sprintf("(tid - tid + %s)", yt)
		}
	}
	return cexpr{pre: append(x.pre, y.pre...), text: "(" + x.text + " " + op + " " + yt + ")", typ: ty}
}

func (b *body) cond(e *syntax.CondExpr) cexpr {
	c := b.expr(e.Cond)
	x := b.expr(e.X)
	y := b.expr(e.Y)
	if len(x.pre) == 0 && len(y.pre) == 0 {
		return cexpr{pre: c.pre, text: fmt.Sprintf("(%s ? %s : %s)", c.text, x.text, y.text), typ: x.typ}
	}
	// A branch's code runs only when it is chosen.
	v := b.temp(x.typ)
	pre := append(c.pre, fmt.Sprintf("if (%s) {", unparen(c.text)))
	pre = append(pre, indented(append(x.pre, fmt.Sprintf("%s = %s;", v, unparen(x.text))))...)
	pre = append(pre, "} else {")
	pre = append(pre, indented(append(y.pre, fmt.Sprintf("%s = %s;", v, unparen(y.text))))...)
	pre = append(pre, "}")
	return cexpr{pre: pre, text: v, typ: x.typ, stable: true}
}

// call translates a call of an expression function: a C call, whose
// arguments C evaluates when the call starts (docs/language.md §7), in a
// guard the function's body with the arguments in place of its parameters.
func (b *body) call(e *syntax.CallExpr) cexpr {
	f := b.t.funcs[e.Fun.Name]
	if f == nil || f.expr == nil {
		b.t.errorf(e.Pos(), "internal error: call of %s in an expression", e.Fun.Name)
		return cexpr{text: "0"}
	}
	if b.pure {
		args := make([]cexpr, len(e.Args))
		for i, a := range e.Args {
			args[i] = b.expr(a)
		}
		scope := map[string]*sym{}
		for i, p := range f.params {
			scope[p.Name.Name] = &sym{kind: symSubst, c: paren(args[i].text), typ: typeOf(p.Type)}
		}
		saved := b.scopes
		b.scopes = []map[string]*sym{scope}
		x := b.expr(f.expr)
		b.scopes = saved
		return x
	}
	xs := b.exprList(e.Args)
	args := []string{"tid"}
	for _, x := range xs.xs {
		args = append(args, unparen(x.text))
	}
	v := b.temp(f.result)
	pre := append(xs.pre, fmt.Sprintf("%s = %s(%s);", v, f.c, strings.Join(args, ", ")))
	return cexpr{pre: pre, text: v, typ: f.result, stable: true}
}

// nondet translates nondet(lo, hi) into a tree of nondeterministic bools with
// one leaf per value, lo first: the explicit engine then tries exactly the
// .kb draw's values, in the same order (a wider C draw mapped onto the range
// would try each value many times over).
func (b *body) nondet(e *syntax.NondetExpr) cexpr {
	if b.pure {
		b.t.errorf(e.Pos(), "nondet in a guard: not in the C form")
		return cexpr{text: "0"}
	}
	if len(e.Args) == 0 {
		return cexpr{text: "__VERIFIER_nondet_int()"}
	}
	lo, _, _ := b.t.constValue(b, e.Args[0])
	hi, _, _ := b.t.constValue(b, e.Args[1])
	if n := uint64(hi - lo + 1); n > MaxNondet {
		// k nondeterministic bits u, and lo + u mod n in 32-bit unsigned
		// arithmetic (which cfront, like C, wraps): every value of the range
		// and no other. A full-width draw filtered by an assume would be a
		// blocking operation inside the statement's step, which the symbolic
		// encoding refuses, and no explicit search (nor the tests' oracle)
		// enumerates 2^32 values; 2^k draws of bits it can.
		k := bits.Len64(n - 1)
		terms := make([]string, k)
		for i := range terms {
			terms[i] = fmt.Sprintf("((unsigned)__VERIFIER_nondet_bool() << %d)", i)
		}
		u := "(" + strings.Join(terms, " | ") + ")"
		if n < 1<<Width {
			u = fmt.Sprintf("(%s %% %dU)", u, n)
		}
		return cexpr{text: fmt.Sprintf("((int)(%dU + %s))", uint32(lo), u)}
	}
	var tree func(lo, hi int64) string
	tree = func(lo, hi int64) string {
		if lo == hi {
			return literal(lo, tInt)
		}
		mid := lo + (hi-lo)/2
		return fmt.Sprintf("(__VERIFIER_nondet_bool() ? %s : %s)", tree(mid+1, hi), tree(lo, mid))
	}
	return cexpr{text: tree(lo, hi)}
}

// cas translates cas(target, expected, new). On a shared scalar it is
// __sync_bool_compare_and_swap; on an array element or a local, the same
// steps written out (they run in the statement's atomic section): .kb's
// order, the target's index and its bounds check first, then expected and
// new, then the comparison.
func (b *body) cas(e *syntax.CasExpr) cexpr {
	if b.pure {
		b.t.errorf(e.Pos(), "cas in a guard: not in the C form")
		return cexpr{text: "0"}
	}
	var pre []string
	var target, cur string
	switch lv := syntax.Unparen(e.Args[0]).(type) {
	case *syntax.Ident:
		s := b.lookup(lv.Name)
		if s.kind == symShared {
			xs := b.exprList(e.Args[1:])
			v := b.temp(tBool)
			pre = append(xs.pre, fmt.Sprintf("%s = __sync_bool_compare_and_swap(&%s, %s, %s);", v, s.c,
				unparen(xs.xs[0].text), unparen(xs.xs[1].text)))
			return cexpr{pre: pre, text: v, typ: tBool, stable: true}
		}
		target, cur = s.c, s.c
	case *syntax.IndexExpr:
		s := b.lookup(lv.X.Name)
		i := b.spill(b.expr(lv.Index))
		target = s.c + "[" + i.text + "]"
		cur = b.temp(s.typ)
		pre = append(i.pre, fmt.Sprintf("%s = %s;", cur, target))
	default:
		b.t.errorf(e.Pos(), "internal error: cas of %s", syntax.ExprString(e.Args[0]))
		return cexpr{text: "0"}
	}
	old := b.spill(b.expr(e.Args[1]))
	pre = append(pre, old.pre...)
	nv := b.spill(b.expr(e.Args[2]))
	pre = append(pre, nv.pre...)
	v := b.temp(tBool)
	pre = append(pre, fmt.Sprintf("%s = %s == %s;", v, cur, old.text),
		fmt.Sprintf("if (%s) {", v), fmt.Sprintf("    %s = %s;", target, nv.text), "}")
	return cexpr{pre: pre, text: v, typ: tBool, stable: true}
}

// visible reports whether evaluating e is a visible operation in .kb: it
// reads shared memory or performs a cas, here or in an expression function it
// calls.
func (b *body) visible(e syntax.Expr) bool {
	if _, _, ok := b.t.constValue(b, e); ok {
		return false
	}
	switch e := e.(type) {
	case *syntax.Ident:
		s := b.lookup(e.Name)
		return s != nil && s.kind == symShared
	case *syntax.IndexExpr:
		s := b.lookup(e.X.Name)
		return s != nil && s.kind == symShared || b.visible(e.Index)
	case *syntax.CasExpr:
		return true
	case *syntax.CallExpr:
		if f := b.t.funcs[e.Fun.Name]; f != nil && f.expr != nil {
			b.t.scanFunc(f)
			if f.visible {
				return true
			}
		}
	}
	return b.anyChild(e, b.visible)
}

// hasCas reports whether evaluating e performs a cas.
func (b *body) hasCas(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.CasExpr:
		return true
	case *syntax.CallExpr:
		if f := b.t.funcs[e.Fun.Name]; f != nil && f.expr != nil {
			b.t.scanFunc(f)
			if f.cas {
				return true
			}
		}
	}
	return b.anyChild(e, b.hasCas)
}

// anyChild reports whether p holds for a direct subexpression of e.
func (b *body) anyChild(e syntax.Expr, p func(syntax.Expr) bool) bool {
	found := false
	syntax.Inspect(e, func(n syntax.Node) bool {
		if n == syntax.Node(e) {
			return true
		}
		if c, ok := n.(syntax.Expr); ok && !found {
			found = p(c)
		}
		return false
	})
	return found
}
