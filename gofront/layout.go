package gofront

import (
	"fmt"
	"go/types"

	"kbmc/ir"
)

// A layout is how a Go type is held in cells: one per scalar, a struct's
// fields and an array's elements in order. Registers (SSA values) and memory
// (objects) use the same layout.
type layout struct {
	cells []cellInfo
	// fields, for a struct, is where each field's cells start.
	fields []int
}

type cellInfo struct {
	typ  ir.Type
	name string // ".f", "[2].x"; "" for a scalar
	// chanVal: the cell holds a channel value (chans.go), which traces show
	// by the channel's name (ir.Var.ChanCells).
	chanVal bool
}

// renamed is c under another name.
func (c cellInfo) renamed(name string) cellInfo {
	c.name = name
	return c
}

// chanCells is ir.Var.ChanCells for cells of layout lo: nil when none holds a
// channel value.
func (lo *layout) chanCells() []bool {
	var marks []bool
	for i, c := range lo.cells {
		if c.chanVal {
			if marks == nil {
				marks = make([]bool, len(lo.cells))
			}
			marks[i] = true
		}
	}
	return marks
}

func (lo *layout) n() int { return len(lo.cells) }

func (lo *layout) types() []ir.Type {
	ts := make([]ir.Type, len(lo.cells))
	for i, c := range lo.cells {
		ts[i] = c.typ
	}
	return ts
}

// The cells of the modelled sync types: what kbmc keeps of their state
// (docs/go.md).
const (
	rwWriter  = iota // RWMutex: the writers' mutex
	rwPending        // 1 while a writer holds or waits for the lock (Go's writer preference)
	rwReaders        // the readers holding it
	rwCells
)

const (
	onceMutex = iota // Once: held while the function runs
	onceDone
	onceCells
)

const (
	condL      = iota // Cond: its Locker (a pointer to the mutex)
	condWait          // tickets handed to waiters
	condNotify        // tickets notified (Go's notifyList)
	condCells
)

// layoutOf returns the layout of t, or an error naming what kbmc does not
// model.
func (l *lowerer) layoutOf(t types.Type) (*layout, error) {
	if lo, ok := l.layouts.At(t).(*layout); ok {
		return lo, nil
	}
	lo, err := l.computeLayout(t)
	if err != nil {
		return nil, err
	}
	l.layouts.Set(t, lo)
	return lo, nil
}

func scalar(t ir.Type) *layout { return &layout{cells: []cellInfo{{typ: t}}} }

func (l *lowerer) computeLayout(t types.Type) (*layout, error) {
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
		case "sync.Mutex":
			return scalar(ir.MutexCell), nil
		case "sync.RWMutex":
			return &layout{cells: []cellInfo{{typ: ir.MutexCell, name: ".w"}, {typ: ir.Bool, name: ".pending"}, {typ: ir.I64, name: ".readers"}}}, nil
		case "sync.WaitGroup":
			return &layout{cells: []cellInfo{{typ: ir.I64, name: ".counter"}}}, nil
		case "sync.Once":
			return &layout{cells: []cellInfo{{typ: ir.MutexCell, name: ".m"}, {typ: ir.Bool, name: ".done"}}}, nil
		case "sync.Cond":
			return &layout{cells: []cellInfo{{typ: ir.Ptr, name: ".L"}, {typ: ir.I64, name: ".wait"}, {typ: ir.I64, name: ".notify"}}}, nil
		case "time.Timer", "time.Ticker":
			return timerLayout, nil
		case "context.cancelCtx", "context.emptyCtx":
			return ctxLayout, nil
		case "time.Time":
			return scalar(ir.I64), nil // a token: kbmc has no clock
		case "sync/atomic.Int32":
			return scalar(ir.I32), nil
		case "sync/atomic.Int64":
			return scalar(ir.I64), nil
		case "sync/atomic.Uint32":
			return scalar(ir.U32), nil
		case "sync/atomic.Uint64":
			return scalar(ir.U64), nil
		case "sync/atomic.Bool":
			return scalar(ir.Bool), nil
		case "testing.T", "testing.common", "testing.B":
			return scalar(ir.I64), nil
		}
		if n.Obj().Pkg() != l.pkg.Pkg {
			if _, isStruct := n.Underlying().(*types.Struct); isStruct {
				return nil, fmt.Errorf("type %s is not supported (kbmc models sync's types and the program's own)", t)
			}
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.Invalid:
			return scalar(ir.I64), nil // a blank result of range: never read
		case u.Info()&types.IsBoolean != 0:
			return scalar(ir.Bool), nil
		case u.Info()&types.IsInteger != 0:
			return scalar(intType(u)), nil
		case u.Kind() == types.String, u.Kind() == types.UntypedString:
			// A string is a token: constants compare by their text, other
			// strings are refused where their value matters (docs/go.md).
			return scalar(ir.I64), nil
		case u.Kind() == types.UnsafePointer, u.Kind() == types.UntypedNil:
			return scalar(ir.Ptr), nil
		}
		return nil, fmt.Errorf("type %s is not supported (floating-point and complex numbers)", t)
	case *types.Chan:
		// A channel's number plus one (chans.go).
		return &layout{cells: []cellInfo{{typ: ir.I64, chanVal: true}}}, nil
	case *types.Pointer, *types.Signature, *types.Interface, *types.Map:
		return scalar(ir.Ptr), nil
	case *types.Slice:
		return &layout{cells: []cellInfo{{typ: ir.Ptr, name: ".ptr"}, {typ: ir.I64, name: ".len"}, {typ: ir.I64, name: ".cap"}}}, nil
	case *types.Struct:
		lo := &layout{}
		for i := range u.NumFields() {
			f := u.Field(i)
			flo, err := l.layoutOf(f.Type())
			if err != nil {
				return nil, err
			}
			lo.fields = append(lo.fields, len(lo.cells))
			for _, c := range flo.cells {
				lo.cells = append(lo.cells, c.renamed("."+f.Name()+c.name))
			}
		}
		if len(lo.cells) == 0 {
			// struct{}: one cell that is always zero, so that every value
			// has a cell (a message, a pointer's target).
			lo.cells = []cellInfo{{typ: ir.Bool}}
		}
		return lo, nil
	case *types.Array:
		elo, err := l.layoutOf(u.Elem())
		if err != nil {
			return nil, err
		}
		if u.Len()*int64(elo.n()) > ir.MaxStateCells/4 {
			return nil, fmt.Errorf("type %s is too large", t)
		}
		lo := &layout{}
		for i := range u.Len() {
			for _, c := range elo.cells {
				lo.cells = append(lo.cells, c.renamed(fmt.Sprintf("[%d]%s", i, c.name)))
			}
		}
		if len(lo.cells) == 0 {
			lo.cells = []cellInfo{{typ: ir.Bool}}
		}
		return lo, nil
	case *types.Tuple:
		lo := &layout{}
		for i := range u.Len() {
			flo, err := l.layoutOf(u.At(i).Type())
			if err != nil {
				return nil, err
			}
			lo.fields = append(lo.fields, len(lo.cells))
			for _, c := range flo.cells {
				lo.cells = append(lo.cells, c.renamed(fmt.Sprintf("#%d%s", i, c.name)))
			}
		}
		return lo, nil
	}
	return nil, fmt.Errorf("type %s is not supported", t)
}

// intType is the ir type of a Go integer type (int and uint are 64 bits).
func intType(b *types.Basic) ir.Type {
	switch b.Kind() {
	case types.Int8:
		return ir.I8
	case types.Uint8:
		return ir.U8
	case types.Int16:
		return ir.I16
	case types.Uint16:
		return ir.U16
	case types.Int32:
		return ir.I32
	case types.Uint32:
		return ir.U32
	case types.Uint, types.Uint64, types.Uintptr:
		return ir.U64
	}
	return ir.I64
}

// fieldOffset is the cell where field i of struct type t starts (0 for the
// modelled types, whose fields user code reaches only as Cond.L).
func (l *lowerer) fieldOffset(t types.Type, i int) (int, error) {
	lo, err := l.layoutOf(t)
	if err != nil {
		return 0, err
	}
	if lo.fields == nil {
		return 0, nil
	}
	return lo.fields[i], nil
}
