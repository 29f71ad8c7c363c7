package gofront

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// Maps and append. A map is an object of mapSlots entries (used, key, value)
// and a count; a map value points to it (nil: no map). Each map operation is
// one step: a lookup, an assignment, a delete and each step of a range,
// which visits the entries in slot order (Go's order is random: kbmc checks
// one order, docs/go.md). A map that would need more entries stops the run
// as unsupported. append writes in place while the slice has room, and
// otherwise copies into a block of appendCap elements.
const (
	mapSlots  = 8
	appendCap = 8
)

// mapLayout is the layout of a map object of type t, with where an entry's
// key and value start within it.
func (l *lowerer) mapLayout(t *types.Map) (lo *layout, keyN, valN int, err error) {
	klo, err := l.layoutOf(t.Key())
	if err != nil {
		return nil, 0, 0, err
	}
	vlo, err := l.layoutOf(t.Elem())
	if err != nil {
		return nil, 0, 0, err
	}
	lo = &layout{cells: []cellInfo{{typ: ir.I64, name: ".len"}}}
	for i := range mapSlots {
		lo.cells = append(lo.cells, cellInfo{typ: ir.Bool, name: fmt.Sprintf("[%d].used", i)})
		for _, c := range klo.cells {
			lo.cells = append(lo.cells, c.renamed(fmt.Sprintf("[%d].key%s", i, c.name)))
		}
		for _, c := range vlo.cells {
			lo.cells = append(lo.cells, c.renamed(fmt.Sprintf("[%d].value%s", i, c.name)))
		}
	}
	return lo, klo.n(), vlo.n(), nil
}

// mapShape says where entry i's cells are in a map object.
type mapShape struct {
	keyN, valN int
	lo         *layout
}

func (m mapShape) used(i int) int { return 1 + i*(1+m.keyN+m.valN) }
func (m mapShape) key(i int) int  { return m.used(i) + 1 }
func (m mapShape) val(i int) int  { return m.key(i) + m.keyN }

func (b *builder) mapShape(t types.Type) (mapShape, bool) {
	mt, ok := t.Underlying().(*types.Map)
	if !ok {
		b.errorf("internal error: %s is not a map type", t)
		return mapShape{}, false
	}
	lo, kn, vn, err := b.l.mapLayout(mt)
	if err != nil {
		b.errorf("%v", err)
		return mapShape{}, false
	}
	return mapShape{keyN: kn, valN: vn, lo: lo}, true
}

func (b *builder) makeMap(in *ssa.MakeMap) {
	ms, ok := b.mapShape(in.Type())
	if !ok {
		b.frame.vals[in] = []*ir.Expr{constant(ir.Ptr, 0)}
		return
	}
	b.define(in, []*ir.Expr{b.newObject(in.Block(), "map", ms.lo, nil)})
}

// knownKey stops the run as unsupported where a string key is one kbmc
// does not know (fmt.Sprintf's, say): strings are tokens, and only the
// constants' compare as Go compares them.
func (b *builder) knownKey(k ssa.Value) {
	if isString(k.Type()) {
		b.knownString(b.scalarValue(k))
	}
}

// knownString stops the run as unsupported when string token x is no
// constant's (stringToken numbers those from 1; token's are negative).
func (b *builder) knownString(x *ir.Expr) {
	if x.Op == ir.EConst && x.Val >= 0 {
		return
	}
	b.emit(&ir.Node{Op: ir.OpAssert, X: &ir.Expr{Op: ir.EGe, Type: ir.Bool, X: x, Y: constant(ir.I64, 0), Pos: b.pos},
		Kind: ir.Unsupported, Msg: "a string kbmc does not know (made by fmt.Sprintf, an error's Error, …) compared: not supported"})
}

// keyEq is whether entry i of the map at p holds key k.
func (b *builder) keyEq(p *ir.Expr, ms mapShape, i int, k []*ir.Expr) *ir.Expr {
	x := b.cell(p, ms.used(i), ir.Bool)
	for j, kc := range k {
		eq := &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, ms.key(i)+j, kc.Type), Y: kc, Pos: b.pos}
		x = &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, X: x, Y: eq, Pos: b.pos}
	}
	return x
}

// lookup is v := m[k] and v, ok := m[k]: one step reading every entry.
func (b *builder) lookup(in *ssa.Lookup) {
	if _, isMap := in.X.Type().Underlying().(*types.Map); !isMap {
		b.errorf("indexing a string is not supported")
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	ms, ok := b.mapShape(in.X.Type())
	if !ok {
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	p := b.scalarValue(in.X)
	b.knownKey(in.Index)
	k := b.value(in.Index)
	vt := in.X.Type().Underlying().(*types.Map).Elem()
	vlo := b.layout(vt)
	out := make([]*ir.Var, vlo.n())
	for i, c := range vlo.cells {
		out[i] = b.temp(c.typ)
	}
	found := b.temp(ir.Bool)
	b.assign(found, constant(ir.Bool, 0))
	for i := range out {
		b.assign(out[i], constant(vlo.cells[i].typ, 0))
	}
	// A nil map reads as empty.
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos}})
	b.open = []*int{&br.Next}
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	var done []*int
	for i := range mapSlots {
		hit := b.emit(&ir.Node{Op: ir.OpBranch, X: b.keyEq(p, ms, i, k)})
		b.open = []*int{&hit.Next}
		b.assign(found, constant(ir.Bool, 1))
		for j, v := range out {
			b.assign(v, b.cell(p, ms.val(i)+j, v.Type))
		}
		done = append(done, b.open...)
		b.open = []*int{&hit.Else}
	}
	b.endAtomic()
	b.open = append(b.open, done...)
	nilPath := &br.Else
	b.open = append(b.open, nilPath)
	cells := make([]*ir.Expr, 0, len(out)+1)
	for _, v := range out {
		cells = append(cells, varRef(v))
	}
	if in.CommaOk {
		cells = append(cells, varRef(found))
	}
	b.frame.vals[in] = cells
}

// mapUpdate is m[k] = v: one step.
func (b *builder) mapUpdate(in *ssa.MapUpdate) {
	ms, ok := b.mapShape(in.Map.Type())
	if !ok {
		return
	}
	p := b.scalarValue(in.Map)
	b.knownKey(in.Key)
	k, v := b.value(in.Key), b.value(in.Value)
	b.assertOr(&ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos}, "assignment to entry in nil map")
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	var done []*int
	store := func(i int) {
		for j, c := range v {
			b.storeCell(p, ms.val(i)+j, c.Type, c)
		}
	}
	for i := range mapSlots { // an entry with the key
		hit := b.emit(&ir.Node{Op: ir.OpBranch, X: b.keyEq(p, ms, i, k)})
		b.open = []*int{&hit.Next}
		store(i)
		done = append(done, b.open...)
		b.open = []*int{&hit.Else}
	}
	for i := range mapSlots { // else the first free entry
		free := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENot, Type: ir.Bool, X: b.cell(p, ms.used(i), ir.Bool), Pos: b.pos}})
		b.open = []*int{&free.Next}
		b.storeCell(p, ms.used(i), ir.Bool, constant(ir.Bool, 1))
		for j, c := range k {
			b.storeCell(p, ms.key(i)+j, c.Type, c)
		}
		store(i)
		b.storeCell(p, 0, ir.I64, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: b.cell(p, 0, ir.I64), Y: constant(ir.I64, 1), Pos: b.pos})
		done = append(done, b.open...)
		b.open = []*int{&free.Else}
	}
	b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
		Msg: fmt.Sprintf("a map with more than %d entries: not supported", mapSlots)})
	b.open = done
	b.endAtomic()
}

// deleteKey is delete(m, k): one step.
func (b *builder) deleteKey(mv ssa.Value, p *ir.Expr, k []*ir.Expr) {
	ms, ok := b.mapShape(mv.Type())
	if !ok {
		return
	}
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos}})
	b.open = []*int{&br.Next}
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	for i := range mapSlots {
		hit := b.emit(&ir.Node{Op: ir.OpBranch, X: b.keyEq(p, ms, i, k)})
		b.open = []*int{&hit.Next}
		b.storeCell(p, ms.used(i), ir.Bool, constant(ir.Bool, 0))
		b.storeCell(p, 0, ir.I64, &ir.Expr{Op: ir.ESub, Type: ir.I64, X: b.cell(p, 0, ir.I64), Y: constant(ir.I64, 1), Pos: b.pos})
		b.open = append(b.open, &hit.Else)
	}
	b.endAtomic()
	b.open = append(b.open, &br.Else)
}

// rangeMap starts a range over a map: an iterator is the map and the next
// entry to look at.
func (b *builder) rangeMap(in *ssa.Range) {
	if _, isMap := in.X.Type().Underlying().(*types.Map); !isMap {
		b.errorf("range over %s is not supported", in.X.Type())
		b.frame.vals[in] = []*ir.Expr{constant(ir.Ptr, 0), constant(ir.I64, 0)}
		return
	}
	it := b.newLocal("$iter", ir.I64)
	b.assign(it, constant(ir.I64, 0))
	b.frame.vals[in] = []*ir.Expr{b.hold(b.scalarValue(in.X)), varRef(it)}
}

// next is one step of a range over a map: (ok, key, value).
func (b *builder) next(in *ssa.Next) {
	rg, isRange := in.Iter.(*ssa.Range)
	if !isRange || in.IsString {
		b.errorf("range over a string is not supported")
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	ms, ok := b.mapShape(rg.X.Type())
	if !ok {
		b.frame.vals[in] = b.zero(in.Type())
		return
	}
	iter := b.value(rg)
	p, it := iter[0], iter[1].Var
	mt := rg.X.Type().Underlying().(*types.Map)
	klo, vlo := b.layout(mt.Key()), b.layout(mt.Elem())
	okv := b.temp(ir.Bool)
	var ks, vs []*ir.Var
	for _, c := range klo.cells {
		ks = append(ks, b.temp(c.typ))
	}
	for _, c := range vlo.cells {
		vs = append(vs, b.temp(c.typ))
	}
	b.assign(okv, constant(ir.Bool, 0))
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos}})
	b.open = []*int{&br.Next}
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	var done []*int
	for i := range mapSlots {
		at := &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, Pos: b.pos,
			X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: varRef(it), Y: constant(ir.I64, int64(i)), Pos: b.pos},
			Y: b.cell(p, ms.used(i), ir.Bool)}
		hit := b.emit(&ir.Node{Op: ir.OpBranch, X: at})
		b.open = []*int{&hit.Next}
		b.assign(okv, constant(ir.Bool, 1))
		for j, v := range ks {
			b.assign(v, b.cell(p, ms.key(i)+j, v.Type))
		}
		for j, v := range vs {
			b.assign(v, b.cell(p, ms.val(i)+j, v.Type))
		}
		b.assign(it, constant(ir.I64, int64(i+1)))
		done = append(done, b.open...)
		b.open = []*int{&hit.Else}
	}
	b.assign(it, constant(ir.I64, mapSlots))
	b.endAtomic()
	b.open = append(b.open, done...)
	b.open = append(b.open, &br.Else)
	// The tuple (ok, key, value): a blank key or value is one unused cell.
	cells := []*ir.Expr{varRef(okv)}
	tup := in.Type().(*types.Tuple)
	for i, part := range [][]*ir.Var{ks, vs} {
		if bt, ok := tup.At(i + 1).Type().(*types.Basic); ok && bt.Kind() == types.Invalid {
			cells = append(cells, constant(ir.I64, 0))
			continue
		}
		for _, v := range part {
			cells = append(cells, varRef(v))
		}
	}
	b.frame.vals[in] = cells
}

// copyElems copies count elements of layout elem from src to dst: an
// assignment per cell of each element up to bound (a constant count bounds
// it too; a count of at most bound, which callers check, guards each
// element), the last element first when backward (memmove's order when dst
// follows src in one array).
func (b *builder) copyElems(dst, src, count *ir.Expr, elem *layout, bound int, backward bool) {
	n := elem.n()
	if count.Op == ir.EConst {
		bound = min(bound, int(count.Val))
	}
	for k := range bound {
		i := k
		if backward {
			i = bound - 1 - k
		}
		var guard *ir.Node
		if count.Op != ir.EConst {
			guard = b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ELt, Type: ir.Bool, X: constant(ir.I64, int64(i)), Y: count, Pos: b.pos}})
			b.open = []*int{&guard.Next}
		}
		for j := range n {
			off := constant(ir.I64, int64(i*n+j))
			t := elem.cells[j].typ
			b.emit(&ir.Node{Op: ir.OpAssign, LHS: &ir.LValue{Ptr: ptrAdd(dst, off), Type: t, Pos: b.pos},
				X: &ir.Expr{Op: ir.EDeref, Type: t, X: ptrAdd(src, off), Pos: b.pos}})
		}
		if guard != nil {
			b.open = append(b.open, &guard.Else)
		}
	}
}

// copySlice is copy(dst, src): min(len(dst), len(src)) elements, as memmove
// copies them, in one step (as append's copy is). More than appendCap
// elements stop the run as unsupported.
func (b *builder) copySlice(c *ssa.CallCommon, args [][]*ir.Expr) []*ir.Expr {
	st, ok := c.Args[0].Type().Underlying().(*types.Slice)
	if _, isSlice := c.Args[1].Type().Underlying().(*types.Slice); !ok || !isSlice {
		b.errorf("copy from a string is not supported")
		return []*ir.Expr{constant(ir.I64, 0)}
	}
	dst, src := args[0], args[1]
	elem := b.layout(st.Elem())
	count := b.temp(ir.I64)
	b.assign(count, &ir.Expr{Op: ir.ECond, Type: ir.I64, X: &ir.Expr{Op: ir.ELt, Type: ir.Bool, X: dst[1], Y: src[1], Pos: b.pos},
		Y: dst[1], Z: src[1], Pos: b.pos})
	b.emit(&ir.Node{Op: ir.OpAssert, X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: varRef(count), Y: constant(ir.I64, appendCap), Pos: b.pos},
		Kind: ir.Unsupported, Msg: fmt.Sprintf("a copy of more than %d elements: not supported", appendCap)})
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	later := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.EGt, Type: ir.Bool, X: dst[0], Y: src[0], Pos: b.pos}})
	b.open = []*int{&later.Next}
	b.copyElems(dst[0], src[0], varRef(count), elem, appendCap, true)
	done := b.open
	b.open = []*int{&later.Else}
	b.copyElems(dst[0], src[0], varRef(count), elem, appendCap, false)
	b.open = append(b.open, done...)
	b.endAtomic()
	return []*ir.Expr{varRef(count)}
}

// appendSlice is append(s, e...): in place while s has room, else into a
// new block of appendCap elements; one step.
func (b *builder) appendSlice(c *ssa.CallCommon, args [][]*ir.Expr, rt types.Type) []*ir.Expr {
	if len(args) != 2 {
		b.errorf("append with %d arguments is not supported", len(args))
		return b.zero(rt)
	}
	st, ok := c.Args[0].Type().Underlying().(*types.Slice)
	if !ok {
		b.errorf("append to %s is not supported", c.Args[0].Type())
		return b.zero(rt)
	}
	if _, isBytes := c.Args[1].Type().Underlying().(*types.Basic); isBytes {
		b.errorf("append of a string is not supported")
		return b.zero(rt)
	}
	s, e := args[0], args[1]
	m := e[1]
	elem := b.layout(st.Elem())
	n := elem.n()
	bound := appendCap // the elements appended, at most
	if m.Op == ir.EConst {
		bound = int(m.Val) // which may be more, when appended in place
	} else {
		m = b.hold(m)
		b.emit(&ir.Node{Op: ir.OpAssert, X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: m, Y: constant(ir.I64, appendCap), Pos: b.pos},
			Kind: ir.Unsupported, Msg: fmt.Sprintf("an append of more than %d elements at once: not supported", appendCap)})
	}
	ptr, length, capa := b.temp(ir.Ptr), b.temp(ir.I64), b.temp(ir.I64)
	newLen := &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: s[1], Y: m, Pos: b.pos}
	b.assign(length, newLen)
	room := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: varRef(length), Y: s[2], Pos: b.pos}})
	var done []*int
	appended := func() {
		b.copyElems(ptrAdd(varRef(ptr), b.scaled(s[1], n)), e[0], m, elem, bound, false)
	}
	// In place.
	b.open = []*int{&room.Next}
	b.assign(ptr, s[0])
	b.assign(capa, s[2])
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	appended()
	b.endAtomic()
	done = append(done, b.open...)
	// Into a new block: the old elements (at most appendCap-1: something
	// is appended, or there was room), then the new ones. A slice that
	// would grow past the block stops the run as unsupported: the model's
	// bound, no fault of the program.
	b.open = []*int{&room.Else}
	b.emit(&ir.Node{Op: ir.OpAssert, X: &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: varRef(length), Y: constant(ir.I64, appendCap), Pos: b.pos},
		Kind: ir.Unsupported, Msg: fmt.Sprintf("a slice grown past %d elements: not supported", appendCap)})
	b.beginAtomic()
	arr := types.NewArray(st.Elem(), appendCap)
	b.assign(ptr, b.newObject(b.curBlock, "append", b.layout(arr), nil))
	b.assign(capa, constant(ir.I64, appendCap))
	b.copyElems(varRef(ptr), s[0], s[1], elem, appendCap-1, false)
	appended()
	b.endAtomic()
	b.open = append(b.open, done...)
	return []*ir.Expr{varRef(ptr), varRef(length), varRef(capa)}
}
