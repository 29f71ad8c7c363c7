// Package gini is the pure-Go backend of package solver: it bit-blasts terms
// into an and-inverter graph (github.com/go-air/gini/logic) and decides it
// with the CDCL SAT solver github.com/go-air/gini.
//
// Every bit-vector term becomes one circuit literal per bit, built once per
// term (memoised by term ID) and shared through the circuit's structural
// hashing. Arithmetic uses textbook circuits sized to the operands: ripple
// carry adders, a shift-and-add multiplier, a restoring divider on
// magnitudes with a sign fix-up for signed division and remainder (which
// gives the term language's division-by-zero values with no special case),
// barrel shifters and ripple comparators. The solver only receives clauses
// for gates reachable from assertions and assumptions, and each Check sends
// only the gates it has not sent before (logic.C.CnfSince), so incremental
// use costs in proportion to what is new.
//
// Assumptions map to gini's Assume, failed assumptions to Why, and the
// context's deadline and cancellation stop a solve running in gini's
// background goroutine. After a satisfiable check the value of any term,
// also one never asserted, is read from the model: the solver's values for
// the circuit's inputs and encoded gates, and the circuit itself for the
// rest.
//
// gini does not export its conflict counts, so Stats reports Conflicts as -1.
package gini
