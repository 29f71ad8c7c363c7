package gofront

import (
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"kbmc/ir"
)

// Timers and contexts. A timer is a goroutine of the library (a pool of its
// own) that fires at any time: the scheduler decides when, so every
// interleaving of the firing with the program's steps is explored, as a
// timer whose duration kbmc does not measure may fire at any of them. A
// context is an object: its Done channel (closed when it is cancelled), its
// error, and the contexts derived from it, which its cancellation cancels
// in the same step.

// Timer and ticker states (cell .state of a time.Timer or time.Ticker).
const (
	timerPending = 0
	timerFired   = 1
	timerStopped = 2
)

// Context objects: the done channel, the error (0 none, ctxCanceled,
// ctxDeadline), and ctxChildren derived contexts.
const (
	ctxDone = iota
	ctxErr
	ctxFirstChild
	ctxChildren = 4
	ctxCells    = ctxFirstChild + ctxChildren

	ctxCanceled = 1
	ctxDeadline = 2
	// ctxDepth is how deep a cancellation follows derived contexts in its
	// one step; a deeper one stops the run as unsupported.
	ctxDepth = 3
)

var ctxLayout = func() *layout {
	lo := &layout{cells: []cellInfo{{typ: ir.I64, name: ".done", chanVal: true}, {typ: ir.I64, name: ".err"}}}
	for i := range ctxChildren {
		lo.cells = append(lo.cells, cellInfo{typ: ir.Ptr, name: fmt.Sprintf(".child[%d]", i)})
	}
	return lo
}()

// libraryChannel reports whether a library call makes a channel, of which
// element type and capacity: time.After and the timers' C (capacity 1, as
// Go's), a context's Done (never sent on, closed on cancel).
func (l *lowerer) libraryChannel(c *ssa.CallCommon) (elem types.Type, capacity int, ok bool) {
	fn := c.StaticCallee()
	if fn == nil || fn.Pkg == l.pkg {
		return nil, 0, false
	}
	switch libName(fn) {
	case "time.After", "time.NewTimer", "time.NewTicker", "time.Tick":
		return fn.Pkg.Pkg.Scope().Lookup("Time").Type(), 1, true
	case "context.WithCancel", "context.WithTimeout", "context.WithDeadline":
		return types.NewStruct(nil, nil), 0, true
	}
	return nil, 0, false
}

// libPool returns the pool of a library goroutine, creating it: its
// arguments' layout and the code it runs.
func (l *lowerer) libPool(name string, args *layout, body func(b *builder, cells []*ir.Expr)) *poolInfo {
	if pi := l.libPools[name]; pi != nil {
		return pi
	}
	pi := &poolInfo{pool: &ir.Pool{Name: name}, args: args, body: body}
	l.libPools[name] = pi
	l.poolList = append(l.poolList, pi)
	l.prog.Pools = append(l.prog.Pools, pi.pool)
	return pi
}

// siteSend sends the zero value on channel ch of site s.
func (b *builder) siteSend(s *chanSite, ch *ir.Expr) {
	_, index := b.inSite(ch, s)
	args := make([]*ir.Expr, s.elem.n())
	for i, c := range s.elem.cells {
		args[i] = constant(c.typ, 0)
	}
	b.emit(&ir.Node{Op: ir.OpSend, Chan: s.decl, CIndex: index, Args: args})
}

// timeCall lowers the time package's functions and methods that kbmc
// models; ok is false for the others.
func (b *builder) timeCall(name string, c *ssa.CallCommon, in ssa.Instruction, args [][]*ir.Expr, rt types.Type) ([]*ir.Expr, bool) {
	arg := func(i int) *ir.Expr { return args[i][0] }
	switch name {
	case "time.After", "time.NewTimer", "time.NewTicker", "time.Tick":
		s := b.l.chans[in]
		if s == nil {
			b.errorf("internal error: %s without a channel site", name)
			return b.zero(rt), true
		}
		s.decl.Cap = 1
		ch := b.newChannel(s, in.Block())
		p := b.timerObject(in.Block())
		b.storeCell(p, timerC, ir.I64, ch)
		ticker := name == "time.NewTicker" || name == "time.Tick"
		b.startTimer(in, p, func(g *builder, p *ir.Expr) { g.siteSend(s, g.hold(g.cell(p, timerC, ir.I64))) }, ticker)
		if name == "time.After" || name == "time.Tick" {
			return []*ir.Expr{ch}, true
		}
		return []*ir.Expr{p}, true
	case "time.AfterFunc":
		// The function runs in a goroutine of its own when the timer fires.
		f := b.hold(args[1][0])
		p := b.timerObject(in.Block())
		b.storeCell(p, timerFunc, ir.Ptr, f)
		sig := c.Args[1].Type().Underlying().(*types.Signature)
		b.startTimer(in, p, func(g *builder, p *ir.Expr) {
			g.dynamicCall(g.hold(g.cell(p, timerFunc, ir.Ptr)), sig, func(cl *closure) {
				if cl.builtin != "" {
					g.callBuiltin(cl)
					return
				}
				g.inline(cl.fn, nil, nil, cl, false)
			})
		}, false)
		return []*ir.Expr{p}, true
	case "(*time.Timer).Stop":
		p := b.nilCheck(arg(0), 0)
		r := b.temp(ir.Bool)
		b.beginAtomic()
		b.assign(r, &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, timerState, ir.I64), Y: constant(ir.I64, timerPending), Pos: b.pos})
		br := b.emit(&ir.Node{Op: ir.OpBranch, X: varRef(r)})
		b.open = []*int{&br.Next}
		b.storeCell(p, timerState, ir.I64, constant(ir.I64, timerStopped))
		b.open = append(b.open, &br.Else)
		b.endAtomic()
		return []*ir.Expr{varRef(r)}, true
	case "(*time.Timer).Reset":
		// The timer is pending again, for a new generation: a goroutine of
		// an older one that has not fired finds its generation stale and
		// does nothing. Reset reports whether the timer was pending.
		p := b.nilCheck(arg(0), 0)
		r := b.temp(ir.Bool)
		gen := b.temp(ir.I64)
		b.beginAtomic()
		b.assign(r, &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, timerState, ir.I64), Y: constant(ir.I64, timerPending), Pos: b.pos})
		b.assign(gen, &ir.Expr{Op: ir.EAdd, Type: ir.I64, X: b.cell(p, timerGen, ir.I64), Y: constant(ir.I64, 1), Pos: b.pos})
		b.storeCell(p, timerState, ir.I64, constant(ir.I64, timerPending))
		b.storeCell(p, timerGen, ir.I64, varRef(gen))
		b.endAtomic()
		pi := b.l.timerPoolOf(c.Args[0])
		if pi == nil {
			b.errorf("Reset of a timer kbmc cannot tell which time.NewTimer made: not supported")
			return []*ir.Expr{varRef(r)}, true
		}
		b.startSlot(pi, in.Block(), []*ir.Expr{p, varRef(gen)})
		return []*ir.Expr{varRef(r)}, true
	case "(*time.Ticker).Stop":
		p := b.nilCheck(arg(0), 0)
		b.beginAtomic()
		b.storeCell(p, timerState, ir.I64, constant(ir.I64, timerStopped))
		b.endAtomic()
		return nil, true
	case "time.Since", "time.Until", "(time.Time).Sub":
		// kbmc has no clock, and timers ignore their durations (they may
		// fire at any time): a duration that only ever becomes a timer's
		// may be any value, 0 among them.
		if v, ok := in.(ssa.Value); !ok || !onlyTimerDuration(v, map[ssa.Value]bool{}) {
			b.errorf("%s where its value matters is not supported (kbmc has no clock; as a timer's duration it is)", name)
		}
		return b.zero(rt), true
	}
	return nil, false
}

// timerDurations are the calls that take a duration kbmc ignores, and
// which argument it is.
var timerDurations = map[string]int{
	"time.After": 0, "time.NewTimer": 0, "time.NewTicker": 0, "time.Tick": 0, "time.Sleep": 0,
	"time.AfterFunc": 0, "(*time.Timer).Reset": 1, "(*time.Ticker).Reset": 1, "context.WithTimeout": 1,
}

// onlyTimerDuration reports whether every use of v, through arithmetic,
// conversions and phis, is the duration of a timer, a sleep or a timeout.
func onlyTimerDuration(v ssa.Value, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return true
	}
	seen[v] = true
	for _, r := range *v.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.BinOp:
			switch r.Op {
			case token.ADD, token.SUB, token.MUL, token.QUO:
				if !onlyTimerDuration(r, seen) {
					return false
				}
			default:
				return false // a comparison: the value matters
			}
		case *ssa.Convert, *ssa.ChangeType, *ssa.Phi:
			if !onlyTimerDuration(r.(ssa.Value), seen) {
				return false
			}
		case ssa.CallInstruction:
			c := r.Common()
			callee := c.StaticCallee()
			if callee == nil {
				return false
			}
			at, ok := timerDurations[callee.String()]
			if !ok {
				return false
			}
			for i, a := range c.Args {
				if a == v && i != at {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// The cells of a time.Timer or time.Ticker object.
const (
	timerC     = iota // the channel (time.After, NewTimer, NewTicker, Tick)
	timerState        // timerPending, timerFired or timerStopped
	timerGen          // the generation Reset starts
	timerFunc         // AfterFunc's function
)

var timerLayout = &layout{cells: []cellInfo{{typ: ir.I64, name: ".C", chanVal: true}, {typ: ir.I64, name: ".state"}, {typ: ir.I64, name: ".gen"}, {typ: ir.Ptr, name: ".f"}}}

// timerObject is a new timer object.
func (b *builder) timerObject(bb *ssa.BasicBlock) *ir.Expr {
	return b.newObject(bb, "timer", timerLayout, nil)
}

// startTimer starts the goroutine of the timer at p, made by call in, which
// fires once (fire's code) or, for a ticker, until stopped. The pool is
// recorded for the call, so that Reset can start another.
func (b *builder) startTimer(in ssa.Instruction, p *ir.Expr, fire func(g *builder, p *ir.Expr), ticker bool) {
	pname := fmt.Sprintf("%s at %s", libName(in.(ssa.CallInstruction).Common().StaticCallee()), site(b.pos))
	pi := b.l.libPool(pname, &layout{cells: []cellInfo{{typ: ir.Ptr, name: ".timer"}, {typ: ir.I64, name: ".gen"}}}, func(g *builder, cells []*ir.Expr) {
		g.timerBody(cells[0], cells[1], fire, ticker)
	})
	if v, ok := in.(ssa.Value); ok {
		b.l.timerPools[v] = pi
	}
	b.startSlot(pi, in.Block(), []*ir.Expr{p, constant(ir.I64, 0)})
}

// timerPoolOf is the pool of the timer v holds, when v is the call that
// made it, directly or through a field of the object it was stored in
// only once (a struct's timer).
func (l *lowerer) timerPoolOf(v ssa.Value) *poolInfo {
	if pi := l.timerPools[v]; pi != nil {
		return pi
	}
	// t := s.timer: the one call whose timer some store put into that field.
	load, ok := v.(*ssa.UnOp)
	if !ok {
		return nil
	}
	fa, ok := load.X.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	var found *poolInfo
	for call, pi := range l.timerPools {
		for _, r := range *call.Referrers() {
			st, ok := r.(*ssa.Store)
			if !ok {
				continue
			}
			if f, ok := st.Addr.(*ssa.FieldAddr); ok && f.Field == fa.Field && types.Identical(f.X.Type(), fa.X.Type()) {
				if found != nil && found != pi {
					return nil
				}
				found = pi
			}
		}
	}
	return found
}

// timerBody is a timer's goroutine: it fires once (a timer) or until it is
// stopped (a ticker), if its generation is still the timer's; a ticker
// waiting on a full channel may wait for ever (a valid end, as Go drops
// ticks).
func (b *builder) timerBody(p, gen *ir.Expr, fire func(g *builder, p *ir.Expr), ticker bool) {
	fired := b.temp(ir.Bool)
	head := len(b.t.Nodes)
	b.beginAtomic()
	b.emit(&ir.Node{Op: ir.OpNop})
	b.assign(fired, &ir.Expr{Op: ir.ELAnd, Type: ir.Bool, Pos: b.pos,
		X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, timerState, ir.I64), Y: constant(ir.I64, timerPending), Pos: b.pos},
		Y: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, timerGen, ir.I64), Y: gen, Pos: b.pos}})
	br := b.emit(&ir.Node{Op: ir.OpBranch, X: varRef(fired)})
	b.open = []*int{&br.Next}
	if !ticker {
		b.storeCell(p, timerState, ir.I64, constant(ir.I64, timerFired))
	}
	b.open = append(b.open, &br.Else)
	b.endAtomic()
	send := b.emit(&ir.Node{Op: ir.OpBranch, X: varRef(fired)})
	b.open = []*int{&send.Next}
	first := len(b.t.Nodes)
	fire(b, p)
	if ticker {
		for i := first; i < len(b.t.Nodes); i++ {
			if b.t.Nodes[i].Op == ir.OpSend {
				b.t.Nodes[i].End = true
			}
		}
		b.t.Nodes[head].Cut = true // the loop's head
		b.patch(b.open, head)
		b.open = nil
	}
	b.open = append(b.open, &send.Else)
}

// contextCall lowers the context package's functions and a context's
// methods; ok is false for the others.
func (b *builder) contextCall(name string, c *ssa.CallCommon, in ssa.Instruction, args [][]*ir.Expr, rt types.Type) ([]*ir.Expr, bool) {
	switch name {
	case "context.Background", "context.TODO":
		return []*ir.Expr{b.l.background()}, true
	case "context.WithCancel", "context.WithTimeout", "context.WithDeadline":
		s := b.l.chans[in]
		if s == nil {
			b.errorf("internal error: %s without a channel site", name)
			return b.zero(rt), true
		}
		s.decl.Cap = 0
		parent := b.hold(args[0][0])
		b.assertOr(&ir.Expr{Op: ir.ENe, Type: ir.Bool, X: parent, Y: constant(ir.Ptr, 0), Pos: b.pos}, "cannot create context from nil parent")
		done := b.newChannel(s, in.Block())
		ctx := b.newObject(in.Block(), "context", ctxLayout, nil)
		b.storeCell(ctx, ctxDone, ir.I64, done)
		// Derived from a context that can be cancelled: registered with it,
		// or cancelled at once if it is.
		b.beginAtomic()
		b.emit(&ir.Node{Op: ir.OpNop})
		cancellable := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: b.cell(parent, ctxDone, ir.I64), Y: constant(ir.I64, 0), Pos: b.pos}})
		b.open = []*int{&cancellable.Next}
		already := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: b.cell(parent, ctxErr, ir.I64), Y: constant(ir.I64, 0), Pos: b.pos}})
		b.open = []*int{&already.Next}
		b.cancelCtx(ctx, b.cell(parent, ctxErr, ir.I64), ctxDepth)
		done2 := b.open
		b.open = []*int{&already.Else}
		var registered []*int
		for i := range ctxChildren {
			free := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(parent, ctxFirstChild+i, ir.Ptr), Y: constant(ir.Ptr, 0), Pos: b.pos}})
			b.open = []*int{&free.Next}
			b.storeCell(parent, ctxFirstChild+i, ir.Ptr, ctx)
			registered = append(registered, b.open...)
			b.open = []*int{&free.Else}
		}
		b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
			Msg: fmt.Sprintf("a context with more than %d derived contexts: not supported", ctxChildren)})
		b.open = append(append(append(registered, done2...), &cancellable.Else), b.open...)
		b.endAtomic()
		if name != "context.WithCancel" {
			pi := b.l.libPool(fmt.Sprintf("%s at %s", name, site(b.pos)), &layout{cells: []cellInfo{{typ: ir.Ptr, name: ".ctx"}}}, func(g *builder, cells []*ir.Expr) {
				g.beginAtomic()
				g.emit(&ir.Node{Op: ir.OpNop})
				g.cancelCtx(cells[0], constant(ir.I64, ctxDeadline), ctxDepth)
				g.endAtomic()
			})
			b.startSlot(pi, in.Block(), []*ir.Expr{ctx})
		}
		cancel := b.cancelValue(ctx, in.Block())
		b.frame.funcs[in.(ssa.Value)] = &closure{parts: []*closure{nil, {builtin: builtinCancel, bindings: [][]*ir.Expr{{ctx}}}}}
		return []*ir.Expr{ctx, cancel}, true
	case "context.Context.Done":
		p := b.nilCheck(args[0][0], 0)
		return []*ir.Expr{b.syncLoad(p, ctxDone, ir.I64)}, true
	case "context.Context.Err":
		p := b.nilCheck(args[0][0], 0)
		e := b.syncLoad(p, ctxErr, ir.I64).Var
		canceled, deadline := b.l.ctxError("Canceled"), b.l.ctxError("DeadlineExceeded")
		return []*ir.Expr{b.hold(&ir.Expr{Op: ir.ECond, Type: ir.Ptr, Pos: b.pos,
			X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: varRef(e), Y: constant(ir.I64, 0), Pos: b.pos}, Y: constant(ir.Ptr, 0),
			Z: &ir.Expr{Op: ir.ECond, Type: ir.Ptr, Pos: b.pos,
				X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: varRef(e), Y: constant(ir.I64, ctxCanceled), Pos: b.pos},
				Y: constant(ir.Ptr, canceled), Z: constant(ir.Ptr, deadline)}})}, true
	}
	return nil, false
}

// builtinCancel names the cancel function context.WithCancel returns.
const builtinCancel = "context.CancelFunc"

// background is the object of the root contexts, context.Background's and
// its placeholder twin's: never cancelled (its Done is nil).
func (l *lowerer) background() *ir.Expr {
	if l.bg == nil {
		l.bg = l.objectVar("context.Background", ctxLayout, ir.Pos{})
	}
	return &ir.Expr{Op: ir.EAddr, Type: ir.Ptr, Var: l.bg}
}

// ctxError is the value of context.Canceled or context.DeadlineExceeded.
func (l *lowerer) ctxError(name string) int64 { return l.token("context." + name) }

// cancelCtx cancels the context at p with error code e, and the contexts
// derived from it (depth levels deep), inside the caller's atomic section.
func (b *builder) cancelCtx(p, e *ir.Expr, depth int) {
	if depth == 0 {
		b.emit(&ir.Node{Op: ir.OpAssert, X: constant(ir.Bool, 0), Kind: ir.Unsupported,
			Msg: fmt.Sprintf("contexts derived more than %d deep: not supported", ctxDepth)})
		return
	}
	live := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: b.cell(p, ctxErr, ir.I64), Y: constant(ir.I64, 0), Pos: b.pos}})
	b.open = []*int{&live.Next}
	b.storeCell(p, ctxErr, ir.I64, e)
	done := b.temp(ir.I64)
	b.assign(done, b.cell(p, ctxDone, ir.I64))
	b.dispatchSites(varRef(done), b.l.contextSites(), func(s *chanSite, index *ir.Expr) {
		b.emit(&ir.Node{Op: ir.OpClose, Chan: s.decl, CIndex: index})
	}, func() {})
	for i := range ctxChildren {
		child := b.temp(ir.Ptr)
		b.assign(child, b.cell(p, ctxFirstChild+i, ir.Ptr))
		has := b.emit(&ir.Node{Op: ir.OpBranch, X: &ir.Expr{Op: ir.ENe, Type: ir.Bool, X: varRef(child), Y: constant(ir.Ptr, 0), Pos: b.pos}})
		b.open = []*int{&has.Next}
		b.cancelCtx(varRef(child), e, depth-1)
		b.open = append(b.open, &has.Else)
	}
	b.open = append(b.open, &live.Else)
}

// contextSites are the channel sites of contexts' Done channels.
func (l *lowerer) contextSites() []*chanSite {
	var list []*chanSite
	for _, s := range l.siteList {
		if c, ok := s.at.(ssa.CallInstruction); ok {
			switch libName(c.Common().StaticCallee()) {
			case "context.WithCancel", "context.WithTimeout", "context.WithDeadline":
				list = append(list, s)
			}
		}
	}
	return list
}

// cancelValue is the cancel function of the context at ctx as a value: a
// closure object of the builtin, whose one free variable is the context.
func (b *builder) cancelValue(ctx *ir.Expr, bb *ssa.BasicBlock) *ir.Expr {
	fv := b.l.builtinValue(builtinCancel, types.NewSignatureType(nil, nil, nil, nil, nil, false))
	lo := &layout{cells: []cellInfo{{typ: ir.I64, name: ".fn"}, {typ: ir.Ptr, name: ".ctx"}}}
	p := b.newObject(bb, "cancel", lo, nil)
	b.beginAtomic()
	b.store(p, lo, []*ir.Expr{constant(ir.I64, fv.id), ctx})
	b.endAtomic()
	return p
}

// callBuiltin calls a modelled function value.
func (b *builder) callBuiltin(cl *closure) {
	switch cl.builtin {
	case builtinCancel:
		b.beginAtomic()
		b.emit(&ir.Node{Op: ir.OpNop})
		b.cancelCtx(cl.bindings[0][0], constant(ir.I64, ctxCanceled), ctxDepth)
		b.endAtomic()
	default:
		b.errorf("internal error: builtin %s", cl.builtin)
	}
}
