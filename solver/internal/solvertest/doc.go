// Package solvertest holds what the tests of package solver and of its
// backends share: the operator table with its math/big reference semantics,
// a seeded random formula generator, a conformance suite every
// solver.Backend must pass, and benchmark bodies. It is internal so that
// only the solver packages' tests use it; it also registers the test flags
// -solver.formulas and -solver.seed, so that every test binary under
// ./solver/... accepts them.
package solvertest
