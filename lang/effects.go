package lang

import "kbmc/lang/syntax"

// effects is what evaluating an expression involves.
type effects struct {
	cas    bool // performs a cas (here or in an expression function it calls)
	nondet bool // may draw a nondeterministic value
	// steps: lowering may emit operations of its own before the expression that
	// computes the value: a cas, or an expression-function argument that must be
	// evaluated into a temporary. It may be true where no operation is needed,
	// never the other way round.
	steps bool
}

// effectScan answers what evaluating an expression involves, looking through
// calls of expression functions into their bodies. Every answer is memoised per
// syntax node (and per function body), so all questions together cost time
// linear in the size of the program.
type effectScan struct {
	c        *checker
	exprs    map[syntax.Expr]effects
	bodies   map[*funcObj]effects
	visiting map[*funcObj]bool // guards against recursion, which the checker reports
	uses     map[*varObj]int
}

func newEffectScan(c *checker) *effectScan {
	return &effectScan{
		c:        c,
		exprs:    map[syntax.Expr]effects{},
		bodies:   map[*funcObj]effects{},
		visiting: map[*funcObj]bool{},
		uses:     map[*varObj]int{},
	}
}

func (s *effectScan) hasCas(x syntax.Expr) bool     { return s.of(x).cas }
func (s *effectScan) hasNondet(x syntax.Expr) bool  { return s.of(x).nondet }
func (s *effectScan) needsSteps(x syntax.Expr) bool { return s.of(x).steps }

// children returns the direct subexpressions of x.
func children(x syntax.Expr) []syntax.Expr {
	var out []syntax.Expr
	syntax.Inspect(x, func(n syntax.Node) bool {
		if n == syntax.Node(x) {
			return true
		}
		if e, ok := n.(syntax.Expr); ok {
			out = append(out, e)
		}
		return false
	})
	return out
}

func (s *effectScan) of(x syntax.Expr) effects {
	if x == nil {
		return effects{}
	}
	if e, ok := s.exprs[x]; ok {
		return e
	}
	var e effects
	for _, c := range children(x) {
		ce := s.of(c)
		e.cas = e.cas || ce.cas
		e.nondet = e.nondet || ce.nondet
		e.steps = e.steps || ce.steps
	}
	switch x := x.(type) {
	case *syntax.CasExpr:
		e.cas, e.steps = true, true
	case *syntax.NondetExpr:
		e.nondet = true
	case *syntax.CallExpr:
		if f := s.c.funcOf[x]; f != nil && f.exprBody != nil {
			be := s.body(f)
			e.cas = e.cas || be.cas
			e.nondet = e.nondet || be.nondet
			e.steps = e.steps || be.steps
			for i, a := range x.Args {
				if i < len(f.params) && s.useCount(f, f.params[i]) > 1 && s.of(a).nondet {
					e.steps = true
				}
			}
		}
	}
	s.exprs[x] = e
	return e
}

func (s *effectScan) body(f *funcObj) effects {
	if e, ok := s.bodies[f]; ok {
		return e
	}
	if s.visiting[f] {
		return effects{}
	}
	s.visiting[f] = true
	e := s.of(f.exprBody)
	delete(s.visiting, f)
	s.bodies[f] = e
	return e
}

// useCount is how often parameter p occurs in its expression function's body.
func (s *effectScan) useCount(f *funcObj, p *varObj) int {
	if n, ok := s.uses[p]; ok {
		return n
	}
	counts := map[*varObj]int{}
	syntax.Inspect(f.exprBody, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			if v, ok := s.c.uses[id].(*varObj); ok && v.param && v.fn == f {
				counts[v]++
			}
		}
		return true
	})
	for _, q := range f.params {
		s.uses[q] = counts[q]
	}
	return s.uses[p]
}
