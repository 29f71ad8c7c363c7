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
//   - a blocking operation (await, assume, lock, join) that does not start its
//     transition: enabledness is decided by a transition's entry node only
//     (Program.Status). lang never produces one.
func Supported(p *ir.Program) error {
	const engine = "symbolic engine"
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			for j, n := range tr.Nodes {
				node := tm.Nodes[n]
				switch node.Op {
				case ir.OpAwait, ir.OpAssume, ir.OpLock, ir.OpJoin:
				default:
					continue
				}
				if j > 0 {
					return &verify.UnsupportedError{Pos: node.Pos, Engine: engine,
						Msg: node.Op.String() + " that does not start a transition"}
				}
				for _, e := range []*ir.Expr{node.X, node.MIndex, node.JIndex} {
					if pos, ok := findNondet(e); ok {
						return &verify.UnsupportedError{Pos: pos, Engine: engine,
							Msg: "nondet in the guard of " + node.Op.String() + " (its enabledness would not match the step)"}
					}
				}
			}
		}
	}
	return nil
}

func findNondet(e *ir.Expr) (ir.Pos, bool) {
	if e == nil {
		return ir.Pos{}, false
	}
	if e.Op == ir.ENondet {
		return e.Pos, true
	}
	for _, x := range []*ir.Expr{e.X, e.Y, e.Z} {
		if pos, ok := findNondet(x); ok {
			return pos, true
		}
	}
	return ir.Pos{}, false
}
