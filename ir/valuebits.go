package ir

import (
	"math/bits"
	"slices"
)

// ValueBits returns a number of bits b <= W such that, in every execution of at
// most steps transitions, every value other than a Bool fits in b bits as a
// signed number: every cell, message field and nondet draw, every constant, and
// the result of every subexpression (an invariant's too), as well as every array length, channel
// capacity and instance count that a bounds check compares with, and for C and
// Go programs every pointer value an object's cells have and every thread's
// value. Arithmetic at b bits then agrees with arithmetic at W bits on all of
// these executions — nothing wraps at either width — and so does every
// comparison and run-time check. The symbolic encoding computes at b bits:
// fewer bits per value make a smaller formula.
//
// Values of C's and Go's fixed-width types and pointers (ir.Type) are held as
// int64s (Type.Wrap): b holds them too. A Bool is read as 0 or 1: a program
// that may store another value into a Bool cell (a char through a pointer)
// needs its types' full widths (encode's rawBools). An operation of such a type wraps its
// result to the type; where it may, the type's whole range is the result
// (Intervals.Eval), so that b is at least the type's width there.
//
// It returns W when it cannot tell: a shift (whose check names W), nondet()
// (any W-bit value), a value that may wrap around at W bits, or more rounds
// (below) than it follows.
//
// The analysis is flow-insensitive. An abstract store holds an interval per
// variable that holds more than Bools (every instance of a local, every cell
// of an array or struct), one for all objects together (the variables pointers
// may address: what a pointer access reads or writes), and one per message
// field of a channel declaration. A round applies every node of every template
// once, joining what it assigns into the store. An execution of at most steps
// transitions executes at most steps·L nodes, L being the most nodes one
// transition can execute (transitions have no loops), and after round i the
// store holds every value an execution of i nodes can produce: its i-th node
// was applied, in round i, to a store that held the values before it. So
// steps·L rounds, or fewer when a round changes nothing, cover the executions.
func (p *Program) ValueBits(steps int) int {
	a := &valueRanges{p: p, vars: make(map[*Var]Interval), fields: make(map[*Channel][]Interval),
		objects: &Var{Name: "(objects)"}}
	a.layout()
	for _, v := range p.Shared {
		if holdsInts(v) {
			a.join(a.key(v), initInterval(v.Init))
		}
	}
	for _, c := range p.Channels {
		a.fields[c] = make([]Interval, len(c.Fields))
	}
	longest, nodes := 1, 0
	for _, tm := range p.Templates {
		for _, v := range tm.Locals {
			if holdsInts(v) {
				a.join(a.key(v), Interval{})
			}
		}
		for _, tr := range tm.Transitions {
			longest = max(longest, len(tr.Nodes))
		}
		nodes += len(tm.Nodes)
		for _, n := range tm.Nodes {
			for e := range n.Exprs() {
				if Any(e, func(x *Expr) bool { return x.Op == EShl || x.Op == EShr }) {
					return p.Width
				}
			}
		}
	}
	for _, inv := range p.Invariants {
		if Any(inv.Expr, func(x *Expr) bool { return x.Op == EShl || x.Op == EShr }) {
			return p.Width
		}
	}
	rounds := nodesRun(p, steps, longest)
	if steps < 0 || rounds > valueBitsWork/max(nodes, 1) {
		// Too long to follow round by round (a counter on a deep bound grows
		// by one per round): ints stay at W bits.
		return p.Width
	}
	evals := make([]Intervals, len(p.Templates)) // they read the store as it grows
	for i, tm := range p.Templates {
		evals[i] = a.eval(tm)
	}
	// Only nodes a thread can reach from its entry run: a template keeps
	// code no path reaches any more (main's steps before its new entry,
	// SpecializePrefix), and a loop counter there would grow round after
	// round.
	live := make([][]*Node, len(p.Templates))
	for i, tm := range p.Templates {
		reach := reachableNodes(tm, tm.Entry)
		for j, n := range tm.Nodes {
			if reach[j] {
				live[i] = append(live[i], n)
			}
		}
	}
	for range rounds {
		changed := false
		for i, tm := range p.Templates {
			for _, n := range live[i] {
				changed = a.apply(&evals[i], tm, n) || changed
			}
		}
		if a.wide {
			return p.Width
		}
		if !changed {
			break
		}
	}
	return a.bits(evals)
}

// nodesRun bounds the nodes an execution of at most steps transitions runs
// (steps >= 0), longest being the most nodes of one transition: steps·longest,
// or less when some templates' locations form no cycle. A thread of such a
// template takes each of its transitions at most once, so its threads run at
// most their transitions' nodes in all, however many steps the execution has;
// the other threads' steps run at most the longest of their transitions each.
// A C program's main has one long transition, its pthread_creates folded into
// one step, that it takes once: steps·longest would make a counter of a
// philosopher's meals, growing by one per round, many bits wide.
func nodesRun(p *Program, steps, longest int) int {
	once, repeat := 0, 0
	for _, tm := range p.Templates {
		if _, acyclic := tm.LongestPath(); !acyclic {
			for _, tr := range tm.Transitions {
				repeat = max(repeat, len(tr.Nodes))
			}
			continue
		}
		for _, tr := range tm.Transitions {
			once += tm.Instances() * len(tr.Nodes)
		}
	}
	return min(steps*longest, once+steps*repeat)
}

// holdsInts reports whether a variable has a cell that holds more than a
// Bool: an int, a fixed-width integer, a pointer.
func holdsInts(v *Var) bool {
	for c := range v.Cells() {
		if v.CellType(c) != Bool {
			return true
		}
	}
	return false
}

// valueBitsWork bounds the node applications of ValueBits, so that it takes a
// few tens of milliseconds at most.
const valueBitsWork = 1 << 21

// valueRanges is the abstract store of ValueBits.
type valueRanges struct {
	p       *Program
	vars    map[*Var]Interval       // by key: variables that hold more than Bools, and objects
	fields  map[*Channel][]Interval // per channel declaration, its int fields
	wide    bool                    // a value may wrap around at W bits
	objects *Var                    // the key of every object: pointer accesses may reach any

	cellTypes []Type   // the types of the objects' cells, each once
	pointers  Interval // the pointers to objects' cells (one past an end included)
	maxCells  int64    // the most cells an object has
	threads   Interval // the values of threads (pthread_self, pthread_create)
	starts    []*Var   // the Start variables of created threads
}

// layout records what the memory operations' intervals need.
func (a *valueRanges) layout() {
	p := a.p
	a.threads = Interval{1, int64(len(p.Threads))}
	if len(p.Objects) > 0 {
		a.pointers = Interval{p.MakePointer(1, 0), p.MakePointer(len(p.Objects), 0)}
	}
	for _, o := range p.Objects {
		a.maxCells = max(a.maxCells, int64(o.Cells()))
		a.pointers.Hi = max(a.pointers.Hi, p.MakePointer(o.Object, o.Cells()))
		for c := range o.Cells() {
			if t := o.CellType(c); !slices.Contains(a.cellTypes, t) {
				a.cellTypes = append(a.cellTypes, t)
			}
		}
	}
	for _, tm := range p.Templates {
		if tm.Start != nil {
			a.starts = append(a.starts, tm.Start)
		}
	}
}

// key is the store's key of variable v: v, or for an object the key all
// objects share.
func (a *valueRanges) key(v *Var) *Var {
	if v.Addressable {
		return a.objects
	}
	return v
}

// join joins x into key k's interval (creating it) and reports whether it grew.
func (a *valueRanges) join(k *Var, x Interval) bool {
	old, ok := a.vars[k]
	if !ok {
		a.vars[k] = x
		return true
	}
	if y := old.join(x); y != old {
		a.vars[k] = y
		return true
	}
	return false
}

// initInterval is the interval of a shared variable's initial values.
func initInterval(init []int64) Interval {
	iv := Interval{} // cells past Init are zero
	for _, v := range init {
		iv = iv.join(Interval{v, v})
	}
	return iv
}

func (a Interval) join(b Interval) Interval { return Interval{min(a.Lo, b.Lo), max(a.Hi, b.Hi)} }

// eval is an evaluator of template tm's expressions over the store.
func (a *valueRanges) eval(tm *Template) Intervals {
	iv := a.p.Intervals(Interval{0, int64(tm.Instances() - 1)}, func(v *Var) (Interval, bool) {
		iv, ok := a.vars[a.key(v)]
		return iv, ok
	})
	iv.memory = a.memory
	return iv
}

// memory evaluates the memory operations (machine.eval, ir/memory.go).
func (a *valueRanges) memory(iv *Intervals, e *Expr) (Interval, bool) {
	p := a.p
	switch e.Op {
	case ESelf:
		return a.threads, true
	case EAddr:
		return Interval{p.MakePointer(e.Var.Object, 0), p.MakePointer(e.Var.Object, e.Var.Cells())}, true
	case EDeref:
		// Any object's cell, read as e.Type (the access wraps it).
		mem, ok := a.vars[a.objects]
		if !ok {
			return Interval{}, true // no object, no cell: every dereference fails
		}
		return iv.typed(e.Type, mem), true
	case EPtrAdd:
		// Within an object (or one past its end) when the pointer names one;
		// a pointer whose object number is 0 (an integer) moves as the
		// integer it is; any other fails (machine.ptrAdd).
		x, y := iv.Eval(e.X), iv.Eval(e.Y)
		r, any := a.pointers, len(p.Objects) > 0
		if lo, hi := max(x.Lo, 0), min(x.Hi, int64(1)<<p.PtrShift-1); lo <= hi {
			if !within(Interval{lo, hi}, safeAdd) || !within(y, safeAdd) {
				return iv.top(Ptr), true
			}
			moved := Interval{lo + y.Lo, hi + y.Hi}
			if !any {
				r, any = moved, true
			}
			r = r.join(moved)
		}
		if !any {
			return Interval{}, true // every value fails
		}
		return r, true
	case EPtrDiff:
		return Interval{-a.maxCells, a.maxCells}, true
	}
	return Interval{}, false
}

// apply joins what node n of template tm may assign into the store and
// reports whether the store grew.
func (a *valueRanges) apply(iv *Intervals, tm *Template, n *Node) bool {
	p := a.p
	switch n.Op {
	case OpAssign:
		return a.store(n.LHS, iv.Eval(n.X))
	case OpCas:
		// The cell gets the new value as it is (no wrap, even through a
		// pointer); the result is whether it did.
		grew := a.store(n.Result, Interval{0, 1})
		x := iv.Eval(n.Y)
		if n.LHS.Ptr != nil {
			return a.join(a.objects, x) || grew
		}
		return a.assign(n.LHS.Var, x) || grew
	case OpLock, OpUnlock, OpTryLock:
		// A mutex in memory holds its owner's number plus one, or 0.
		grew := a.store(n.Result, Interval{0, 1})
		if n.Addr != nil {
			grew = a.join(a.objects, Interval{0, a.threads.Hi}) || grew
		}
		return grew
	case OpSpawn:
		// The slot's start flag (1) and argument; the new thread's value.
		grew := false
		arg := iv.Eval(n.X).join(Interval{1, 1})
		for _, u := range n.Pool.Slots {
			grew = a.join(u.Start, arg) || grew
		}
		return a.store(n.LHS, a.threads) || grew
	case OpStart:
		return a.store(n.LHS, a.vars[tm.Start])
	case OpJoin:
		if n.JThread == nil || n.LHS == nil {
			return false
		}
		var r Interval // any created thread's result
		for i, st := range a.starts {
			if i == 0 {
				r = a.vars[st]
			}
			r = r.join(a.vars[st])
		}
		return a.store(n.LHS, r)
	case OpAlloc:
		// The block's status gets its size; the result is a block's address,
		// or null.
		grew := a.join(n.Alloc.Status, iv.Eval(n.X))
		r := Interval{}
		for _, b := range n.Alloc.Blocks {
			r = r.join(Interval{p.MakePointer(b.Object, 0), p.MakePointer(b.Object, 0)})
		}
		return a.store(n.LHS, r) || grew
	case OpFree:
		// The freed block's status (any site's).
		grew := false
		for _, al := range p.Allocs {
			grew = a.join(al.Status, Interval{-1, -1}) || grew
		}
		return grew
	case OpSend:
		grew := false
		fs := a.fields[n.Chan]
		for i, e := range n.Args {
			if n.Chan.Fields[i] != Int {
				continue
			}
			if x := fs[i].join(iv.Eval(e)); x != fs[i] {
				fs[i], grew = x, true
				a.check(x)
			}
		}
		return grew
	case OpRecv:
		grew := a.store(n.OK, Interval{0, 1})
		for i, d := range n.Dsts {
			if n.Chan.Fields[i] == Int {
				x := a.fields[n.Chan][i]
				if n.Chan.Closable {
					x = x.join(Interval{0, 0}) // zeros from a closed channel
				}
				grew = a.assign(d.Var, x) || grew
			}
		}
		return grew
	case OpSelect:
		grew := a.store(n.LHS, Interval{0, int64(len(n.Cases))})
		for _, c := range n.Cases {
			grew = a.apply(iv, tm, c) || grew
		}
		return grew
	}
	return false
}

// store joins x into what lvalue lv may assign (nil: nothing). Through a
// pointer, any object's cell of a type the access fits, wrapped to the
// cell's type (machine.store).
func (a *valueRanges) store(lv *LValue, x Interval) bool {
	switch {
	case lv == nil:
		return false
	case lv.Ptr == nil:
		return a.assign(lv.Var, x)
	}
	if _, ok := a.vars[a.objects]; !ok {
		return false // no object: every such store fails
	}
	iv := a.p.Intervals(Interval{}, nil)
	grew := false
	for _, ct := range a.cellTypes {
		if Fits(ct, lv.Type, a.p.Width) {
			grew = a.join(a.objects, iv.typed(ct, x)) || grew
		}
	}
	return grew
}

// assign joins x into variable v's interval (v one that holds more than
// Bools) and reports whether it grew.
func (a *valueRanges) assign(v *Var, x Interval) bool {
	k := a.key(v)
	old, ok := a.vars[k]
	if !ok { // a Bool
		return false
	}
	if y := old.join(x); y != old {
		a.vars[k] = y
		a.check(y)
		return true
	}
	return false
}

// check notes a value that may wrap around: the evaluator's answer for it is
// the whole W-bit range.
func (a *valueRanges) check(x Interval) {
	if x.Lo <= a.p.MinInt() || x.Hi >= a.p.MaxInt() {
		a.wide = true
	}
}

// bits is the width every value in the store and every expression fits in;
// evals are the templates' evaluators over the store.
func (a *valueRanges) bits(evals []Intervals) int {
	w := 1
	fit := func(x Interval) { w = max(w, signedBits(x)) }
	for _, x := range a.vars {
		fit(x)
	}
	for _, fs := range a.fields {
		for _, x := range fs {
			fit(x)
		}
	}
	count := func(n int) { fit(Interval{0, int64(n)}) }
	for _, v := range a.p.Shared {
		count(v.Len)
	}
	for _, m := range a.p.Mutexes {
		count(m.Count())
	}
	for _, c := range a.p.Channels {
		count(c.Count())
		count(c.Cap)
	}
	if p := a.p; len(p.Objects) > 0 || len(p.Pools) > 0 || len(p.Allocs) > 0 {
		// What the memory operations compare with: every object's cells'
		// pointers, the offset mask, an object's size, the number of
		// objects, thread values, a freed block's status.
		fit(a.pointers)
		count(1<<p.PtrShift - 1)
		fit(Interval{-1, a.maxCells})
		count(len(p.Objects))
		fit(a.threads)
	}
	for i, tm := range a.p.Templates {
		count(tm.Instances())
		for _, v := range tm.Locals {
			count(v.Len)
		}
		for _, n := range tm.Nodes {
			for e := range n.Exprs() {
				Inspect(e, func(x *Expr) bool {
					if x.Type != Bool {
						fit(evals[i].Eval(x))
					}
					return true
				})
			}
		}
	}
	for _, inv := range a.p.Invariants {
		// An invariant reads shared cells and constants only: any
		// template's evaluator reads them from the store.
		Inspect(inv.Expr, func(x *Expr) bool {
			if x.Type != Bool {
				fit(evals[0].Eval(x))
			}
			return true
		})
	}
	return min(w, a.p.Width)
}

// signedBits is the number of bits that hold every value of x as a signed
// number: one more than the bits of the larger magnitude (^v for v < 0).
func signedBits(x Interval) int {
	mag := func(v int64) int { return bits.Len64(uint64(v ^ v>>63)) }
	return 1 + max(mag(x.Lo), mag(x.Hi))
}
