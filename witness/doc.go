// Package witness writes and reads violation witnesses, the exchange formats
// of SV-COMP in which a verifier hands a counterexample to a validator:
// GraphML format 1.0 (a witness automaton whose single path leads to a
// violation node) and YAML format 2.x (a violation_sequence of waypoints).
//
// It sits after verify in the data flow: Build replays a validated
// counterexample (verify.Result.Trace) and describes it, one Step per step of
// kbmc's schedule, with the thread that moves, where it moves, the threads it
// creates and the values its __VERIFIER_nondet_* calls return (or its
// uninitialized locals hold); WriteGraphML and WriteYAML render it; Read
// parses either format back, and Witness.Schedule turns it into the ir.Move
// schedule that ir.Program.Confirm replays. A witness kbmc wrote therefore
// replays exactly: kbmc run --replay confirms it (docs/svcomp.md).
//
// Thread identifiers are kbmc's thread numbers (ir.Thread.ID; main is 0), so
// a witness is read back only against the program it was written for: the
// program hash it carries says which.
package witness
