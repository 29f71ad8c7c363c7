package symbolic

import "kbmc/ir"

// usesRendezvous reports whether p has a channel of capacity 0, which the
// symbolic engine refuses (encode.Supported).
func usesRendezvous(p *ir.Program) bool {
	for _, ch := range p.Channels {
		if ch.Rendezvous() {
			return true
		}
	}
	return false
}
