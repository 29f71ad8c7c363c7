package z3_test

import (
	"strings"
	"testing"

	"kbmc/solver/internal/solvertest"
	"kbmc/solver/z3"
)

// skipUnavailable skips a test or benchmark in a build without the binding.
func skipUnavailable(tb testing.TB) {
	tb.Helper()
	if !z3.Available() {
		tb.Skip("z3 backend not built: no cgo or the noz3 tag")
	}
}

func TestConformance(t *testing.T) {
	skipUnavailable(t)
	t.Logf("libz3 %s", z3.Version())
	solvertest.Conformance(t, z3.New)
}

// TestUnavailable checks the stub's error in builds without the binding.
func TestUnavailable(t *testing.T) {
	if z3.Available() {
		t.Skip("z3 backend is built in")
	}
	_, err := z3.New(nil)
	if err == nil || !strings.Contains(err.Error(), "z3 backend unavailable") {
		t.Errorf("New in a build without z3: %v", err)
	}
}
