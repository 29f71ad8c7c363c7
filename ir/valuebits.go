package ir

import "math/bits"

// ValueBits returns a number of bits b <= W such that, in every execution of at
// most steps transitions, every int value fits in b bits as a signed number: every
// cell, message field and nondet draw, every constant, and the result of every
// subexpression, as well as every array length, channel capacity and instance
// count that a bounds check compares with. Arithmetic at b bits then agrees with
// arithmetic at W bits on all of these executions — nothing wraps at either width
// — and so does every comparison and run-time check. The symbolic encoding
// computes at b bits: fewer bits per value make a smaller formula.
//
// It returns W when it cannot tell: a shift (whose check names W), nondet()
// (any W-bit value), a value that may wrap around at W bits, or more rounds
// (below) than it follows.
//
// The analysis is flow-insensitive. An abstract store holds an interval per int
// variable (every instance of a local, every cell of an array) and per message
// field of a channel declaration. A round applies every node of every template
// once, joining what it assigns into the store. An execution of at most steps
// transitions executes at most steps·L nodes, L being the most nodes one
// transition can execute (transitions have no loops), and after round i the
// store holds every value an execution of i nodes can produce: its i-th node
// was applied, in round i, to a store that held the values before it. So
// steps·L rounds, or fewer when a round changes nothing, cover the executions.
func (p *Program) ValueBits(steps int) int {
	a := &valueRanges{p: p, vars: make(map[*Var]Interval), fields: make(map[*Channel][]Interval)}
	for _, v := range p.Shared {
		if v.Type == Int {
			a.vars[v] = initInterval(v.Init)
		}
	}
	for _, c := range p.Channels {
		a.fields[c] = make([]Interval, len(c.Fields))
	}
	longest, nodes := 1, 0
	for _, tm := range p.Templates {
		for _, v := range tm.Locals {
			if v.Type == Int {
				a.vars[v] = Interval{}
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
	rounds := steps * longest
	if steps < 0 || rounds > valueBitsWork/max(nodes, 1) {
		// Too long to follow round by round (a counter on a deep bound grows
		// by one per round): ints stay at W bits.
		return p.Width
	}
	evals := make([]Intervals, len(p.Templates)) // they read the store as it grows
	for i, tm := range p.Templates {
		evals[i] = a.eval(tm)
	}
	for range rounds {
		changed := false
		for i, tm := range p.Templates {
			for _, n := range tm.Nodes {
				changed = a.apply(&evals[i], n) || changed
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

// valueBitsWork bounds the node applications of ValueBits, so that it takes a
// few tens of milliseconds at most.
const valueBitsWork = 1 << 21

// valueRanges is the abstract store of ValueBits.
type valueRanges struct {
	p      *Program
	vars   map[*Var]Interval       // int variables
	fields map[*Channel][]Interval // per channel declaration, its int fields
	wide   bool                    // a value may wrap around at W bits
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
	return a.p.Intervals(Interval{0, int64(tm.Instances() - 1)}, func(v *Var) (Interval, bool) {
		iv, ok := a.vars[v]
		return iv, ok
	})
}

// apply joins what node n may assign into the store and reports whether the
// store grew.
func (a *valueRanges) apply(iv *Intervals, n *Node) bool {
	switch n.Op {
	case OpAssign:
		return a.assign(n.LHS.Var, iv.Eval(n.X))
	case OpCas:
		return a.assign(n.LHS.Var, iv.Eval(n.Y))
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
		grew := false
		for i, d := range n.Dsts {
			if n.Chan.Fields[i] == Int {
				grew = a.assign(d.Var, a.fields[n.Chan][i]) || grew
			}
		}
		return grew
	}
	return false
}

// assign joins x into variable v's interval (v an int) and reports whether it grew.
func (a *valueRanges) assign(v *Var, x Interval) bool {
	old, ok := a.vars[v]
	if !ok { // a bool
		return false
	}
	if y := old.join(x); y != old {
		a.vars[v] = y
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
	for i, tm := range a.p.Templates {
		count(tm.Instances())
		for _, v := range tm.Locals {
			count(v.Len)
		}
		for _, n := range tm.Nodes {
			for e := range n.Exprs() {
				Inspect(e, func(x *Expr) bool {
					if x.Type == Int {
						fit(evals[i].Eval(x))
					}
					return true
				})
			}
		}
	}
	return min(w, a.p.Width)
}

// signedBits is the number of bits that hold every value of x as a signed
// number: one more than the bits of the larger magnitude (^v for v < 0).
func signedBits(x Interval) int {
	mag := func(v int64) int { return bits.Len64(uint64(v ^ v>>63)) }
	return 1 + max(mag(x.Lo), mag(x.Hi))
}
