//go:build cgo && !noz3

package z3

import (
	"strings"
	"testing"

	"kbmc/solver"
)

// TestZ3ErrorsBecomeGoErrors provokes a Z3 API error, which the term
// language cannot produce, by handing a Boolean operand to bvadd. Z3's
// default handler would print the message and exit the process; the
// binding's must leave a Go error and a usable backend.
func TestZ3ErrorsBecomeGoErrors(t *testing.T) {
	b := solver.NewBuilder()
	sb, err := New(b)
	if err != nil {
		t.Fatal(err)
	}
	s := sb.(*backend)
	defer s.Close()
	x, p := b.BVVar("x", 8), b.BoolVar("p")
	xa, err := s.ast(x)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := s.ast(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.mk(b.Add(x, x), []z3AST{pa, xa})
	if err == nil || !strings.HasPrefix(err.Error(), "z3: translate bvadd:") {
		t.Fatalf("bvadd of a Bool: error %v, want a z3 translate error", err)
	}
	t.Logf("Z3 error as Go error: %v", err)
	if err := s.Assert(b.Ult(x, b.BV(3, 8))); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Check(t.Context()); err != nil || st != solver.Sat {
		t.Fatalf("check after an error: %v, %v", st, err)
	}
}
