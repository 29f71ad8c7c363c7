// Package explicit checks programs by executing them concretely through the ir
// semantics: a plain depth-first search over every interleaving (DFS, the reference
// oracle every other engine is tested against) and the partial-order reduced
// searches.
//
// Nondeterministic values are explored exhaustively, so nondet() without a range is
// rejected. Package explicit does not build program formulas (that is encode and
// symbolic) and does not print anything (that is cmd/kbmc); the one formula it
// hands to a solver is a LazyPOR trace constraint system (--tcs-solver gini|z3),
// encoded by encode.TraceOrder.
package explicit
