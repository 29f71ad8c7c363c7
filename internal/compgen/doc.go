// Package compgen generates distributed computations for kbmc detect's tests and
// benchmarks: seeded random computations for differential testing of the
// searches, the database-partitioning and primary–secondary protocols of
// Stoller, Unnikrishnan and Liu §6 (simulated with random delays, as their
// simulator did), and large computations for the scale benchmarks.
//
// It is not a model of any real system, and nothing in kbmc's command line uses
// it: recorded computations come from kbmc run --record or from logs.
package compgen
