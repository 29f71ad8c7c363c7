package cfront

import (
	"modernc.org/cc/v4"

	"kbmc/ir"
)

// C11 atomic objects (_Atomic int x, atomic_int x): every access to one is
// an atomic operation, and x++, x += e and the other compound assignments
// are one atomic read-modify-write (C11 6.5.2.4, 6.5.16.2), as the
// __atomic_ builtins are. Their cells are marked atomic (ir.Var.AtomicCells,
// from the layout), which is what makes two accesses never race wherever
// they are (docs/c.md, "Data races"); loads, stores and read-modify-writes
// are also lowered as atomic sections of their own.
//
// An object is atomic when its type comes through a typedef declared
// _Atomic (stdatomic.h's atomic_int, a pointer's pointee, a struct member or
// an array element of such a type), or when its own declaration says
// _Atomic and it is a scalar variable. cc records _Atomic on declarators, not
// on types, so _Atomic written in the declaration of a pointer, an array or a
// struct member would leave kbmc unable to tell which object it qualifies:
// those are refused where the program's own file declares them (scanAtomic).

// atomicTyped reports whether t comes through a typedef declared _Atomic.
func atomicTyped(t cc.Type) bool {
	for i := 0; t != nil && i < 32; i++ {
		td := t.Typedef()
		if td == nil {
			return false
		}
		if td.IsAtomic() {
			return true
		}
		t = td.Type()
	}
	return false
}

// isAtomicPlace reports whether pl is an atomic object.
func isAtomicPlace(pl place) bool { return pl.atomic || atomicTyped(pl.typ) }

// enterAtomic begins an atomic section (an access to an atomic object, an
// __atomic_ builtin); leaveAtomic ends it.
func (b *builder) enterAtomic() {
	b.atomic++
	if b.atomic == 1 {
		b.cutNext = true
	}
}

func (b *builder) leaveAtomic() { b.atomic-- }

// scanAtomic refuses _Atomic where it qualifies an object kbmc cannot tell
// (see above): a pointer, array or struct variable, or a struct member,
// declared _Atomic without a typedef.
func (l *lowerer) scanAtomic() {
	walk(l.ast.TranslationUnit, func(n cc.Node) bool {
		if _, mine := l.lines.node(n); !mine {
			return true // a header's declaration: refused only where the program uses it
		}
		switch x := n.(type) {
		case *cc.StructDeclarator:
			if d := x.Declarator; d != nil && d.IsAtomic() && !atomicTyped(d.Type()) {
				l.errorf(d, ir.Pos{}, "%s: an _Atomic struct member is not supported (declare its type with typedef _Atomic …)", d.Name())
			}
		case *cc.Declarator:
			if x.IsAtomic() && !x.IsTypename() && !atomicTyped(x.Type()) && !isAtomicScalar(x.Type()) {
				l.errorf(x, ir.Pos{}, "%s: _Atomic on a pointer, array or struct declaration is not supported (declare the atomic type with typedef _Atomic …)", x.Name())
			}
		}
		return true
	})
}

// isAtomicScalar reports whether t is a type an _Atomic variable of which
// cfront models: an integer (or enum, or _Bool).
func isAtomicScalar(t cc.Type) bool {
	switch t.Kind() {
	case cc.Bool, cc.Char, cc.SChar, cc.UChar, cc.Short, cc.UShort, cc.Int, cc.UInt,
		cc.Long, cc.ULong, cc.LongLong, cc.ULongLong, cc.Enum:
		return true
	}
	return false
}
