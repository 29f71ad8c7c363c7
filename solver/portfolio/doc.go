// Package portfolio is a solver.Backend that runs several backends on the same
// formulas and lets them race: every assertion goes to each of them, every
// Check runs on all of them at once, on their own goroutines, and the first
// definite answer (sat or unsat) is the portfolio's; the context of the others is
// then cancelled, which stops them the way a time limit would (gini through its
// solve handle, Z3 through Z3_solver_interrupt), and Check returns only when
// every member has returned. So no member ever runs while the caller is outside
// Check, the members stay in lockstep (each has every assertion, and is ready for
// the next Check), and nothing keeps running after Close.
//
// Whenever more than one member answers a check (the loser can finish before it
// notices that it was cancelled), the answers must agree: a disagreement means
// one of the solvers is wrong, and Check reports it as an error wrapping
// ErrDisagree, never as an answer. An error of any member is the portfolio's
// error, and a member that failed to take an assertion the others took leaves
// the portfolio out of lockstep: every later call fails.
//
// Models and unsat cores are the winner's: BoolValue, BVValue and
// FailedAssumptions ask the member that answered the last Check. Stats gives that
// member's problem size (Vars, Clauses, Conflicts), the portfolio's own
// call counts and wall time, every member's counters under "NAME: counter", and
// how many checks each member answered first under AnsweredCounter(NAME).
//
// kbmc's portfolio (solver/solvers, the name "portfolio") is gini and Z3: a
// pure-Go SAT solver after bit-blasting and an SMT solver with its own
// preprocessing, which are fast on different queries. It uses two cores where
// either alone uses one.
package portfolio
