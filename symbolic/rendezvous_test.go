package symbolic

import "kbmc/ir"

// usesRendezvous reports whether p has a channel of capacity 0, which the
// partial-order encoding refuses (encode.NewPartialOrder) and the step
// encoding encodes (encode/rendezvous.go).
func usesRendezvous(p *ir.Program) bool {
	for _, ch := range p.Channels {
		if ch.Rendezvous() {
			return true
		}
	}
	return false
}
