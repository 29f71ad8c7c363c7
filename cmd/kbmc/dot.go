package main

import (
	"fmt"
	"io"
	"strings"

	"kbmc/ir"
	"kbmc/verify"
)

// writeDot draws the result for Graphviz (`kbmc check --trace dot p.kb | dot
// -Tsvg`): the verdict as the graph's label; for a counterexample, one cluster
// per thread with its steps in program order (solid edges) and the schedule
// order across threads (dashed edges), the failing step in red; for a deadlock,
// its wait-for graph: each waiting thread points to the thread holding what it
// waits for. The output depends only on the result: the same every run.
func writeDot(w io.Writer, l *loaded, res *verify.Result, opts traceOptions) error {
	var b strings.Builder
	b.WriteString("digraph kbmc {\n")
	fmt.Fprintf(&b, "  label=\"%s\"; labelloc=t;\n", dotEscape(verdictLine(l, res)))
	b.WriteString("  node [shape=box, fontname=monospace, fontsize=10];\n  edge [fontname=monospace, fontsize=9];\n")
	if res.Verdict == verify.Unsafe {
		r := traceSteps(l, res.Run, opts)
		steps := r.steps
		if opts.relevant {
			steps = relevantSteps(l, r, res.Violation)
		}
		var byThread [][]traceStep
		index := map[int]int{}
		for _, st := range steps {
			i, ok := index[st.ThreadID]
			if !ok {
				i = len(byThread)
				index[st.ThreadID] = i
				byThread = append(byThread, nil)
			}
			byThread[i] = append(byThread[i], st)
		}
		for _, ss := range byThread {
			fmt.Fprintf(&b, "  subgraph cluster_t%d {\n    label=\"%s\";\n", ss[0].ThreadID, dotEscape(ss[0].Thread))
			for _, st := range ss {
				label := fmt.Sprintf("%d: %s", st.Step, st.Text)
				if st.Branch != nil {
					label += fmt.Sprintf(" → %v", *st.Branch)
				}
				if v := valuesText(st); v != "" {
					label += "\n" + v
				}
				for _, f := range st.Folded {
					label += "\n" + f.Text
					if f.Branch != nil {
						label += fmt.Sprintf(" → %v", *f.Branch)
					}
					if v := valuesOf(f.Writes, f.Reads); v != "" {
						label += "  " + v
					}
				}
				attrs := ""
				if st.Failed || res.Violation.Kind.Deadlocks() && st.Step == len(r.steps) {
					attrs = ", color=red, penwidth=2, fontcolor=red"
				}
				fmt.Fprintf(&b, "    s%d [label=\"%s\"%s];\n", st.Step, dotEscape(label), attrs)
			}
			for i := 1; i < len(ss); i++ {
				fmt.Fprintf(&b, "    s%d -> s%d;\n", ss[i-1].Step, ss[i].Step)
			}
			b.WriteString("  }\n")
		}
		for i := 1; i < len(steps); i++ {
			if steps[i-1].ThreadID != steps[i].ThreadID {
				fmt.Fprintf(&b, "  s%d -> s%d [style=dashed, color=gray, constraint=false];\n", steps[i-1].Step, steps[i].Step)
			}
		}
		if k := res.Violation.Kind; k.Deadlocks() || k == ir.LocalDeadlock {
			b.WriteString("  subgraph cluster_waitfor {\n    label=\"wait-for graph at the deadlock\"; color=red;\n")
			ws := waits(l, r.run.Final())
			for _, wt := range ws {
				fmt.Fprintf(&b, "    w%d [label=\"%s\\n%s\", shape=ellipse, color=red];\n", wt.id, dotEscape(wt.Thread), dotEscape(wt.Text))
			}
			for _, wt := range ws {
				if wt.holder >= 0 {
					fmt.Fprintf(&b, "    w%d -> w%d [label=\"%s\", color=red];\n", wt.id, wt.holder, dotEscape(wt.For))
				} else {
					fmt.Fprintf(&b, "    w%d_for [label=\"%s\", shape=plaintext];\n    w%d -> w%d_for [color=red];\n",
						wt.id, dotEscape(wt.For), wt.id, wt.id)
				}
			}
			b.WriteString("  }\n")
		}
	} else {
		label := "no counterexample"
		if res.Verdict == verify.BoundedSafe {
			if ex := explainBounded(l, res); ex != nil {
				label += "\n" + ex.Why
			}
		}
		fmt.Fprintf(&b, "  result [label=\"%s\", shape=note];\n", dotEscape(label))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
