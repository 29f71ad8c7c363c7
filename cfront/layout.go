package cfront

import (
	"fmt"
	"sort"

	"modernc.org/cc/v4"

	"kbmc/ir"
)

// A layout is how a value of a C type is held: one cell per scalar (a struct's
// fields and an array's elements, recursively, in order), each at its byte
// offset in the value. Pointer arithmetic counts cells (ir's memory model), and
// sizeof, malloc's argument and initializers count bytes; the layout maps one
// to the other.
type layout struct {
	cells []cellInfo
	size  int64 // bytes
}

// cellInfo is one scalar of a layout.
type cellInfo struct {
	off  int64 // byte offset in the value
	typ  ir.Type
	name string // the scalar's path in the value: ".next", "[2].x"; "" for a scalar type
	// opaque, for a pthread object's cell, is the object's size in bytes:
	// its initializer's parts all fall inside.
	opaque int64
	// atomic: the cell is (part of) a C11 atomic object (atomic.go).
	atomic bool
}

// n is the number of cells.
func (lo *layout) n() int { return len(lo.cells) }

// cellAt returns the cell that starts at byte offset off, or -1.
func (lo *layout) cellAt(off int64) int {
	i := sort.Search(len(lo.cells), func(i int) bool { return lo.cells[i].off >= off })
	if i < len(lo.cells) && lo.cells[i].off == off {
		return i
	}
	return -1
}

// inOpaque reports whether byte offset off lies inside a pthread object's cell.
func (lo *layout) inOpaque(off int64) bool {
	i := sort.Search(len(lo.cells), func(i int) bool { return lo.cells[i].off > off }) - 1
	return i >= 0 && lo.cells[i].opaque > 0 && off < lo.cells[i].off+lo.cells[i].opaque
}

// atomics is a variable's AtomicCells: nil when no cell is atomic, unless
// all is set (a scalar variable declared _Atomic).
func (lo *layout) atomics(all bool) []bool {
	var as []bool
	for i, c := range lo.cells {
		if c.atomic || all {
			if as == nil {
				as = make([]bool, len(lo.cells))
			}
			as[i] = true
		}
	}
	return as
}

// types and names are a variable's CellTypes and CellNames (nil for a scalar).
func (lo *layout) types() []ir.Type {
	if len(lo.cells) == 1 && lo.cells[0].name == "" {
		return nil
	}
	ts := make([]ir.Type, len(lo.cells))
	for i, c := range lo.cells {
		ts[i] = c.typ
	}
	return ts
}

func (lo *layout) names(base string) []string {
	if len(lo.cells) == 1 && lo.cells[0].name == "" {
		return nil
	}
	ns := make([]string, len(lo.cells))
	for i, c := range lo.cells {
		ns[i] = base + c.name
	}
	return ns
}

// opaque are the pthread types whose insides a program never touches: each is
// one cell. A mutex's cell holds its owner (ir.MutexCell); the others hold
// nothing kbmc reads.
var opaque = map[string]bool{
	"pthread_mutex_t": true, "pthread_cond_t": true, "pthread_attr_t": true,
	"pthread_mutexattr_t": true, "pthread_condattr_t": true, "pthread_once_t": true,
}

// semaphores are the semaphore types: one cell, the count (semaphore.go),
// however large the library's type is.
var semaphores = map[string]bool{"sem_t": true}

// typedefName is the name of the typedef t was declared through, or "".
func typedefName(t cc.Type) string {
	if d := t.Typedef(); d != nil {
		return d.Name()
	}
	return ""
}

// isMutex reports whether t is pthread_mutex_t.
func isMutex(t cc.Type) bool { return typedefName(t) == "pthread_mutex_t" }

// unsupportedType is the error of a type cfront does not model.
type unsupportedType struct{ what string }

func (e *unsupportedType) Error() string { return e.what + " is not supported" }

// layoutOf returns the layout of t, or an error naming what cfront does not
// model (floating point, unions, bit fields, variable-length arrays).
func (l *lowerer) layoutOf(t cc.Type) (*layout, error) {
	if lo, ok := l.layouts[t]; ok {
		return lo, nil
	}
	lo := &layout{size: t.Size()}
	if err := l.addCells(lo, t, 0, ""); err != nil {
		return nil, err
	}
	if len(lo.cells) == 0 {
		return nil, &unsupportedType{"a value of no scalar (a zero-length array or an empty struct, " + t.String() + ")"}
	}
	l.layouts[t] = lo
	return lo, nil
}

func (l *lowerer) addCells(lo *layout, t cc.Type, off int64, name string) error {
	start := len(lo.cells)
	err := l.addCellsOf(lo, t, off, name)
	if err == nil && atomicTyped(t) {
		for i := start; i < len(lo.cells); i++ {
			lo.cells[i].atomic = true
		}
	}
	return err
}

func (l *lowerer) addCellsOf(lo *layout, t cc.Type, off int64, name string) error {
	if len(lo.cells) > ir.MaxStateCells {
		return &unsupportedType{"an object of more than " + fmt.Sprint(ir.MaxStateCells) + " cells"}
	}
	if n := typedefName(t); opaque[n] {
		lo.cells = append(lo.cells, cellInfo{off: off, typ: ir.MutexCell, name: name, opaque: max(t.Size(), 1)})
		return nil
	} else if semaphores[n] {
		lo.cells = append(lo.cells, cellInfo{off: off, typ: semaphoreCell, name: name, opaque: max(t.Size(), 1)})
		return nil
	}
	switch t.Kind() {
	case cc.Array:
		a := t.(*cc.ArrayType)
		if a.IsVLA() || a.Len() < 0 {
			return &unsupportedType{"an array of variable or unknown length"}
		}
		elem, err := l.layoutOf(a.Elem())
		if err != nil {
			return err
		}
		es := a.Elem().Size()
		for i := range a.Len() {
			for _, c := range elem.cells {
				lo.cells = append(lo.cells, cellInfo{off: off + i*es + c.off, typ: c.typ, name: fmt.Sprintf("%s[%d]%s", name, i, c.name), atomic: c.atomic})
			}
			if len(lo.cells) > ir.MaxStateCells {
				return &unsupportedType{"an array of more than " + fmt.Sprint(ir.MaxStateCells) + " cells"}
			}
		}
		return nil
	case cc.Struct:
		s := t.(*cc.StructType)
		if s.IsIncomplete() {
			return &unsupportedType{"an incomplete struct type (" + t.String() + ")"}
		}
		for i := range s.NumFields() {
			f := s.FieldByIndex(i)
			if f.IsBitfield() {
				return &unsupportedType{"a bit field (" + f.Name() + " in " + t.String() + ")"}
			}
			if f.IsFlexibleArrayMember() {
				return &unsupportedType{"a flexible array member (" + f.Name() + " in " + t.String() + ")"}
			}
			fname := "." + f.Name()
			if f.Name() == "" {
				fname = fmt.Sprintf(".#%d", i)
			}
			if err := l.addCells(lo, f.Type(), off+f.Offset(), name+fname); err != nil {
				return err
			}
		}
		return nil
	case cc.Union:
		return &unsupportedType{"a union (" + t.String() + ")"}
	}
	st, err := l.scalar(t)
	if err != nil {
		return err
	}
	lo.cells = append(lo.cells, cellInfo{off: off, typ: st, name: name})
	return nil
}

// scalar is the ir type of a scalar C type (an array or function decays to a
// pointer).
func (l *lowerer) scalar(t cc.Type) (ir.Type, error) {
	if opaque[typedefName(t)] {
		return ir.MutexCell, nil
	}
	if semaphores[typedefName(t)] {
		return semaphoreCell, nil
	}
	switch t.Kind() {
	case cc.Bool:
		return ir.Bool, nil
	case cc.Ptr, cc.Array, cc.Function:
		return ir.Ptr, nil
	case cc.Enum:
		if e, ok := t.(*cc.EnumType); ok {
			return l.scalar(e.UnderlyingType())
		}
	case cc.Char, cc.SChar, cc.UChar, cc.Short, cc.UShort, cc.Int, cc.UInt,
		cc.Long, cc.ULong, cc.LongLong, cc.ULongLong:
		return ir.IntType(int(t.Size())*8, cc.IsSignedInteger(t)), nil
	case cc.Void:
		return 0, &unsupportedType{"a value of type void"}
	}
	return 0, &unsupportedType{"type " + t.String()}
}
