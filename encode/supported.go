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
