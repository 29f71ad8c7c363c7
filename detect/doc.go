// Package detect decides whether a recorded distributed computation possibly
// (Poss Φ) or definitely (Def Φ) passed through a global state satisfying a
// predicate Φ, after Stoller, Unnikrishnan and Liu, "Efficient Detection of Global
// Properties in Distributed Systems Using Partial-Order Methods" (CAV 2000, cited
// below as "Stoller §n"; docs/detect.md).
//
// It is for three things:
//
//   - The computation model (Computation, built with a Builder): one local history
//     per process, the local state after each event, and vector timestamps that
//     give the happened-before order. Malformed clocks are input errors.
//   - Readers of recorded computations: kbmc's own JSON (ReadJSON), GoVector logs
//     (ReadGoVector) and ShiViz files (ReadShiViz). Every malformed input is an
//     *Error with file, line and reason; no input makes them panic.
//   - Predicates over P.x in .kb expression syntax (CompilePredicate) and the
//     searches that decide Poss Φ and Def Φ (Detect): the Cooper–Marzullo lattice
//     search, level by level, which is the reference, and persistent-set selective
//     search with PS_Poss (Stoller §4, Fig. 2) and PS_Def (§5, Fig. 3), optionally
//     with sleep sets (§6). Every witness is checked against the computation
//     (CheckWitness) before it is returned.
//
// It is not for running programs or recording them (kbmc's engines and `kbmc run`
// do that and write the JSON this package reads), nor for on-line monitoring:
// the whole computation is read before the search starts, as in Stoller's
// off-line setting.
package detect
