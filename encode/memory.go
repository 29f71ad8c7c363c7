package encode

import (
	"fmt"
	"slices"

	"kbmc/ir"
	"kbmc/solver"
)

// The memory model of C and Go programs (ir/memory.go), encoded as ir runs it
// (ir/exec.go, machine.cellAt and the operations below it). Objects, heap
// blocks' status cells, thread slots' start cells and mutexes in memory are
// shared cells: store keys and locations like any other, so both encodings,
// the footprints and the partial-order constraints treat their accesses as
// they treat .kb's.
//
// A pointer is an int: obj<<PtrShift | offset, held exactly (typed.go gives
// pointer programs 64 bits). A pointer held as guarded constants names its
// cells constant by constant; one held as a term may address any cell of any
// object, each under the condition that it equals that cell's pointer value —
// an over-approximation of the cells it points to that the values themselves
// make exact. Every failure ir reports is a check with ir's kind, in ir's
// order.

// A target is a cell a pointer access may reach: its store key (its State
// index, which is also its location), the condition under which the access
// reaches it and succeeds, and the cell's type.
type target struct {
	key int
	at  *solver.Term
	ct  ir.Type
}

// ptrParts splits a pointer constant held at u.w bits.
func (u *Unrolling) ptrParts(c uint64) (obj int, off int64) {
	return u.p.SplitPointer(solver.Signed(c, u.w))
}

// objTerm and offTerm split a pointer term.
func (u *Unrolling) objTerm(t *solver.Term) *solver.Term {
	return u.b.AShr(t, u.b.BV(uint64(u.p.PtrShift), u.w))
}

func (u *Unrolling) offTerm(t *solver.Term) *solver.Term {
	return u.b.BVAnd(t, u.b.BV(1<<u.p.PtrShift-1, u.w))
}

// objValue is "v's object number is obj".
func (u *Unrolling) objIs(v val, obj int) *solver.Term {
	if v.set == nil {
		return u.b.Eq(u.objTerm(v.t), u.b.BV(uint64(obj), u.w))
	}
	var or []*solver.Term
	for _, x := range v.set {
		if o, _ := u.ptrParts(x.c); o == obj {
			or = append(or, x.g)
		}
	}
	return u.b.Or(or...)
}

// candidates returns the objects pointer v may name: for a set those its
// constants name, for a term every object.
func (u *Unrolling) candidates(v val) []int {
	n := len(u.p.Objects)
	if v.set == nil {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	var out []int
	for _, x := range v.set {
		if o, _ := u.ptrParts(x.c); o >= 1 && o <= n && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return out
}

// cellAt is machine.cellAt: the cells pointer v may address for an access
// of type t. It records the failures — a null, invalid or dangling pointer,
// an offset outside the object (a heap block's allocated cells), and an
// access whose type does not fit the cell (Unsupported) — and the read of
// every heap block's status it looks at.
func (f *frame) cellAt(v val, t ir.Type, pos ir.Pos) []target {
	u, b, p := f.u, f.b, f.u.p
	v = u.toInt(v, u.w)
	n := len(p.Objects)
	var invalid, unsup []*solver.Term
	var out []target
	// Null or no object's number (an integer converted to a pointer).
	if v.set != nil {
		for _, x := range v.set {
			if o, _ := u.ptrParts(x.c); x.c == 0 || o < 1 || o > n {
				invalid = append(invalid, x.g)
			}
		}
	} else {
		obj := u.objTerm(v.t)
		invalid = append(invalid, b.Or(b.Slt(obj, b.BV(1, u.w)), b.Sgt(obj, b.BV(uint64(n), u.w))))
	}
	for _, obj := range u.candidates(v) {
		o := p.Objects[obj-1]
		at := u.objIs(v, obj)
		if at.IsFalse() {
			continue
		}
		size := o.Cells()
		var status val // a heap block's: its allocated cells, 0 or −1
		if o.Block != nil {
			sc := o.Block.Status.Offset + o.BlockIndex
			f.access(sc, false, at)
			status = u.toInt(f.get(f.u.p.CellKey(sc)), u.w)
			dead := u.where(status, func(c int64) bool { return c <= 0 },
				func(s *solver.Term) *solver.Term { return b.Sle(s, b.BV(0, u.w)) })
			invalid = append(invalid, b.And(at, dead))
		}
		// within is "the access's offset c lies within the object".
		within := func(c int) *solver.Term {
			if o.Block == nil {
				return b.True()
			}
			return u.where(status, func(s int64) bool { return s > int64(c) },
				func(s *solver.Term) *solver.Term { return b.Sgt(s, b.BV(uint64(c), u.w)) })
		}
		if v.set == nil {
			off := u.offTerm(v.t)
			if o.Block != nil {
				st := u.term(status)
				invalid = append(invalid, b.And(at, b.Sgt(st, b.BV(0, u.w)), b.Sge(off, st)))
			} else {
				invalid = append(invalid, b.And(at, b.Uge(off, b.BV(uint64(size), u.w))))
			}
		}
		for c := range size {
			here := u.is(v, uint64(p.MakePointer(obj, c)))
			if here.IsFalse() {
				continue
			}
			ok := b.And(here, within(c))
			if v.set != nil && o.Block != nil {
				// Freed, never allocated (also above), or past its
				// allocated cells.
				invalid = append(invalid, b.And(here, b.Not(within(c))))
			}
			ct := o.CellType(c)
			if !ir.Fits(ct, t, p.Width) {
				unsup = append(unsup, ok)
				continue
			}
			out = append(out, target{key: o.Offset + c, at: ok, ct: ct})
		}
		if v.set != nil {
			// Constants past the object's cells.
			for _, x := range v.set {
				if ob, off := u.ptrParts(x.c); ob == obj && off >= int64(size) {
					invalid = append(invalid, x.g)
				}
			}
		}
	}
	f.check(b.Or(invalid...), ir.InvalidDeref, pos, "invalid dereference")
	f.check(b.Or(unsup...), ir.Unsupported, pos, "an access whose type does not fit its cell")
	return out
}

// cellsValue is the value of the cell the targets select (0 when there is
// none: every access fails).
func (f *frame) cellsValue(ts []target, t ir.Type) val {
	if len(ts) == 0 {
		return f.u.value(t, 0)
	}
	conds := make([]*solver.Term, len(ts))
	vs := make([]val, len(ts))
	for i, x := range ts {
		conds[i] = x.at
		vs[i] = f.get(f.u.p.CellKey(x.key))
	}
	return f.u.choose(conds, vs)
}

// write stores x into shared cell k when at holds (as the cell's type holds
// it), recording the write.
func (f *frame) write(k int, x val, at *solver.Term) {
	u := f.u
	if at.IsFalse() {
		return
	}
	x = f.conv(u.cellType[k], x)
	if at.IsTrue() {
		f.st[u.p.CellKey(k)] = x
	} else {
		f.st[u.p.CellKey(k)] = u.ite(at, x, f.get(f.u.p.CellKey(k)))
	}
	f.access(u.p.CellLocation(k), true, at)
}

// deref is machine.eval's EDeref: the cell's value read as e.Type.
func (f *frame) deref(e *ir.Expr) val {
	ts := f.cellAt(f.eval(e.X), e.Type, e.Pos)
	for _, x := range ts {
		f.access(f.u.p.CellLocation(x.key), false, x.at)
	}
	return f.u.wrap(e.Type, f.cellsValue(ts, e.Type))
}

// storePtr is machine.store through a pointer: the value wrapped to the
// cell's type.
func (f *frame) storePtr(lv *ir.LValue, x val) {
	ts := f.cellAt(f.eval(lv.Ptr), lv.Type, lv.Pos)
	for _, t := range ts {
		f.write(t.key, f.u.wrap(t.ct, x), t.at)
	}
}

// casAt is machine.exec's OpCas on a cell a pointer addresses: the pointer,
// then the expected and the new value; the cell's value is compared and
// replaced as it is held (ir neither wraps nor converts here).
func (f *frame) casAt(n *ir.Node) {
	b := f.b
	lv := n.LHS
	ts := f.cellAt(f.eval(lv.Ptr), lv.Type, lv.Pos)
	exp := f.eval(n.X)
	nv := f.eval(n.Y)
	var oks []*solver.Term
	for _, t := range ts {
		eq := b.And(t.at, f.equal(f.get(f.u.p.CellKey(t.key)), exp))
		f.access(f.u.p.CellLocation(t.key), false, b.And(t.at, b.Not(eq)))
		f.write(t.key, nv, eq)
		oks = append(oks, eq)
	}
	if n.Result != nil {
		f.store(n.Result, f.u.boolVal(b.Or(oks...)))
	}
}

// addr is machine.addr: the address of cell X of e.Var, which may be one past
// its end.
func (f *frame) addr(e *ir.Expr) val {
	u, b := f.u, f.b
	i := f.int(0)
	if e.X != nil {
		i = u.toInt(f.eval(e.X), u.w)
	}
	cells := int64(e.Var.Cells())
	bad := u.where(i, func(c int64) bool { return c < 0 || c > cells }, func(t *solver.Term) *solver.Term {
		return b.Or(b.Slt(t, b.BV(0, u.w)), b.Sgt(t, b.BV(uint64(cells), u.w)))
	})
	f.check(bad, ir.InvalidDeref, e.Pos, fmt.Sprintf("address outside %s", e.Var.Name))
	return u.binary(f.int(u.p.MakePointer(e.Var.Object, 0)), i, b.Add)
}

// lift2 computes a binary operation of two sets constant by constant with
// fn, which may fail; ok is false when the operands are not both small sets.
func (u *Unrolling) lift2(x, y val, fn func(a, c int64) (int64, bool)) (v val, fail *solver.Term, ok bool) {
	if x.set == nil || y.set == nil || len(x.set)*len(y.set) > maxPairs {
		return val{}, nil, false
	}
	b := u.b
	var cs []gconst
	var fails []*solver.Term
	diagonal := sameVal(x, y)
	for _, a := range x.set {
		for _, c := range y.set {
			if diagonal && a.c != c.c {
				continue
			}
			g := b.And(a.g, c.g)
			if g.IsFalse() {
				continue
			}
			r, bad := fn(solver.Signed(a.c, u.w), solver.Signed(c.c, u.w))
			if bad {
				fails = append(fails, g)
				continue
			}
			cs = append(cs, gconst{uint64(r) & solver.Mask(u.w), g})
		}
	}
	v, ok = u.collect(cs, u.w)
	return v, b.Or(fails...), ok
}

// ptrAdd is machine.ptrAdd: x moved by y cells within its object (or one past
// its end); a pointer whose object number is 0, an integer, moves freely.
func (f *frame) ptrAdd(e *ir.Expr, x, y val) val {
	u, b, p := f.u, f.b, f.u.p
	n := len(p.Objects)
	v, fail, ok := u.lift2(x, y, func(a, c int64) (int64, bool) {
		obj, off := p.SplitPointer(a)
		if obj == 0 {
			return a + c, false
		}
		if obj < 1 || obj > n {
			return 0, true
		}
		to := off + c
		return a + c, to < 0 || to > int64(p.Objects[obj-1].Cells())
	})
	if !ok {
		xt, yt := u.term(x), u.term(y)
		obj := u.objTerm(xt)
		to := b.Add(u.offTerm(xt), yt)
		bad := []*solver.Term{b.Slt(obj, b.BV(0, u.w)), b.Sgt(obj, b.BV(uint64(n), u.w))}
		for i, o := range p.Objects {
			out := b.Or(b.Slt(to, b.BV(0, u.w)), b.Sgt(to, b.BV(uint64(o.Cells()), u.w)))
			bad = append(bad, b.And(b.Eq(obj, b.BV(uint64(i+1), u.w)), out))
		}
		v, fail = termVal(b.Add(xt, yt)), b.Or(bad...)
	}
	if e.Val == 1 {
		// machine.ptrAdd looks at the cell before the bounds.
		bytes := f.byteMove(x, y)
		f.check(bytes, ir.Unsupported, e.Pos, "byte arithmetic on a pointer into a cell of more than one byte")
		fail = b.And(fail, b.Not(bytes))
	}
	f.check(fail, ir.InvalidDeref, e.Pos, "pointer arithmetic outside its object")
	return v
}

// byteMove is when char arithmetic (an EPtrAdd of Val 1) moves pointer x by
// y != 0 bytes from a cell that is not one byte (ir.Var.ByteCell), which
// machine.ptrAdd reports as unsupported.
func (f *frame) byteMove(x, y val) *solver.Term {
	u, b, p := f.u, f.b, f.u.p
	if y.set != nil && len(y.set) == 1 && y.set[0].c == 0 {
		return b.False()
	}
	moves := b.Not(u.is(y, 0))
	xt := u.term(x)
	obj, off := u.objTerm(xt), u.offTerm(xt)
	var bad []*solver.Term
	for i, o := range p.Objects {
		at := b.Eq(obj, b.BV(uint64(i+1), u.w))
		all, none := true, true
		for c := range o.Cells() {
			if o.ByteCell(c) {
				none = false
			} else {
				all = false
			}
		}
		switch {
		case all:
		case none:
			bad = append(bad, at)
		default:
			for c := range o.Cells() {
				if !o.ByteCell(c) {
					cell := b.Eq(off, b.BV(uint64(c), u.w))
					if c == o.Cells()-1 {
						cell = b.Uge(off, b.BV(uint64(c), u.w))
					}
					bad = append(bad, b.And(at, cell))
				}
			}
		}
	}
	return b.And(moves, b.Or(bad...))
}

// ptrDiff is machine.ptrDiff: the elements of e.Val cells between two
// pointers into one object.
func (f *frame) ptrDiff(e *ir.Expr, x, y val) val {
	u, b, p := f.u, f.b, f.u.p
	elem := max(e.Val, 1)
	v, fail, ok := u.lift2(x, y, func(a, c int64) (int64, bool) {
		ox, fx := p.SplitPointer(a)
		oy, fy := p.SplitPointer(c)
		if ox != oy {
			return 0, true
		}
		return (fx - fy) / elem, false
	})
	if !ok {
		xt, yt := u.term(x), u.term(y)
		fail = b.Not(b.Eq(u.objTerm(xt), u.objTerm(yt)))
		v = termVal(b.SDiv(b.Sub(u.offTerm(xt), u.offTerm(yt)), b.BV(uint64(elem), u.w)))
	}
	f.check(fail, ir.InvalidDeref, e.Pos, "subtraction of pointers into different objects")
	return v
}

// mutexCells is machine.lockCell for a mutex in memory: the cells its
// address may name.
func (f *frame) mutexCells(n *ir.Node) []target {
	return f.cellAt(f.eval(n.Addr), ir.MutexCell, n.Pos)
}

// lockAt is OpLock of a mutex in memory: its cell holds the owner's number
// plus one, as a .kb lock's owner does (exec.go's OpLock).
func (f *frame) lockAt(n *ir.Node) {
	u, b := f.u, f.b
	ts := f.mutexCells(n)
	own := f.cellsValue(ts, ir.MutexCell)
	if !n.AnyOwner {
		f.check(u.is(own, f.me()), ir.Relock, n.Pos, "lock of a mutex the thread already holds")
	}
	if f.inner {
		held := b.Not(u.is(own, 0))
		for _, t := range ts {
			f.access(t.key, false, b.And(t.at, held))
		}
		f.blocked(held)
	}
	for _, t := range ts {
		f.write(t.key, f.int(int64(f.me())), t.at)
	}
}

// unlockAt is OpUnlock of a mutex in memory.
func (f *frame) unlockAt(n *ir.Node) {
	ts := f.mutexCells(n)
	if n.AnyOwner {
		for _, t := range ts { // the panic's write too
			f.access(f.u.p.CellLocation(t.key), true, t.at)
		}
	}
	f.checkUnlock(n, f.cellsValue(ts, ir.MutexCell))
	for _, t := range ts {
		f.write(t.key, f.int(0), t.at)
	}
}

// tryLock is OpTryLock: the mutex is taken when it is free; Result says
// whether it was. It never blocks, and a mutex the thread holds is not free.
func (f *frame) tryLock(n *ir.Node) {
	u, b := f.u, f.b
	ts := f.mutexCells(n)
	free := u.is(f.cellsValue(ts, ir.MutexCell), 0)
	for _, t := range ts {
		f.access(t.key, false, b.And(t.at, b.Not(free)))
		f.write(t.key, f.int(int64(f.me())), b.And(t.at, free))
	}
	if n.Result != nil {
		f.store(n.Result, u.boolVal(free))
	}
}

// startKey is the store key of cell c of the start variable of created
// thread template tm.
func startKey(tm *ir.Template, c int) int { return tm.Start.Offset + c }

// start is OpStart: the created thread reads that it was started, and its
// argument.
func (f *frame) start(n *ir.Node) {
	tm := f.th.Template
	f.access(startKey(tm, ir.StartFlag), false, f.b.True())
	if n.LHS != nil {
		k := startKey(tm, ir.StartArg)
		f.access(k, false, f.b.True())
		f.store(n.LHS, f.get(f.u.p.CellKey(k)))
	}
}

// freeSlot is Program.freeSlot as the spawn scans: per slot of the pool, the
// condition that it is the first one not started (reading the flags up to
// it), and none, every slot started.
func (f *frame) freeSlot(n *ir.Node) (chosen []*solver.Term, none *solver.Term) {
	b, u := f.b, f.u
	taken := b.True() // every slot before has been started
	for _, t := range n.Pool.Slots {
		k := startKey(t, ir.StartFlag)
		f.access(k, false, taken)
		free := u.is(f.get(f.u.p.CellKey(k)), 0)
		chosen = append(chosen, b.And(taken, free))
		taken = b.And(taken, b.Not(free))
	}
	return chosen, taken
}

// spawn is OpSpawn: the argument, then the first free slot is started with
// it; LHS gets the new thread's value (its number plus one). At a
// transition's start enabledness guarantees a free slot; inside, a full pool
// is a step the model cannot express.
func (f *frame) spawn(n *ir.Node) {
	u := f.u
	arg := f.eval(n.X)
	chosen, none := f.freeSlot(n)
	if f.inner {
		f.check(none, ir.Unsupported, n.Pos, fmt.Sprintf("every thread of %s is taken, inside an atomic section", n.Pool.Name))
	}
	vals := make([]val, 0, len(chosen)+1)
	for i, t := range n.Pool.Slots {
		f.write(startKey(t, ir.StartFlag), f.int(1), chosen[i])
		f.write(startKey(t, ir.StartArg), arg, chosen[i])
		vals = append(vals, f.int(int64(t.First+1)))
	}
	if n.LHS != nil {
		f.store(n.LHS, u.choose(append(chosen, none), append(vals, f.int(0))))
	}
}

// freeBlock is Program.freeBlock as the allocation scans, when from holds:
// per block, the condition that it is the first never allocated, and none.
func (f *frame) freeBlock(n *ir.Node, from *solver.Term) (chosen []*solver.Term, none *solver.Term) {
	b, u := f.b, f.u
	a := n.Alloc
	taken := from
	for i := range a.Blocks {
		k := a.Status.Offset + i
		f.access(k, false, taken)
		free := u.is(f.get(f.u.p.CellKey(k)), 0)
		chosen = append(chosen, b.And(taken, free))
		taken = b.And(taken, b.Not(free))
	}
	return chosen, taken
}

// alloc is OpAlloc: a size of at most 0 gives the null pointer without
// looking at the pool; otherwise the first block never allocated gets the
// size as its status and LHS its address. At a transition's start
// enabledness guarantees a free block large enough; inside, its absence is a
// step the model cannot express.
func (f *frame) alloc(n *ir.Node) {
	u, b, p := f.u, f.b, f.u.p
	a := n.Alloc
	size := u.toInt(f.eval(n.X), u.w)
	capacity := int64(a.Blocks[0].Cells())
	nonpos := u.where(size, func(c int64) bool { return c <= 0 },
		func(t *solver.Term) *solver.Term { return b.Sle(t, b.BV(0, u.w)) })
	pos := b.Not(nonpos)
	g0 := f.g
	f.g = b.And(g0, pos)
	chosen, none := f.freeBlock(n, pos)
	if f.inner {
		tooBig := u.where(size, func(c int64) bool { return c > capacity },
			func(t *solver.Term) *solver.Term { return b.Sgt(t, b.BV(uint64(capacity), u.w)) })
		f.check(b.Or(none, tooBig), ir.Unsupported, n.Pos, fmt.Sprintf("%s has no free block left, inside an atomic section", a.Name))
	}
	vals := make([]val, 0, len(chosen)+2)
	for i, blk := range a.Blocks {
		f.write(a.Status.Offset+i, size, chosen[i])
		vals = append(vals, f.int(p.MakePointer(blk.Object, 0)))
	}
	f.g = b.Or(b.And(g0, nonpos), f.g)
	if n.LHS != nil {
		conds := append(chosen, nonpos, none) // none implies pos
		f.store(n.LHS, u.choose(conds, append(vals, f.int(0), f.int(0))))
	}
}

// free is OpFree: nothing for a null pointer; a pointer that is no heap
// block, a block freed already, and a pointer inside a block fail; otherwise
// the block's status becomes −1 (blocks are never reused).
func (f *frame) free(n *ir.Node) {
	u, b, p := f.u, f.b, f.u.p
	v := u.toInt(f.eval(n.X), u.w)
	var bad []*solver.Term
	type freed struct {
		key int
		ok  *solver.Term
	}
	var frees []freed
	isBlock := make(map[int]bool)
	var blockObjs []int
	for _, a := range p.Allocs {
		for _, blk := range a.Blocks {
			isBlock[blk.Object] = true
			blockObjs = append(blockObjs, blk.Object)
		}
	}
	// Not null, and not the number of a heap block.
	if v.set != nil {
		for _, x := range v.set {
			if o, _ := u.ptrParts(x.c); x.c != 0 && !isBlock[o] {
				bad = append(bad, x.g)
			}
		}
	} else {
		var blocks []*solver.Term
		obj := u.objTerm(v.t)
		for _, o := range blockObjs {
			blocks = append(blocks, b.Eq(obj, b.BV(uint64(o), u.w)))
		}
		bad = append(bad, b.And(b.Not(u.is(v, 0)), b.Not(b.Or(blocks...))))
	}
	for _, obj := range u.candidates(v) {
		o := p.Objects[obj-1]
		if o.Block == nil {
			continue
		}
		at := u.objIs(v, obj)
		if at.IsFalse() {
			continue
		}
		k := o.Block.Status.Offset + o.BlockIndex
		f.access(k, false, at)
		status := u.toInt(f.get(f.u.p.CellKey(k)), u.w)
		dead := u.where(status, func(c int64) bool { return c < 0 },
			func(s *solver.Term) *solver.Term { return b.Slt(s, b.BV(0, u.w)) })
		start := u.is(v, uint64(p.MakePointer(obj, 0)))
		bad = append(bad, b.And(at, dead), b.And(at, b.Not(dead), b.Not(start)))
		frees = append(frees, freed{k, b.And(start, b.Not(dead))})
	}
	f.check(b.Or(bad...), ir.InvalidFree, n.Pos, "invalid free")
	for _, x := range frees {
		f.write(x.key, f.int(-1), x.ok)
	}
}

// joinedThreads is machine.joined: the threads a join of a thread value may
// wait for (created threads other than the joining one), each with the
// condition that the value names it; any other value fails.
//
// A join with further thread values (ir.Node.JAlso) waits for each: the
// lists hold the candidates of every value, one after the other.
func (f *frame) joinedThreads(n *ir.Node) (threads []int, conds []*solver.Term) {
	u, b := f.u, f.b
	for _, e := range append([]*ir.Expr{n.JThread}, n.JAlso...) {
		v := u.toInt(f.eval(e), u.w)
		var these []*solver.Term
		for t, th := range u.p.Threads {
			if th.Template.Start == nil || t == f.th.ID {
				continue
			}
			if c := u.is(v, uint64(t+1)); !c.IsFalse() {
				threads = append(threads, t)
				these = append(these, c)
			}
		}
		conds = append(conds, these...)
		f.check(b.Not(b.Or(these...)), ir.BadJoin, n.Pos, "join of a value that is no other created thread")
	}
	return threads, conds
}

// joinThread is OpJoin of a thread value: it waits for the thread's end
// (inside a transition with an inner guard, a thread still running leaves
// the joining one stuck), reads it, and gives LHS the thread's result.
func (f *frame) joinThread(n *ir.Node) {
	u, b, p := f.u, f.b, f.u.p
	ts, cs := f.joinedThreads(n)
	if f.inner {
		var running []*solver.Term
		for j, t := range ts {
			done := u.is(f.pre.loc[t], uint64(p.Threads[t].Template.Terminated()))
			r := b.And(cs[j], b.Not(done))
			running = append(running, r)
			// Getting stuck depends on t's end: ir reads it (machine.exec).
			f.access(p.ThreadLocation(t), false, r)
		}
		f.blocked(b.Or(running...))
	}
	vals := make([]val, len(ts))
	for j, t := range ts {
		f.access(p.ThreadLocation(t), false, cs[j])
		k := startKey(p.Threads[t].Template, ir.StartReturn)
		if n.LHS != nil {
			f.access(k, false, cs[j])
			vals[j] = f.get(f.u.p.CellKey(k))
		}
	}
	if n.LHS != nil && len(ts) > 0 {
		f.store(n.LHS, u.choose(cs, vals))
	}
}

// zeroOf is a store key's value where it is never observed, of its kind.
func (u *Unrolling) zeroOf(k ir.StoreKey) val {
	if u.isChanKey(k) {
		return u.chanZero(k)
	}
	if c, ok := u.cellOf(k); ok {
		return u.value(u.cellType[c], 0)
	}
	return u.constVal(0, u.ownWidth)
}

// joinCandidates returns the threads join node n may wait for: the instances
// of a .kb join's template, or for a join of a thread value every created
// thread.
func joinCandidates(p *ir.Program, n *ir.Node) []int {
	var out []int
	if n.JThread == nil {
		for i := 0; i < n.Join.Instances(); i++ {
			out = append(out, n.Join.First+i)
		}
		return out
	}
	for t, th := range p.Threads {
		if th.Template.Start != nil {
			out = append(out, t)
		}
	}
	return out
}
