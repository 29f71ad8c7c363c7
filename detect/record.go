package detect

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"kbmc/ir"
)

// A Recording is an execution of a kbmc program with processes, written in kbmc's
// computation format: `kbmc run --record` and `kbmc check --record` write one,
// and ReadJSON reads it back.
type Recording struct {
	Format    string            `json:"format"`
	Version   int               `json:"version"`
	Program   string            `json:"program,omitempty"`
	Processes []RecordedProcess `json:"processes"`
}

// A RecordedProcess is one process instance's history.
type RecordedProcess struct {
	Name    string          `json:"name"`
	Initial map[string]any  `json:"initial"`
	Events  []RecordedEvent `json:"events"`
}

// A RecordedEvent is one step of a thread of the process.
type RecordedEvent struct {
	Kind  string         `json:"kind"`
	Text  string         `json:"text"`
	Clock []int64        `json:"clock"`
	State map[string]any `json:"state"`
}

// Record turns an execution of p (a schedule from the initial state, as engines
// and simulations report them) into a computation: one history per process
// instance, each step an event of the process whose thread took it, with the
// process's memory after it and a vector clock that every event advances and a
// recv merges with the clock of the send whose message it takes (channels are
// FIFO, so the clocks travel in the same order as the messages). A program
// without processes is one process. The execution must replay.
func Record(p *ir.Program, moves []ir.Move) (*Recording, error) {
	run, err := p.Replay(moves)
	if err != nil {
		return nil, fmt.Errorf("record: the execution does not replay: %w", err)
	}
	n := p.NumProcesses()
	rec := &Recording{Format: jsonFormat, Version: 1, Program: p.File, Processes: make([]RecordedProcess, n)}
	for i := range n {
		rec.Processes[i] = RecordedProcess{Name: processName(p, i), Initial: memory(p, run.States[0], i),
			Events: []RecordedEvent{}}
	}
	clocks := make([][]int64, n)
	for i := range clocks {
		clocks[i] = make([]int64, n)
	}
	inFlight := make([][][]int64, p.NumChannels) // per channel: the clocks of its messages, oldest first
	for k, ev := range run.Events {
		proc := p.ProcessOf(ev.Thread)
		c := clocks[proc]
		c[proc]++
		n := p.Threads[ev.Thread].Template.Transitions[ev.From].EntryNode()
		kind := "local"
		// A lost message is nobody's receive; zeros from a closed channel
		// are nobody's message.
		if ev.Channel >= 0 && !ev.Lost && !ev.Closed {
			switch ev.ChannelOp { // a select's entry node is neither
			case ir.OpSend:
				kind = "send"
				if ev.Partner >= 0 {
					// A rendezvous: the receive is the same step, recorded
					// below as the receiver's process's event.
					break
				}
				inFlight[ev.Channel] = append(inFlight[ev.Channel], append([]int64(nil), c...))
			case ir.OpRecv:
				kind = "recv"
				q := inFlight[ev.Channel]
				for j, v := range q[0] {
					c[j] = max(c[j], v)
				}
				inFlight[ev.Channel] = q[1:]
			}
		}
		text := n.Text
		if name := p.Threads[ev.Thread].Name; name != rec.Processes[proc].Name {
			// the thread's name within its process: "run", not "node[0].run"
			text = strings.TrimPrefix(name, rec.Processes[proc].Name+".") + ": " + text
		}
		rec.Processes[proc].Events = append(rec.Processes[proc].Events, RecordedEvent{
			Kind: kind, Text: text, Clock: append([]int64(nil), c...), State: memory(p, run.States[k+1], proc)})
		if ev.Partner >= 0 {
			// The receiver's side of a rendezvous: its own event, which
			// knows everything the send knew. Within one process it is part
			// of the send's event.
			if q := p.ProcessOf(ev.Partner); q != proc {
				cq := clocks[q]
				cq[q]++
				for j, v := range c {
					cq[j] = max(cq[j], v)
				}
				rn := p.Threads[ev.Partner].Template.Transitions[ev.PartnerFrom].EntryNode()
				rec.Processes[q].Events = append(rec.Processes[q].Events, RecordedEvent{
					Kind: "recv", Text: rn.Text, Clock: append([]int64(nil), cq...), State: memory(p, run.States[k+1], q)})
			}
		}
	}
	return rec, nil
}

// processName is process i's name as predicates use it (an identifier, unlike
// ir.Program.ProcessName's "the program").
func processName(p *ir.Program, i int) string {
	if len(p.Processes) == 0 {
		return "program"
	}
	return p.Processes[i].Name
}

// memory is process i's memory in s, by the names its code uses ("leader", not
// "node[1].leader"); a program without processes has the shared variables.
func memory(p *ir.Program, s ir.State, i int) map[string]any {
	m := map[string]any{}
	for _, v := range p.Shared {
		if v.Process == nil && len(p.Processes) > 0 || v.Process != nil && v.Process.Index != i {
			continue
		}
		name := v.Name
		if v.Process != nil {
			name = strings.TrimPrefix(name, v.Process.Name+".")
		}
		val := func(c int64) any {
			if v.Type == ir.Bool {
				return c != 0
			}
			return c
		}
		if v.Len == 0 {
			m[name] = val(s[v.Offset])
			continue
		}
		arr := make([]any, v.Len)
		for j := range arr {
			arr[j] = val(s[v.Offset+j])
		}
		m[name] = arr
	}
	return m
}

// Write writes the recording as indented JSON.
func (r *Recording) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
