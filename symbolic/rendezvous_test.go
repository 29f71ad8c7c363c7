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

// usesGoConstructs reports whether p uses what only Go programs need, which
// the symbolic engine refuses: close, ok receives, guarded select cases, Go's
// unlocks, a goroutine leak's entry.
func usesGoConstructs(p *ir.Program) bool {
	if p.Entry != nil {
		return true
	}
	for _, t := range p.Templates {
		for _, n := range t.Nodes {
			if n.Op == ir.OpClose || n.OK != nil || n.AnyOwner {
				return true
			}
			for _, c := range n.Cases {
				if c.When != nil || c.OK != nil {
					return true
				}
			}
		}
	}
	return false
}
