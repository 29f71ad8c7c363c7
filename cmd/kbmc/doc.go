// Command kbmc is the command-line interface of the kbmc bounded model checker:
// check, run, ir, regress (and, as the engines arrive, xval and bench).
//
// It parses flags, loads programs, picks an engine and prints results in the formats
// and with the exit codes of docs/output.md. It holds no algorithm: those live in
// explicit and symbolic.
package main
