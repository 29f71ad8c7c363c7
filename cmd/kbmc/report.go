package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// traceStep is one step of a counterexample or a simulated run, in both text and
// JSON output (docs/output.md).
type traceStep struct {
	Step     int    `json:"step"`
	Thread   string `json:"thread"`
	ThreadID int    `json:"thread_id"`
	Pos      string `json:"pos"`
	Text     string `json:"text"`
	// Branch is the outcome of the step's first statement when it is a
	// condition (if, while, for, cas): true or false.
	Branch *bool          `json:"branch,omitempty"`
	Nondet []int64        `json:"nondet,omitempty"`
	Reads  map[string]any `json:"reads"`  // ints and bools
	Writes map[string]any `json:"writes"` // ints and bools, locals of functions as f::x
	// Locked and Unlocked name the mutex element a lock or unlock took or released.
	Locked   string        `json:"locked,omitempty"`
	Unlocked string        `json:"unlocked,omitempty"`
	Sent     *traceMessage `json:"sent,omitempty"`
	Received *traceMessage `json:"received,omitempty"`
	// Partner is the thread a send on a rendezvous channel handed its
	// message to: the step ran its receive and the code after it too (the
	// Folded statements with its name).
	Partner   string `json:"partner,omitempty"`
	PartnerID int    `json:"-"`
	// Folded are the further statements the step ran: with local folding a step
	// runs its visible operation and the local code after it.
	Folded []traceStatement `json:"folded,omitempty"`
	// Enabled (--threads) are the threads that could move before the step.
	Enabled []string `json:"enabled,omitempty"`
	// Failed marks the step that violated the property.
	Failed bool `json:"failed,omitempty"`
}

// traceStatement is one statement a step ran after its first.
type traceStatement struct {
	// Declares: the statement declares the local it assigns (int i = 0),
	// which the text trace shows again only when the value changes (printSteps).
	Declares bool `json:"-"`
	Failed   bool `json:"failed,omitempty"`
	// Thread names the rendezvous partner that ran the statement inside the
	// sender's step (traceStep.Partner); empty for the step's own thread.
	Thread string         `json:"thread,omitempty"`
	Pos    string         `json:"pos"`
	Text   string         `json:"text"`
	Branch *bool          `json:"branch,omitempty"`
	Reads  map[string]any `json:"reads,omitempty"`
	Writes map[string]any `json:"writes,omitempty"`
}

// traceMessage is a message a step sent or received, on which channel.
type traceMessage struct {
	Channel string `json:"channel"`
	Fields  []any  `json:"fields"` // ints and bools
	// Lost: a send on a lossy channel that lost its message.
	Lost bool `json:"lost,omitempty"`
	// Closed: a receive that found the channel closed and empty, and
	// received zeros (Fields), no message anyone sent.
	Closed bool `json:"closed,omitempty"`
}

func (m *traceMessage) String() string {
	parts := make([]string, len(m.Fields))
	for i, f := range m.Fields {
		parts[i] = fmt.Sprint(f)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// traceOptions are the trace flags of check and run.
type traceOptions struct {
	threads  bool // show the threads that could move at each step
	relevant bool // hide steps the violation does not depend on
}

// value renders a cell's value by its type: bools as true and false.
func value(t ir.Type, v int64) any {
	switch t {
	case ir.Bool:
		return v != 0
	case ir.U64:
		return uint64(v)
	}
	return v
}

// cellValue is value for a cell of p's state, a pointer shown as the object it
// addresses ("&x", "&s.next", "NULL").
func cellValue(p *ir.Program, t ir.Type, v int64) any {
	if t == ir.Ptr {
		return p.PointerName(v)
	}
	return value(t, v)
}

// varValue is the value val of cell i of variable v as traces show it: a Go
// channel value by the channel's name, a pointer by what it points to, a
// number or a Boolean otherwise.
func varValue(p *ir.Program, v *ir.Var, i int, val int64) any {
	if v == nil {
		return cellValue(p, ir.Int, val)
	}
	if v.ChanCell(i) {
		return p.ChannelValueName(val)
	}
	return cellValue(p, v.CellType(i), val)
}

// cellType is the type of shared cell c.
func cellType(p *ir.Program, c int) ir.Type {
	if v := sharedVar(p, c); v != nil {
		return v.CellType(c - v.Offset)
	}
	return ir.Int
}

// localType is the type of local cell c of template t.
func localType(t *ir.Template, c int) ir.Type {
	if v := localVar(t, c); v != nil {
		return v.CellType(c - v.Offset)
	}
	return ir.Int
}

// sharedVar is the declaration shared cell c belongs to.
func sharedVar(p *ir.Program, c int) *ir.Var {
	for _, v := range p.Shared {
		if c >= v.Offset && c < v.Offset+v.Cells() {
			return v
		}
	}
	return nil
}

// localVar is the declaration local cell c of template t belongs to.
func localVar(t *ir.Template, c int) *ir.Var {
	for _, v := range t.Locals {
		if c >= v.Offset && c < v.Offset+v.Cells() {
			return v
		}
	}
	return nil
}

// varOffset is v's first cell, 0 for none.
func varOffset(v *ir.Var) int {
	if v == nil {
		return 0
	}
	return v.Offset
}

func typeOf(v *ir.Var) ir.Type {
	if v == nil {
		return ir.Int
	}
	return v.Type
}

// replayed is a schedule replayed for presentation: its steps and run.
type replayed struct {
	steps []traceStep
	run   *ir.Run
}

// traceSteps shows what each step of a replayed run (a counterexample as the
// engine validated it, verify.Result.Run, or a simulated run) read, wrote and
// decided, locals included.
func traceSteps(l *loaded, run *ir.Run, opts traceOptions) *replayed {
	p := l.prog
	steps := make([]traceStep, len(run.Events))
	for i, ev := range run.Events {
		th := p.Threads[ev.Thread]
		tmpl := th.Template
		n := tmpl.Transitions[ev.From].EntryNode()
		st := traceStep{Step: i + 1, Thread: th.Name, ThreadID: th.ID,
			Pos: posText(l, n.Pos), Text: n.Text, Reads: map[string]any{}, Writes: map[string]any{}}
		for _, c := range ev.Choices {
			if !c.Channel && !c.Delay { // shown as the message sent, lost or received; a delay is the model's
				st.Nondet = append(st.Nondet, c.Value)
			}
		}
		if opts.threads {
			for t := range p.Threads {
				if p.Enabled(run.States[i], t) {
					st.Enabled = append(st.Enabled, p.Threads[t].Name)
				}
			}
		}
		if ev.Partner >= 0 {
			st.Partner, st.PartnerID = p.Threads[ev.Partner].Name, ev.Partner
		}
		acc, loc, vi := 0, 0, -1
		for _, vis := range ev.Visits {
			tmpl := tmpl
			if vis.Partner {
				tmpl = p.Threads[ev.Partner].Template
			}
			node := tmpl.Nodes[vis.Node]
			reads, writes := map[string]any{}, map[string]any{}
			for _, a := range ev.Accesses[acc:vis.Accesses] {
				k, idx := p.Locate(a.Loc)
				switch k {
				case ir.LocCell:
					sv := sharedVar(p, idx)
					if sv != nil && sv.Bookkeeping {
						continue
					}
					name := p.LocationName(a.Loc)
					if node.Addr != nil { // a mutex a pointer addresses
						if node.Op == ir.OpLock || node.Op == ir.OpTryLock && a.Kind == ir.Write {
							st.Locked = name
						} else if node.Op == ir.OpUnlock {
							st.Unlocked = name
						}
						continue
					}
					val := varValue(p, sv, idx-varOffset(sv), a.Value)
					if a.Kind == ir.Write {
						writes[name] = val
					} else if _, seen := writes[name]; !seen {
						reads[name] = val
					}
				case ir.LocLock:
					if node.Op == ir.OpLock {
						st.Locked = p.LocationName(a.Loc)
					} else if node.Op == ir.OpUnlock {
						st.Unlocked = p.LocationName(a.Loc)
					}
				}
			}
			for _, a := range ev.LocalWrites[loc:vis.LocalWrites] {
				name := tmpl.LocalName(a.Loc)
				if strings.HasPrefix(name, "$") {
					continue // a temporary of the lowering
				}
				lv := localVar(tmpl, a.Loc)
				writes[name] = varValue(p, lv, a.Loc-varOffset(lv), a.Value)
			}
			acc, loc = vis.Accesses, vis.LocalWrites
			var branch *bool
			if node.Op == ir.OpBranch || node.Op == ir.OpCas && node.Result != nil {
				b := vis.Taken
				branch = &b
			}
			if vis.Partner {
				if node.Text != "" && node.Op != ir.OpNop {
					st.Folded = append(st.Folded, traceStatement{Thread: st.Partner, Pos: posText(l, node.Pos), Text: node.Text,
						Branch: branch, Reads: nonEmpty(reads), Writes: nonEmpty(writes), Declares: declares(node)})
				}
				continue
			}
			vi++ // the thread's own statements: a handoff's come first
			if vi == 0 || node.Text == "" || node.Op == ir.OpNop {
				// The first statement, and nodes without source text of
				// their own, belong to the step's line.
				if vi == 0 {
					st.Branch = branch
				}
				mergeValues(st.Reads, reads)
				mergeValues(st.Writes, writes)
				continue
			}
			st.Folded = append(st.Folded, traceStatement{Pos: posText(l, node.Pos), Text: node.Text,
				Branch: branch, Reads: nonEmpty(reads), Writes: nonEmpty(writes), Declares: declares(node)})
		}
		if ev.Channel >= 0 && ev.ChannelOp != ir.OpClose { // a close carries no message: its statement says it
			ch := p.ChannelOf(ev.Channel)
			m := &traceMessage{Channel: p.LocationName(p.ChannelLocation(ev.Channel)), Fields: []any{}}
			for i, v := range ev.Message {
				m.Fields = append(m.Fields, value(ch.Fields[i], v))
			}
			m.Lost, m.Closed = ev.Lost, ev.Closed
			if ev.ChannelOp == ir.OpSend {
				st.Sent = m
			} else {
				st.Received = m
			}
		}
		if ev.Violation != nil {
			last := ev.Visits[len(ev.Visits)-1]
			if ev.Partner >= 0 && ev.Violation.Thread == ev.Partner {
				// The receiver failed inside the sender's step: its last
				// statement, which comes before the sender's own.
				for _, vis := range ev.Visits {
					if vis.Partner {
						last = vis
					}
				}
				tmpl = p.Threads[ev.Partner].Template
			}
			if n := len(st.Folded); n > 0 && tmpl.Nodes[last.Node].Pos.Line == 0 {
				st.Failed = true
			} else if n > 0 && posText(l, tmpl.Nodes[last.Node].Pos) == st.Folded[n-1].Pos {
				st.Folded[n-1].Failed = true
			} else {
				st.Failed = true
			}
		}
		steps[i] = st
	}
	return &replayed{steps: steps, run: run}
}

// declares reports whether node is the declaration of the local it assigns:
// the local is declared inside the statement's text (int i = 0), not before it
// (i = 0).
func declares(node *ir.Node) bool {
	if node.Op != ir.OpAssign || node.LHS == nil || node.LHS.Var == nil || node.LHS.Var.Shared {
		return false
	}
	at, decl := node.Pos, node.LHS.Var.Pos
	return decl.Line == at.Line && decl.Col > at.Col && decl.Col < at.Col+len(node.Text)
}

func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		dst[k] = v
	}
}

func nonEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// posText is pos as file:line:col: a position in the program's own file
// names it, one in another file of a Go package names that.
func posText(l *loaded, pos ir.Pos) string {
	return fmt.Sprintf("%s:%d:%d", l.fileOf(pos), pos.Line, pos.Col)
}

// relevantSteps keeps the steps the violation depends on (ir.Program.Relevant).
func relevantSteps(l *loaded, r *replayed, v *ir.Violation) []traceStep {
	var out []traceStep
	for i, keep := range l.prog.Relevant(r.run, v) {
		if keep {
			out = append(out, r.steps[i])
		}
	}
	return out
}

func verdictLine(l *loaded, res *verify.Result) string {
	switch res.Verdict {
	case verify.Unsafe:
		return fmt.Sprintf("%s: unsafe: %s", l.path, res.Violation.Kind)
	case verify.BoundedSafe:
		return fmt.Sprintf("%s: bounded-safe: no violation within %s", l.path, boundText(res))
	case verify.Unknown:
		return fmt.Sprintf("%s: unknown: %s", l.path, unknownNote(res))
	}
	return fmt.Sprintf("%s: safe: no violation; every execution ends within %s", l.path, boundText(res))
}

// unknownNote says what an unknown run established before it stopped (the
// symbolic engine's note already says how deep it showed there is no
// violation, verify.Outcome.Decide).
func unknownNote(res *verify.Result) string {
	if res.Engine == "explicit" && strings.HasPrefix(res.Note, "stopped: ") {
		note := fmt.Sprintf("%s; no violation in the %s executions explored", res.Note, formatCount(res.Stats.Executions))
		if allCut(res) {
			note += fmt.Sprintf(", every one of them cut by the depth bound (%d steps): raise --depth", res.Bound.Depth)
		}
		return note
	}
	return res.Note
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

func writeText(w io.Writer, l *loaded, ec engineConfig, res *verify.Result, format string, opts traceOptions) error {
	if format == "json" {
		return writeJSON(w, l, ec, res, opts)
	}
	switch format {
	case "dot":
		return writeDot(w, l, res, opts)
	case "msc":
		return writeMSC(w, buildChart(l, res, opts))
	case "mermaid":
		return writeMermaid(w, buildChart(l, res, opts))
	}
	fmt.Fprintln(w, verdictLine(l, res))
	if l.property != nil {
		if l.property.Pos == "" { // deadlock, local-deadlock: properties of states
			fmt.Fprintf(w, "property: %s\n", l.property.ID)
		} else {
			fmt.Fprintf(w, "property: %s (%s %s)\n", l.property.ID, l.property.Kind, shortPos(l.property.Pos))
		}
	}
	switch res.Verdict {
	case verify.Unsafe:
		v := res.Violation
		who := "no thread can move"
		switch {
		case v.Thread >= 0:
			who = "thread " + l.prog.Threads[v.Thread].Name
		case v.Kind == ir.InvariantViolation:
			who = "in the initial state"
		}
		msg := v.Msg
		switch v.Kind {
		case ir.Deadlock:
			msg = "every thread that has not terminated waits"
		case ir.Leak:
			msg = "the entry goroutine returned, and goroutines wait for ever"
		}
		fmt.Fprintf(w, "%s: %s: %s (%s)\n", posText(l, v.Pos), v.Kind, msg, who)
		r := traceSteps(l, res.Run, opts)
		steps := r.steps
		fewest := ""
		if res.Engine == "explicit" && res.Algo == "bfs" {
			fewest = ", the fewest of any counterexample: breadth-first search"
		}
		if opts.relevant {
			steps = relevantSteps(l, r, v)
			fmt.Fprintf(w, "trace (%d steps%s, %d shown: those the violation depends on):\n", len(r.steps), fewest, len(steps))
		} else {
			fmt.Fprintf(w, "trace (%d steps%s):\n", len(steps), fewest)
		}
		printSteps(w, steps, opts)
		if v.Kind.Deadlocks() || v.Kind == ir.LocalDeadlock {
			fmt.Fprintln(w, "waiting:")
			for _, wt := range waits(l, r.run.Final()) {
				fmt.Fprintf(w, "  %s at %s (%s): waits for %s\n", wt.Thread, wt.Text, shortPos(wt.Pos), wt.For)
			}
		}
		fmt.Fprintln(w, "state at the violation:")
		for _, c := range finalState(l, r.run.Final()) {
			fmt.Fprintf(w, "  %s = %s\n", c.Name, c.Value)
		}
	case verify.BoundedSafe:
		if ex := explainBounded(l, res); ex != nil {
			fmt.Fprintf(w, "why: %s\n", ex.Why)
			fmt.Fprintf(w, "next: %s\n", ex.Next)
		}
	case verify.Unknown:
		if allCut(res) {
			ex := explainBounded(l, res)
			fmt.Fprintf(w, "why: %s\n", ex.Why)
			fmt.Fprintf(w, "next: %s\n", ex.Next)
		}
	}
	fmt.Fprintf(w, "stats: %s\n", statsText(res))
	if res.Coverage != nil {
		writeCoverage(w, l, res)
	}
	return nil
}

func printSteps(w io.Writer, steps []traceStep, opts traceOptions) {
	var buf strings.Builder
	defer func() {
		// Cells stay tab-terminated so that every line's columns align; the
		// padding this leaves at the ends of lines is cut here.
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			if line != "" {
				fmt.Fprintln(w, strings.TrimRight(line, " \n"))
			}
		}
	}()
	tw := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	// A loop's body declares its locals again on every iteration: such a
	// declaration is shown again only when it gives its variable another
	// value than the last time its thread ran it (docs/output.md).
	type declaration struct {
		thread string
		pos    string
	}
	declared := map[declaration]string{}
	repeated := 0
	for _, st := range steps {
		text := st.Text
		if st.Branch != nil {
			text += fmt.Sprintf(" → %v", *st.Branch)
		}
		line := fmt.Sprintf("  %d\t%s\t%s\t%s\t%s\t", st.Step, st.Thread, shortPos(st.Pos), text, valuesText(st))
		if opts.threads {
			line += "[could move: " + strings.Join(st.Enabled, " ") + "]\t"
		}
		if st.Failed {
			line += "<- fails"
		}
		fmt.Fprintln(tw, line)
		for _, f := range st.Folded {
			if f.Declares && !f.Failed {
				at, values := declaration{cmp.Or(f.Thread, st.Thread), f.Pos}, valuesOf(f.Writes, f.Reads)
				if last, ok := declared[at]; ok && last == values {
					repeated++
					continue
				}
				declared[at] = values
			}
			text := f.Text
			if f.Branch != nil {
				text += fmt.Sprintf(" → %v", *f.Branch)
			}
			line := fmt.Sprintf("  \t%s\t%s\t  %s\t%s\t", f.Thread, shortPos(f.Pos), text, valuesOf(f.Writes, f.Reads))
			if opts.threads {
				line += "\t"
			}
			if f.Failed {
				line += "<- fails"
			}
			fmt.Fprintln(tw, line)
		}
	}
	tw.Flush()
	if repeated > 0 {
		fmt.Fprintf(&buf, "  (%s not shown again: a loop's declaration that gave its variable the value it gave before)\n",
			plural(repeated, "declaration"))
	}
}

// shortPos drops the column: "file:line" reads better in a trace table.
func shortPos(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i > 0 {
		return pos[:i]
	}
	return pos
}

// valuesOf renders writes as "x=1" and then reads as "read y=0".
func valuesOf(writes, reads map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(writes) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, writes[k]))
	}
	if len(reads) > 0 {
		var rs []string
		for _, k := range sortedKeys(reads) {
			rs = append(rs, fmt.Sprintf("%s=%v", k, reads[k]))
		}
		parts = append(parts, "(read "+strings.Join(rs, ", ")+")")
	}
	return strings.Join(parts, " ")
}

func valuesText(st traceStep) string {
	var parts []string
	if st.Locked != "" {
		parts = append(parts, "took "+st.Locked)
	}
	if st.Unlocked != "" {
		parts = append(parts, "released "+st.Unlocked)
	}
	if v := valuesOf(st.Writes, st.Reads); v != "" {
		parts = append(parts, v)
	}
	if len(st.Nondet) > 0 {
		parts = append(parts, fmt.Sprintf("nondet=%v", st.Nondet))
	}
	switch {
	case st.Sent != nil && st.Sent.Lost:
		parts = append(parts, fmt.Sprintf("lost %s on %s", st.Sent, st.Sent.Channel))
	case st.Sent != nil && st.Partner != "":
		parts = append(parts, fmt.Sprintf("handed %s to %s on %s", st.Sent, st.Partner, st.Sent.Channel))
	case st.Sent != nil:
		parts = append(parts, fmt.Sprintf("sent %s on %s", st.Sent, st.Sent.Channel))
	}
	switch {
	case st.Received != nil && st.Received.Closed:
		parts = append(parts, fmt.Sprintf("%s is closed: received zeros", st.Received.Channel))
	case st.Received != nil:
		parts = append(parts, fmt.Sprintf("received %s from %s", st.Received, st.Received.Channel))
	}
	return strings.Join(parts, " ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// waitInfo is what a thread that has not terminated waits for at the end of a
// trace.
type waitInfo struct {
	Thread string `json:"thread"`
	Pos    string `json:"pos"`
	Text   string `json:"text"`
	For    string `json:"waits_for"`
	// Holder is the thread holding the mutex it waits for, if any.
	Holder string `json:"holder,omitempty"`
	holder int
	id     int
}

func waits(l *loaded, s ir.State) []waitInfo {
	p := l.prog
	var out []waitInfo
	for t, th := range p.Threads {
		tr := p.Transition(s, t)
		if tr == nil || p.Status(s, t) == ir.Dormant {
			continue // ended, or created by no one: waiting for nothing
		}
		n := tr.EntryNode()
		wi := waitInfo{Thread: th.Name, Pos: posText(l, n.Pos), Text: n.Text, For: p.WaitsFor(s, t), holder: -1, id: t}
		if tr.EndsValidly() {
			wi.For += " (a valid end)"
		}
		if sites := startSites(l, th.Template); sites != "" {
			wi.For += "; started at " + sites
		}
		if n.Op == ir.OpLock {
			for i := 0; i < p.NumLocks; i++ {
				name := p.LocationName(p.LockLocation(i))
				if o := p.LockOwner(s, i); o >= 0 && o != t && strings.HasPrefix(wi.For, "mutex "+name+",") {
					wi.holder, wi.Holder = o, p.Threads[o].Name
				}
			}
		}
		out = append(out, wi)
	}
	return out
}

// startSites names the lines that start threads of template tm (a Go
// program's go statements, ir.Pool.Sites): "line 12", "lines 12, 30" ("line
// f.go:12" in a package of several files); "" when the program does not say.
func startSites(l *loaded, tm *ir.Template) string {
	for _, pool := range l.prog.Pools {
		if len(pool.Sites) == 0 || !slices.Contains(pool.Slots, tm) {
			continue
		}
		var lines []string
		for _, s := range pool.Sites {
			if len(l.files) > 1 {
				// A package of several files: say which.
				lines = append(lines, fmt.Sprintf("%s:%d", l.fileOf(s), s.Line))
			} else {
				lines = append(lines, fmt.Sprint(s.Line))
			}
		}
		if len(lines) == 1 {
			return "line " + lines[0]
		}
		return "lines " + strings.Join(lines, ", ")
	}
	return ""
}

// stateCell is one shared variable, lock or channel at the end of a trace.
type stateCell struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// finalState renders the shared state: every shared variable (arrays as
// lists), every held mutex, every non-empty channel.
func finalState(l *loaded, s ir.State) []stateCell {
	p := l.prog
	var out []stateCell
	for _, v := range p.Shared {
		if v.Bookkeeping {
			continue
		}
		if v.Len == 0 {
			out = append(out, stateCell{p.LocationName(v.Offset), fmt.Sprint(varValue(p, v, 0, s[v.Offset]))})
			continue
		}
		if v.CellNames != nil || v.Block != nil {
			out = append(out, objectState(p, v, s)...)
			continue
		}
		vals := make([]string, v.Len)
		for i := range vals {
			vals[i] = fmt.Sprint(varValue(p, v, i, s[v.Offset+i]))
		}
		name := strings.TrimSuffix(p.LocationName(v.Offset), "[0]")
		out = append(out, stateCell{name, "[" + strings.Join(vals, ", ") + "]"})
	}
	for i := 0; i < p.NumLocks; i++ {
		if o := p.LockOwner(s, i); o >= 0 {
			out = append(out, stateCell{p.LocationName(p.LockLocation(i)), "held by " + p.Threads[o].Name})
		}
	}
	for c := 0; c < p.NumChannels; c++ {
		q := p.ChannelQueue(s, c)
		if q[0] == 0 {
			continue
		}
		ch := p.ChannelOf(c)
		f := len(ch.Fields)
		var msgs []string
		for m := 0; m < int(q[0]); m++ {
			fields := make([]string, f)
			for i := range fields {
				fields[i] = fmt.Sprint(value(ch.Fields[i], q[1+m*f+i]))
			}
			msgs = append(msgs, "("+strings.Join(fields, ", ")+")")
		}
		out = append(out, stateCell{p.LocationName(p.ChannelLocation(c)), "channel holding " + strings.Join(msgs, " ")})
	}
	return out
}

// objectState shows a C object cell by cell: a struct's fields, a heap block
// (when it is allocated), a thread's start cells.
func objectState(p *ir.Program, v *ir.Var, s ir.State) []stateCell {
	if v.Block != nil && s[v.Block.Status.Offset+v.BlockIndex] <= 0 {
		return nil
	}
	var out []stateCell
	for i := range v.Cells() {
		out = append(out, stateCell{p.LocationName(v.Offset + i), fmt.Sprint(varValue(p, v, i, s[v.Offset+i]))})
	}
	return out
}

// statsText renders the statistics: counts with their breakdown, durations as
// durations; keys a solver does not report (negative) are left out.
func statsText(res *verify.Result) string {
	vals := statValues(res)
	for _, k := range []string{"encode_ms", "solve_ms", "time_ms"} {
		if _, ok := vals[k]; ok {
			vals[k] = res.Stats.DurationOf(k)
		}
	}
	return formatStats(statKeys(res), vals)
}

// formatStats renders statistics given by key, in the order of keys: counts
// (int64, or float64 as read back from JSON) with the breakdown of executions
// by how they ended, and the *_ms keys as durations (time.Duration, or float64
// milliseconds).
func formatStats(keys []string, vals map[string]any) string {
	var parts []string
	breakdown := map[string]string{"complete": "complete", "assume_blocked": "blocked on assume",
		"deadlocked": "deadlocked", "cut": "cut by the bound", "failed": "failed", "sleep_blocked": "sleep-set blocked"}
	var sub []string
	for _, k := range keys {
		v, ok := vals[k]
		if !ok {
			continue
		}
		if f, isFloat := v.(float64); isFloat && !strings.HasSuffix(k, "_ms") && f == math.Trunc(f) {
			v = int64(f)
		}
		if name, isSub := breakdown[k]; isSub {
			if n, _ := v.(int64); n > 0 {
				sub = append(sub, fmt.Sprintf("%s %s", formatCount(n), name))
			}
			continue
		}
		switch k {
		case "longest":
			continue // in the explanation of a bounded-safe verdict and in --json
		case "encode_ms", "solve_ms", "time_ms":
			d, isDuration := v.(time.Duration)
			if ms, isFloat := v.(float64); isFloat {
				d, isDuration = time.Duration(ms*float64(time.Millisecond)), true
			}
			if isDuration {
				parts = append(parts, fmt.Sprintf("%s %s", strings.TrimSuffix(k, "_ms"), formatDuration(d)))
			}
		default:
			if n, ok := v.(int64); ok {
				parts = append(parts, fmt.Sprintf("%s %s", strings.ReplaceAll(k, "_", " "), formatCount(n)))
			} else {
				parts = append(parts, fmt.Sprintf("%s %v", strings.ReplaceAll(k, "_", " "), v))
			}
		}
	}
	if len(sub) > 0 && len(parts) > 0 && strings.HasPrefix(parts[0], "executions ") {
		parts[0] += " (" + strings.Join(sub, ", ") + ")"
	}
	return strings.Join(parts, ", ")
}

// statKeys are the keys of the statistics an engine reports, in order; the
// explicit engine's executions come with their breakdown (how they ended).
func statKeys(res *verify.Result) []string {
	if res.Engine != "explicit" {
		return res.StatKeys
	}
	var keys []string
	for _, k := range res.StatKeys {
		keys = append(keys, k)
		if k == "executions" {
			keys = append(keys, "complete", "assume_blocked", "deadlocked", "cut", "failed", "longest")
		}
	}
	return keys
}

// statValues are the statistics an engine reports, without the ones it could
// not measure (a negative count).
func statValues(res *verify.Result) map[string]any {
	all := res.Stats.Values()
	out := map[string]any{}
	for _, k := range statKeys(res) {
		v, ok := all[k]
		if !ok {
			continue
		}
		if n, isInt := v.(int64); isInt && n < 0 {
			continue
		}
		out[k] = v
	}
	return out
}

// dotEscape makes s safe inside a double-quoted Graphviz string.
func dotEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// jsonResult is the --json object (docs/output.md).
type jsonResult struct {
	File      string         `json:"file"`
	Verdict   string         `json:"verdict"`
	Engine    string         `json:"engine"`
	Algo      *string        `json:"algo"`
	Stateful  bool           `json:"stateful,omitempty"`
	Solver    *string        `json:"solver"`
	POR       *string        `json:"por"`
	Bound     map[string]int `json:"bound"`
	Property  *property      `json:"property,omitempty"`
	Violation *jsonViolation `json:"violation,omitempty"`
	Trace     []traceStep    `json:"trace,omitempty"`
	Waiting   []waitInfo     `json:"waiting,omitempty"`
	State     []stateCell    `json:"state,omitempty"`
	Bounded   *explanation   `json:"bounded,omitempty"`
	Stats     map[string]any `json:"stats"`
	Note      string         `json:"note,omitempty"`
	Stopped   string         `json:"stopped,omitempty"` // unknown: "time", "memory" or "interrupt"
	// Symbolic unknown: no execution of at most ReachedSteps steps has a
	// violation, nor (partial-order encoding) any within the depth whose
	// threads stay within Unrolling's steps.
	ReachedSteps int                  `json:"reached_steps,omitempty"`
	Unrolling    []verify.ThreadSteps `json:"unrolling,omitempty"`
	// unknown: the lossy visited set ("hash-compact", "bitstate") that may
	// have skipped part of the state space.
	Incomplete string `json:"incomplete,omitempty"`
	// What kbmc merge checks: the run's part and the program and settings it
	// checked (every part of a sharded run must agree on both).
	Shard    string   `json:"shard,omitempty"`
	Workers  int      `json:"workers,omitempty"`
	Subtrees int      `json:"subtrees,omitempty"`
	Program  string   `json:"program_sha256,omitempty"`
	Settings []string `json:"settings,omitempty"`
	// --coverage: what the search executed.
	Coverage *jsonCoverage `json:"coverage,omitempty"`
}

type jsonViolation struct {
	Kind      string `json:"kind"`
	Invariant string `json:"invariant,omitempty"` // kind invariant: its name
	Message   string `json:"message"`
	Pos       string `json:"pos"`
	Thread    string `json:"thread,omitempty"`
}

func violationJSON(l *loaded, v *ir.Violation) *jsonViolation {
	j := &jsonViolation{Kind: v.Kind.String(), Message: v.Msg, Pos: posText(l, v.Pos)}
	if inv := l.prog.InvariantAt(v.Pos); inv != nil && v.Kind == ir.InvariantViolation {
		j.Invariant = inv.Name
	}
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

func jsonOf(l *loaded, ec engineConfig, res *verify.Result, opts traceOptions) (*jsonResult, error) {
	j := &jsonResult{File: l.path, Verdict: res.Verdict.String(), Engine: res.Engine,
		Algo: optional(res.Algo), Solver: optional(res.Solver), POR: optional(res.POR),
		Stateful: res.Engine == "explicit" && ec.Explicit.Stateful,
		Bound:    map[string]int{"depth": res.Bound.Depth}, Stats: statValues(res), Property: l.property, Stopped: res.Stopped,
		ReachedSteps: res.Reached, Unrolling: res.Unrolling, Incomplete: res.Incomplete}
	if res.Verdict == verify.Unknown {
		j.Note = unknownNote(res)
	} else {
		j.Note = res.Note
	}
	if res.Bound.Preemptions >= 0 {
		j.Bound["preemptions"] = res.Bound.Preemptions
	}
	if res.Bound.Fair >= 0 {
		j.Bound["fair"] = res.Bound.Fair
	}
	j.Shard, j.Workers, j.Subtrees = res.Shard, res.Workers, res.Subtrees
	if sh := ec.Explicit.Shard; sh.Count == 1 && j.Shard == "" {
		// The whole search in one part: kbmc merge takes it like any other.
		j.Shard = sh.String()
	}
	j.Program = fmt.Sprintf("%x", sha256.Sum256(l.src))
	j.Settings = l.settings
	if res.Coverage != nil {
		j.Coverage = coverageOf(l, res)
	}
	switch res.Verdict {
	case verify.Unsafe:
		j.Violation = violationJSON(l, res.Violation)
		r := traceSteps(l, res.Run, opts)
		j.Trace = r.steps
		if opts.relevant {
			j.Trace = relevantSteps(l, r, res.Violation)
		}
		if k := res.Violation.Kind; k.Deadlocks() || k == ir.LocalDeadlock {
			j.Waiting = waits(l, r.run.Final())
		}
		j.State = finalState(l, r.run.Final())
	case verify.BoundedSafe:
		j.Bounded = explainBounded(l, res)
	case verify.Unknown:
		if allCut(res) {
			j.Bounded = explainBounded(l, res)
		}
	}
	return j, nil
}

func writeJSON(w io.Writer, l *loaded, ec engineConfig, res *verify.Result, opts traceOptions) error {
	j, err := jsonOf(l, ec, res, opts)
	if err != nil {
		return err
	}
	return writeJSONValue(w, j)
}

func writeJSONValue(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
