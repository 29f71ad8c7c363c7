// Package kb2go translates a distributed .kb program (processes that own
// their memory and talk through channels) into a one-file Go package main
// that means the same under kbmc's Go semantics (docs/go.md), so that the
// dual-form differential test can check every explicit engine on both forms
// of each program progen generates: the same program through lang and
// through gofront must get the same verdict.
//
// The translation keeps what decides a verdict:
//
//   - each process instance runs one thread (the translation refuses a
//     second one, and a thread template of several instances): it is a
//     goroutine, and the process's memory is that goroutine's locals, as
//     .kb folds memory one thread alone uses into that thread's steps. An
//     array is one scalar per element, read through a switch in a helper
//     function and written through a switch: gofront keeps scalars in
//     registers, where an array or a struct would be memory of its own
//     whose every access is a step;
//   - a channel is a Go channel made by main and passed to every goroutine
//     as an argument (a global would be memory, read in a step of its own);
//     capacity 0 is an unbuffered channel, whose send and receive are one
//     step in both forms. A message of one field is the field; a message of
//     several is packed into an int64 (an int in 32 bits, a bool in one),
//     so that a message is a value and not a struct in memory: the messages
//     of at most 64 bits translate;
//   - a Go statement is not atomic, but only accesses to memory other
//     goroutines reach are steps, and here that is only the channels: send,
//     recv, close, select and each len(c) are one step in each form, and
//     the goroutine-local code after one folds into its step in both. So a
//     statement may read at most one channel length, and none when it is a
//     channel operation or a select itself (Go would read it in a step of
//     its own); a statement that breaks this rule is refused;
//   - local code that may fail has to fail in a step that starts where the
//     .kb transition holding it starts, after the same interleavings: a
//     failing atomic block folded into the receive before it would fail
//     before another goroutine could act, and hide that goroutine's
//     violation. A loop head starts a transition in both forms (gofront
//     makes a loop header a cut point, as .kb does each evaluation of a
//     condition). Where a .kb transition starts without a channel operation
//     otherwise (an atomic block, an await), and before a statement whose
//     evaluation ahead of its channel operation may fail (a message that
//     divides, an index not known to be in range), Go would fold the code
//     into the step before: the Go form takes a step there that does
//     nothing (runtime.Gosched). Where the code before a channel operation
//     cannot fail, moving it into the step before changes nothing;
//   - a select with a default and a send case on a rendezvous channel is
//     refused: it sees whether a receiver already waits, and a goroutine
//     reaches its first receive by its start, a step a .kb thread, at its
//     first statement from the initial state, does not take;
//   - select is Go's select: lang evaluates the messages of the send cases
//     before the select, in case order, and the Go form does so into
//     temporaries; a when guard is Go's nil-channel idiom (the case's channel
//     is nil while the guard is false, and Go never takes a case on a nil
//     channel; its index is evaluated only when the guard holds, as lang
//     does), with a guard that can neither fail nor draw; a default is Go's,
//     which, as .kb's, never receives from a waiting rendezvous sender;
//   - close(c) and recv(c, …) ok(b) are Go's close and v, ok := <-c, with
//     the same semantics: a send on a closed channel and a second close
//     panic, a receive from a closed and drained channel gives zeros;
//   - await(c) over the goroutine's own memory is "if !c { select {} }": no
//     other goroutine can make c true, so a false one waits for ever in both
//     forms;
//   - assert is a panic with the message AssertionPanic; the .kb run-time
//     errors Go does not check as .kb does panic with BoundsPanic (an array
//     or channel index out of range) and ShiftPanic (a shift amount outside
//     [0, 32), which Go takes), and a division by zero is Go's own; the
//     test maps each Go panic to the .kb kind it stands for;
//   - int is int32 (its arithmetic wraps as .kb's at width 32); constant
//     subexpressions are folded at width 32 as lang folds them, so that Go's
//     exact constant arithmetic never meets an overflow or a constant
//     division by zero; operations are parenthesised (Go's precedences are
//     not C's); a conditional whose branches can neither fail nor draw is a
//     helper, which evaluates both, and any other is evaluated by
//     statements into temporaries, in .kb's order, where the expression is
//     part of a statement (not in a for loop's post statement); & and | on
//     bools are helpers, which evaluate both operands as .kb does;
//   - nondet(lo, hi) is lo + rand.Intn(hi-lo+1) over constant bounds, each
//     of whose values gofront explores;
//   - main makes the channels, starts one goroutine per process instance and
//     returns, so goroutines that all wait for ever are a leak, the Go
//     counterpart of a .kb deadlock. main waiting with a WaitGroup would
//     make each goroutine's Done a step, all of them dependent, which
//     multiplies a stateless search's interleavings.
//
// The Go form takes more steps than the .kb form: main's (its start, a make
// per channel, a go statement per goroutine), each goroutine's start, a
// Gosched before an operation a goroutine waits at for ever, and a second
// step in a .kb transition that holds both a Gosched (or a loop header) and
// a channel operation (Program.Split). Program.Depth gives a depth for the
// Go form that covers every execution of the .kb form within a depth.
//
// Threads over shared memory do not translate. A faithful scheme would
// need every .kb statement to touch shared memory at most once (Go takes a
// step per access) and the local code that may fail to start its steps
// where .kb's do, as above; x++ on a shared x, one step in .kb, is a read
// and a write in Go, and mutexes and joins would need forms of their own.
// That is left for later: the channel programs are the ones Go programmers
// write.
//
// What has no faithful Go form is an input error, never a loose
// translation: threads over shared memory (each Go statement would take a
// step per shared access), mutexes (Go's relock waits where .kb reports
// relock, and another goroutine may unlock), a process of several threads
// (its memory would be shared), lossy and unordered channels, assume (a
// false one cuts the execution), await on channel state, end labels,
// functions, cas, invariants, nondet() without bounds. The test restricts
// the generator to what translates (progen.GoFormConfig).
//
// The package is internal and used only by tests; it is no part of the data
// flow from a user's input to a verdict.
package kb2go
