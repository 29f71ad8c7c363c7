package encode

import (
	"kbmc/ir"
	"kbmc/solver"
)

// Select (ir/select.go, machine.selectCase). A select evaluates every case's
// channel index in order (a bounds failure is the step's violation), reads
// the length of each case's channel, and performs one ready case: with
// several ready, a channel draw (ir.Choice.Channel) of 0..r−1, r the number
// of ready cases, names the draw-th ready case in case order; with one, that
// one, without a draw; with none, the default. Then the case's index, or
// len(Cases) for the default, goes into the select's LHS.
//
// The encoding gives each alternative (each case, and the default) a path of
// its own out of the select node, guarded by "this alternative is chosen",
// as a branch does: the case's send or receive and the store into LHS run on
// that path alone, and the paths join at the next node. Enabledness
// (selectGuard) is Program.Status: some case ready, or a default.

// caseReady evaluates the channel index of each case of select n, in order,
// and returns per case the channels it may name (chanCells) and whether it
// is ready. In a step (f.mv set) it records the read of each channel's
// location: a send or receive by another thread may change which cases are
// ready.
//
// A case with a When is considered only where it holds (machine.considered):
// its channel index is evaluated, and its channel read, under that condition
// alone, as the operands of && are.
func (f *frame) caseReady(n *ir.Node) (conds [][]*solver.Term, ready []*solver.Term) {
	b := f.b
	for _, cs := range n.Cases {
		g0, on := f.g, b.True()
		if cs.When != nil {
			on = f.u.toBool(f.eval(cs.When))
			g0 = f.g // after the When's own checks
			f.g = b.And(g0, on)
		}
		cc := f.chanCells(cs.Chan, cs.CIndex)
		for j, at := range cc {
			if !at.IsFalse() {
				f.access(f.u.p.ChannelLocation(cs.Chan.Offset+j), false, at)
			}
		}
		conds = append(conds, cc)
		ready = append(ready, b.And(on, f.readyOn(cs, cc, false)))
		if cs.When != nil {
			f.g = b.Or(b.And(g0, b.Not(on)), f.g)
		}
	}
	return conds, ready
}

// selectGuard is Program.Status for a select: enabled with a default, else
// while some case is ready or an index fails.
func (f *frame) selectGuard(n *ir.Node) *solver.Term {
	b := f.b
	if n.Default {
		return b.True()
	}
	_, ready := f.caseReady(n)
	return b.Or(b.Or(ready...), b.Or(f.guardFail...))
}

// selectCase executes select n and returns one edge per alternative that may
// be chosen, each with its own store.
func (f *frame) selectCase(n *ir.Node) []edge {
	b := f.b
	conds, ready := f.caseReady(n)
	chosen := f.drawAmong(ready)
	if f.ho == nil {
		// A select that waited to receive on a rendezvous stops waiting
		// (ir's selectCase; a receiver moved by a sender stops in the
		// sender's moveReceiver).
		f.markWaiting(n, f.g)
	}
	var edges []edge
	alternative := func(chosen *solver.Term, run func(sub *frame), index int) {
		sub := *f
		sub.g = b.And(f.g, chosen)
		if sub.g.IsFalse() {
			return
		}
		sub.st = f.st.clone()
		if run != nil {
			run(&sub)
		}
		if n.LHS != nil {
			sub.store(n.LHS, sub.int(int64(index)))
		}
		edges = append(edges, edge{cond: sub.g, st: sub.st})
	}
	for i, cs := range n.Cases {
		alternative(chosen[i], func(sub *frame) {
			if cs.Op == ir.OpSend {
				sub.sendOn(cs, conds[i])
			} else {
				sub.recvOn(cs, conds[i])
			}
		}, i)
	}
	if n.Default {
		alternative(b.Not(b.Or(ready...)), nil, len(n.Cases))
	}
	return edges
}

// drawAmong is how ir picks one of several conditions that hold, in order
// (a select's ready cases, a rendezvous's waiting receivers): with two or
// more holding, a channel draw d of 0..n−1 (n: how many may hold),
// constrained to their number, names the d-th; with one, that one, without a draw. It returns,
// per condition, the condition that it is the one picked.
func (f *frame) drawAmong(conds []*solver.Term) []*solver.Term {
	b, u := f.b, f.u
	// before[i][v]: exactly v of the conditions before i hold; count[v]:
	// exactly v of all do.
	count := []*solver.Term{b.True()}
	before := make([][]*solver.Term, len(conds))
	for i, c := range conds {
		before[i] = count
		if c.IsFalse() {
			continue
		}
		next := make([]*solver.Term, len(count)+1)
		for v := range next {
			var or []*solver.Term
			if v < len(count) {
				or = append(or, b.And(count[v], b.Not(c)))
			}
			if v > 0 {
				or = append(or, b.And(count[v-1], c))
			}
			next[v] = b.Or(or...)
		}
		count = next
	}
	picked := make([]*solver.Term, len(conds))
	if len(count) <= 2 {
		// At most one can hold (without conditions, as Go's select {} or
		// a select of a default alone, count is count[0] only): no draw.
		copy(picked, conds)
		return picked
	}
	multi := b.Not(b.Or(count[0], count[1]))
	drawn := f.channelDraw(len(count)-1, multi, func(v int) *solver.Term {
		return b.Or(count[v+1:]...) // v < the number that hold
	})
	for i, c := range conds {
		var at []*solver.Term // the draw names i's place among those that hold
		for v, bv := range before[i] {
			at = append(at, b.And(bv, u.is(drawn, uint64(v))))
		}
		picked[i] = b.And(c, b.Or(b.Not(multi), b.Or(at...)))
	}
	return picked
}
