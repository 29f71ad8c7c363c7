package encode

import (
	"kbmc/ir"
	"kbmc/verify"
)

// Supported reports, as a *verify.UnsupportedError at its position, the first
// construct the encoding cannot express faithfully:
//
//   - nondet in the guard of an operation that starts its transition (an
//     await or assume condition, a lock's index or address, a join's index or
//     thread value, an allocation's size, a channel index of a send, a recv
//     or a select's case, a select case's When): ir decides enabledness with every
//     draw at its low end but draws again when the step executes, so the step
//     may not be the one that was enabled. lang rejects these programs
//     already;
//   - a blocking operation inside a transition that ir does not execute
//     there (innerAllowed: a send, a receive or a .kb join anywhere but at a
//     transition's start, or an await, assume, lock or join of a thread value
//     in a transition without an inner guard): ir's Program.Step stops with an
//     internal error on them, so they have no semantics to encode. Neither
//     lang nor cfront produces one (inside a C atomic section these are inner
//     guards, ir.Transition.InnerGuard);
//   - a receive on a rendezvous channel (capacity 0) at the start of a
//     transition with an inner guard: a sender runs that transition inside
//     its step, and ir undoes only the receiver's writes when its guard
//     fails;
//   - a node whose panics a deferred recover may stop (Node.Recoverable),
//     which ir stops as unsupported.
//
// Go's other constructs are encoded (rendezvous, close, a receive's ok flag,
// a select case's When, Go's unlock and relock, an entry goroutine and its
// leaks); the partial-order encoding refuses rendezvous and close itself
// (NewPartialOrder).
func Supported(p *ir.Program) error {
	const engine = "symbolic engine"
	if p.HasPhantoms() {
		return &verify.UnsupportedError{Engine: engine, Msg: "a program lowered with phantom threads is for the random bug hunt only"}
	}
	if err := raceSupported(p); err != nil {
		return err
	}
	if p.ChecksOverflow() {
		// The encodings wrap signed arithmetic as .kb defines it.
		return &verify.UnsupportedError{Engine: engine,
			Msg: "the property no-overflow is not encoded; use --engine explicit"}
	}
	for _, tm := range p.Templates {
		for _, tr := range tm.Transitions {
			if tr.Receives && tr.InnerGuard {
				// A sender runs the receiver's transition inside its step
				// (rendezvous.go); when the receiver's inner guard fails,
				// ir undoes the receiver's writes alone and the sender
				// goes on, which the encoding does not express.
				n := tr.EntryNode()
				return &verify.UnsupportedError{Pos: n.Pos, Engine: engine,
					Msg: "a receive on a rendezvous channel that starts an atomic section with an inner guard is not encoded (the explicit engine checks it: --engine explicit)"}
			}
			for j, n := range tr.Nodes {
				node := tm.Nodes[n]
				if node.Recoverable {
					// ir turns such a node's panics into Unsupported; the
					// encodings report them as panics.
					return &verify.UnsupportedError{Pos: node.Pos, Engine: engine,
						Msg: "code whose panics a deferred recover may stop is not encoded (the explicit engine checks it: --engine explicit)"}
				}
				props := node.Op.Props()
				if !props.Encoded {
					return &verify.UnsupportedError{Pos: node.Pos, Engine: engine,
						Msg: node.Op.String() + " is not supported yet (the explicit engine checks it: --engine explicit)"}
				}
				if !props.Blocks {
					continue
				}
				if j > 0 {
					if !innerAllowed(tr, node) {
						return &verify.UnsupportedError{Pos: node.Pos, Engine: engine,
							Msg: node.Op.String() + " inside an atomic section, where it would have to wait (ir cannot execute it there)"}
					}
					continue
				}
				guards := []*ir.Expr{node.Guard()}
				for _, cs := range node.Cases {
					guards = append(guards, cs.Guard(), cs.When) // a select's case indices and conditions
				}
				var nd *ir.Expr
				for _, g := range guards {
					ir.Inspect(g, func(e *ir.Expr) bool {
						if e.Op == ir.ENondet && nd == nil {
							nd = e
						}
						return nd == nil
					})
				}
				if nd != nil {
					return &verify.UnsupportedError{Pos: nd.Pos, Engine: engine,
						Msg: "nondet in the guard of " + node.Op.String() + " (its enabledness would not match the step)"}
				}
			}
		}
	}
	return nil
}
