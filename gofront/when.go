package gofront

import "kbmc/ir"

// guardCase makes select case cs count only while when holds. It reports
// false when the ir cannot guard a case (the caller then refuses the run
// where the guard would matter).
func (b *builder) guardCase(cs *ir.Node, when *ir.Expr) bool { return false }

// recvOK makes a receive store into ok whether it took a message (false only
// from a closed channel), and reports whether the ir does; if not, the
// caller sets ok itself.
func (b *builder) recvOK(n *ir.Node, ok *ir.Var) bool { return false }

// closeChan lowers close(ch).
func (b *builder) closeChan(v any, ch *ir.Expr) {
	b.errorf("close is not supported yet")
}
