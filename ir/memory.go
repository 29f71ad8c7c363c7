package ir

import "fmt"

// Memory that pointers address, threads created at run time and heap blocks:
// what C and Go programs need beyond .kb's fixed shared variables. Everything
// lives in the one state vector and location space, so that dependency, the
// searches and the encodings see ordinary shared cells:
//
//   - An object is a shared Var marked Addressable: a global, a local variable
//     whose address is taken (one object per thread that runs its code, since
//     each created thread has code of its own), a heap block. Its cells each hold
//     one scalar (CellTypes: a struct's fields, an array's elements, in order).
//   - A pointer value is an object number and a cell offset,
//     number<<PtrShift | offset; 0 is the null pointer. Pointer arithmetic moves
//     the offset by cells, never by bytes: the front ends scale by the cells of
//     the element type, and an access whose type does not fit the cell it lands
//     on (a char read of an int, say) is reported as Unsupported rather than
//     guessed. A value whose object number is 0 is an integer converted to a
//     pointer: it compares and converts back, but cannot be dereferenced.
//   - A thread created at run time is one of the slots of a Pool: a template of
//     its own whose first operation, OpStart, waits until an OpSpawn starts it.
//     The slot's Start variable holds three cells, written by the spawn and read
//     by the start and by joins: started, the argument, the return value. A slot
//     not yet started is Dormant: it counts neither as running nor as blocked.
//     Spawns take the first free slot, so that equal histories give equal
//     states; when every slot is taken the spawning thread waits at the pool's
//     bound (BlockedLimit), and an execution that ends so was cut by a bound.
//     A pool with an Overflow variable (a program lowered for a bug hunt) starts
//     phantoms instead: the spawn succeeds, counts the phantom in the variable
//     and returns a thread value of its own, but the phantom never runs — a
//     created thread the scheduler has not yet picked, which every execution's
//     prefix may have. A join of a phantom waits at the pool's bound, and an
//     execution that started one is cut by a bound however it ends (End): its
//     phantoms would still run. Such a pool may also start phantoms before its
//     slots: an execution's first step draws, per pool, a delay, the number of
//     spawns that start phantoms although a slot is free (drawDelays). A bug
//     that needs a thread created late in a loop of ten thousand
//     pthread_creates, still running when the loop ends, is then within reach
//     of a pool of 64 slots; the prefix is still one every execution may have,
//     with the threads created first not yet picked.
//   - A heap block is one of the blocks of an Alloc, an allocation site's pool,
//     each of the site's capacity in cells. The site's Status variable holds one
//     cell per block: 0 never allocated, n > 0 allocated with n cells, -1 freed.
//     Blocks are never reused, so a pointer to a freed block stays dangling;
//     every access to a block reads its status, which is how a free is ordered
//     before the accesses it invalidates. A block's cells start at zero.
//   - A mutex that a pointer addresses is a cell holding its owner's number plus
//     one (0: free), taken and released by OpLock, OpUnlock and OpTryLock.

// MutexCell is the type of a mutex's cell in an object: its owner's number
// plus one.
const MutexCell = I32

// startCells are the cells of a created thread's Start variable.
const (
	StartFlag   = iota // 1 once the slot has been started
	StartArg           // the argument its start routine receives
	StartReturn        // the value it returns (pthread_exit, or its routine's return)
	StartCells
)

// A Pool is the threads a program may create with one start routine: its slots,
// started in order.
type Pool struct {
	Name  string      // the start routine
	Slots []*Template // one instance each, with Start set
	// Overflow, when set, holds OverflowCells shared cells: the phantoms
	// started (see above), and the pool's delay; nil: a spawn waits for a
	// free slot.
	Overflow *Var
	// Sites are where the program starts the pool's threads (a Go program's
	// go statements), for reports: "started at 12:2".
	Sites []Pos

	index int // in Program.Pools, set by Finish: phantom values encode it
}

// The cells of a pool's Overflow variable.
const (
	OverflowCount = iota // the phantoms the pool has started
	// OverflowDelay is 0 until the execution's first step, then 1 plus the
	// number of spawns that start phantoms before the pool's first slot.
	OverflowDelay
	OverflowCells
)

// MaxPhantomDelay is the largest delay a pool's draw may give.
const MaxPhantomDelay = 1 << 30

// drawDelays draws each pool's delay (Choices.Delay) at an execution's first
// step, before the step's own draws, so that a replay finds the delays among
// the first move's values. Only programs lowered for a bug hunt have pools
// with delays, and the searches refuse those, so no search enumerates them.
func (m *machine) drawDelays() {
	for _, pool := range m.p.Pools {
		o := pool.Overflow
		if o == nil {
			continue
		}
		c := o.Offset + OverflowDelay
		if m.s[c] != 0 {
			continue
		}
		var k int64
		if m.ch != nil {
			k = m.ch.chooseDelay(pool.index)
		}
		m.set(c, k+1)
		m.access(c, Write, k+1)
	}
}

// Spawned is the number of threads pool has been asked to start in s: its
// slots started and its phantoms.
func (p *Program) Spawned(s State, pool *Pool) int64 {
	var n int64
	if pool.Overflow != nil {
		n = s[pool.Overflow.Offset+OverflowCount]
	}
	for _, t := range pool.Slots {
		if s[t.Start.Offset+StartFlag] != 0 {
			n++
		}
	}
	return n
}

// DelayDraws is the number of values drawDelays draws at an execution's
// first step, before the step's own: one per pool with an Overflow variable.
func (p *Program) DelayDraws() int {
	n := 0
	for _, pool := range p.Pools {
		if pool.Overflow != nil {
			n++
		}
	}
	return n
}

// PhantomValue is the thread value of the k-th phantom of pool: above every
// slot's value (Template.First+1), distinct across pools and phantoms.
func (p *Program) PhantomValue(pool *Pool, k int64) int64 {
	return int64(len(p.Threads)) + 1 + k*int64(len(p.Pools)) + int64(pool.index)
}

// phantom reports whether thread value v is a phantom some pool has started
// in s.
func (p *Program) phantom(s State, v int64) bool {
	d := v - int64(len(p.Threads)) - 1
	if d < 0 || len(p.Pools) == 0 {
		return false
	}
	pool := p.Pools[d%int64(len(p.Pools))]
	return pool.Overflow != nil && d/int64(len(p.Pools)) < s[pool.Overflow.Offset+OverflowCount]
}

// HasPhantoms reports whether some pool starts phantoms when full: a program
// lowered for explicit.Hunt, which the searches and the symbolic encoding
// refuse.
func (p *Program) HasPhantoms() bool { return p.phantoms }

// phantomsStarted reports whether some pool has started a phantom in s.
func (p *Program) phantomsStarted(s State) bool {
	if !p.phantoms {
		return false // End's common case: no pool has an overflow cell
	}
	for _, pool := range p.Pools {
		if pool.Overflow != nil && s[pool.Overflow.Offset+OverflowCount] > 0 {
			return true
		}
	}
	return false
}

// An Alloc is an allocation site of a C or Go program and its pool of heap
// blocks.
type Alloc struct {
	Name   string // for traces: "malloc at 12:5"
	Pos    Pos
	Blocks []*Var // the blocks, each an object of the site's capacity
	Status *Var   // one cell per block (see above)
}

// MakePointer is the pointer value of cell offset off of object number obj.
func (p *Program) MakePointer(obj, off int) int64 { return int64(obj)<<p.PtrShift | int64(off) }

// SplitPointer returns the object number and cell offset of pointer value v.
func (p *Program) SplitPointer(v int64) (obj int, off int64) {
	return int(v >> p.PtrShift), v & (1<<p.PtrShift - 1)
}

// PointerName renders a pointer value as the user thinks of it: "NULL",
// "&x", "&a[3]", "&s.next", "&malloc at 12:5 #1[2]".
func (p *Program) PointerName(v int64) string {
	if v == 0 {
		return "NULL"
	}
	obj, off := p.SplitPointer(v)
	if obj < 1 || obj > len(p.Objects) {
		return fmt.Sprintf("(pointer)%d", v)
	}
	o := p.Objects[obj-1]
	if off == int64(o.Cells()) {
		return fmt.Sprintf("&%s+%d", o.Name, off)
	}
	return "&" + o.cellName(int(off))
}

// cellName names cell c of v as traces do.
func (v *Var) cellName(c int) string {
	switch {
	case v.CellNames != nil && c < len(v.CellNames):
		return v.CellNames[c]
	case v.Len == 0:
		return v.Name
	}
	return fmt.Sprintf("%s[%d]", v.Name, c)
}

// Fits reports whether a value of type t may be read from or written to a cell
// of type cell: the same type, or integers of the same width (C reads an int
// through an unsigned pointer), a Bool counting as 8 bits.
func Fits(cell, t Type, w int) bool {
	if cell == t {
		return true
	}
	if cell == Ptr || t == Ptr {
		return false
	}
	bits := func(t Type) int {
		if t == Bool {
			return 8
		}
		return t.Bits(w)
	}
	return bits(cell) == bits(t)
}

// cellAt resolves pointer v, through which a value of type t is read or
// written, to its cell's State index and type; it fails (and returns false) for
// a null, invalid or dangling pointer, an offset outside the object, and a type
// that does not fit the cell. Every access to a heap block reads its status.
func (m *machine) cellAt(v int64, t Type, pos Pos) (int, Type, bool) {
	p := m.p
	if v == 0 {
		m.fail(InvalidDeref, pos, "dereference of a null pointer")
		return 0, 0, false
	}
	obj, off := p.SplitPointer(v)
	if obj < 1 || obj > len(p.Objects) {
		m.fail(InvalidDeref, pos, "dereference of an invalid pointer (%d)", v)
		return 0, 0, false
	}
	o := p.Objects[obj-1]
	size := int64(o.Cells())
	if b := o.Block; b != nil {
		sc := b.Status.Offset + o.BlockIndex
		status := m.s[sc]
		m.access(sc, Read, status)
		switch {
		case status < 0:
			m.fail(InvalidDeref, pos, "use of %s after it was freed", o.Name)
			return 0, 0, false
		case status == 0:
			m.fail(InvalidDeref, pos, "use of %s, which was never allocated", o.Name)
			return 0, 0, false
		}
		size = status
	}
	if off >= size {
		m.fail(InvalidDeref, pos, "access past the end of %s (cell %d of %d)", o.Name, off, size)
		return 0, 0, false
	}
	ct := o.CellType(int(off))
	if !Fits(ct, t, p.Width) {
		m.fail(Unsupported, pos, "%s, a cell of type %s, accessed as %s", o.cellName(int(off)), ct, t)
		return 0, 0, false
	}
	return o.Offset + int(off), ct, true
}

// addr is the address of cell i of object v; i may be one past the end.
func (m *machine) addr(v *Var, i int64, pos Pos) int64 {
	if i < 0 || i > int64(v.Cells()) {
		m.fail(InvalidDeref, pos, "address of %s[%d], outside %s", v.Name, i, v.Name)
		return 0
	}
	return m.p.MakePointer(v.Object, int(i))
}

// ptrAdd moves pointer v by n cells within its object (a heap block's
// capacity: whether the cells are allocated is checked where they are
// accessed); an integer converted to a pointer (object number 0) moves as the
// integer it is. bytes: n counts bytes (char arithmetic), which is n cells
// only over cells of one byte (Var.ByteCell); elsewhere the move is
// unsupported.
func (m *machine) ptrAdd(v, n int64, bytes bool, pos Pos) int64 {
	p := m.p
	obj, off := p.SplitPointer(v)
	if obj == 0 {
		return v + n
	}
	if obj < 1 || obj > len(p.Objects) {
		m.fail(InvalidDeref, pos, "arithmetic on an invalid pointer (%d)", v)
		return 0
	}
	o := p.Objects[obj-1]
	if bytes && n != 0 && !o.ByteCell(int(off)) {
		m.fail(Unsupported, pos, "byte arithmetic on a pointer into %s, a cell of type %s: kbmc's memory is made of cells, not bytes",
			o.cellName(int(min(off, int64(o.Cells()-1)))), o.CellType(int(min(off, int64(o.Cells()-1)))))
		return 0
	}
	if to := off + n; to < 0 || to > int64(o.Cells()) {
		m.fail(InvalidDeref, pos, "pointer arithmetic leaves %s (cell %d of %d)", o.Name, to, o.Cells())
		return 0
	}
	return v + n
}

// ptrDiff is the number of elements of elem cells between pointers x and y,
// which must address one object.
func (m *machine) ptrDiff(x, y, elem int64, pos Pos) int64 {
	ox, fx := m.p.SplitPointer(x)
	oy, fy := m.p.SplitPointer(y)
	if ox != oy {
		m.fail(InvalidDeref, pos, "subtraction of pointers into different objects")
		return 0
	}
	if elem <= 0 {
		elem = 1
	}
	return (fx - fy) / elem
}

// lockCell resolves the mutex of a lock, unlock or trylock node to a State index.
func (m *machine) lockCell(n *Node) int {
	if n.Mutex != nil {
		i := m.lockIndex(n)
		return m.p.MutexBase + i
	}
	v := m.eval(n.Addr)
	if m.failed {
		return 0
	}
	c, _, _ := m.cellAt(v, MutexCell, n.Pos)
	return c
}

// lockLocation is the location of the mutex a node locks (State index c).
func (p *Program) lockLocation(n *Node, c int) int {
	if n.Mutex != nil {
		return p.LockLocation(c - p.MutexBase)
	}
	return p.CellLocation(c)
}

// mutexName names the mutex at State index c.
func (p *Program) mutexName(n *Node, c int) string { return p.LocationName(p.lockLocation(n, c)) }

// freeSlot returns the first slot of pool that has not been started, or nil.
func (p *Program) freeSlot(s State, pool *Pool) *Template {
	for _, t := range pool.Slots {
		if s[t.Start.Offset+StartFlag] == 0 {
			return t
		}
	}
	return nil
}

// freeBlock returns the index of the first block of a that was never
// allocated, or -1.
func (p *Program) freeBlock(s State, a *Alloc) int {
	for i := range a.Blocks {
		if s[a.Status.Offset+i] == 0 {
			return i
		}
	}
	return -1
}

// phantomThread is what joined returns for a phantom: a thread that never ends.
const phantomThread = -2

// joined is the thread a join of a thread value waits for, phantomThread for a
// phantom, or -1 with a violation for a value that names no created thread.
func (m *machine) joined(n *Node) int { return m.joinedBy(n, n.JThread) }

// joinedBy is the thread the value of e, one of the thread values join n
// waits for (JThread or one of JAlso), names: as joined says.
func (m *machine) joinedBy(n *Node, e *Expr) int {
	v := m.eval(e)
	if m.failed {
		return -1
	}
	t := int(v) - 1
	if m.p.phantom(m.s, v) {
		return phantomThread
	}
	if v < 1 || t >= len(m.p.Threads) || m.p.Threads[t].Template.Start == nil {
		m.fail(BadJoin, n.Pos, "join of %d, which is no thread created with pthread_create", v)
		return -1
	}
	if t == m.th.ID {
		m.fail(BadJoin, n.Pos, "%s joins itself", m.th.Name)
		return -1
	}
	return t
}
