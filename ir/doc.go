// Package ir is the program model every kbmc engine consumes, and its concrete
// semantics.
//
// A Program is a lowered .kb program: shared variables and arrays, mutexes, and thread
// templates whose code is a control-flow graph of Nodes. Program.Finish cuts each
// template into Transitions at its cut points (docs/language.md §10): the thread start,
// before each visible operation, and every loop head. A transition holds at most one
// visible operation, at its start, and executes atomically.
//
// The semantics work on a State, one flat []int64 that is cheap to copy and hash:
// Status and Enabled decide whether a thread can move, Step executes one transition
// and reports an Event with the concrete locations read and written, the
// nondeterministic values drawn, and any run-time violation; Deadlock recognises a
// deadlocked state; Replay and Confirm re-execute a schedule, which is how every engine's
// counterexample is validated.
//
// Package ir does not parse source (that is lang) and does not search (that is
// explicit and symbolic).
package ir
