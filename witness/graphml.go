package witness

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// GraphML format 1.0: a witness automaton. kbmc writes a single path from the
// entry node to the violation node. Each step of the schedule is one edge
// (startline, threadId, enterFunction for a thread's first step); each value a
// step draws and each thread it creates follows on an edge of its own
// (assumption "\result == v;" with assumption.resultfunction, or
// createThread), with the same threadId. Read relies on that shape: an edge
// with createThread or an assumption continues the step before it, every
// other edge starts a step. The initial value of an uninitialized local, which
// no call returns, is an assumption "x == v;" on the edge of its declaration.
// For a data race the violation node is the state in which the two accesses
// race; the format has no way to name them (the YAML format's last segment
// does).

type gmlKey struct {
	ID      string `xml:"id,attr"`
	For     string `xml:"for,attr"`
	Name    string `xml:"attr.name,attr"`
	Type    string `xml:"attr.type,attr"`
	Default string `xml:"default,omitempty"`
}

type gmlData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

type gmlNode struct {
	ID   string    `xml:"id,attr"`
	Data []gmlData `xml:"data"`
}

type gmlEdge struct {
	Source string    `xml:"source,attr"`
	Target string    `xml:"target,attr"`
	Data   []gmlData `xml:"data"`
}

type gmlGraph struct {
	EdgeDefault string    `xml:"edgedefault,attr"`
	Data        []gmlData `xml:"data"`
	Nodes       []gmlNode `xml:"node"`
	Edges       []gmlEdge `xml:"edge"`
}

type gmlDoc struct {
	XMLName xml.Name `xml:"graphml"`
	XMLNS   string   `xml:"xmlns,attr"`
	XSI     string   `xml:"xmlns:xsi,attr"`
	Keys    []gmlKey `xml:"key"`
	Graph   gmlGraph `xml:"graph"`
}

// gmlKeys declares every key kbmc writes; kbmc-configuration is kbmc's own
// (the format lets tools add keys, which other tools ignore).
var gmlKeys = []gmlKey{
	{ID: "witness-format-version", For: "graph", Name: "witness-format-version", Type: "string"},
	{ID: "witness-type", For: "graph", Name: "witness-type", Type: "string"},
	{ID: "sourcecodelang", For: "graph", Name: "sourcecodelang", Type: "string"},
	{ID: "producer", For: "graph", Name: "producer", Type: "string"},
	{ID: "specification", For: "graph", Name: "specification", Type: "string"},
	{ID: "programfile", For: "graph", Name: "programfile", Type: "string"},
	{ID: "programhash", For: "graph", Name: "programhash", Type: "string"},
	{ID: "architecture", For: "graph", Name: "architecture", Type: "string"},
	{ID: "creationtime", For: "graph", Name: "creationtime", Type: "string"},
	{ID: "kbmc-configuration", For: "graph", Name: "kbmc-configuration", Type: "string"},
	{ID: "entry", For: "node", Name: "isEntryNode", Type: "boolean", Default: "false"},
	{ID: "violation", For: "node", Name: "isViolationNode", Type: "boolean", Default: "false"},
	{ID: "startline", For: "edge", Name: "startline", Type: "int"},
	{ID: "threadId", For: "edge", Name: "threadId", Type: "string"},
	{ID: "createThread", For: "edge", Name: "createThread", Type: "string"},
	{ID: "enterFunction", For: "edge", Name: "enterFunction", Type: "string"},
	{ID: "assumption", For: "edge", Name: "assumption", Type: "string"},
	{ID: "assumption.scope", For: "edge", Name: "assumption.scope", Type: "string"},
	{ID: "assumption.resultfunction", For: "edge", Name: "assumption.resultfunction", Type: "string"},
}

// WriteGraphML writes w in GraphML format 1.0.
func WriteGraphML(out io.Writer, w *Witness) error {
	d := gmlDoc{XMLNS: "http://graphml.graphdrawing.org/xmlns", XSI: "http://www.w3.org/2001/XMLSchema-instance", Keys: gmlKeys}
	g := &d.Graph
	g.EdgeDefault = "directed"
	g.Data = []gmlData{
		{"witness-format-version", "1.0"},
		{"witness-type", "violation_witness"},
		{"sourcecodelang", "C"},
		{"producer", w.Producer},
		{"specification", w.Specification},
		{"programfile", w.ProgramFile},
		{"programhash", w.ProgramHash},
		{"architecture", Architecture(w.DataModel)},
		{"creationtime", w.Created.UTC().Format(time.RFC3339)},
	}
	if w.Configuration != "" {
		g.Data = append(g.Data, gmlData{"kbmc-configuration", w.Configuration})
	}
	node := func(i int) string { return "N" + strconv.Itoa(i) }
	g.Nodes = append(g.Nodes, gmlNode{ID: node(0), Data: []gmlData{{"entry", "true"}}})
	edge := func(data ...gmlData) {
		n := len(g.Nodes)
		g.Nodes = append(g.Nodes, gmlNode{ID: node(n)})
		g.Edges = append(g.Edges, gmlEdge{Source: node(n - 1), Target: node(n), Data: data})
	}
	for _, st := range w.Steps {
		tid := strconv.Itoa(st.Thread)
		data := []gmlData{{"startline", strconv.Itoa(st.At.Line)}, {"threadId", tid}}
		if st.Enter != "" {
			data = append(data, gmlData{"enterFunction", st.Enter})
		}
		edge(data...)
		for _, m := range st.Marks {
			line := gmlData{"startline", strconv.Itoa(m.At.Line)}
			if m.Draw && m.Variable != "" {
				edge(line, gmlData{"threadId", tid}, gmlData{"assumption", fmt.Sprintf("%s == %d;", m.Variable, m.Value)})
			} else if m.Draw {
				edge(line, gmlData{"threadId", tid},
					gmlData{"assumption", fmt.Sprintf(`\result == %d;`, m.Value)},
					gmlData{"assumption.resultfunction", m.Function})
			} else {
				edge(line, gmlData{"threadId", tid}, gmlData{"createThread", strconv.Itoa(m.Create)})
			}
		}
	}
	last := &g.Nodes[len(g.Nodes)-1]
	last.Data = append(last.Data, gmlData{"violation", "true"})
	if _, err := io.WriteString(out, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(out)
	enc.Indent("", " ")
	if err := enc.Encode(d); err != nil {
		return err
	}
	_, err := io.WriteString(out, "\n")
	return err
}

// resultAssumption is the assumption kbmc writes for a drawn value: the
// value a nondet call returns, or an uninitialized local holds.
var resultAssumption = regexp.MustCompile(`^\s*(\\result|[A-Za-z_][A-Za-z0-9_]*)\s*==\s*(-?[0-9]+)\s*;?\s*$`)

// readGraphML parses a GraphML witness with a single path from its entry node
// to its violation node, as kbmc writes them.
func readGraphML(data []byte) (*Witness, error) {
	var d gmlDoc
	if err := xml.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("GraphML: %w", err)
	}
	g := d.Graph
	// Keys map ids to names: a witness may use ids of its own.
	name := map[string]string{}
	for _, k := range d.Keys {
		name[k.ID] = k.Name
	}
	get := func(data []gmlData, key string) (string, bool) {
		for _, x := range data {
			if x.Key == key || name[x.Key] == key {
				return strings.TrimSpace(x.Value), true
			}
		}
		return "", false
	}
	w := &Witness{}
	if t, _ := get(g.Data, "witness-type"); t != "violation_witness" {
		return nil, fmt.Errorf("GraphML: witness-type %q, want violation_witness", t)
	}
	w.Producer, _ = get(g.Data, "producer")
	w.Specification, _ = get(g.Data, "specification")
	w.ProgramFile, _ = get(g.Data, "programfile")
	w.ProgramHash, _ = get(g.Data, "programhash")
	w.Configuration, _ = get(g.Data, "kbmc-configuration")
	w.DataModel = "ILP32"
	if a, _ := get(g.Data, "architecture"); a == "64bit" {
		w.DataModel = "LP64"
	}
	if s, ok := get(g.Data, "creationtime"); ok {
		w.Created, _ = time.Parse(time.RFC3339, s)
	}
	// Follow the path from the entry node.
	var entry, violation string
	for _, n := range g.Nodes {
		if v, _ := get(n.Data, "isEntryNode"); v == "true" {
			if entry != "" {
				return nil, fmt.Errorf("GraphML: two entry nodes, %s and %s", entry, n.ID)
			}
			entry = n.ID
		}
		if v, _ := get(n.Data, "isViolationNode"); v == "true" {
			if violation != "" {
				return nil, fmt.Errorf("GraphML: two violation nodes, %s and %s: kbmc replays a witness with one path", violation, n.ID)
			}
			violation = n.ID
		}
	}
	if entry == "" || violation == "" {
		return nil, fmt.Errorf("GraphML: no entry node or no violation node")
	}
	out := map[string]int{}
	for i, e := range g.Edges {
		if _, dup := out[e.Source]; dup {
			return nil, fmt.Errorf("GraphML: node %s has two outgoing edges: kbmc replays a witness with one path", e.Source)
		}
		out[e.Source] = i
	}
	for at, n := entry, 0; at != violation; n++ {
		i, ok := out[at]
		if !ok {
			return nil, fmt.Errorf("GraphML: the path from the entry node ends at %s, not at the violation node", at)
		}
		if n > len(g.Edges) {
			return nil, fmt.Errorf("GraphML: the path from the entry node has a cycle")
		}
		e := g.Edges[i]
		at = e.Target
		if err := w.addEdge(e.Data, get); err != nil {
			return nil, fmt.Errorf("GraphML: edge %d (%s -> %s): %w", i+1, e.Source, e.Target, err)
		}
	}
	if len(w.Steps) == 0 {
		return nil, fmt.Errorf("GraphML: the path to the violation node has no steps")
	}
	last := w.Steps[len(w.Steps)-1]
	w.Targets = []Target{{At: last.At, Thread: last.Thread}}
	return w, nil
}

// addEdge adds one edge of the path: a step, or a value or a creation of the
// step before it.
func (w *Witness) addEdge(data []gmlData, get func([]gmlData, string) (string, bool)) error {
	tidText, ok := get(data, "threadId")
	if !ok {
		return fmt.Errorf("no threadId: kbmc replays a witness whose every edge names its thread")
	}
	tid, err := strconv.Atoi(tidText)
	if err != nil {
		return fmt.Errorf("threadId %q is not a thread number", tidText)
	}
	line := 0
	if s, ok := get(data, "startline"); ok {
		if line, err = strconv.Atoi(s); err != nil {
			return fmt.Errorf("startline %q is not a line number", s)
		}
	}
	fn, _ := get(data, "assumption.resultfunction")
	_, isResult := get(data, "assumption")
	created, isCreate := get(data, "createThread")
	if !isResult && !isCreate {
		st := Step{Thread: tid, At: Location{Line: line}}
		st.Enter, _ = get(data, "enterFunction")
		st.At.Function = st.Enter
		w.Steps = append(w.Steps, st)
		return nil
	}
	if len(w.Steps) == 0 || w.Steps[len(w.Steps)-1].Thread != tid {
		return fmt.Errorf("threadId %d: a value or a creation belongs to the step before it, of the same thread", tid)
	}
	st := &w.Steps[len(w.Steps)-1]
	m := Mark{At: Location{Line: line}}
	if isResult {
		a, _ := get(data, "assumption")
		sub := resultAssumption.FindStringSubmatch(a)
		if sub == nil || (sub[1] == `\result`) != (fn != "") {
			return fmt.Errorf(`assumption %q: want "\result == VALUE;" with assumption.resultfunction, or "LOCAL == VALUE;"`, a)
		}
		if m.Value, err = strconv.ParseInt(sub[2], 10, 64); err != nil {
			return fmt.Errorf("assumption %q: %v", a, err)
		}
		m.Draw, m.Function = true, fn
		if fn == "" {
			m.Variable = sub[1]
		}
	} else if m.Create, err = strconv.Atoi(created); err != nil {
		return fmt.Errorf("createThread %q is not a thread number", created)
	}
	st.Marks = append(st.Marks, m)
	return nil
}
