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
// With Processes and Channels (DistributedConfig) the programs are distributed:
// one to three process templates, some with several instances, each with its own
// memory, mutexes, functions and threads, talking through FIFO channels declared
// at top level. Their messages follow planned flows — pairs, request and reply,
// rings indexed by pid or tid, scatter and gather — in which every send has a
// receive, so that most programs do not deadlock; faults leave a receive
// unanswered, overfill a channel or reorder a thread's operations. The size bound
// counts every process instance's threads.
//
// DualFormConfig leaves out what has no faithful C form (await), for the test
// that checks every engine on each program and on its C translation
// (internal/kb2c).
//
// progen is not a benchmark generator (see bench for parametric families) and does not
// produce programs with a known verdict: the verdict is whatever the reference
// oracle computes. It produces no invalid programs; the parser fuzz targets cover
// those.
package progen
