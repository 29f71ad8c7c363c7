package encode

import (
	"errors"
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/solver"
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
	// Go code under a deferred recover: ir stops its panics as
	// unsupported.
	recoverable := func(p *ir.Program) {
		n := p.Templates[0].Transitions[0].EntryNode()
		n.Recoverable, n.Pos = true, ir.Pos{Line: 9, Col: 9}
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
		{"shared int x; thread a { x = 1; }", recoverable},
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

// TestSupportedGo: Go's constructs are encoded; the partial-order encoding
// refuses a closed channel and a rendezvous at their declarations (the
// engine's default then falls back to the step encoding).
func TestSupportedGo(t *testing.T) {
	entry := func(p *ir.Program) { p.Entry = p.Templates[0] }
	anyOwner := func(p *ir.Program) {
		for _, n := range p.Templates[0].Nodes {
			if n.Op == ir.OpUnlock || n.Op == ir.OpLock {
				n.AnyOwner = true
			}
		}
	}
	innerGuard := func(p *ir.Program) {
		for _, tr := range p.Templates[0].Transitions {
			tr.InnerGuard = tr.InnerGuard || tr.Receives
		}
	}
	for _, tt := range []struct {
		src  string
		edit func(*ir.Program)
		step string // the refusal of Supported, "" for none
		po   string // the partial-order encoding's, "" for none
	}{
		{"chan (int) c capacity 1; thread a { close(c); }", nil, "", "channel c is closed by a close"},
		{"chan (int) c capacity 1; thread a { int x; bool b; recv(c, x) ok(b); }", nil, "", ""},
		{"chan (int) c capacity 1; thread a { int x; bool on = true; select { case recv(c, x) when (on): } }", nil, "", ""},
		{"mutex m; thread a { lock(m); unlock(m); }", anyOwner, "", ""},
		{"thread a { yield; }", entry, "", ""},
		{"chan (int) c capacity 0; thread a { send(c, 1); }", nil, "", "channel c is a rendezvous"},
		{"chan (int) c capacity 0; thread a { int x; recv(c, x); } thread b { send(c, 1); }", nil, "", "channel c is a rendezvous"},
		// No front end makes one (a .kb atomic refuses channel operations);
		// ir undoes a stuck receiver's writes alone, which is not encoded.
		{"chan (int) c capacity 0; thread a { int x; recv(c, x); } thread b { send(c, 1); }", innerGuard,
			"a receive on a rendezvous channel that starts an atomic section with an inner guard", "a receive on a rendezvous channel"},
	} {
		p := compile(t, tt.src)
		if tt.edit != nil {
			tt.edit(p)
		}
		for _, c := range []struct {
			name string
			err  error
			want string
		}{
			{"Supported", Supported(p), tt.step},
			{"NewPartialOrder", func() error { _, err := NewPartialOrder(p, solver.NewBuilder(), nil, Options{}, 4); return err }(), tt.po},
		} {
			var ue *verify.UnsupportedError
			switch {
			case c.want == "" && c.err != nil:
				t.Errorf("%s: %s: %v, want none", tt.src, c.name, c.err)
			case c.want != "" && (!errors.As(c.err, &ue) || !strings.Contains(ue.Msg, c.want) || ue.Pos == (ir.Pos{})):
				t.Errorf("%s: %s: %v, want a positioned refusal saying %q", tt.src, c.name, c.err, c.want)
			}
		}
	}
}
