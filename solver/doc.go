// Package solver is kbmc's small term language for satisfiability queries and
// the interface its decision procedures implement.
//
// A [Builder] creates hash-consed terms of sort Bool or bit-vector (width 1
// to 64): constants, named variables, Boolean connectives, two's-complement
// arithmetic, shifts, bitwise operations, comparisons, extraction and
// extension. Structurally equal terms built by one Builder are the same
// *[Term] (and have the same [Term.ID]), so terms can be compared with == and
// used as map keys, and backends translate each shared subterm once. The
// constructors fold constants and apply cheap local simplifications, so a
// term may come back simpler than the call that made it.
//
// The semantics of every operator is that of SMT-LIB's QF_BV logic. In
// particular signed division and remainder truncate toward zero (as in C),
// INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0, and division by zero is
// defined rather than an error: x / 0 is all ones for unsigned division, -1
// for signed division of a non-negative x and 1 of a negative x, and x % 0 is
// x. Shifts by an amount of at least the width give 0 (or, for an arithmetic
// right shift, copies of the sign bit). [Eval] computes values in Go with this
// semantics, and every [Backend] must agree with it exactly; the tests check
// all three against each other.
//
// A [Backend] is an incremental solver: assertions accumulate, Check decides
// satisfiability under optional assumption literals (the way the symbolic
// engine deepens its bound), a context.Context carries the time limit and
// cancellation, and after a satisfiable check any term can be evaluated in
// the model. The implementations live in subpackages: solver/z3 (a cgo
// binding to the system libz3) and solver/gini (a bit-blaster onto the
// pure-Go SAT solver github.com/go-air/gini).
//
// The constructors panic when misused: an operand of the wrong sort,
// mismatched widths, a width outside 1..64, an extract range outside the
// operand, or a term from another Builder. These are programmer errors in
// the caller, like indexing a slice out of range; user input (such as the
// --width flag or a program's literals) must be validated before terms are
// built. Backend methods, which can fail for reasons outside the caller's
// control, return errors instead.
//
// The package is not a general SMT front end: there are no integers, arrays,
// uninterpreted functions or quantifiers, no parser or printer for SMT-LIB
// files, and no rewriting beyond what is cheap and local. The encoders that
// turn programs into formulas live in package encode, not here.
package solver
