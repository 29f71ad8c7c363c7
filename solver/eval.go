package solver

import (
	"fmt"
	"slices"
)

// Assignment gives values to variables: the bits of a bit-vector variable
// (the low Width bits are used), or 0 and 1 for false and true.
type Assignment map[*Term]uint64

// Eval returns the value of t when its variables take the values in a: a
// bit-vector's bits zero-extended to 64, or 0 or 1 for a proposition. It
// fails if a variable of t has no value in a.
func Eval(t *Term, a Assignment) (uint64, error) {
	e := Evaluator{Assignment: a}
	return e.Eval(t)
}

// EvalBool is Eval for propositions.
func EvalBool(t *Term, a Assignment) (bool, error) {
	if !t.IsBool() {
		return false, fmt.Errorf("solver: EvalBool of a term of sort %s", t.sort)
	}
	v, err := Eval(t, a)
	return v == 1, err
}

// Evaluator evaluates many terms under one assignment, remembering the value
// of every subterm it has seen. The Assignment must not change while the
// Evaluator is in use.
type Evaluator struct {
	Assignment Assignment
	memo       map[*Term]uint64
}

// Eval returns the value of t, as the function Eval does.
func (e *Evaluator) Eval(t *Term) (uint64, error) {
	if e.memo == nil {
		e.memo = make(map[*Term]uint64)
	}
	return e.eval(t)
}

func (e *Evaluator) eval(t *Term) (uint64, error) {
	if v, ok := e.memo[t]; ok {
		return v, nil
	}
	var v uint64
	switch t.op {
	case OpConst:
		v = t.val
	case OpVar:
		x, ok := e.Assignment[t]
		if !ok {
			return 0, fmt.Errorf("solver: variable %s has no value", t.name)
		}
		if t.IsBool() {
			v = b2u(x != 0)
		} else {
			v = x & Mask(t.Width())
		}
	default:
		var buf [3]uint64
		vals := buf[:0]
		for _, a := range t.args {
			x, err := e.eval(a)
			if err != nil {
				return 0, err
			}
			vals = append(vals, x)
		}
		v = apply(t.op, t.sort, t.val, t.args, vals)
	}
	e.memo[t] = v
	return v, nil
}

// Vars returns the variables occurring in ts, ordered by ID.
func Vars(ts ...*Term) []*Term {
	seen := make(map[*Term]bool)
	var vars []*Term
	var walk func(t *Term)
	walk = func(t *Term) {
		if seen[t] {
			return
		}
		seen[t] = true
		if t.op == OpVar {
			vars = append(vars, t)
		}
		for _, a := range t.args {
			walk(a)
		}
	}
	for _, t := range ts {
		walk(t)
	}
	slices.SortFunc(vars, func(x, y *Term) int { return x.id - y.id })
	return vars
}
