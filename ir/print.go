package ir

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Print writes every template's transitions: location, position, the source text of
// the first operation, the static footprint and the successor locations.
func Print(w io.Writer, p *Program) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "program %s: %d threads, width %d, %d shared cells, %d locks",
		p.File, len(p.Threads), p.Width, p.SharedSize, p.NumLocks)
	if len(p.Processes) > 0 || p.NumChannels > 0 {
		fmt.Fprintf(tw, ", %d processes, %d channels", len(p.Processes), p.NumChannels)
	}
	fmt.Fprintln(tw)
	for _, c := range p.Channels {
		fields := make([]string, len(c.Fields))
		for i, f := range c.Fields {
			fields[i] = f.String()
		}
		name := c.Name
		if c.Len > 0 {
			name = fmt.Sprintf("%s[%d]", c.Name, c.Len)
		}
		fmt.Fprintf(tw, "chan (%s) %s capacity %d\n", strings.Join(fields, ", "), name, c.Cap)
	}
	for _, inv := range p.Invariants {
		fmt.Fprintf(tw, "invariant %s (%s): %s\n", inv.Name, inv.Pos, inv.Text)
	}
	for _, t := range p.Templates {
		fmt.Fprintf(tw, "\nthread %s", t.Name)
		if t.Count > 0 {
			fmt.Fprintf(tw, "[%d] (threads %d..%d)", t.Count, t.First, t.First+t.Count-1)
		} else {
			fmt.Fprintf(tw, " (thread %d)", t.First)
		}
		fmt.Fprintf(tw, ": %d transitions, %d local cells\n", len(t.Transitions), t.FrameSize)
		for _, tr := range t.Transitions {
			n := tr.EntryNode()
			kind := "local"
			if tr.Visible() {
				kind = n.Op.String()
				if n.Atomic {
					kind = "atomic"
				}
			}
			var foot []string
			if len(tr.Reads) > 0 {
				foot = append(foot, "reads "+varNames(tr.Reads))
			}
			if len(tr.Writes) > 0 {
				foot = append(foot, "writes "+varNames(tr.Writes))
			}
			for _, m := range tr.Locks {
				foot = append(foot, "mutex "+m.Name)
			}
			for _, j := range tr.Joins {
				foot = append(foot, "joins "+j.Name)
			}
			for _, c := range tr.Chans {
				foot = append(foot, "chan "+c.Name)
			}
			var succ []string
			for _, l := range tr.Succ {
				if l == t.Terminated() {
					succ = append(succ, "end")
				} else {
					succ = append(succ, fmt.Sprintf("L%d", l))
				}
			}
			fmt.Fprintf(tw, "  L%d\t%s\t%s\t%s\t%s\t-> %s\n", tr.Index, n.Pos, kind, n.Text,
				strings.Join(foot, "; "), strings.Join(succ, ", "))
		}
	}
	return tw.Flush()
}

func varNames(vs []*Var) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ",")
}
