package main

import (
	"fmt"
	"io"

	"kbmc/verify"
)

// jsonCoverage is --coverage's part of check's --json object (docs/output.md).
type jsonCoverage struct {
	Statements    int               `json:"statements"`
	Executed      int               `json:"executed"`
	NeverExecuted []jsonStatement   `json:"never_executed"`
	Scope         string            `json:"scope"`
	ScopeNote     string            `json:"scope_note"`
	Generated     int64             `json:"generated"`
	Distinct      *int64            `json:"distinct"` // null: not known, DistinctNote says why
	DistinctNote  string            `json:"distinct_note,omitempty"`
	Diameter      int64             `json:"diameter"`
	byTemplate    [][]jsonStatement // the never-executed list grouped, for the text form
}

type jsonStatement struct {
	Thread string `json:"thread"` // the thread template ("node.listener" for a process's)
	Pos    string `json:"pos"`
	Text   string `json:"text"`
}

// coverageOf summarizes a result's coverage for people and JSON: the
// statements never executed and what the list is relative to (Scope: the
// whole search, a bound, a violation or a stop that ended it early).
func coverageOf(l *loaded, res *verify.Result) *jsonCoverage {
	c := res.Coverage
	j := &jsonCoverage{Generated: c.Generated, Diameter: c.Diameter, NeverExecuted: []jsonStatement{}}
	if c.Distinct >= 0 {
		j.Distinct = &c.Distinct
	} else {
		j.DistinctNote = c.WhyNoDistinct
	}
	last := ""
	for _, st := range c.Statements(l.prog) {
		j.Statements++
		if st.Executed {
			j.Executed++
			continue
		}
		s := jsonStatement{Thread: st.Template, Pos: posText(l, st.Pos), Text: st.Text}
		j.NeverExecuted = append(j.NeverExecuted, s)
		if st.Template != last || len(j.byTemplate) == 0 {
			j.byTemplate = append(j.byTemplate, nil)
			last = st.Template
		}
		j.byTemplate[len(j.byTemplate)-1] = append(j.byTemplate[len(j.byTemplate)-1], s)
	}
	switch res.Verdict {
	case verify.Safe:
		j.Scope, j.ScopeNote = "complete", "in any execution"
	case verify.BoundedSafe:
		j.Scope, j.ScopeNote = "bound", "within "+boundText(res)+
			" (the bound cut some executions: a statement after the bound may be reachable)"
		if res.Algo != "dfs" {
			j.ScopeNote = "within " + boundText(res) + " (the bound cut some executions, and the partial-order reduction may put a reachable statement off past the bound)"
		}
	case verify.Unsafe:
		j.Scope, j.ScopeNote = "violation", "before the search stopped at the violation (statements it did not reach may be reachable)"
	default:
		j.Scope, j.ScopeNote = "stopped", "before the search stopped (statements it did not reach may be reachable)"
	}
	return j
}

// writeCoverage prints --coverage's report after check's verdict and
// statistics.
func writeCoverage(w io.Writer, l *loaded, res *verify.Result) {
	j := coverageOf(l, res)
	fmt.Fprintf(w, "coverage: %d of %d statements executed", j.Executed, j.Statements)
	if len(j.NeverExecuted) == 0 {
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "; never executed %s:\n", j.ScopeNote)
		for _, group := range j.byTemplate {
			fmt.Fprintf(w, "  thread %s:\n", group[0].Thread)
			for _, s := range group {
				fmt.Fprintf(w, "    %s: %s\n", s.Pos, s.Text)
			}
		}
	}
	distinct := fmt.Sprintf("distinct not known (%s)", j.DistinctNote)
	if j.Distinct != nil {
		distinct = formatCount(*j.Distinct) + " distinct"
	}
	fmt.Fprintf(w, "states: %s generated, %s; diameter %s (the most steps from the initial state the search took)\n",
		formatCount(j.Generated), distinct, formatCount(j.Diameter))
}

// coverageApplies rejects --coverage where it cannot be counted: the symbolic
// engine executes no steps, and one part of a sharded run sees only its part.
func coverageApplies(ec engineConfig) error {
	if !isExplicit(ec) {
		return usageErr("--coverage applies only to the explicit engine: the symbolic engine solves for executions instead of running them, so it knows no statement it did not execute")
	}
	if ec.Explicit.Shard.Count > 1 {
		return usageErr("--coverage: one part of a sharded run (--shard %s) explores only its part of the executions; run the whole search for coverage", ec.Explicit.Shard)
	}
	return nil
}
