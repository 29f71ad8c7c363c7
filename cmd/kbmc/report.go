package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"kbmc/ir"
	"kbmc/verify"
)

// traceStep is one line of a counterexample, in both text and JSON output.
type traceStep struct {
	Step     int              `json:"step"`
	Thread   string           `json:"thread"`
	ThreadID int              `json:"thread_id"`
	Pos      string           `json:"pos"`
	Text     string           `json:"text"`
	Nondet   []int64          `json:"nondet,omitempty"`
	Reads    map[string]int64 `json:"reads"`
	Writes   map[string]int64 `json:"writes"`
	Sent     *traceMessage    `json:"sent,omitempty"`
	Received *traceMessage    `json:"received,omitempty"`
}

// traceMessage is a message a step sent or received, on which channel.
type traceMessage struct {
	Channel string `json:"channel"`
	Fields  []any  `json:"fields"` // ints and bools
}

func (m *traceMessage) String() string {
	parts := make([]string, len(m.Fields))
	for i, f := range m.Fields {
		parts[i] = fmt.Sprint(f)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// traceSteps replays a schedule (a counterexample already validated by the engine,
// or a simulated run) to show what each step read and wrote, locals included.
func traceSteps(l *loaded, moves []ir.Move) ([]traceStep, error) {
	p := l.prog
	run, err := p.Replay(moves)
	if err != nil {
		return nil, fmt.Errorf("internal error: %w: %v", verify.ErrReplay, err)
	}
	steps := make([]traceStep, len(run.Events))
	for i, ev := range run.Events {
		th := p.Threads[ev.Thread]
		n := th.Template.Transitions[ev.From].EntryNode()
		st := traceStep{Step: i + 1, Thread: th.Name, ThreadID: th.ID,
			Pos: fmt.Sprintf("%s:%d:%d", l.path, n.Pos.Line, n.Pos.Col), Text: n.Text,
			Reads: map[string]int64{}, Writes: map[string]int64{}}
		for _, c := range ev.Choices {
			st.Nondet = append(st.Nondet, c.Value)
		}
		for _, a := range ev.Accesses {
			if k, _ := p.Locate(a.Loc); k != ir.LocCell {
				continue // locks and thread status show in the text
			}
			if a.Kind == ir.Write {
				st.Writes[p.LocationName(a.Loc)] = a.Value
			} else if _, seen := st.Writes[p.LocationName(a.Loc)]; !seen {
				st.Reads[p.LocationName(a.Loc)] = a.Value
			}
		}
		for _, a := range ev.LocalWrites {
			st.Writes[th.Template.LocalName(a.Loc)] = a.Value
		}
		if ev.Channel >= 0 {
			ch := p.ChannelOf(ev.Channel)
			m := &traceMessage{Channel: p.LocationName(p.ChannelLocation(ev.Channel))}
			for i, v := range ev.Message {
				if ch.Fields[i] == ir.Bool {
					m.Fields = append(m.Fields, v != 0)
				} else {
					m.Fields = append(m.Fields, v)
				}
			}
			if n.Op == ir.OpSend {
				st.Sent = m
			} else {
				st.Received = m
			}
		}
		steps[i] = st
	}
	return steps, nil
}

func verdictLine(l *loaded, res *verify.Result) string {
	switch res.Verdict {
	case verify.Unsafe:
		return fmt.Sprintf("%s: unsafe: %s", l.path, res.Violation.Kind)
	case verify.BoundedSafe:
		return fmt.Sprintf("%s: bounded-safe: no violation within %s", l.path, boundText(res))
	case verify.Unknown:
		return fmt.Sprintf("%s: unknown: %s", l.path, res.Note)
	}
	return fmt.Sprintf("%s: safe: no violation; every execution ends within %s", l.path, boundText(res))
}

func boundText(res *verify.Result) string {
	s := fmt.Sprintf("depth %d", res.Bound.Depth)
	if res.Bound.Preemptions >= 0 {
		s += fmt.Sprintf(", %d preemptions", res.Bound.Preemptions)
	}
	if res.Bound.Fair >= 0 {
		s += fmt.Sprintf(", fair bound %d", res.Bound.Fair)
	}
	return s
}

func writeText(w io.Writer, l *loaded, res *verify.Result, format string) error {
	comment := ""
	if format == "dot" {
		comment = "// " // the output stays a valid Graphviz file
	}
	fmt.Fprintln(w, comment+verdictLine(l, res))
	if res.Verdict == verify.Unsafe {
		v := res.Violation
		who := "no thread can move"
		if v.Thread >= 0 {
			who = "thread " + l.prog.Threads[v.Thread].Name
		}
		fmt.Fprintf(w, "%s%s:%d:%d: %s: %s (%s)\n", comment, l.path, v.Pos.Line, v.Pos.Col, v.Kind, v.Msg, who)
		steps, err := traceSteps(l, res.Trace)
		if err != nil {
			return err
		}
		switch format {
		case "json":
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			if err := enc.Encode(steps); err != nil {
				return err
			}
		case "dot":
			writeDot(w, l, steps)
		default:
			fmt.Fprintf(w, "trace (%d steps):\n", len(steps))
			printSteps(w, steps)
		}
	}
	fmt.Fprintf(w, "%sstats: %s\n", comment, statsText(res))
	return nil
}

func printSteps(w io.Writer, steps []traceStep) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, st := range steps {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", st.Step, st.Thread, shortPos(st.Pos), st.Text, valuesText(st))
	}
	tw.Flush()
}

// shortPos drops the column: "file:line" reads better in a trace table.
func shortPos(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i > 0 {
		return pos[:i]
	}
	return pos
}

func valuesText(st traceStep) string {
	var parts []string
	for _, k := range sortedKeys(st.Writes) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, st.Writes[k]))
	}
	if len(st.Nondet) > 0 {
		parts = append(parts, fmt.Sprintf("nondet=%v", st.Nondet))
	}
	if st.Sent != nil {
		parts = append(parts, fmt.Sprintf("sent %s on %s", st.Sent, st.Sent.Channel))
	}
	if st.Received != nil {
		parts = append(parts, fmt.Sprintf("received %s from %s", st.Received, st.Received.Channel))
	}
	return strings.Join(parts, " ")
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func statsText(res *verify.Result) string {
	vals := res.Stats.Values()
	var parts []string
	for _, k := range res.StatKeys {
		if name, ok := strings.CutSuffix(k, "_ms"); ok {
			parts = append(parts, fmt.Sprintf("%s %.3g ms", name, vals[k]))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %v", strings.ReplaceAll(k, "_", " "), vals[k]))
	}
	return strings.Join(parts, ", ")
}

// writeDot draws the counterexample for Graphviz: one column per thread, the steps
// chained in schedule order.
func writeDot(w io.Writer, l *loaded, steps []traceStep) {
	fmt.Fprintln(w, "digraph trace {\n  rankdir=TB; node [shape=box, fontname=monospace];")
	byThread := map[int][]int{}
	for _, st := range steps {
		byThread[st.ThreadID] = append(byThread[st.ThreadID], st.Step)
		label := fmt.Sprintf("%d: %s\\n%s", st.Step, dotEscape(st.Text), dotEscape(valuesText(st)))
		fmt.Fprintf(w, "  s%d [label=\"%s\"];\n", st.Step, label)
	}
	for t, ss := range byThread {
		fmt.Fprintf(w, "  subgraph cluster_%d { label=%q;", t, l.prog.Threads[t].Name)
		for _, s := range ss {
			fmt.Fprintf(w, " s%d;", s)
		}
		fmt.Fprintln(w, " }")
	}
	for i := 1; i < len(steps); i++ {
		fmt.Fprintf(w, "  s%d -> s%d;\n", i, i+1)
	}
	fmt.Fprintln(w, "}")
}

// dotEscape makes s safe inside a double-quoted Graphviz string.
func dotEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// jsonResult is the --json object of DESIGN.md §7.
type jsonResult struct {
	File      string         `json:"file"`
	Verdict   string         `json:"verdict"`
	Engine    string         `json:"engine"`
	Algo      *string        `json:"algo"`
	Solver    *string        `json:"solver"`
	POR       *string        `json:"por"`
	Bound     map[string]int `json:"bound"`
	Violation *jsonViolation `json:"violation,omitempty"`
	Trace     []traceStep    `json:"trace,omitempty"`
	Stats     map[string]any `json:"stats"`
	Note      string         `json:"note,omitempty"`
	Stopped   string         `json:"stopped,omitempty"` // unknown: "time", "memory" or "interrupt"
	// What kbmc merge checks: the run's part and the program and settings it
	// checked (every part of a sharded run must agree on both).
	Shard    string   `json:"shard,omitempty"`
	Workers  int      `json:"workers,omitempty"`
	Subtrees int      `json:"subtrees,omitempty"`
	Program  string   `json:"program_sha256,omitempty"`
	Settings []string `json:"settings,omitempty"`
}

type jsonViolation struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Pos     string `json:"pos"`
	Thread  string `json:"thread,omitempty"`
}

func violationJSON(l *loaded, v *ir.Violation) *jsonViolation {
	j := &jsonViolation{Kind: v.Kind.String(), Message: v.Msg,
		Pos: fmt.Sprintf("%s:%d:%d", l.path, v.Pos.Line, v.Pos.Col)}
	if v.Thread >= 0 {
		j.Thread = l.prog.Threads[v.Thread].Name
	}
	return j
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func jsonOf(l *loaded, res *verify.Result) (*jsonResult, error) {
	j := &jsonResult{File: l.path, Verdict: res.Verdict.String(), Engine: res.Engine,
		Algo: optional(res.Algo), Solver: optional(res.Solver), POR: optional(res.POR),
		Bound: map[string]int{"depth": res.Bound.Depth}, Stats: map[string]any{}, Note: res.Note, Stopped: res.Stopped}
	if res.Bound.Preemptions >= 0 {
		j.Bound["preemptions"] = res.Bound.Preemptions
	}
	if res.Bound.Fair >= 0 {
		j.Bound["fair"] = res.Bound.Fair
	}
	vals := res.Stats.Values()
	for _, k := range res.StatKeys {
		j.Stats[k] = vals[k]
	}
	j.Shard, j.Workers, j.Subtrees = res.Shard, res.Workers, res.Subtrees
	j.Program = fmt.Sprintf("%x", sha256.Sum256(l.src))
	j.Settings = l.settings
	if res.Verdict == verify.Unsafe {
		j.Violation = violationJSON(l, res.Violation)
		steps, err := traceSteps(l, res.Trace)
		if err != nil {
			return nil, err
		}
		j.Trace = steps
	}
	return j, nil
}

func writeJSON(w io.Writer, l *loaded, res *verify.Result) error {
	j, err := jsonOf(l, res)
	if err != nil {
		return err
	}
	return writeJSONValue(w, j)
}

func writeJSONValue(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
