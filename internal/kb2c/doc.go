// Package kb2c translates a classic .kb program (threads over shared memory)
// into a C program with POSIX threads that means the same under kbmc's C
// semantics (docs/c.md), so that the dual-form differential test can check
// every engine on both forms of each program progen generates: the same
// program through lang and through cfront must get the same verdict.
//
// The translation keeps what decides a verdict:
//
//   - shared scalars and arrays are C globals with the same initial values;
//     constants are enum constants; mutexes and mutex arrays are
//     pthread_mutex_t, lock and unlock are pthread_mutex_lock and _unlock
//     (kbmc's C mutexes report relock and bad-unlock as .kb's do);
//   - a statement runs atomically in .kb and a C statement does not (each
//     shared access is a step of its own), so every statement that touches
//     shared memory, blocks or performs a cas runs in a
//     __VERIFIER_atomic_begin/_end section, a loop head that reads shared
//     memory computes its condition in one, and an atomic block is one; local
//     code folds into the step before it in both forms, so the interleavings
//     are the same;
//   - assert is if (!c) reach_error(); assume is __VERIFIER_assume at the
//     start of an atomic section, where kbmc makes it wait until its
//     condition holds, as .kb's does; an atomic block's guard likewise;
//   - nondet(lo, hi) is a tree of __VERIFIER_nondet_bool() choices with one
//     leaf per value (the explicit engine then tries exactly the .kb draw's
//     values), or, over more than MaxNondet values, nondeterministic bits
//     reduced to the range (where the explicit engine refuses the .kb form
//     and enumerates the bits of the C form); nondet() is
//     __VERIFIER_nondet_int();
//   - each instance of each thread template is a thread that main creates,
//     all in one atomic step before any runs, passing tid as the argument;
//     join of a template is one pthread_join per instance, join(t[i]) one
//     pthread_join of the handle i;
//   - expression functions are C functions evaluated in their caller's
//     statement, statement functions C functions whose statements are steps
//     of their own (cfront inlines both, as lang does);
//   - cas on a shared scalar is __sync_bool_compare_and_swap, elsewhere the
//     comparison and store written out in the statement's atomic section;
//   - evaluation order, and so the first run-time failure of a statement
//     (bounds, division-by-zero, shift), is .kb's: operands left to right, a
//     store's value before its index, short circuits and conditional branches
//     evaluated only when taken; a mutex index is checked through a constant
//     array of the valid indices (&ms[i] out of range would be an invalid
//     dereference in C, a bounds violation in .kb);
//   - names C or cfront give a meaning (keywords, main, library and verifier
//     functions, anything starting with an underscore, pthread or kb) are
//     renamed, and the translation's own names start with kbh_.
//
// The C form takes more steps than the .kb form: main's step that creates the
// threads, each thread's start (cfront's start transition), and the joins of a
// template's instances one by one; Program.Depth gives a depth for the C form
// that covers every execution of the .kb form within a depth.
//
// What has no faithful C form is an input error, never a loose translation:
// await (a thread stuck on it is deadlocked, while one stuck on C's assume
// cuts the execution, and a condition variable's wait may wake up
// spuriously), processes and channels, a thread that joins its own template
// (it waits for ever in .kb, and fails with bad-join in C), and integer widths
// other than 32 (C's int arithmetic is 32-bit). The test restricts the
// generator to what translates (progen.DualFormConfig: no await, no processes,
// no channels, 32-bit integers, folded transitions).
//
// The package is internal and used only by tests: a user who writes C gives
// kbmc C, and the C it writes leans on kbmc's own reading of C (reach_error
// as the property, an assume at the start of an atomic section as a wait,
// error-checking mutexes, threads running on after main returns), so other
// verifiers would not see in it the .kb program's meaning. It is no part of
// the data flow from a user's input to a verdict.
package kb2c
