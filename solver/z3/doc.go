// Package z3 is the SMT backend of package solver: kbmc's own thin cgo
// binding to the system's libz3 (Debian's libz3-dev, found with
// pkg-config).
//
// Terms are translated to Z3 bit-vector and Boolean expressions once each,
// memoised by term ID, in a context created with Z3_mk_context_rc; the
// backend holds a reference to every expression it keeps and drops them all
// in Close, so long incremental runs do not leak. Assumptions go to
// Z3_solver_check_assumptions (assumptions that are not literals are
// replaced by proxy variables, so unsat cores map back to terms), the
// context's deadline and cancellation interrupt a running check with
// Z3_solver_interrupt (and Z3_interrupt when that is lost), and values come from Z3_model_eval with model
// completion. Z3's default error handler, which exits the process, is
// replaced by one that does nothing, and every call's error code becomes a
// Go error.
//
// github.com/mitchellh/go-z3 cannot serve instead: it links a libz3.a that
// its own Makefile downloads and builds, rather than the system library,
// and it has no bit-vectors, no push/pop or assumptions and no time limits.
//
// Without cgo (CGO_ENABLED=0) or with the build tag noz3 the package still
// compiles, Available reports false and New returns ErrUnavailable, so a
// pure-Go kbmc runs with the gini backend and says why z3 is missing
// instead of failing to link.
package z3
