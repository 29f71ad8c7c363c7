package progen

import (
	"fmt"
	"strings"
)

// Expressions are generated with full parentheses around every operand that is not
// an atom, so that C precedence never changes the type of a generated expression
// (`x & 1 == 0` would compare before masking).

// smallLit is a small integer literal; values stay small so that assertions over
// them fail in some interleavings and not in all.
func (b *body) smallLit() string {
	g := b.g
	switch x := g.pick(40); {
	case x < 2 && len(g.consts) > 0:
		return g.consts[g.pick(len(g.consts))].name
	case x < 3:
		return "-1"
	case x < 4:
		return "0x2"
	case x < 6 && g.cfg.Width < 16:
		return []string{"100", "127", "64"}[g.pick(3)] // wraps around at width 8
	default:
		return fmt.Sprint([]int{0, 0, 1, 1, 1, 2, 2, 3}[g.pick(8)])
	}
}

func (b *body) exprOf(t typ, depth int) expr {
	if t == tBool {
		return b.boolExpr(depth)
	}
	return b.intExpr(depth)
}

func (b *body) intExpr(depth int) expr  { return b.intE(depth, true) }
func (b *body) boolExpr(depth int) expr { return b.boolE(depth, true) }
func (b *body) localInt(depth int) expr { return b.intE(depth, false) }
func (b *body) localBool(depth int) expr {
	return b.boolE(depth, false)
}

// sharedInt is an int expression that reads shared state.
func (b *body) sharedInt() expr {
	a := b.sharedIntAtom()
	if b.g.chance(0.3) {
		o := b.intE(0, true)
		op := []string{"+", "-", "*", "&", "|", "^"}[b.g.pick(6)]
		return expr{fmt.Sprintf("%s %s %s", a.text, op, paren(o.text)), true}
	}
	return a
}

// sharedIntAtom is a shared int scalar or array element.
func (b *body) sharedIntAtom() expr {
	g := b.g
	// The Go form reads a channel's length in a step of its own, so it
	// takes a statement with one such read at most: none here, where a
	// statement may hold several atoms.
	if g.has(Channels) && len(g.chans) > 0 && !g.cfg.GoForm && g.chance(0.1) {
		return b.lenExpr()
	}
	if arr := g.intArray(); arr != nil && g.chance(0.3) {
		return expr{fmt.Sprintf("%s[%s]", arr.name, b.index(arr.n)), true}
	}
	return expr{g.hotInt(), true}
}

// sharedCond is a bool expression that reads shared state.
func (b *body) sharedCond() expr {
	g := b.g
	var c expr
	switch x := g.pick(10); {
	case x < 2 && len(g.bools) > 0:
		v := g.bools[g.pick(len(g.bools))].name
		if g.chance(0.3) {
			v = "!" + v
		}
		c = expr{v, true}
	case x < 3 && g.boolArray() != nil:
		arr := g.boolArray()
		c = expr{fmt.Sprintf("%s[%s]", arr.name, b.index(arr.n)), true}
	default:
		ops := []string{"==", "!=", ">", ">=", "<", "<="}
		rhs := b.smallLit()
		if g.chance(0.25) {
			rhs = paren(b.intE(1, true).text)
		}
		c = expr{fmt.Sprintf("%s %s %s", b.sharedIntAtom().text, ops[g.pick(len(ops))], rhs), true}
	}
	if g.chance(0.2) {
		op := "&&"
		if g.chance(0.5) {
			op = "||"
		}
		return expr{fmt.Sprintf("%s %s %s", paren(c.text), op, paren(b.boolE(1, true).text)), true}
	}
	return c
}

// intE is an int expression; shared says whether it may read shared state.
func (b *body) intE(depth int, shared bool) expr {
	g := b.g
	if depth <= 0 || g.chance(0.45) {
		return b.intAtom(depth, shared)
	}
	x := b.intE(depth-1, shared)
	switch g.pick(12) {
	case 0, 1, 2:
		y := b.intE(depth-1, shared)
		return bin(x, "+", y)
	case 3:
		return bin(x, "-", b.intE(depth-1, shared))
	case 4:
		return bin(x, "*", expr{b.smallLit(), false})
	case 5:
		return bin(x, "%", expr{fmt.Sprint(2 + g.pick(3)), false})
	case 6:
		return bin(x, "/", expr{fmt.Sprint(1 + g.pick(3)), false})
	case 7:
		ops := []string{"&", "|", "^"}
		return bin(x, ops[g.pick(3)], b.intE(depth-1, shared))
	case 8:
		ops := []string{"<<", ">>"}
		return bin(x, ops[g.pick(2)], expr{fmt.Sprint(g.pick(3)), false})
	case 9:
		if g.chance(0.5) {
			return expr{"-" + paren(x.text), x.shared}
		}
		return expr{"~" + paren(x.text), x.shared}
	case 10:
		c := b.boolE(depth-1, shared)
		y := b.intE(depth-1, shared)
		return expr{fmt.Sprintf("(%s ? %s : %s)", paren(c.text), paren(x.text), paren(y.text)), c.shared || x.shared || y.shared}
	default:
		return x
	}
}

// intAtom is a literal, name, element or call; calls only when depth > 0, so that
// arguments, one level down, end.
func (b *body) intAtom(depth int, shared bool) expr {
	g := b.g
	for {
		switch g.pick(10) {
		case 0, 1:
			return expr{b.smallLit(), false}
		case 2:
			if b.pid() && (!b.tid() || g.chance(0.5)) {
				return expr{"pid", false}
			}
			if b.tid() {
				return expr{"tid", false}
			}
		case 3, 4:
			if ls := b.locals(tInt, false); len(ls) > 0 {
				return expr{ls[g.pick(len(ls))].name, false}
			}
		case 5, 6:
			if shared {
				return expr{g.hotInt(), true}
			}
		case 7:
			if arr := g.intArray(); arr != nil && shared {
				return expr{fmt.Sprintf("%s[%s]", arr.name, b.index(arr.n)), true}
			}
		case 8:
			if f := b.exprFunc(tInt, shared); f != nil && depth > 0 {
				return b.callExpr(f, depth, shared)
			}
		case 9:
			if len(g.consts) > 0 {
				return expr{g.consts[g.pick(len(g.consts))].name, false}
			}
		}
	}
}

// boolE is a bool expression; shared says whether it may read shared state.
func (b *body) boolE(depth int, shared bool) expr {
	g := b.g
	if depth > 0 && g.chance(0.3) {
		x := b.boolE(depth-1, shared)
		switch g.pick(3) {
		case 0:
			return expr{"!" + paren(x.text), x.shared}
		case 1:
			return bin(x, "&&", b.boolE(depth-1, shared))
		default:
			return bin(x, "||", b.boolE(depth-1, shared))
		}
	}
	for {
		switch g.pick(10) {
		case 0, 1, 2, 3, 4:
			ops := []string{"==", "!=", ">", ">=", "<", "<="}
			x := b.intE(max(depth-1, 0), shared)
			if isLiteral(x.text) {
				// A comparison of two constants is a waste of a condition; try once more.
				x = b.intE(max(depth-1, 0), shared)
			}
			y := expr{b.smallLit(), false}
			if g.chance(0.3) {
				y = b.intE(0, shared)
			}
			return bin(x, ops[g.pick(len(ops))], y)
		case 5:
			if ls := b.locals(tBool, false); len(ls) > 0 {
				return expr{ls[g.pick(len(ls))].name, false}
			}
		case 6:
			if len(g.bools) > 0 && shared {
				return expr{g.bools[g.pick(len(g.bools))].name, true}
			}
		case 7:
			if arr := g.boolArray(); arr != nil && shared {
				return expr{fmt.Sprintf("%s[%s]", arr.name, b.index(arr.n)), true}
			}
		case 8:
			if f := b.exprFunc(tBool, shared); f != nil && depth > 0 {
				return b.callExpr(f, depth, shared)
			}
		case 9:
			if g.chance(0.3) {
				return expr{fmt.Sprint(g.chance(0.5)), false}
			}
		}
	}
}

// exprFunc picks an expression function with result t, or nil. Inside a function's
// own body only the functions declared before it exist, so there is no recursion.
func (b *body) exprFunc(t typ, shared bool) *function {
	var fs []*function
	for _, f := range b.g.funcs {
		if f.expr && f.result == t && (shared || !f.shared) && f != b.fn {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return fs[b.g.pick(len(fs))]
}

func (b *body) callExpr(f *function, depth int, shared bool) expr {
	e := expr{shared: f.shared}
	var args []string
	for _, p := range f.params {
		var a expr
		if p == tInt {
			a = b.intE(depth-1, shared)
		} else {
			a = b.boolE(depth-1, shared)
		}
		e.shared = e.shared || a.shared
		args = append(args, a.text)
	}
	e.text = fmt.Sprintf("%s(%s)", f.name, strings.Join(args, ", "))
	return e
}

// index is an index into an array of n elements: in range by construction (masked
// for powers of two, a modulus of non-negative terms otherwise), and rarely, as a
// fault, a sum that may run past the end.
func (b *body) index(n int) string {
	g := b.g
	if g.has(Faults) && g.chance(g.cfg.FaultRate/3) {
		return fmt.Sprintf("%s + 1", b.nonneg(n))
	}
	switch g.pick(5) {
	case 0:
		return fmt.Sprint(g.pick(n))
	case 1:
		if n&(n-1) == 0 {
			// Any int masked with n-1 is in range, shared or not.
			return fmt.Sprintf("%s & %d", paren(b.intE(1, true).text), n-1)
		}
		fallthrough
	case 2:
		return fmt.Sprintf("(%s + %s) %% %d", b.nonneg(n), b.nonneg(n), n)
	default:
		t := b.nonneg(n)
		if b.g.chance(0.5) {
			return fmt.Sprintf("%s %% %d", t, n)
		}
		return fmt.Sprintf("(%s) %% %d", t, n)
	}
}

// sharedIndex is an index into an array of n elements computed from shared state,
// in range by construction: the target of a blocking operation (lock(ms[…]),
// join(t[…]), an await or assume over a[…]) that changes when another thread writes
// the variable while the operation waits. Without SharedIndices it is index(n).
func (b *body) sharedIndex(n int) string {
	g := b.g
	if !g.has(SharedIndices) {
		return b.index(n)
	}
	v := g.ints[g.pick(len(g.ints))]
	switch x := g.pick(10); {
	case x < 2 && g.slot:
		return fmt.Sprintf("slot(%d)", n) // through an expression function
	case x < 3 && len(g.bools) > 0:
		return fmt.Sprintf("(%s ? 1 : 0)", g.bools[g.pick(len(g.bools))].name)
	case x < 6:
		return fmt.Sprintf("(%s != %d ? 1 : 0)", v.name, v.init)
	case x < 8 && n&(n-1) == 0:
		return fmt.Sprintf("%s & %d", v.name, n-1)
	default:
		return fmt.Sprintf("((%s %% %d) + %d) %% %d", v.name, n, n, n)
	}
}

// nonneg is a term known to be non-negative: a literal, tid, a loop counter, a local
// holding a small nondet value.
func (b *body) nonneg(n int) string {
	g := b.g
	var cands []string
	cands = append(cands, fmt.Sprint(g.pick(n)))
	if b.tid() {
		cands = append(cands, "tid", "tid")
	}
	if b.pid() {
		cands = append(cands, "pid", "pid")
	}
	for _, sc := range b.scopes {
		for _, l := range sc {
			if l.typ == tInt && l.max >= 0 {
				cands = append(cands, l.name, l.name)
			}
		}
	}
	return cands[g.pick(len(cands))]
}

func bin(x expr, op string, y expr) expr {
	return expr{fmt.Sprintf("%s %s %s", paren(x.text), op, paren(y.text)), x.shared || y.shared}
}

// paren parenthesises text unless it is an atom (a name, a literal, a call, an
// indexed name).
func paren(s string) string {
	if isAtom(s) {
		return s
	}
	return "(" + s + ")"
}

func isAtom(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		return false // "-" + "-1" would scan as a decrement
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 && i != len(s)-1 && s[i+1] != '[' {
				return false
			}
		case ' ':
			if depth == 0 {
				return false
			}
		}
		if depth == 0 && (c == '!' || c == '~') {
			return false
		}
	}
	return s[0] != '('
}

// isLiteral reports whether s is an integer literal.
func isLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789x") == ""
}
