package gofront

import (
	"fmt"
	goconstant "go/constant"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// A chanSite is one make(chan T, k) of the program: an ir channel array with
// a channel for each run of the make (up to the bound). A channel value is
// base+i+1 for channel i of the site (0 is nil); base numbers the sites one
// after another, and is known once every site's size is (finishChannels).
type chanSite struct {
	at    ssa.Instruction // the make, or the library call that makes it (time.After, context.WithCancel)
	decl  *ir.Channel
	alloc *ir.Alloc // its blocks bound the makes: a make waits at the model's bound when all are taken
	count *ir.Var   // the channels made so far
	need  int
	base  *ir.Expr // a constant, filled in by finishChannels
	limit *ir.Expr // base plus the site's length, filled in likewise
	elem  *layout
}

// scanChannels finds every make(chan) of the package, and every library
// call that makes a channel (libraryChannel), so that an operation on a
// channel value can name every array it may be in.
func (l *lowerer) scanChannels(fns []*ssa.Function) {
	for _, fn := range fns {
		for _, bb := range fn.Blocks {
			for _, in := range bb.Instrs {
				var elem types.Type
				capacity := -1 // set by the first make lowered (makeChan)
				switch in := in.(type) {
				case *ssa.MakeChan:
					elem = in.Type().Underlying().(*types.Chan).Elem()
				case ssa.CallInstruction:
					var ok bool
					if elem, capacity, ok = l.libraryChannel(in.Common()); !ok {
						continue
					}
				default:
					continue
				}
				lo, err := l.layoutOf(elem)
				if err != nil {
					l.errorf(l.pos(in.Pos()), "channel of %s: %v", elem, err)
					continue
				}
				pos := l.pos(in.Pos())
				s := &chanSite{at: in, elem: lo, base: constant(ir.I64, 0), limit: constant(ir.I64, 0)}
				s.decl = &ir.Channel{Name: fmt.Sprintf("make(chan %s) at %s", elem, site(pos)), Fields: lo.types(), Pos: pos, Cap: capacity}
				if _, isMake := in.(*ssa.MakeChan); !isMake {
					s.decl.Name = fmt.Sprintf("%s at %s", libName(in.(ssa.CallInstruction).Common().StaticCallee()), site(pos))
				}
				s.alloc = &ir.Alloc{Name: s.decl.Name, Pos: pos}
				s.count = &ir.Var{Name: s.decl.Name + " (made)", Type: ir.I64, Shared: true, Pos: pos, Bookkeeping: true}
				l.chans[in] = s
				l.siteList = append(l.siteList, s)
				list, _ := l.byElem.At(elem).([]*chanSite)
				l.byElem.Set(elem, append(list, s))
			}
		}
	}
}

// finishChannels sizes every site and numbers the channels.
func (l *lowerer) finishChannels() {
	base := int64(0)
	for _, s := range l.siteList {
		s.decl.Len = max(1, min(s.need, maxPool))
		s.decl.Cap = max(s.decl.Cap, 0) // a make never lowered
		s.base.Val = base
		base += int64(s.decl.Len)
		s.limit.Val = base
		l.prog.Channels = append(l.prog.Channels, s.decl)
		s.alloc.Status = &ir.Var{Name: s.decl.Name + " (status)", Type: ir.I64, Len: s.decl.Len, Shared: true, Pos: s.decl.Pos, Bookkeeping: true}
		l.prog.Shared = append(l.prog.Shared, s.alloc.Status, s.count)
		for i := range s.decl.Len {
			v := &ir.Var{Name: fmt.Sprintf("%s #%d", s.decl.Name, i+1), Type: ir.Bool, Len: 1, Shared: true, Bookkeeping: true,
				Addressable: true, Block: s.alloc, BlockIndex: i, Pos: s.decl.Pos, CellTypes: []ir.Type{ir.Bool},
				CellNames: []string{fmt.Sprintf("%s #%d", s.decl.Name, i+1)}}
			s.alloc.Blocks = append(s.alloc.Blocks, v)
			l.prog.Shared = append(l.prog.Shared, v)
		}
		l.prog.Allocs = append(l.prog.Allocs, s.alloc)
	}
}

// makeChan lowers make(chan T, k).
func (b *builder) makeChan(in *ssa.MakeChan) {
	s := b.l.chans[in]
	if s == nil {
		b.frame.vals[in] = []*ir.Expr{constant(ir.I64, 0)}
		return
	}
	// The capacity must be a constant where the make runs (after
	// inlining, a parameter may be one), the same at every make lowered.
	size := b.scalarValue(in.Size)
	switch {
	case size.Op != ir.EConst:
		b.errorf("make of a channel whose capacity is not a constant is not supported")
	case size.Val < 0:
		b.panicNode("makechan: size out of range")
	case s.decl.Cap == -1:
		s.decl.Cap = int(size.Val)
	case int64(s.decl.Cap) != size.Val:
		b.errorf("make of a channel with capacity %d here and %d elsewhere is not supported", size.Val, s.decl.Cap)
	}
	b.frame.vals[in] = []*ir.Expr{b.newChannel(s, in.Block())}
}

// newChannel takes the site's next channel: its number, in one step with
// the block that bounds the site.
func (b *builder) newChannel(s *chanSite, bb *ssa.BasicBlock) *ir.Expr {
	if b.runsOnce(bb) {
		s.need++
	} else {
		s.need += b.l.cfg.LoopBlocks
	}
	v := b.temp(ir.I64)
	r := b.temp(ir.Ptr)
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpAlloc, Alloc: s.alloc, X: constant(ir.I64, 1), LHS: &ir.LValue{Var: r, Type: ir.Ptr, Pos: b.pos}})
	n := &ir.Expr{Op: ir.EVar, Type: ir.I64, Var: s.count, Pos: b.pos}
	b.assign(v, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: s.base, Y: n, Pos: b.pos}, Y: constant(ir.I64, 1), Pos: b.pos})
	b.emit(&ir.Node{Op: ir.OpAssign, LHS: &ir.LValue{Var: s.count, Type: ir.I64, Pos: b.pos},
		X: &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: n, Y: constant(ir.I64, 1), Pos: b.pos}})
	b.endAtomic()
	return varRef(v)
}

// sitesOf are the make sites a channel value of type t may come from.
func (b *builder) sitesOf(t types.Type) []*chanSite {
	ch, ok := t.Underlying().(*types.Chan)
	if !ok {
		b.errorf("internal error: %s is not a channel type", t)
		return nil
	}
	list, _ := b.l.byElem.At(ch.Elem()).([]*chanSite)
	return list
}

// inSite is whether channel value v is one of site s's channels, and index
// which one.
func (b *builder) inSite(v *ir.Expr, s *chanSite) (in, index *ir.Expr) {
	lo := &ir.Expr{Op: ir.EGt, Type: ir.Bool, X: v, Y: s.base, Pos: b.pos}
	hi := &ir.Expr{Op: ir.ELe, Type: ir.Bool, X: v, Y: s.limit, Pos: b.pos}
	in = &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, X: lo, Y: hi, Pos: b.pos}
	index = &ir.Expr{Op: ir.ESub, Type: ir.I64, Pos: b.pos,
		X: &ir.Expr{Op: ir.ESub, Type: ir.I64, X: v, Y: s.base, Pos: b.pos}, Y: constant(ir.I64, 1)}
	return in, index
}

// dispatch emits, for channel value v of type t, one copy of an operation
// per make site it may come from (op builds the node for a site and the
// channel's index), and a wait for ever for a nil channel (nilOp, when not
// nil, instead).
func (b *builder) dispatch(v *ir.Expr, t types.Type, op func(s *chanSite, index *ir.Expr), nilOp func()) {
	if nilOp == nil {
		nilOp = b.blockForever
	}
	b.dispatchSites(v, b.sitesOf(t), op, nilOp)
}

// dispatchSites is dispatch over the given sites: a branch per site on
// whether v is one of its channels, and nilOp when it is none of them.
func (b *builder) dispatchSites(v *ir.Expr, sites []*chanSite, op func(s *chanSite, index *ir.Expr), nilOp func()) {
	var done []*int
	for _, s := range sites {
		in, index := b.inSite(v, s)
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: in})
		b.open = []*int{&br.Next}
		op(s, index)
		done = append(done, b.open...)
		b.open = []*int{&br.Else}
	}
	nilOp()
	b.open = append(done, b.open...)
}

// blockForever is an operation on a nil channel: the goroutine waits for
// ever.
func (b *builder) blockForever() {
	b.emit(&ir.Node{Op: ir.OpAwait, X: constant(ir.Bool, 0)})
	b.open = nil
}

// recv lowers <-ch (and v, ok := <-ch).
func (b *builder) recv(in *ssa.UnOp) {
	ch := b.scalarValue(in.X)
	elemT := in.X.Type().Underlying().(*types.Chan).Elem()
	lo := b.layout(elemT)
	dsts := make([]*ir.Var, lo.n())
	for i, c := range lo.cells {
		dsts[i] = b.temp(c.typ)
	}
	ok := b.temp(ir.Bool)
	b.dispatch(ch, in.X.Type(), func(s *chanSite, index *ir.Expr) {
		n := &ir.Node{Op: ir.OpRecv, Chan: s.decl, CIndex: index}
		for _, d := range dsts {
			n.Dsts = append(n.Dsts, &ir.LValue{Var: d, Type: d.Type, Pos: b.pos})
		}
		n.OK = &ir.LValue{Var: ok, Type: ir.Bool, Pos: b.pos}
		b.emit(n)
	}, nil)
	cells := make([]*ir.Expr, len(dsts))
	for i, d := range dsts {
		cells[i] = varRef(d)
	}
	if in.CommaOk {
		cells = append(cells, varRef(ok))
	}
	b.frame.vals[in] = cells
}

// send lowers ch <- x.
func (b *builder) send(in *ssa.Send) {
	ch := b.scalarValue(in.Chan)
	args := b.value(in.X)
	b.dispatch(ch, in.Chan.Type(), func(s *chanSite, index *ir.Expr) {
		b.emit(&ir.Node{Op: ir.OpSend, Chan: s.decl, CIndex: index, Args: args})
	}, nil)
}

// lenCap is len or cap of a slice, an array, a map, a channel, or the len
// of a string kbmc knows (a constant's: others stop the run as unsupported).
func (b *builder) lenCap(isLen bool, v ssa.Value, cells []*ir.Expr) *ir.Expr {
	switch t := v.Type().Underlying().(type) {
	case *types.Basic:
		if !isString(t) {
			break
		}
		tok := cells[0]
		if c, ok := v.(*ssa.Const); ok {
			if c.Value == nil {
				return constant(ir.I64, 0)
			}
			return constant(ir.I64, int64(len(goconstant.StringVal(c.Value))))
		}
		tok = b.hold(tok)
		b.emit(&ir.Node{Op: ir.OpAssert, X: &ir.Expr{Op: ir.EGe, Type: ir.Bool, X: tok, Y: constant(ir.I64, 0), Pos: b.pos},
			Kind: ir.Unsupported, Msg: "len of a string kbmc does not know (made by fmt.Sprintf, an error's Error, …): not supported"})
		x := constant(ir.I64, 0)
		b.l.stringLength(x, tok)
		// x is a constant only until the program's constants are known:
		// a local holds it, so that no lowering folds the placeholder.
		n := b.temp(ir.I64)
		b.assign(n, x)
		return varRef(n)
	case *types.Slice:
		if isLen {
			return cells[1]
		}
		return cells[2]
	case *types.Pointer:
		if arr, ok := t.Elem().Underlying().(*types.Array); ok {
			return constant(ir.I64, arr.Len())
		}
	case *types.Array:
		return constant(ir.I64, t.Len())
	case *types.Map:
		p := cells[0]
		return b.hold(&ir.Expr{Op: ir.ECond, Type: ir.I64, Pos: b.pos,
			X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: p, Y: constant(ir.Ptr, 0), Pos: b.pos},
			Y: b.cell(p, 0, ir.I64), Z: constant(ir.I64, 0)})
	case *types.Chan:
		x := constant(ir.I64, 0) // a nil channel
		sites := b.sitesOf(v.Type())
		for i := len(sites) - 1; i >= 0; i-- {
			s := sites[i]
			in, index := b.inSite(cells[0], s)
			var y *ir.Expr
			if isLen {
				y = &ir.Expr{Op: ir.ELen, Type: ir.I64, Chan: s.decl, X: index, Pos: b.pos}
			} else {
				y = constant(ir.I64, int64(s.decl.Cap))
			}
			x = &ir.Expr{Op: ir.ECond, Type: ir.I64, X: in, Y: y, Z: x, Pos: b.pos}
		}
		return b.hold(x)
	}
	b.errorf("len or cap of %s is not supported", v.Type())
	return constant(ir.I64, 0)
}

// selectOp lowers a select statement: an ir select with one case per state
// and make site, guarded by whether the state's channel is of that site.
func (b *builder) selectOp(in *ssa.Select) {
	sel := &ir.Node{Op: ir.OpSelect, Default: !in.Blocking}
	var caseState []int // per ir case: the Go state it performs
	var recvCells [][]*ir.Var
	ok := b.temp(ir.Bool)
	for k, st := range in.States {
		ch := b.scalarValue(st.Chan)
		var dsts []*ir.Var
		if st.Dir == types.RecvOnly {
			lo := b.layout(st.Chan.Type().Underlying().(*types.Chan).Elem())
			for _, c := range lo.cells {
				dsts = append(dsts, b.temp(c.typ))
			}
			recvCells = append(recvCells, dsts)
		}
		var args []*ir.Expr
		if st.Dir == types.SendOnly {
			args = b.value(st.Send)
		}
		for _, s := range b.sitesOf(st.Chan.Type()) {
			// The case counts only while the channel is one of the site's:
			// a case on a nil channel is never ready.
			inS, index := b.inSite(ch, s)
			cs := &ir.Node{Chan: s.decl, CIndex: index, When: inS, Pos: b.l.pos(st.Pos), Text: b.text}
			if st.Dir == types.SendOnly {
				cs.Op, cs.Args = ir.OpSend, args
			} else {
				cs.Op = ir.OpRecv
				for _, d := range dsts {
					cs.Dsts = append(cs.Dsts, &ir.LValue{Var: d, Type: d.Type, Pos: b.pos})
				}
				cs.OK = &ir.LValue{Var: ok, Type: ir.Bool, Pos: b.pos}
			}
			sel.Cases = append(sel.Cases, cs)
			caseState = append(caseState, k)
		}
	}
	chosen := b.temp(ir.I64)
	sel.LHS = &ir.LValue{Var: chosen, Type: ir.I64, Pos: b.pos}
	b.emit(sel)
	// index: the Go state of the ir case chosen, -1 for the default.
	idx := constant(ir.I64, -1)
	for i := len(caseState) - 1; i >= 0; i-- {
		idx = &ir.Expr{Op: ir.ECond, Type: ir.I64, Pos: b.pos,
			X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: varRef(chosen), Y: constant(ir.I64, int64(i)), Pos: b.pos},
			Y: constant(ir.I64, int64(caseState[i])), Z: idx}
	}
	cells := []*ir.Expr{b.hold(idx)}
	// recvOk: a receive case was chosen (and, with close, took a message).
	isRecv := constant(ir.Bool, 0)
	for i := len(sel.Cases) - 1; i >= 0; i-- {
		if sel.Cases[i].Op == ir.OpRecv {
			isRecv = &ir.Expr{Op: ir.ELOr, Type: ir.Bool, Pos: b.pos,
				X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: varRef(chosen), Y: constant(ir.I64, int64(i)), Pos: b.pos}, Y: isRecv}
		}
	}
	cells = append(cells, b.hold(&ir.Expr{Op: ir.ELAnd, Type: ir.Bool, X: isRecv, Y: varRef(ok), Pos: b.pos}))
	for _, ds := range recvCells {
		for _, d := range ds {
			cells = append(cells, varRef(d))
		}
	}
	b.frame.vals[in] = cells
}

// closeChan lowers close(ch): a close of the channel's site, or a panic for
// a nil channel.
func (b *builder) closeChan(t types.Type, ch *ir.Expr) {
	b.dispatch(ch, t, func(s *chanSite, index *ir.Expr) {
		b.emit(&ir.Node{Op: ir.OpClose, Chan: s.decl, CIndex: index})
	}, func() {
		b.panicNode("close of nil channel")
		b.open = nil
	})
}
