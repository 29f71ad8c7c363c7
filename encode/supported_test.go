package encode

import (
	"errors"
	"testing"

	"kbmc/ir"
	"kbmc/verify"
)

// TestSupported checks that the constructs the encoding cannot express are
// rejected at their position. lang never produces them, so the programs are
// edited after lowering.
func TestSupported(t *testing.T) {
	nondetGuard := func(p *ir.Program) {
		n := p.Templates[0].Transitions[0].EntryNode()
		n.X = &ir.Expr{Op: ir.EEq, Type: ir.Bool, X: n.X.X,
			Y: &ir.Expr{Op: ir.ENondet, Type: ir.Int, Lo: 0, Hi: 1, Pos: ir.Pos{Line: 9, Col: 9}}}
	}
	lockIndex := func(p *ir.Program) {
		n := p.Templates[0].Transitions[0].EntryNode()
		n.MIndex = &ir.Expr{Op: ir.ENondet, Type: ir.Int, Lo: 0, Hi: 1, Pos: ir.Pos{Line: 9, Col: 9}}
	}
	caseIndex := func(p *ir.Program) {
		n := p.Templates[0].Transitions[0].EntryNode()
		n.Cases[1].CIndex = &ir.Expr{Op: ir.ENondet, Type: ir.Int, Lo: 0, Hi: 1, Pos: ir.Pos{Line: 9, Col: 9}}
	}
	// A lock inside the first transition, where ir's Step would stop with
	// an internal error: the transition has no inner guard.
	innerLock := func(p *ir.Program) {
		tm := p.Templates[0]
		lock := tm.Transitions[1].Entry
		tm.Nodes[lock].Pos = ir.Pos{Line: 9, Col: 9}
		tm.Transitions[0].Nodes = append(tm.Transitions[0].Nodes, lock)
	}
	tests := []struct {
		src  string
		edit func(*ir.Program)
	}{
		{"shared int x; thread a { await(x == 0); }", nondetGuard},
		{"shared int x; thread a { assume(x == 0); }", nondetGuard},
		{"mutex m[2]; thread a { lock(m[0]); }", lockIndex},
		{"shared int x; mutex m; thread a { x = 1; lock(m); }", innerLock},
		{"chan (int) c[2] capacity 1; thread a { select { case send(c[0], 1): ; case send(c[1], 2): ; } }", caseIndex},
	}
	for _, tt := range tests {
		p := compile(t, tt.src)
		if err := Supported(p); err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		tt.edit(p)
		err := Supported(p)
		var ue *verify.UnsupportedError
		if !errors.As(err, &ue) || ue.Pos != (ir.Pos{Line: 9, Col: 9}) {
			t.Errorf("%s: %v", tt.src, err)
		}
	}
}
