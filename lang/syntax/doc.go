// Package syntax is the concrete-syntax layer of the .kb language (docs/language.md):
// source positions, compiler-style errors, the scanner, the abstract syntax tree,
// the parser and a printer that renders a tree back to canonical source.
//
// It is for turning bytes into a tree whose every node knows where it came from,
// and for reporting malformed input as positioned errors. Parse never panics and
// always terminates; after a syntax error it resynchronises at the next ";" or "}"
// and keeps going, so one call reports every syntax error of a file.
//
// It is not for meaning: names are not resolved, types and constants are not
// checked, and nothing is lowered. That is the job of package lang, which builds on
// this package and is the only entry point the rest of kbmc should need.
package syntax
