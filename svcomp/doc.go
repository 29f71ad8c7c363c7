// Package svcomp reads SV-COMP verification tasks (task files of format 1.0
// and 2.0: a program's files, properties with expected verdicts, the data
// model), chooses how kbmc checks each, turns kbmc's verdict for a property
// into SV-COMP's answer (true, false or unknown, with the reason) and scores
// it as the competition does.
//
// It is not for running engines (cmd/kbmc does, with the choice made here),
// nor for reading C (package cfront).
package svcomp
