// Package symbolic is kbmc's bounded model checking driver (docs/symbolic.md): it
// unrolls a program with package encode on one incremental solver backend (Z3 or
// gini, through package solver), deepens the bound k = 1..K under assumption
// literals, answers the completeness query ("Properties and queries") at every
// depth, and turns a model into a counterexample that is replayed concretely
// through ir before it is returned.
//
// Engine implements verify.Engine. The package holds no encoding (that is encode)
// and no solver (that is solver and its subpackages), and does not print.
package symbolic
