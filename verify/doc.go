// Package verify holds what every kbmc engine shares: the question (Options), the
// answer (Result with its Verdict, counterexample and Stats), and the validation of a
// counterexample by concrete replay through ir.
//
// It holds no search algorithm and no output formatting; engines live in explicit
// and symbolic, presentation in cmd/kbmc.
package verify
