package encode

import (
	"kbmc/ir"
	"kbmc/solver"
)

// Typed integers (ir/types.go). ir holds every value as an int64: an integer
// type's values normalized to its range (a U64 as its 64 bits), a pointer as
// obj<<PtrShift | offset, and every operation of a C or Go type wraps its
// result to the type (ir.Type.Wrap). The encoding holds all ints at one width
// u.w, as that int64 value sign-extended: u.w is chosen so that every value of
// every type the program uses fits (typedWidth). An operation is then computed
// at u.w bits and wrapped to its type when the type is narrower than u.w; its
// low bits are the int64 result's, so the wrapped value is ir's. .kb programs
// have only Int and Bool: for them nothing changes (u.w is ValueBits's, and
// Int never wraps below it).

// typedWidth is the width that holds every value of the types p uses other
// than Int and Bool as a signed number: a signed type's bits, one more for an
// unsigned one (a U32 up to 2^32−1), 64 for 64-bit types and pointers (whose
// values ir computes in int64). 0 when p uses none.
func typedWidth(p *ir.Program) int {
	need := 0
	see := func(t ir.Type) {
		switch t {
		case ir.Int, ir.Bool:
		case ir.I8, ir.I16, ir.I32:
			need = max(need, t.Bits(p.Width))
		case ir.U8, ir.U16, ir.U32:
			need = max(need, t.Bits(p.Width)+1)
		default:
			need = 64
		}
	}
	vars := func(vs []*ir.Var) {
		for _, v := range vs {
			see(v.Type)
			for _, t := range v.CellTypes {
				see(t)
			}
		}
	}
	vars(p.Shared)
	for _, tm := range p.Templates {
		vars(tm.Locals)
		for _, n := range tm.Nodes {
			for e := range n.Exprs() {
				ir.Inspect(e, func(x *ir.Expr) bool {
					see(x.Type)
					return true
				})
			}
			for lv := range n.LValues() {
				see(lv.Type)
			}
		}
	}
	if len(p.Pools) > 0 {
		need = max(need, 2) // a start flag holds 1
	}
	return need
}

// rawBools reports whether a Bool cell of p may hold a value other than 0 and
// 1, or a Bool-typed read may return one: ir neither converts a value stored
// into a cell (Type.Wrap leaves Bool values as they are) nor a Bool-typed read
// of a cell, and a Bool fits an 8-bit cell (ir.Fits). That happens when a
// pointer access of 8 bits may meet a Bool cell or a Bool access an 8-bit one,
// or when a variable's cells mix Bool and other types (a struct local with a
// _Bool field, indexed). Such programs hold every Bool-typed value as an int,
// with ir's operators on it (ENot is 1 − x, && and || give their right
// operand's value); others hold Bools as Boolean terms.
func rawBools(p *ir.Program) bool {
	var boolMem, byteMem, mixed bool
	for _, v := range p.Shared {
		kinds := cellKinds(v)
		if v.Addressable {
			boolMem = boolMem || kinds&kindBool != 0
			byteMem = byteMem || kinds&kindByte != 0
		}
		mixed = mixed || kinds&kindBool != 0 && kinds&^kindBool != 0
	}
	access := func(t ir.Type) {
		switch t {
		case ir.Bool:
			boolMem = true
		case ir.I8, ir.U8:
			byteMem = true
		}
	}
	for _, tm := range p.Templates {
		for _, v := range tm.Locals {
			k := cellKinds(v)
			mixed = mixed || k&kindBool != 0 && k&^kindBool != 0
		}
		for _, n := range tm.Nodes {
			for e := range n.Exprs() {
				ir.Inspect(e, func(x *ir.Expr) bool {
					if x.Op == ir.EDeref {
						access(x.Type)
					}
					return true
				})
			}
			for lv := range n.LValues() {
				if lv.Ptr != nil {
					access(lv.Type)
				}
			}
		}
	}
	return mixed || boolMem && byteMem
}

const (
	kindBool = 1 << iota
	kindByte
	kindOther
)

// cellKinds says which kinds of cells v has: Bool, 8-bit integers, others.
func cellKinds(v *ir.Var) int {
	k := 0
	for c := range v.Cells() {
		switch v.CellType(c) {
		case ir.Bool:
			k |= kindBool
		case ir.I8, ir.U8:
			k |= kindByte
		default:
			k |= kindOther
		}
	}
	return k
}

// typeBits is how many bits a value of integer type t has (Int: the
// program's width).
func (u *Unrolling) typeBits(t ir.Type) int { return t.Bits(u.p.Width) }

// wrap is ir.Type.Wrap at the encoding's width: the value of type t whose low
// bits are v's. Nothing to do when t has at least u.w bits, and for Bool and
// pointers, which ir leaves as they are.
func (u *Unrolling) wrap(t ir.Type, v val) val {
	if t == ir.Bool || t == ir.Ptr || v.isBool() {
		return v
	}
	bits := u.typeBits(t)
	if bits >= u.w {
		return v
	}
	b := u.b
	if t.Signed() {
		return u.unary(v, func(x *solver.Term) *solver.Term { return b.SignExtend(b.Extract(x, bits-1, 0), u.w) })
	}
	return u.unary(v, func(x *solver.Term) *solver.Term { return b.ZeroExtend(b.Extract(x, bits-1, 0), u.w) })
}

// convert is ir.Convert: to a Bool, whether v is not 0; to an integer type,
// v wrapped; pointers and integers keep their bits.
func (u *Unrolling) convert(t ir.Type, v val) val {
	if t == ir.Bool {
		return u.boolVal(u.toBool(v))
	}
	return u.wrap(t, u.toInt(v, u.w))
}

// boolVal is a Bool-typed value: the Boolean term, or with raw Bools (see
// rawBools) the int 0 or 1.
func (u *Unrolling) boolVal(c *solver.Term) val {
	if u.raw {
		return u.toInt(termVal(c), u.w)
	}
	return termVal(c)
}

// signedLess and friends compare two ints by the signedness of their type
// (ir compares the operands of an unsigned type, a pointer or a Bool as
// uint64, whose order on the sign-extended values is the unsigned order at
// u.w bits).
func (u *Unrolling) compare(op ir.ExprOp, t ir.Type, x, y val) val {
	b := u.b
	var f func(x, y *solver.Term) *solver.Term
	signed := t.Signed()
	switch op {
	case ir.ELt:
		f = b.Slt
		if !signed {
			f = b.Ult
		}
	case ir.ELe:
		f = b.Sle
		if !signed {
			f = b.Ule
		}
	case ir.EGt:
		f = b.Sgt
		if !signed {
			f = b.Ugt
		}
	default:
		f = b.Sge
		if !signed {
			f = b.Uge
		}
	}
	return u.binary(x, y, f)
}
