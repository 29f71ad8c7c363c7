package ir

import (
	"fmt"
	"math/bits"
)

// Signed overflow (the property no-overflow, SV-COMP's name): in C an
// arithmetic operation on a signed integer type whose exact result does not
// fit the type is undefined behaviour. kbmc's semantics otherwise wraps such
// a result (Type.Wrap), as .kb defines it; a run that selects the property
// (SelectProperty) reports it instead, as the violation Overflow of the step
// that performs it. Checked: +, -, * and unary - on a signed type, and / and
// % of the type's least value by -1. Not checked: conversions to a narrower
// signed type (implementation-defined in C, not undefined), shifts (their
// amount is checked always, Shift), unsigned arithmetic (it wraps by
// definition) and pointer arithmetic (an access outside its object is
// InvalidDeref).

// SelectProperty sets up the checks property k needs beyond the violations
// every run reports: DataRace turns the data-race check on (SelectRaces),
// Overflow the signed-overflow check; InvalidDeref (or InvalidFree) stands
// for memory safety, SV-COMP's valid-memsafety, whose violations every run
// reports already; any other kind turns all three off. Under each, a failing
// assertion is no violation: it aborts, as C's assert does, and the thread
// stops there (AbortsOnAssert). It may be called on a finished program,
// before any run.
func (p *Program) SelectProperty(k ViolationKind) {
	p.SelectRaces(k == DataRace)
	p.overflow = k == Overflow
	p.memsafety = k == InvalidDeref || k == InvalidFree
}

// AbortsOnAssert reports whether a failing assertion stops its thread
// instead of being a violation: under a property that is not about
// assertions (SelectProperty).
func (p *Program) AbortsOnAssert() bool { return p.races != nil || p.overflow || p.memsafety }

// ChecksOverflow reports whether runs of p report signed overflow.
func (p *Program) ChecksOverflow() bool { return p.overflow }

// checkOverflow fails the step when e (an arithmetic operation; for ENeg, x
// is 0 and y the operand) on a signed type overflows with operands x and y.
func (m *machine) checkOverflow(e *Expr, x, y int64) {
	t := e.Type
	if !t.Signed() {
		return
	}
	lo, hi := t.Range(m.p.Width)
	var exact int64
	var over bool
	switch e.Op {
	case ENeg:
		exact, over = sub64(0, y)
	case EAdd:
		exact, over = add64(x, y)
	case ESub:
		exact, over = sub64(x, y)
	case EMul:
		exact, over = mul64(x, y)
	case EDiv, ERem:
		over = y == -1 && x == lo
	default:
		return
	}
	if over || e.Op != EDiv && e.Op != ERem && (exact < lo || exact > hi) {
		ops := map[ExprOp]string{ENeg: "-", EAdd: "+", ESub: "-", EMul: "*", EDiv: "/", ERem: "%"}
		what := fmt.Sprintf("%d %s %d", x, ops[e.Op], y)
		if e.Op == ENeg {
			what = fmt.Sprintf("-(%d)", y)
		}
		m.fail(Overflow, e.Pos, "signed overflow: %s does not fit %s", what, t)
	}
}

// add64, sub64 and mul64 return the 64-bit result and whether the exact one
// does not fit 64 bits.
func add64(x, y int64) (int64, bool) {
	s := x + y
	return s, (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0)
}

func sub64(x, y int64) (int64, bool) {
	d := x - y
	return d, (x >= 0) != (y >= 0) && (d >= 0) != (x >= 0)
}

func mul64(x, y int64) (int64, bool) {
	neg := (x < 0) != (y < 0)
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = -ux
	}
	if y < 0 {
		uy = -uy
	}
	hi, lo := bits.Mul64(ux, uy)
	if hi != 0 {
		return int64(lo), true
	}
	if neg {
		return -int64(lo), lo > 1<<63
	}
	return int64(lo), lo > 1<<63-1
}
