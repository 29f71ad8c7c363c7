package witness

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// YAML format 2.x: a list with one violation_sequence entry, whose content is
// a list of segments, each of one follow waypoint (kbmc's witnesses avoid
// nothing). A step of the schedule is an assumption waypoint "1" at the
// statement the step starts with, or, for a created thread's first step, a
// function_enter waypoint of its start routine; each value it draws follows
// as a function_return waypoint "\result == v" (ACSL) at the nondet call, or,
// for an uninitialized local, an assumption "x == v" at the statement after
// its declaration; the
// violation is the final segment's target waypoint. For a data race that
// segment holds two target waypoints, the racing accesses, one per thread:
// no format for race witnesses is agreed on, and this is the shape the
// validators that take them read (docs/decisions.md, "Violation witnesses").
// Every waypoint names its thread in thread_id, which format 2.2 adds for
// concurrent programs; version 2.0 has no thread information.
//
// FormatVersion is the version kbmc writes.
const FormatVersion = "2.2"

type yamlEntry struct {
	EntryType string       `yaml:"entry_type"`
	Metadata  yamlMetadata `yaml:"metadata"`
	Content   []yamlSeg    `yaml:"content"`
}

type yamlMetadata struct {
	FormatVersion string       `yaml:"format_version"`
	UUID          string       `yaml:"uuid"`
	CreationTime  string       `yaml:"creation_time"`
	Producer      yamlProducer `yaml:"producer"`
	Task          yamlTask     `yaml:"task"`
}

type yamlProducer struct {
	Name          string `yaml:"name"`
	Version       string `yaml:"version,omitempty"`
	Configuration string `yaml:"configuration,omitempty"`
}

type yamlTask struct {
	InputFiles      []string          `yaml:"input_files"`
	InputFileHashes map[string]string `yaml:"input_file_hashes"`
	Specification   string            `yaml:"specification"`
	DataModel       string            `yaml:"data_model"`
	Language        string            `yaml:"language"`
}

type yamlSeg struct {
	Segment []yamlWaypointItem `yaml:"segment"`
}

type yamlWaypointItem struct {
	Waypoint yamlWaypoint `yaml:"waypoint"`
}

type yamlWaypoint struct {
	Type       string          `yaml:"type"`
	Action     string          `yaml:"action"`
	Location   yamlLocation    `yaml:"location"`
	Constraint *yamlConstraint `yaml:"constraint,omitempty"`
	ThreadID   *int            `yaml:"thread_id,omitempty"`
}

type yamlLocation struct {
	FileName string `yaml:"file_name"`
	Line     int    `yaml:"line"`
	Column   int    `yaml:"column,omitempty"`
	Function string `yaml:"function,omitempty"`
}

type yamlConstraint struct {
	Value  string `yaml:"value"`
	Format string `yaml:"format,omitempty"`
}

// WriteYAML writes w in YAML format 2.2.
func WriteYAML(out io.Writer, w *Witness) error {
	name, version, _ := strings.Cut(w.Producer, " ")
	e := yamlEntry{EntryType: "violation_sequence", Metadata: yamlMetadata{
		FormatVersion: FormatVersion, UUID: w.UUID, CreationTime: w.Created.UTC().Format(time.RFC3339),
		Producer: yamlProducer{Name: name, Version: version, Configuration: w.Configuration},
		Task: yamlTask{InputFiles: []string{w.ProgramFile}, InputFileHashes: map[string]string{w.ProgramFile: w.ProgramHash},
			Specification: w.Specification, DataModel: strings.ToUpper(w.DataModel), Language: "C"},
	}}
	loc := func(l Location) yamlLocation {
		return yamlLocation{FileName: w.ProgramFile, Line: l.Line, Column: l.Column, Function: l.Function}
	}
	add := func(wp yamlWaypoint, thread int) {
		wp.Action, wp.ThreadID = "follow", &thread
		e.Content = append(e.Content, yamlSeg{Segment: []yamlWaypointItem{{wp}}})
	}
	for _, st := range w.Steps {
		if st.Enter != "" {
			add(yamlWaypoint{Type: "function_enter", Location: loc(st.At)}, st.Thread)
		} else {
			add(yamlWaypoint{Type: "assumption", Location: loc(st.At), Constraint: &yamlConstraint{Value: "1", Format: "c_expression"}}, st.Thread)
		}
		for _, m := range st.Marks {
			if m.Draw && m.Variable != "" {
				add(yamlWaypoint{Type: "assumption", Location: loc(m.Next),
					Constraint: &yamlConstraint{Value: fmt.Sprintf("%s == %d", m.Variable, m.Value), Format: "c_expression"}}, st.Thread)
			} else if m.Draw {
				add(yamlWaypoint{Type: "function_return", Location: loc(m.At),
					Constraint: &yamlConstraint{Value: fmt.Sprintf(`\result == %d`, m.Value), Format: "acsl_expression"}}, st.Thread)
			}
		}
	}
	var last []yamlWaypointItem
	for _, t := range w.Targets {
		thread := t.Thread
		last = append(last, yamlWaypointItem{yamlWaypoint{Type: "target", Action: "follow", Location: loc(t.At), ThreadID: &thread}})
	}
	e.Content = append(e.Content, yamlSeg{Segment: last})
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode([]yamlEntry{e}); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := out.Write(buf.Bytes())
	return err
}

// readYAML parses a YAML violation witness of one violation_sequence entry
// whose waypoints all say follow, as kbmc writes them.
func readYAML(data []byte) (*Witness, error) {
	var entries []yamlEntry
	if err := yaml.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("YAML: %w", err)
	}
	if len(entries) != 1 {
		return nil, fmt.Errorf("YAML: %d entries, kbmc replays a witness of one violation_sequence", len(entries))
	}
	e := entries[0]
	if e.EntryType != "violation_sequence" {
		return nil, fmt.Errorf("YAML: entry_type %q, want violation_sequence", e.EntryType)
	}
	md := e.Metadata
	if !strings.HasPrefix(md.FormatVersion, "2.") {
		return nil, fmt.Errorf("YAML: format_version %q, want 2.x", md.FormatVersion)
	}
	t := md.Task
	if len(t.InputFiles) != 1 {
		return nil, fmt.Errorf("YAML: %d input_files, kbmc reads one", len(t.InputFiles))
	}
	w := &Witness{ProgramFile: t.InputFiles[0], ProgramHash: t.InputFileHashes[t.InputFiles[0]],
		Specification: t.Specification, DataModel: t.DataModel, UUID: md.UUID,
		Producer: strings.TrimSpace(md.Producer.Name + " " + md.Producer.Version), Configuration: md.Producer.Configuration}
	w.Created, _ = time.Parse(time.RFC3339, md.CreationTime)
	target := false
	for i, seg := range e.Content {
		if target {
			return nil, fmt.Errorf("YAML: segment %d follows the target waypoint", i+1)
		}
		if len(seg.Segment) == 0 {
			return nil, fmt.Errorf("YAML: segment %d has no waypoints", i+1)
		}
		if len(seg.Segment) > 1 {
			// A race's two accesses: a final segment of target waypoints.
			for _, item := range seg.Segment {
				wp := item.Waypoint
				if wp.Type != "target" || wp.Action != "follow" || wp.ThreadID == nil {
					return nil, fmt.Errorf("YAML: segment %d has %d waypoints: kbmc replays segments of one follow waypoint, and a last segment of target waypoints that name their threads", i+1, len(seg.Segment))
				}
				w.Targets = append(w.Targets, Target{At: Location{Line: wp.Location.Line, Column: wp.Location.Column, Function: wp.Location.Function}, Thread: *wp.ThreadID})
			}
			target = true
			continue
		}
		wp := seg.Segment[0].Waypoint
		if wp.Action != "follow" {
			return nil, fmt.Errorf("YAML: segment %d: action %q: kbmc replays follow waypoints", i+1, wp.Action)
		}
		if wp.ThreadID == nil {
			return nil, fmt.Errorf("YAML: segment %d: no thread_id: kbmc replays a witness whose every waypoint names its thread", i+1)
		}
		tid := *wp.ThreadID
		l := Location{Line: wp.Location.Line, Column: wp.Location.Column, Function: wp.Location.Function}
		uninit := wp.Type == "assumption" && wp.Constraint != nil && strings.TrimSpace(wp.Constraint.Value) != "1"
		switch {
		case uninit:
			if len(w.Steps) == 0 || w.Steps[len(w.Steps)-1].Thread != tid {
				return nil, fmt.Errorf("YAML: segment %d: a local's value belongs to the step before it, of the same thread", i+1)
			}
			sub := resultAssumption.FindStringSubmatch(wp.Constraint.Value)
			if sub == nil || sub[1] == `\result` {
				return nil, fmt.Errorf(`YAML: segment %d: constraint %q: want "1" or "LOCAL == VALUE"`, i+1, wp.Constraint.Value)
			}
			var v int64
			if _, err := fmt.Sscan(sub[2], &v); err != nil {
				return nil, fmt.Errorf("YAML: segment %d: constraint %q: %v", i+1, wp.Constraint.Value, err)
			}
			st := &w.Steps[len(w.Steps)-1]
			st.Marks = append(st.Marks, Mark{Next: l, Draw: true, Variable: sub[1], Value: v})
		case wp.Type == "assumption", wp.Type == "function_enter":
			st := Step{Thread: tid, At: l}
			if wp.Type == "function_enter" {
				st.Enter = l.Function
			}
			w.Steps = append(w.Steps, st)
		case wp.Type == "function_return":
			if len(w.Steps) == 0 || w.Steps[len(w.Steps)-1].Thread != tid {
				return nil, fmt.Errorf("YAML: segment %d: a function_return belongs to the step before it, of the same thread", i+1)
			}
			if wp.Constraint == nil {
				return nil, fmt.Errorf(`YAML: segment %d: function_return without a constraint "\result == VALUE"`, i+1)
			}
			sub := resultAssumption.FindStringSubmatch(wp.Constraint.Value)
			if sub == nil || sub[1] != `\result` {
				return nil, fmt.Errorf(`YAML: segment %d: constraint %q: want "\result == VALUE"`, i+1, wp.Constraint.Value)
			}
			var v int64
			if _, err := fmt.Sscan(sub[2], &v); err != nil {
				return nil, fmt.Errorf("YAML: segment %d: constraint %q: %v", i+1, wp.Constraint.Value, err)
			}
			st := &w.Steps[len(w.Steps)-1]
			st.Marks = append(st.Marks, Mark{At: l, Draw: true, Value: v})
		case wp.Type == "target":
			target = true
			w.Targets = append(w.Targets, Target{At: l, Thread: tid})
		default:
			return nil, fmt.Errorf("YAML: segment %d: waypoint type %q: kbmc replays assumption, function_enter, function_return and target waypoints", i+1, wp.Type)
		}
	}
	if !target {
		return nil, fmt.Errorf("YAML: no target waypoint")
	}
	if len(w.Steps) == 0 {
		return nil, fmt.Errorf("YAML: no steps before the target waypoint")
	}
	return w, nil
}

// Format is a witness format: "graphml" or "yaml".
type Format string

const (
	GraphML Format = "graphml"
	YAML    Format = "yaml"
)

// FormatOf is the format a file name's extension says: .graphml, or .yml and
// .yaml.
func FormatOf(path string) (Format, bool) {
	switch p := strings.ToLower(path); {
	case strings.HasSuffix(p, ".graphml"):
		return GraphML, true
	case strings.HasSuffix(p, ".yml"), strings.HasSuffix(p, ".yaml"):
		return YAML, true
	}
	return "", false
}

// Write writes w in format f.
func Write(out io.Writer, f Format, w *Witness) error {
	if f == GraphML {
		return WriteGraphML(out, w)
	}
	return WriteYAML(out, w)
}

// Read parses a violation witness in either format: GraphML if it starts
// with an XML element, YAML otherwise.
func Read(data []byte) (*Witness, error) {
	if t := bytes.TrimSpace(data); bytes.HasPrefix(t, []byte("<")) {
		return readGraphML(data)
	}
	return readYAML(data)
}
