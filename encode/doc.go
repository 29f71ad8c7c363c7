// Package encode turns an ir.Program into solver terms: the step-based bounded
// model checking unrolling, with the peephole and monotonic partial-order
// constraints (docs/symbolic.md).
//
// An Unrolling holds state copies s_0, s_1, … (shared cells, lock owners, each
// thread's control location and locals), and for every step i a scheduler term
// sel_i, an absorbing halt flag h_i, the chosen thread's transition relation
// obtained by symbolic execution of the transition's node DAG, its run-time
// error checks and its footprint. Steps are added one at a time with Extend and
// asserted once on a solver.Backend; the depth of a query is chosen by an
// assumption literal (Bad, Live, Complete), so one backend serves a whole
// incremental deepening run. Counterexample reads a schedule, the drawn
// nondeterministic values and the violation back from a model.
//
// TraceOrder encodes a LazyPOR trace constraint system (thesis Def. 11) the same
// way, as propositions over event positions, for explicit's solver-backed
// trace-constraint solvers (--tcs-solver gini|z3).
//
// The encoding matches ir's concrete semantics operator by operator (ir/exec.go);
// docs/symbolic.md states every constraint. The package does not choose depths,
// run solvers or validate traces: that is the driver, package symbolic.
package encode
