package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"kbmc/ir"
	"kbmc/verify"
)

// A message sequence chart of a counterexample (--trace msc, --trace mermaid):
// one lifeline per thread that moves (or waits at a deadlock), time flowing
// down one row per step, each message an arrow from the step that sent it to
// the step that received it, every other step a mark on its thread's
// lifeline, and the failing step marked. docs/output.md describes it.

// chart is what both renderings draw.
type chart struct {
	title     string
	violation string // where and what the violation is, under the title
	lifelines []lifeline
	marks     []chartMark    // one per step, then one per waiting thread at a deadlock
	messages  []chartMessage // in the order they were sent
	rows      int
}

type lifeline struct {
	thread  int    // the thread's number
	name    string // as traces name it: node[1].listener
	process string // its process instance, or empty
}

// chartMark is a step, or a thread waiting at a deadlock, on a lifeline.
type chartMark struct {
	row, lane int
	step      int    // 0 for a waiting thread
	text      string // the step's statement, or what the thread waits for
	detail    string // the step's values and folded statements, for a tooltip
	send      bool   // the step sent a message
	receive   bool   // the step received one
	failed    bool   // the violating step, or a thread stuck at a deadlock
}

// chartMessage is a message from the step marked from to the step marked to;
// to is -1 for a message still in its channel when the trace ends.
type chartMessage struct {
	from, to int
	channel  string
	fields   string
	lost     bool // sent on a lossy channel and lost: never in flight
}

// buildChart lays out the counterexample of res (or only its title when res
// has none).
func buildChart(l *loaded, res *verify.Result, opts traceOptions) *chart {
	c := &chart{title: verdictLine(l, res)}
	if res.Verdict != verify.Unsafe {
		return c
	}
	v := res.Violation
	c.violation = fmt.Sprintf("%s: %s: %s", posText(l, v.Pos), v.Kind, v.Msg)
	r := traceSteps(l, res.Run, opts)
	steps := r.steps
	if opts.relevant {
		steps = relevantSteps(l, r, res.Violation)
	}
	var waiting []waitInfo
	if k := res.Violation.Kind; k.Deadlocks() || k == ir.LocalDeadlock {
		// The threads that cannot move: at a local deadlock, others may.
		final := r.run.Final()
		for _, w := range waits(l, final) {
			if !l.prog.Enabled(final, w.id) {
				waiting = append(waiting, w)
			}
		}
	}
	// Lifelines in the program's thread order, so that the threads of a
	// process stand side by side.
	p := l.prog
	lane := map[int]int{}
	var threads []int
	for _, st := range steps {
		threads = append(threads, st.ThreadID)
		if st.Partner != "" {
			threads = append(threads, st.PartnerID)
		}
	}
	for _, w := range waiting {
		threads = append(threads, w.id)
	}
	slices.Sort(threads)
	for _, t := range slices.Compact(threads) {
		ll := lifeline{thread: t, name: p.Threads[t].Name}
		if len(p.Processes) > 0 {
			ll.process = p.ProcessName(p.ProcessOf(t))
		}
		lane[t] = len(c.lifelines)
		c.lifelines = append(c.lifelines, ll)
	}
	// Messages: a receive takes the oldest message sent on its channel with
	// its contents (FIFO order; the contents decide where the order alone
	// would not, e.g. a channel that delivers out of order).
	inFlight := map[string][]int{} // channel: indexes into c.messages
	for _, st := range steps {
		m := chartMark{row: c.rows, lane: lane[st.ThreadID], step: st.Step, text: st.Text, failed: st.Failed}
		if st.Branch != nil {
			m.text += fmt.Sprintf(" → %v", *st.Branch)
		}
		m.detail = stepDetail(st)
		for _, f := range st.Folded {
			if f.Failed { // the step's own statement went well: say which failed
				m.failed, m.text = true, f.Text
			}
		}
		if m.failed {
			m.text = "fails: " + m.text
		}
		if st.Sent != nil && st.Partner != "" {
			// A rendezvous: the receiver's mark stands in the same row.
			m.send = true
			c.messages = append(c.messages, chartMessage{from: len(c.marks), to: len(c.marks) + 1,
				channel: st.Sent.Channel, fields: st.Sent.String()})
			c.marks = append(c.marks, m)
			m = chartMark{row: c.rows, lane: lane[st.PartnerID], step: st.Step, receive: true, detail: m.detail}
			for _, f := range st.Folded {
				if f.Thread == st.Partner {
					m.text = f.Text
					break
				}
			}
		} else if st.Sent != nil {
			m.send = true
			if !st.Sent.Lost {
				inFlight[st.Sent.Channel] = append(inFlight[st.Sent.Channel], len(c.messages))
			}
			c.messages = append(c.messages, chartMessage{from: len(c.marks), to: -1, channel: st.Sent.Channel,
				fields: st.Sent.String(), lost: st.Sent.Lost})
		}
		if rc := st.Received; rc != nil && !rc.Closed { // zeros from a closed channel: nobody's message
			q := inFlight[rc.Channel]
			i := slices.IndexFunc(q, func(k int) bool { return c.messages[k].fields == rc.String() })
			if i >= 0 {
				m.receive = true
				c.messages[q[i]].to = len(c.marks)
				inFlight[rc.Channel] = slices.Delete(q, i, i+1)
			}
		}
		c.marks = append(c.marks, m)
		c.rows++
	}
	for _, w := range waiting {
		c.marks = append(c.marks, chartMark{row: c.rows, lane: lane[w.id], text: "waits: " + w.For,
			detail: w.Text + " (" + shortPos(w.Pos) + ")", failed: true})
	}
	if len(waiting) > 0 {
		c.rows++
	}
	return c
}

// stepDetail is what a step did beyond its statement, one line per statement.
func stepDetail(st traceStep) string {
	lines := []string{fmt.Sprintf("%d %s %s", st.Step, st.Thread, shortPos(st.Pos))}
	if v := valuesText(st); v != "" {
		lines = append(lines, v)
	}
	for _, f := range st.Folded {
		line := f.Text
		if f.Branch != nil {
			line += fmt.Sprintf(" → %v", *f.Branch)
		}
		if v := valuesOf(f.Writes, f.Reads); v != "" {
			line += "  " + v
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// The SVG's geometry, in pixels.
const (
	mscLane     = 190 // width of a lifeline's column
	mscRow      = 30  // height of a step's row
	mscMargin   = 16
	mscTitle    = 44 // height of the title and violation lines
	mscHeader   = 56 // height of the lifelines' heads (process and thread names)
	mscStepCol  = 36 // the column of step numbers at the left
	mscLabelMax = 26 // characters of a mark's label before it is cut
)

// mscHalo draws a label over a white outline, so that it stays readable where
// an arrow crosses it.
const mscHalo = `stroke="white" stroke-width="3" paint-order="stroke"`

func (c *chart) laneX(lane int) int { return mscMargin + mscStepCol + lane*mscLane + mscLane/2 }
func (c *chart) rowY(row int) int   { return mscMargin + mscTitle + mscHeader + mscRow/2 + row*mscRow }

// size is the width and height of the drawing.
func (c *chart) size() (int, int) {
	// The last lane's labels run past its column.
	w := 2*mscMargin + mscStepCol + max(len(c.lifelines), 1)*mscLane + mscLane/2
	w = max(w, 2*mscMargin+8*max(len(c.title), len(c.violation)))
	return w, c.rowY(c.rows) + mscMargin
}

// writeMSC writes the chart as an SVG document.
func writeMSC(w io.Writer, c *chart) error {
	var b strings.Builder
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	width, height := c.size()
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="11">`+"\n",
		width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">` +
		`<path d="M 0 0 L 10 5 L 0 10 z" fill="#1f5fbf"/></marker></defs>` + "\n")
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", mscMargin, mscMargin+14, esc(c.title))
	if c.violation != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#b00000">%s</text>`+"\n", mscMargin, mscMargin+32, esc(c.violation))
	}
	top := mscMargin + mscTitle
	bottom := c.rowY(c.rows) - mscRow/2
	// Process instances: a band behind the heads of their threads.
	for i := 0; i < len(c.lifelines); {
		j := i
		for j < len(c.lifelines) && c.lifelines[j].process == c.lifelines[i].process {
			j++
		}
		if proc := c.lifelines[i].process; proc != "" {
			x := c.laneX(i) - mscLane/2 + 4
			fmt.Fprintf(&b, `<rect class="process" x="%d" y="%d" width="%d" height="%d" rx="4" fill="#eef2f8" stroke="#9aa8bf"/>`+"\n",
				x, top, (j-i)*mscLane-8, mscHeader-6)
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#44506a">process %s</text>`+"\n",
				x+((j-i)*mscLane-8)/2, top+14, esc(proc))
		}
		i = j
	}
	for i, ll := range c.lifelines {
		x := c.laneX(i)
		fmt.Fprintf(&b, `<g class="lifeline"><title>%s</title>`, esc(ll.name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="22" rx="3" fill="#fdfdf5" stroke="#333"/>`, x-mscLane/2+12, top+22, mscLane-24)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>`, x, top+37, esc(cut(ll.name, mscLabelMax)))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888" stroke-dasharray="4 3"/></g>`+"\n", x, top+44, x, bottom)
	}
	for row := range c.rows {
		if row%2 == 1 { // every other row shaded, so that a row's mark and number line up
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#000" fill-opacity="0.03"/>`+"\n",
				mscMargin, c.rowY(row)-mscRow/2, width-2*mscMargin, mscRow)
		}
	}
	for _, m := range c.messages {
		from := c.marks[m.from]
		x1, y1 := c.laneX(from.lane), c.rowY(from.row)
		label := m.fields + " on " + m.channel
		if m.to < 0 { // still in its channel: a short arrow that ends nowhere
			fmt.Fprintf(&b, `<g class="pending"><title>%s, never received</title><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#1f5fbf" stroke-dasharray="3 3" marker-end="url(#arrow)"/>`,
				esc(label), x1, y1, x1+mscLane/3, y1+mscRow/2)
			state := "in flight"
			if m.lost {
				state = "lost"
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#1f5fbf" %s>%s (%s)</text></g>`+"\n", x1+mscLane/3+4, y1+mscRow/2+4, mscHalo, esc(cut(label, mscLabelMax)), state)
			continue
		}
		to := c.marks[m.to]
		x2, y2 := c.laneX(to.lane), c.rowY(to.row)
		fmt.Fprintf(&b, `<g class="message"><title>%s: sent at step %d, received at step %d</title>`, esc(label), from.step, to.step)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#1f5fbf" stroke-width="1.5" marker-end="url(#arrow)"/>`, x1, y1, x2, y2)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#1f5fbf" %s>%s</text></g>`+"\n", (x1+x2)/2, (y1+y2)/2-4, mscHalo, esc(cut(label, mscLabelMax)))
	}
	for _, m := range c.marks {
		x, y := c.laneX(m.lane), c.rowY(m.row)
		class, fill, stroke := "step", "#fff", "#333"
		switch {
		case m.failed:
			class, fill, stroke = "failed", "#d62728", "#8b0000"
		case m.send || m.receive:
			fill, stroke = "#1f5fbf", "#1f5fbf"
		}
		fmt.Fprintf(&b, `<g class="%s"><title>%s</title>`, class, esc(m.detail))
		if m.step > 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#777">%d</text>`, mscMargin+mscStepCol-6, y+4, m.step)
		}
		if m.failed {
			fmt.Fprintf(&b, `<path d="M %d %d L %d %d M %d %d L %d %d" stroke="%s" stroke-width="3"/>`, x-6, y-6, x+6, y+6, x-6, y+6, x+6, y-6, fill)
		} else {
			fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="%s" stroke="%s"/>`, x, y, fill, stroke)
		}
		weight, color := "normal", "#222"
		if m.failed {
			weight, color = "bold", "#b00000"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="%s" fill="%s" %s>%s</text></g>`+"\n", x+9, y+4, weight, color, mscHalo, esc(cut(m.text, mscLabelMax)))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cut shortens s to at most n characters, ending it with "…" when cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeMermaid writes the chart as a Mermaid sequenceDiagram. Mermaid draws a
// message as one arrow at one point of time, so each arrow stands at its
// receive and names the step that sent it; a message still in flight at the
// end is a note at its send.
func writeMermaid(w io.Writer, c *chart) error {
	var b strings.Builder
	esc := func(s string) string {
		// Mermaid ends a message's text at ';' and reads '#' as an entity.
		return strings.NewReplacer("#", "#35;", ";", "#59;", "\n", " ").Replace(s)
	}
	b.WriteString("sequenceDiagram\n")
	fmt.Fprintf(&b, "    title %s\n", esc(c.title))
	for i, ll := range c.lifelines {
		fmt.Fprintf(&b, "    participant t%d as %s\n", i, esc(ll.name))
	}
	sentBy := map[int]int{}     // mark: message it sent
	receivedBy := map[int]int{} // mark: message it received
	for i, m := range c.messages {
		sentBy[m.from] = i
		if m.to >= 0 {
			receivedBy[m.to] = i
		}
	}
	for i, m := range c.marks {
		text := m.text
		if m.step > 0 {
			text = fmt.Sprintf("%d: %s", m.step, m.text)
		}
		k, received := receivedBy[i]
		if received {
			msg := c.messages[k]
			fmt.Fprintf(&b, "    t%d->>t%d: %s on %s (sent at %d, received at %d)\n",
				c.marks[msg.from].lane, m.lane, esc(msg.fields), esc(msg.channel), c.marks[msg.from].step, m.step)
		}
		switch k, sent := sentBy[i]; {
		case m.failed:
			fmt.Fprintf(&b, "    rect rgb(255, 220, 220)\n    Note over t%d: ✗ %s\n    end\n", m.lane, esc(text))
		case received || sent && c.messages[k].to >= 0:
			// Drawn as the message's arrow.
		case sent && c.messages[k].lost:
			fmt.Fprintf(&b, "    Note over t%d: %s (lost)\n", m.lane, esc(text))
		case sent:
			fmt.Fprintf(&b, "    Note over t%d: %s (never received)\n", m.lane, esc(text))
		default:
			fmt.Fprintf(&b, "    Note over t%d: %s\n", m.lane, esc(text))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
