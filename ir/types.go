package ir

import "fmt"

// Type is the type of a value. Every value is held as an int64: a Bool as 0 or 1,
// an integer type's values normalized to its range (sign-extended for the signed
// types, zero-extended for the unsigned ones; a U64 holds its 64 bits), a pointer
// as an object and a cell offset (see Program.MakePointer).
//
// .kb programs use Int, the program's width (--width), and Bool. C and Go programs
// use the fixed-width integer types and Ptr; their front ends convert explicitly
// (EConv) wherever the source language converts, so that the operands of an
// operator always have the operator's type.
type Type uint8

const (
	Int  Type = iota // signed, the program's width
	Bool             // 0 or 1
	I8
	U8
	I16
	U16
	I32
	U32
	I64
	U64
	Ptr // a pointer: an object and a cell offset in it
	numTypes
)

var typeNames = [...]string{Int: "int", Bool: "bool", I8: "int8", U8: "uint8", I16: "int16", U16: "uint16",
	I32: "int32", U32: "uint32", I64: "int64", U64: "uint64", Ptr: "pointer"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Bits is how many bits a value of type t has in a program of width w: w for
// Int, 1 for Bool, 64 for a pointer.
func (t Type) Bits(w int) int {
	switch t {
	case Int:
		return w
	case Bool:
		return 1
	case I8, U8:
		return 8
	case I16, U16:
		return 16
	case I32, U32:
		return 32
	}
	return 64
}

// Signed reports whether t's values are signed: Int and the signed integer types.
// Arithmetic right shift, signed division and signed comparison follow from it.
func (t Type) Signed() bool {
	switch t {
	case Int, I8, I16, I32, I64:
		return true
	}
	return false
}

// Integer reports whether t is an integer type (Int or a fixed-width one).
func (t Type) Integer() bool { return t != Bool && t != Ptr && t < numTypes }

// IntType returns the fixed-width integer type of the given bits and signedness.
func IntType(bits int, signed bool) Type {
	var t Type
	switch {
	case bits <= 8:
		t = I8
	case bits <= 16:
		t = I16
	case bits <= 32:
		t = I32
	default:
		t = I64
	}
	if !signed {
		t++
	}
	return t
}

// Range returns the least and greatest value of integer type t in a program of
// width w, as held in an int64 (a U64's greatest value is held as -1; see
// Unbounded nondets).
func (t Type) Range(w int) (lo, hi int64) {
	switch t {
	case Bool:
		return 0, 1
	case U64, Ptr:
		return 0, -1
	}
	b := t.Bits(w)
	if t.Signed() {
		return -1 << (b - 1), 1<<(b-1) - 1
	}
	return 0, 1<<b - 1
}

// Wrap normalizes v to type t in a program of width w: the value t holds whose
// low bits are v's (two's complement wrap-around). Bool and Ptr values pass
// unchanged.
func (t Type) Wrap(w int, v int64) int64 {
	switch t {
	case Bool, Ptr, I64, U64:
		return v
	}
	b := uint(t.Bits(w))
	if b >= 64 {
		return v
	}
	if t.Signed() {
		sh := 64 - b
		return v << sh >> sh
	}
	return v & (1<<b - 1)
}

// Convert is C's conversion of value v to type to in a program of width w (and
// Go's, which agrees on integers): to a Bool, whether v is not zero; to an
// integer type, v wrapped to it; pointers and integers convert keeping their
// bits.
func Convert(to Type, w int, v int64) int64 {
	if to == Bool {
		if v != 0 {
			return 1
		}
		return 0
	}
	return to.Wrap(w, v)
}
