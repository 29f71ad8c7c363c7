package gofront

import (
	"go/types"

	"kbmc/ir"
)

// guardCase makes select case cs count only while when holds: a case on a
// nil channel, or on a channel of another make site, is never ready.
func (b *builder) guardCase(cs *ir.Node, when *ir.Expr) bool {
	cs.When = when
	return true
}

// recvOK makes a receive store into ok whether it took a message (false only
// from a closed channel), and reports that the ir does.
func (b *builder) recvOK(n *ir.Node, ok *ir.Var) bool {
	n.OK = &ir.LValue{Var: ok, Type: ir.Bool, Pos: b.pos}
	return true
}

// closeChan lowers close(ch): a close of the channel's site, or a panic for
// a nil channel.
func (b *builder) closeChan(t types.Type, ch *ir.Expr) {
	b.dispatch(ch, t, func(s *chanSite, index *ir.Expr) {
		b.emit(&ir.Node{Op: ir.OpClose, Chan: s.decl, CIndex: index})
	}, func() {
		b.panicNode("close of nil channel")
		b.open = nil
	})
}
