// Package progen generates small random .kb programs from a seed, for differential
// testing: every explicit algorithm (and the symbolic engine) is run on the same
// generated programs and compared with the reference DFS.
//
// Generate is a pure function of its seed and Config, so a failing seed is a complete
// reproduction. The programs are valid (they compile without error) and small enough
// that an exhaustive stateless search explores them quickly: a few threads, a few
// visible operations each, loops of at most two iterations, nondet over tiny ranges.
// Within those limits they use every construct of the language, including the ones
// that break the textbook assumptions of partial-order reduction (locks, await, join,
// assume, atomic blocks with guards), and now and then they go wrong on purpose:
// failing assertions, lock-order inversions, a missing or doubled unlock, an index or
// divisor that may be out of range. Because the programs are also valid inputs the
// language rarely sees in hand-written tests, the generator doubles as a fuzzer for
// lang.
//
// progen is not a benchmark generator (see bench for parametric families) and does not
// produce programs with a known verdict: the verdict is whatever the reference
// oracle computes. It produces no invalid programs; the parser fuzz targets cover
// those.
package progen
