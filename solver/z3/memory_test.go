//go:build cgo && !noz3

package z3

import (
	"errors"
	"fmt"
	"testing"

	"kbmc/solver"
)

// TestMemoryLimit gives Z3 a memory limit far below what a formula needs:
// the check must fail with solver.ErrOutOfMemory, which the symbolic engine
// turns into verdict unknown stopped by memory, not with another error and
// not by Z3 ending the process.
func TestMemoryLimit(t *testing.T) {
	LimitMemory(64 << 20)
	defer LimitMemory(0)
	b := solver.NewBuilder()
	s, err := New(b)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Products of 64-bit variables: Z3 bit-blasts each multiplier into
	// thousands of gates, tens of MB for the lot.
	var failed error
	for i := 0; i < 4096 && failed == nil; i++ {
		x, y := b.BVVar(fmt.Sprintf("x%d", i), 64), b.BVVar(fmt.Sprintf("y%d", i), 64)
		failed = s.Assert(b.Eq(b.Mul(x, y), b.BV(uint64(2*i+1)<<20+12345, 64)))
		if failed == nil {
			_, failed = s.Check(t.Context())
		}
	}
	if !errors.Is(failed, solver.ErrOutOfMemory) {
		t.Fatalf("error %v, want one wrapping solver.ErrOutOfMemory", failed)
	}
	t.Logf("Z3 under 64 MiB: %v", failed)
}
