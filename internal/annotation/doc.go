// Package annotation reads the //@ annotations at the top of a testdata program
// (docs/language.md §14): what the program expects — a verdict (safe, unsafe,
// bounded-safe) with the kind of violation, or an input error with a substring of its
// message — which engines to run it on, and the flags it is checked with.
//
// Parse reads the annotations strictly: an unknown key, a line without a colon or an
// inconsistent expectation is an error, so a typo cannot quietly turn a test into
// one that checks nothing. ParseArgs interprets the //@ args: line for the test
// harnesses, which need only the search depth, deadlock reporting and the
// compilation settings; any flag it does not know is an error, so a harness never
// silently ignores a flag a program needs.
//
// Package annotation does not run engines or compare verdicts: that is
// `kbmc regress` and the test harnesses of lang and symbolic. It does not parse
// the CLI's full flag set either: cmd/kbmc reads Args with the very flags of
// `kbmc check`.
package annotation
