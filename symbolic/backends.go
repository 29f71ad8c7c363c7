package symbolic

import (
	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/z3"
)

func newGini(b *solver.Builder) (solver.Backend, error) { return gini.New(b) }

// newZ3 returns z3's error as it is when the build has no Z3 (no cgo, or the
// noz3 tag): it says why and what to do instead.
func newZ3(b *solver.Builder) (solver.Backend, error) { return z3.New(b) }
