package solvers

import (
	"fmt"
	"strings"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/z3"
)

// Names lists the backend names New accepts, the default first.
func Names() []string { return []string{"gini", "z3"} }

// New returns the backend called name for formulas of b. In a build without Z3,
// New("z3", …) returns z3's error, which says why and what to do instead.
func New(name string, b *solver.Builder) (solver.Backend, error) {
	switch name {
	case "gini":
		return gini.New(b)
	case "z3":
		return z3.New(b)
	}
	return nil, fmt.Errorf("unknown solver %q (available: %s)", name, strings.Join(Names(), ", "))
}

// Check reports whether New(name, …) can succeed in this build, without building
// a backend: an unknown name, or a backend this build lacks, is an error that says
// why. Flag validation uses it, so that naming a solver costs nothing.
func Check(name string) error {
	switch name {
	case "gini":
		return nil
	case "z3":
		if z3.Available() {
			return nil
		}
		_, err := z3.New(nil) // the stub's error says why and what to do instead
		return err
	}
	return fmt.Errorf("unknown solver %q (available: %s)", name, strings.Join(Names(), ", "))
}
