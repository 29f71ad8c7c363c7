package cfront

import (
	"reflect"

	"modernc.org/cc/v4"
)

// walk calls f for n and, while f returns true, for every node below it in
// source order. cc has no walker of its own; its nodes are structs whose
// exported fields hold their children, so walk follows those.
func walk(n cc.Node, f func(cc.Node) bool) {
	if n == nil {
		return
	}
	v := reflect.ValueOf(n)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return
	}
	if !f(n) {
		return
	}
	walkValue(v, f)
}

var nodeType = reflect.TypeFor[cc.Node]()

func walkValue(v reflect.Value, f func(cc.Node) bool) {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Anonymous {
			continue
		}
		fv := v.Field(i)
		switch fv.Kind() {
		case reflect.Pointer, reflect.Interface:
			if fv.IsNil() || !fv.Type().Implements(nodeType) && fv.Kind() != reflect.Interface {
				continue
			}
			if fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() != reflect.Struct {
				continue
			}
			if n, ok := fv.Interface().(cc.Node); ok {
				if _, isTok := n.(cc.Token); isTok {
					continue
				}
				walk(n, f)
			}
		}
	}
}

// scanTaken finds the variables whose address the program takes (& x, an
// array used as a pointer): they become objects that pointers address. A
// pthread_t whose address only pthread_create or pthread_join's result is
// given, a thread's local, stays a plain local: cfront stores into it
// directly.
func (l *lowerer) scanTaken() {
	s := takenScan{l}
	for _, fd := range l.funcs {
		s.visit(fd.CompoundStatement)
	}
	for _, g := range l.globals {
		if g.init != nil {
			s.visit(g.init)
		}
	}
}

type takenScan struct{ l *lowerer }

func (s takenScan) visit(root cc.Node) { walk(root, s.node) }

func (s takenScan) mark(e cc.ExpressionNode) {
	d := baseDecl(e)
	if d == nil {
		return
	}
	s.l.taken[d] = true
	if !d.IsParam() && (d.StorageDuration() != cc.Automatic || d.IsStatic()) {
		s.l.takenNames[d.Name()] = true
	}
}

func (s takenScan) node(n cc.Node) bool {
	switch x := n.(type) {
	case *cc.UnaryExpression:
		switch x.Case {
		case cc.UnaryExpressionAddrof:
			s.mark(x.CastExpression)
		case cc.UnaryExpressionSizeofExpr, cc.UnaryExpressionAlignofExpr:
			return false
		}
	case *cc.PostfixExpression:
		switch x.Case {
		case cc.PostfixExpressionCall:
			return !s.call(x)
		case cc.PostfixExpressionIndex:
			// a[i] on an array variable is an element, not a decay.
			if isArray(x.PostfixExpression.Type()) {
				if _, ok := stripParens(x.PostfixExpression).(*cc.PrimaryExpression); ok {
					s.visit(x.ExpressionList)
					return false
				}
			}
		}
	case *cc.PrimaryExpression:
		if x.Case == cc.PrimaryExpressionIdent && isArray(x.Type()) {
			s.mark(x) // an array in a value context decays to a pointer
		}
	}
	return true
}

// call scans the arguments of a call, leaving out the &t that pthread_create
// and pthread_join store into (when t is a local); it reports whether it
// scanned the call itself.
func (s takenScan) call(x *cc.PostfixExpression) bool {
	skip := -1
	switch funcName(x.PostfixExpression) {
	case "pthread_create":
		skip = 0
	case "pthread_join":
		skip = 1
		if a := x.ArgumentExpressionList; a != nil && a.ArgumentExpressionList != nil {
			if v, ok := constValue(a.ArgumentExpressionList.AssignmentExpression); !ok || v != 0 {
				s.l.results = true
			}
		}
	default:
		return false
	}
	i := 0
	for a := x.ArgumentExpressionList; a != nil; a, i = a.ArgumentExpressionList, i+1 {
		arg := a.AssignmentExpression
		if i == skip {
			// &t or &t[i] of a local: stored into directly.
			if u, ok := stripParens(arg).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
				target := stripParens(u.CastExpression)
				var index cc.ExpressionNode
				if px, ok := target.(*cc.PostfixExpression); ok && px.Case == cc.PostfixExpressionIndex && isArray(px.PostfixExpression.Type()) {
					target, index = stripParens(px.PostfixExpression), px.ExpressionList
				}
				if p, ok := target.(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
					if d, _ := p.ResolvedTo().(*cc.Declarator); d != nil && d.StorageDuration() == cc.Automatic && !d.IsStatic() {
						if index != nil {
							s.visit(index)
						}
						continue
					}
				}
			}
		}
		s.visit(arg)
	}
	return true
}

// baseDecl is the variable at the root of an lvalue expression (x in x, x.f,
// x[i], (x)), or nil.
func baseDecl(e cc.ExpressionNode) *cc.Declarator {
	for {
		switch x := stripParens(e).(type) {
		case *cc.PrimaryExpression:
			if x.Case != cc.PrimaryExpressionIdent {
				return nil
			}
			d, _ := x.ResolvedTo().(*cc.Declarator)
			return d
		case *cc.PostfixExpression:
			switch x.Case {
			case cc.PostfixExpressionSelect:
				e = x.PostfixExpression
				continue
			case cc.PostfixExpressionIndex:
				if isArray(x.PostfixExpression.Type()) {
					e = x.PostfixExpression
					continue
				}
				return nil
			case cc.PostfixExpressionPrimary:
				e = x.PrimaryExpression
				continue
			}
			return nil
		case *cc.UnaryExpression:
			if x.Case == cc.UnaryExpressionPostfix {
				e = x.PostfixExpression
				continue
			}
			return nil
		case *cc.CastExpression:
			if x.Case == cc.CastExpressionUnary {
				e = x.UnaryExpression
				continue
			}
			return nil
		default:
			return nil
		}
	}
}
