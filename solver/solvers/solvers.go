package solvers

import (
	"fmt"
	"strings"

	"kbmc/solver"
	"kbmc/solver/gini"
	"kbmc/solver/portfolio"
	"kbmc/solver/z3"
)

// Names lists the backend names New accepts, the default first.
func Names() []string { return []string{"gini", "z3", "portfolio"} }

// New returns the backend called name for formulas of b. In a build without Z3,
// New("z3", …) returns z3's error, which says why and what to do instead, and so
// does New("portfolio", …): a portfolio of gini alone would be gini under another
// name (docs/decisions.md).
func New(name string, b *solver.Builder) (solver.Backend, error) {
	switch name {
	case "gini":
		return gini.New(b)
	case "z3":
		return z3.New(b)
	case "portfolio":
		return newPortfolio(b)
	}
	return nil, fmt.Errorf("unknown solver %q (available: %s)", name, strings.Join(Names(), ", "))
}

// newPortfolio races gini and Z3 on every check (package portfolio). gini comes
// first, so the portfolio's variables and clauses are those of gini's CNF.
func newPortfolio(b *solver.Builder) (solver.Backend, error) {
	if err := Check("portfolio"); err != nil {
		return nil, err
	}
	g, err := gini.New(b)
	if err != nil {
		return nil, fmt.Errorf("portfolio: %w", err)
	}
	z, err := z3.New(b)
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("portfolio: %w", err)
	}
	return portfolio.New(portfolio.Member{Name: "gini", Backend: g}, portfolio.Member{Name: "z3", Backend: z})
}

// Check reports whether New(name, …) can succeed in this build, without building
// a backend: an unknown name, or a backend this build lacks, is an error that says
// why. Flag validation uses it, so that naming a solver costs nothing.
func Check(name string) error {
	switch name {
	case "gini":
		return nil
	case "z3", "portfolio":
		if z3.Available() {
			return nil
		}
		_, err := z3.New(nil) // the stub's error says why and what to do instead
		if name == "portfolio" {
			return fmt.Errorf("the portfolio races gini against Z3: %w", err)
		}
		return err
	}
	return fmt.Errorf("unknown solver %q (available: %s)", name, strings.Join(Names(), ", "))
}
