// Package cfront is the front end of C programs with POSIX threads: it turns a C
// file (.c, preprocessed first, or an already preprocessed .i, as SV-COMP's
// ConcurrencySafety tasks come) into the ir.Program that every kbmc engine
// consumes.
//
// Compile is the only entry point the rest of kbmc needs. modernc.org/cc/v4
// parses and type-checks the translation unit (ABI linux/386 for the ILP32 data
// model, linux/amd64 for LP64); cfront then lowers it:
//
//   - main runs from the initial state; every function a pthread_create names
//     gets a pool of thread slots (ir.Pool), as many as the creating code can
//     start (a create inside a loop of known trip count starts that many);
//   - calls are inlined, so recursion is an error;
//   - a C statement is not atomic: every access to memory another thread may
//     reach (a global, or any cell a pointer addresses) is a visible operation
//     of its own, a cut point, and thread-local computation folds into the
//     transition before it; __VERIFIER_atomic_begin/end and functions named
//     __VERIFIER_atomic_* make one transition of their code;
//   - globals, locals whose address is taken and heap blocks (one pool of
//     blocks per malloc site) are ir objects that pointers address cell by
//     cell; a struct's or array's scalars are its cells, in order;
//   - pthread, __VERIFIER_* and a few libc calls are modelled (docs/c.md lists
//     them); a call of reach_error() is the violation reach-error, whatever
//     its body.
//
// Every construct cfront does not model is an input error at its position
// naming it: never a guess, never a silent skip. Package cfront is not for
// executing or analysing programs (that is ir and the engines), and it holds no
// state between calls.
package cfront
