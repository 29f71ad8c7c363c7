package encode

import (
	"kbmc/ir"
	"kbmc/verify"
)

// Supported reports, as a *verify.UnsupportedError at its position, the first
// construct the encoding cannot express faithfully:
//
//   - nondet in a guard (an await or assume condition, a lock's or a join's
//     index): ir decides enabledness with every draw at its low end but draws
//     again when the step executes, so the step may not be the one that was
//     enabled. lang rejects these programs already;
//   - a blocking operation (await, assume, lock, join, send, recv) that does not start its
//     transition: enabledness is decided by a transition's entry node only
//     (Program.Status). lang never produces one.
func Supported(p *ir.Program) error {
	const engine = "symbolic engine"
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			for j, n := range tr.Nodes {
				node := tm.Nodes[n]
				props := node.Op.Props()
				if !props.Encoded {
					return &verify.UnsupportedError{Pos: node.Pos, Engine: engine,
						Msg: node.Op.String() + " is not supported"}
				}
				if msg := memoryConstruct(node); msg != "" {
					return &verify.UnsupportedError{Pos: node.Pos, Engine: engine, Msg: msg + " is not supported yet"}
				}
				if !props.Blocks {
					continue
				}
				if j > 0 {
					return &verify.UnsupportedError{Pos: node.Pos, Engine: engine,
						Msg: node.Op.String() + " that does not start a transition"}
				}
				var nd *ir.Expr
				ir.Inspect(node.Guard(), func(e *ir.Expr) bool {
					if e.Op == ir.ENondet && nd == nil {
						nd = e
					}
					return nd == nil
				})
				if nd != nil {
					return &verify.UnsupportedError{Pos: nd.Pos, Engine: engine,
						Msg: "nondet in the guard of " + node.Op.String() + " (its enabledness would not match the step)"}
				}
			}
		}
	}
	return nil
}

// memoryConstruct names the first construct of C's and Go's memory model (ir's
// memory.go) that n uses, or returns "": typed integers, pointers, mutexes in
// memory, thread values.
func memoryConstruct(n *ir.Node) string {
	found := ""
	check := func(e *ir.Expr) {
		ir.Inspect(e, func(x *ir.Expr) bool {
			switch {
			case found != "":
			case x.Op == ir.EConv || x.Op == ir.EAddr || x.Op == ir.EDeref || x.Op == ir.EPtrAdd || x.Op == ir.EPtrDiff || x.Op == ir.ESelf:
				found = "the C operation " + x.Op.String()
			case x.Type != ir.Int && x.Type != ir.Bool:
				found = "a value of type " + x.Type.String()
			}
			return found == ""
		})
	}
	for e := range n.Exprs() {
		check(e)
	}
	for lv := range n.LValues() {
		if lv.Ptr != nil && found == "" {
			found = "an assignment through a pointer"
		}
	}
	if n.Addr != nil && found == "" {
		found = "a mutex in memory"
	}
	if n.JThread != nil && found == "" {
		found = "a join of a thread value"
	}
	if n.Kind != ir.NoViolation && n.Kind != ir.Assertion && found == "" {
		found = "a " + n.Kind.String() + " check"
	}
	return found
}
