package ir

import (
	"math"
	"math/bits"
)

// Interval approximation of expression values. The static analyses of the
// explicit engine (which cell, which lock, may this fail) and the value widths of
// the symbolic encoding (ValueBits) evaluate expressions here.

// An Interval is the set of integers Lo..Hi (a Bool is within [0, 1]).
type Interval struct{ Lo, Hi int64 }

// Single reports whether the interval holds one value.
func (a Interval) Single() bool { return a.Lo == a.Hi }

// Intervals evaluates expressions of a program over intervals: constants, tid and
// nondet ranges are known, variables are what vars says.
type Intervals struct {
	width    int
	min, max int64 // the W-bit range
	tid      Interval
	vars     func(*Var) (Interval, bool)
	// memory, when set, evaluates the operations of C's and Go's memory
	// (EAddr, EDeref, EPtrAdd, EPtrDiff, ESelf); nil, or false from it,
	// means any value of the expression's type.
	memory func(iv *Intervals, e *Expr) (Interval, bool)
}

// Intervals returns an evaluator of p's expressions in threads whose tid lies in
// tid. vars gives the values an int variable (any cell of an array) may hold; nil,
// or false from it, means any W-bit value.
func (p *Program) Intervals(tid Interval, vars func(*Var) (Interval, bool)) Intervals {
	return Intervals{width: p.Width, min: p.MinInt(), max: p.MaxInt(), tid: tid, vars: vars}
}

func (iv *Intervals) top(t Type) Interval {
	switch t {
	case Int:
		return Interval{iv.min, iv.max}
	case Bool:
		return Interval{0, 1}
	case U64, Ptr, I64:
		return Interval{math.MinInt64, math.MaxInt64}
	}
	lo, hi := t.Range(iv.width)
	return Interval{lo, hi}
}

// fit returns [lo, hi] if it lies in the W-bit range (no wrap-around), else top.
func (iv *Intervals) fit(lo, hi int64) Interval {
	if lo < iv.min || hi > iv.max || lo > hi {
		return Interval{iv.min, iv.max}
	}
	return Interval{lo, hi}
}

const safeAdd = 1 << 62 // operands below this in magnitude add without overflow
const safeMul = 1 << 31 // operands below this in magnitude multiply without overflow

func within(a Interval, m int64) bool { return a.Lo > -m && a.Hi < m }

// Eval returns an interval that holds every value e may take: a surely true or
// surely false comparison is [1, 1] or [0, 0], and a result that may wrap around
// at W bits is the whole W-bit range.
func (iv *Intervals) Eval(e *Expr) Interval {
	switch e.Op {
	case EConst:
		return Interval{e.Val, e.Val}
	case ETid:
		return iv.tid
	case ENondet:
		if e.Unbounded {
			return iv.top(e.Type)
		}
		return Interval{e.Lo, e.Hi}
	case EVar, EIndex:
		if e.Type == Bool || iv.vars == nil {
			return iv.top(e.Type)
		}
		if v, ok := iv.vars(e.Var); ok {
			return v
		}
		return iv.top(e.Type)
	case ELen:
		// X is the channel index (nil for a single channel), not an operand: the
		// value is a queue length, between empty and full.
		return Interval{0, int64(e.Chan.Cap)}
	case EConv:
		x := iv.Eval(e.X)
		if e.Type == Bool {
			return compare(x.Lo > 0 || x.Hi < 0, x.Single() && x.Lo == 0)
		}
		if top := iv.top(e.Type); x.Lo >= top.Lo && x.Hi <= top.Hi && e.Type != U64 {
			return x // the value fits: the conversion keeps it
		}
		return iv.top(e.Type)
	case EAddr, EDeref, EPtrAdd, EPtrDiff, ESelf:
		if iv.memory != nil {
			if r, ok := iv.memory(iv, e); ok {
				return r
			}
		}
		return iv.top(e.Type)
	case ENeg:
		x := iv.Eval(e.X)
		if x.Lo == math.MinInt64 || e.Type == Int && x.Lo == iv.min {
			return iv.top(e.Type)
		}
		return iv.typed(e.Type, Interval{-x.Hi, -x.Lo})
	case ENot:
		x := iv.Eval(e.X)
		return Interval{1 - x.Hi, 1 - x.Lo}
	case ECompl:
		x := iv.Eval(e.X)
		return iv.typed(e.Type, Interval{^x.Hi, ^x.Lo})
	case ELAnd:
		x := iv.Eval(e.X)
		if x.Hi == 0 {
			return Interval{0, 0}
		}
		y := iv.Eval(e.Y)
		if x.Lo == 1 || y.Hi == 0 {
			return y
		}
		return Interval{0, 1}
	case ELOr:
		x := iv.Eval(e.X)
		if x.Lo == 1 {
			return Interval{1, 1}
		}
		y := iv.Eval(e.Y)
		if x.Hi == 0 || y.Lo == 1 {
			return y
		}
		return Interval{0, 1}
	case ECond:
		x := iv.Eval(e.X)
		switch {
		case x.Lo == 1:
			return iv.Eval(e.Y)
		case x.Hi == 0:
			return iv.Eval(e.Z)
		}
		y, z := iv.Eval(e.Y), iv.Eval(e.Z)
		return Interval{min(y.Lo, z.Lo), max(y.Hi, z.Hi)}
	}
	x, y := iv.Eval(e.X), iv.Eval(e.Y)
	unsignedNeg := !e.X.Type.Signed() && (x.Lo < 0 || y.Lo < 0)
	if e.Type != Int && e.Type != Bool && e.Op >= EMul && e.Op <= EShr {
		// A C or Go integer type: the result is within the type, and exact
		// below only when no wrap-around can happen at the program's width
		// either; the type's bounds are checked after. A U64 may hold a
		// negative int64, which ir divides and shifts as the uint64 it
		// stands for, unlike eval2.
		if unsignedNeg && (e.Op == EDiv || e.Op == ERem || e.Op == EShr) {
			return iv.top(e.Type)
		}
		return iv.typed(e.Type, iv.eval2(e, x, y))
	}
	if unsignedNeg && e.Op >= ELt && e.Op <= EGe {
		// ir compares an unsigned type's (or a pointer's) values as uint64:
		// a negative int64 is above every non-negative one.
		return Interval{0, 1}
	}
	return iv.eval2(e, x, y)
}

// typed is r as the value of an operation of type t: r itself when every
// value of r is one t holds (Int's and Bool's results are the caller's to
// check), else every value of t, since ir wraps the result to t.
func (iv *Intervals) typed(t Type, r Interval) Interval {
	if t == Int || t == Bool {
		return r
	}
	if top := iv.top(t); r.Lo >= top.Lo && r.Hi <= top.Hi && r.Lo <= r.Hi {
		return r
	}
	return iv.top(t)
}

// eval2 is Eval of a binary operator on the intervals of its operands.
func (iv *Intervals) eval2(e *Expr, x, y Interval) Interval {
	switch e.Op {
	case EAdd:
		if within(x, safeAdd) && within(y, safeAdd) {
			return iv.fit(x.Lo+y.Lo, x.Hi+y.Hi)
		}
	case ESub:
		if within(x, safeAdd) && within(y, safeAdd) {
			return iv.fit(x.Lo-y.Hi, x.Hi-y.Lo)
		}
	case EMul:
		if within(x, safeMul) && within(y, safeMul) {
			c := [4]int64{x.Lo * y.Lo, x.Lo * y.Hi, x.Hi * y.Lo, x.Hi * y.Hi}
			return iv.fit(min(c[0], c[1], c[2], c[3]), max(c[0], c[1], c[2], c[3]))
		}
	case EDiv:
		if x.Single() && y.Single() && y.Lo != 0 && !(x.Lo == iv.min && y.Lo == -1) {
			return Interval{x.Lo / y.Lo, x.Lo / y.Lo}
		}
	case ERem:
		if x.Single() && y.Single() && y.Lo != 0 && !(x.Lo == iv.min && y.Lo == -1) {
			return Interval{x.Lo % y.Lo, x.Lo % y.Lo} // truncated, as ir and C compute it
		}
		if y.Single() && y.Lo != 0 && y.Lo != iv.min {
			m := y.Lo
			if m < 0 {
				m = -m
			}
			m--
			switch {
			case x.Lo >= 0:
				return Interval{0, min(m, x.Hi)}
			case x.Hi <= 0:
				return Interval{max(-m, x.Lo), 0}
			}
			return Interval{-m, m}
		}
	case EShr:
		if y.Single() && y.Lo >= 0 && y.Lo < int64(iv.width) {
			return Interval{x.Lo >> uint(y.Lo), x.Hi >> uint(y.Lo)}
		}
	case EAnd:
		switch {
		case x.Lo >= 0 && y.Lo >= 0:
			return Interval{0, min(x.Hi, y.Hi)}
		case x.Lo >= 0:
			return Interval{0, x.Hi}
		case y.Lo >= 0:
			return Interval{0, y.Hi}
		}
	case EOr, EXor:
		if x.Lo >= 0 && y.Lo >= 0 {
			return Interval{0, 1<<bits.Len64(uint64(max(x.Hi, y.Hi))) - 1}
		}
	case ELt:
		return compare(x.Hi < y.Lo, x.Lo >= y.Hi)
	case ELe:
		return compare(x.Hi <= y.Lo, x.Lo > y.Hi)
	case EGt:
		return compare(x.Lo > y.Hi, x.Hi <= y.Lo)
	case EGe:
		return compare(x.Lo >= y.Hi, x.Hi < y.Lo)
	case EEq:
		return compare(x.Single() && y.Single() && x.Lo == y.Lo, x.Hi < y.Lo || y.Hi < x.Lo)
	case ENe:
		return compare(x.Hi < y.Lo || y.Hi < x.Lo, x.Single() && y.Single() && x.Lo == y.Lo)
	}
	return iv.top(e.Type)
}

// compare is the interval of a comparison that is surely true or surely false.
func compare(yes, no bool) Interval {
	switch {
	case yes:
		return Interval{1, 1}
	case no:
		return Interval{0, 0}
	}
	return Interval{0, 1}
}
