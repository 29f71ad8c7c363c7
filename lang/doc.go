// Package lang is the front end of the .kb language (docs/language.md): it turns
// one source file into the ir.Program that every kbmc engine consumes.
//
// Compile is the only entry point the rest of kbmc needs. It parses the file (with
// package lang/syntax), checks it — names, types, constant expressions and their
// W-bit range, the restrictions on calls, atomic blocks and loops — and lowers it:
// calls are inlined, cas inside expressions is hoisted into its own operations
// with C's evaluation order and short-circuiting kept, and each thread becomes a
// control-flow graph whose cut points (the thread start, loop heads, and the
// first node of every visible statement) Program.Finish turns into transitions.
// Every input error of the file is reported, each with its position, as an
// ErrorList.
//
// Package lang is not for executing or analysing programs (that is ir and the
// engines), and it holds no state between calls.
package lang
