// Package solvers picks a solver.Backend by the name a user gives on the command
// line: "gini", "z3", or "portfolio" (the two racing on every check). The
// symbolic engine and LazyPOR's trace-constraint solvers both take a solver by
// name; this is the one place that knows the names.
//
// It is not a plug-in registry: the set of backends is fixed at compile time, and
// a build without Z3 (no cgo, or the noz3 tag) still knows the names "z3" and
// "portfolio" and says why it cannot make them.
package solvers
