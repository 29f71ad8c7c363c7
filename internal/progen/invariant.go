package progen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// invariants appends Config.Invariants invariants to w: comparisons of the
// shared ints of every space with values the program writes (so that some
// fail), a process template's over all its instances with forall or exists.
// Their random numbers come from a stream of their own.
func (g *gen) invariants(w *strings.Builder, seed uint64) {
	if g.cfg.Invariants <= 0 {
		return
	}
	r := rand.New(rand.NewPCG(seed, 0x696e7673))
	type atom struct {
		term  func(idx string) string // the variable, in the instance idx ("" for none)
		quant string                  // the process's count, for a quantifier; "" for none
		vals  []int64
		init  int64 // the variable's initial value, in every instance
	}
	var atoms []atom
	for _, sp := range g.spaces {
		vals := []int64{0, 1, 2}
		for _, lit := range sp.written {
			if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
				vals = append(vals, n)
			}
		}
		for _, v := range sp.ints {
			name, init := v.name, v.init
			vals := append(vals, init)
			switch {
			case sp.proc == nil:
				atoms = append(atoms, atom{term: func(string) string { return name }, vals: vals, init: init})
			case sp.proc.count == 0:
				p := sp.proc.name
				atoms = append(atoms, atom{term: func(string) string { return p + "." + name }, vals: vals, init: init})
			default:
				p := sp.proc.name
				atoms = append(atoms, atom{term: func(i string) string { return p + "[" + i + "]." + name },
					quant: sp.proc.countText, vals: vals, init: init})
			}
		}
	}
	if len(atoms) == 0 {
		return
	}
	ops := []string{"<", "<=", "!=", "==", ">=", ">"}
	holds := func(op string, x, y int64) bool {
		switch op {
		case "<":
			return x < y
		case "<=":
			return x <= y
		case "!=":
			return x != y
		case "==":
			return x == y
		case ">=":
			return x >= y
		}
		return x > y
	}
	// one draws a comparison that holds in the initial state (every instance
	// starts alike): a violation needs steps, never the empty execution.
	one := func(depth int) string {
		a := atoms[r.IntN(len(atoms))]
		op, val := ops[0], a.init+1
		for range 8 {
			op, val = ops[r.IntN(len(ops))], a.vals[r.IntN(len(a.vals))]
			if holds(op, a.init, val) {
				break
			}
		}
		if !holds(op, a.init, val) {
			op, val = "<", a.init+1
		}
		compare := func(idx string) string { return fmt.Sprintf("%s %s %d", a.term(idx), op, val) }
		switch {
		case a.quant == "":
			return compare("")
		case r.IntN(4) == 0:
			return compare("0") // one instance, by a constant
		}
		q, idx := "forall", fmt.Sprintf("i%d", depth)
		if r.IntN(3) == 0 {
			q = "exists"
		}
		return fmt.Sprintf("(%s %s in 0..%s - 1: %s)", q, idx, a.quant, compare(idx))
	}
	w.WriteString("\n")
	for k := range g.cfg.Invariants {
		cond := one(0)
		if r.IntN(2) == 0 {
			cond = fmt.Sprintf("%s %s %s", cond, []string{"||", "&&"}[r.IntN(2)], one(1))
		}
		fmt.Fprintf(w, "invariant inv%d: %s;\n", k, cond)
	}
}
