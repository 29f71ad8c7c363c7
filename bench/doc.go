// Package bench runs kbmc's benchmark families: parametric .kb programs (embedded from
// bench/programs) checked by a list of engines for a range of N, with one row per
// (family, N, engine), written as CSV, a Markdown table and a log-scale PNG plot.
//
// It measures; it does not decide what is fast. Engines come from the caller, so that
// bench does not depend on how the CLI names or configures them.
package bench
