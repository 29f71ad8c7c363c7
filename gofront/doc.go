// Package gofront is the front end of Go programs: it turns a Go package of one
// file, loaded with golang.org/x/tools/go/packages and built to SSA form with
// golang.org/x/tools/go/ssa, into the ir.Program that every kbmc engine
// consumes, for one entry point (main, a TestXxx(t *testing.T), or a function
// named by Config.Entry).
//
// Compile is the only entry point the rest of kbmc needs. The lowering:
//
//   - the entry function runs as the first goroutine from the initial state
//     (after the package's initialization); every function a go statement
//     starts gets a pool of goroutine slots (ir.Pool), as many as the code
//     that starts it can start (a go statement inside a loop starts at most
//     Config.LoopGoroutines);
//   - calls are inlined, so recursion is an error; a function value is
//     followed statically from the closure or function that made it;
//   - a Go statement is not atomic: every access to memory another goroutine
//     may reach (a global, a variable that escapes, anything a pointer
//     addresses) is a visible operation of its own, and goroutine-local
//     computation folds into the step before it;
//   - variables that escape are ir objects (one per goroutine that runs the
//     code, or a pool of blocks for code that runs in a loop); a struct's or
//     array's scalars are its cells, in order; a slice is three cells;
//   - channels: each make(chan T, k) is a channel array of ir (a rendezvous
//     for k == 0) with as many channels as the code can make; a channel value
//     is its number plus one (0: nil), and an operation dispatches over the
//     make sites of its element type;
//   - sync.Mutex, RWMutex, WaitGroup, Once and Cond, testing.T's failures,
//     time.Sleep and runtime.Gosched are modelled by the callee's identity
//     (docs/go.md says how).
//
// Every construct gofront does not model is an input error at its position
// naming it: never a guess, never a silent skip. Package gofront is not for
// executing or analysing programs (that is ir and the engines), and it holds
// no state between calls.
package gofront
