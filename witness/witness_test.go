package witness

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"kbmc/cfront"
	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/verify"
)

// A reader that creates a writer, which draws a value with a nondet call; the
// bug needs the writer to draw 7 and to run before main's check.
const drawSrc = `extern void reach_error(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int x;
void *w(void *a) { x = __VERIFIER_nondet_uchar(); return 0; }
int main(void) {
    unsigned long t;
    pthread_create(&t, 0, w, 0);
    if (x == 7) reach_error();
    return 0;
}
`

// counterexample compiles src and finds a violation with the stateless dfs,
// the reference search.
func counterexample(t *testing.T, src string) (*ir.Program, *ir.Run, *ir.Violation) {
	return counterexampleOf(t, src, ir.ReachError)
}

// counterexampleOf is counterexample under the property kind.
func counterexampleOf(t *testing.T, src string, kind ir.ViolationKind) (*ir.Program, *ir.Run, *ir.Violation) {
	t.Helper()
	p, err := cfront.Compile("prog.i", []byte(src), cfront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p.SelectProperty(kind)
	eng, err := explicit.New("dfs", explicit.Options{Options: verify.Options{Depth: 100, NoDeadlock: true}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Check(context.Background(), p)
	if err != nil || res.Verdict != verify.Unsafe {
		t.Fatalf("dfs: %v, %v", res, err)
	}
	run, v, err := p.Confirm(res.Trace, res.Violation.Kind)
	if err != nil {
		t.Fatal(err)
	}
	return p, run, v
}

// moves is a run's schedule.
func moves(run *ir.Run) []ir.Move {
	var ms []ir.Move
	for _, ev := range run.Events {
		mv := ir.Move{Thread: ev.Thread}
		for _, c := range ev.Choices {
			mv.Choices = append(mv.Choices, c.Value)
		}
		ms = append(ms, mv)
	}
	return ms
}

func sample(t *testing.T, src string) (*ir.Program, *Witness) {
	t.Helper()
	return sampleOf(t, src, ir.ReachError)
}

// sampleOf is sample under the property kind.
func sampleOf(t *testing.T, src string, kind ir.ViolationKind) (*ir.Program, *Witness) {
	t.Helper()
	p, run, v := counterexampleOf(t, src, kind)
	path, err := Build(p, moves(run))
	if err != nil || path.Violation.Kind != v.Kind {
		t.Fatal(err, path)
	}
	spec, _ := Specification(v.Kind)
	return p, &Witness{ProgramFile: "prog.i", ProgramHash: Hash([]byte(src)), Specification: spec, DataModel: "ILP32",
		Producer: "kbmc test", Configuration: "--pool 3", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		UUID: NewUUID(), Steps: path.Steps, Targets: path.Targets}
}

// TestBuild checks what a witness records of a counterexample: the creation
// of the writer on main's step, the writer entering w, the value 7 its nondet
// call returns.
func TestBuild(t *testing.T) {
	_, w := sample(t, drawSrc)
	var creates, enters, draws []string
	for _, st := range w.Steps {
		if st.Enter != "" {
			enters = append(enters, st.Enter)
		}
		for _, m := range st.Marks {
			if m.Draw {
				draws = append(draws, m.Function+"="+strconv.FormatInt(m.Value, 10))
			} else {
				creates = append(creates, strconv.Itoa(m.Create))
			}
		}
	}
	if strings.Join(creates, ",") != "1" || strings.Join(enters, ",") != "w" || strings.Join(draws, ",") != "__VERIFIER_nondet_uchar=7" {
		t.Errorf("creates %v, enters %v, draws %v", creates, enters, draws)
	}
	// The value is returned at the call's closing parenthesis.
	for _, st := range w.Steps {
		for _, m := range st.Marks {
			if m.Draw && (m.At.Line != 5 || m.At.Column != strings.Index(strings.Split(drawSrc, "\n")[4], "();")+2) {
				t.Errorf("draw at %d:%d", m.At.Line, m.At.Column)
			}
		}
	}
}

// TestRoundTrip writes a witness in both formats, checks their structure as
// a validator reads it (encoding/xml, the YAML library), reads each back and
// replays its schedule: the violation recurs.
func TestRoundTrip(t *testing.T) {
	p, w := sample(t, drawSrc)
	for _, f := range []Format{GraphML, YAML} {
		var buf bytes.Buffer
		if err := Write(&buf, f, w); err != nil {
			t.Fatal(err)
		}
		switch f {
		case GraphML:
			checkGraphML(t, buf.Bytes())
		case YAML:
			checkYAML(t, buf.Bytes())
		}
		back, err := Read(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s", f, err, buf.String())
		}
		if back.ProgramHash != w.ProgramHash || back.Specification != w.Specification || back.Configuration != w.Configuration || back.DataModel != "ILP32" {
			t.Errorf("%s: read back %+v", f, back)
		}
		moves, err := back.Schedule(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, v, err := p.Confirm(moves, ir.ReachError); err != nil || v == nil {
			t.Errorf("%s: the schedule read back does not replay: %v", f, err)
		}
	}
}

// checkGraphML checks a GraphML witness as a validator reads it.
func checkGraphML(t *testing.T, data []byte) {
	t.Helper()
	var doc struct {
		Keys []struct {
			ID   string `xml:"id,attr"`
			For  string `xml:"for,attr"`
			Name string `xml:"attr.name,attr"`
		} `xml:"key"`
		Graph struct {
			Data []struct {
				Key   string `xml:"key,attr"`
				Value string `xml:",chardata"`
			} `xml:"data"`
			Nodes []struct {
				ID   string `xml:"id,attr"`
				Data []struct {
					Key   string `xml:"key,attr"`
					Value string `xml:",chardata"`
				} `xml:"data"`
			} `xml:"node"`
			Edges []struct {
				Source string `xml:"source,attr"`
				Target string `xml:"target,attr"`
				Data   []struct {
					Key   string `xml:"key,attr"`
					Value string `xml:",chardata"`
				} `xml:"data"`
			} `xml:"edge"`
		} `xml:"graph"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, k := range doc.Keys {
		declared[k.ID] = true
	}
	graph := map[string]string{}
	for _, d := range doc.Graph.Data {
		graph[d.Key] = d.Value
	}
	for key, want := range map[string]string{"witness-type": "violation_witness", "sourcecodelang": "C", "architecture": "32bit",
		"specification": "CHECK( init(main()), LTL(G ! call(reach_error())) )", "producer": "kbmc test"} {
		if graph[key] != want {
			t.Errorf("graph data %s = %q, want %q", key, graph[key], want)
		}
	}
	if len(graph["programhash"]) != 64 || graph["programfile"] != "prog.i" || graph["creationtime"] != "2026-01-02T03:04:05Z" {
		t.Errorf("graph data %v", graph)
	}
	entries, violations := 0, 0
	for _, n := range doc.Graph.Nodes {
		for _, d := range n.Data {
			entries += b2i(d.Key == "entry" && d.Value == "true")
			violations += b2i(d.Key == "violation" && d.Value == "true")
		}
	}
	if entries != 1 || violations != 1 || len(doc.Graph.Edges) != len(doc.Graph.Nodes)-1 {
		t.Errorf("%d entry nodes, %d violation nodes, %d nodes, %d edges", entries, violations, len(doc.Graph.Nodes), len(doc.Graph.Edges))
	}
	var seen []string
	for _, e := range doc.Graph.Edges {
		keys := map[string]string{}
		for _, d := range e.Data {
			if !declared[d.Key] {
				t.Errorf("edge uses undeclared key %s", d.Key)
			}
			keys[d.Key] = d.Value
		}
		if keys["startline"] == "" || keys["threadId"] == "" {
			t.Errorf("edge %s->%s without startline or threadId: %v", e.Source, e.Target, keys)
		}
		for _, k := range []string{"createThread", "enterFunction", "assumption"} {
			if v, ok := keys[k]; ok {
				seen = append(seen, k+"="+v)
			}
		}
		if _, ok := keys["assumption"]; ok && keys["assumption.resultfunction"] != "__VERIFIER_nondet_uchar" {
			t.Errorf("assumption without its result function: %v", keys)
		}
	}
	if got := strings.Join(seen, " "); got != `createThread=1 enterFunction=w assumption=\result == 7;` {
		t.Errorf("edges carry %s", got)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkYAML checks a YAML witness as a validator reads it.
func checkYAML(t *testing.T, data []byte) {
	t.Helper()
	var doc []map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 1 || doc[0]["entry_type"] != "violation_sequence" {
		t.Fatalf("entries %v", doc)
	}
	md := doc[0]["metadata"].(map[string]any)
	task := md["task"].(map[string]any)
	if md["format_version"] != FormatVersion || md["uuid"] == "" || md["creation_time"] != "2026-01-02T03:04:05Z" ||
		task["data_model"] != "ILP32" || task["language"] != "C" || task["specification"] == "" {
		t.Errorf("metadata %v", md)
	}
	if hashes := task["input_file_hashes"].(map[string]any); len(hashes["prog.i"].(string)) != 64 {
		t.Errorf("input_file_hashes %v", hashes)
	}
	var types []string
	content := doc[0]["content"].([]any)
	for _, seg := range content {
		wps := seg.(map[string]any)["segment"].([]any)
		if len(wps) != 1 {
			t.Fatalf("segment of %d waypoints", len(wps))
		}
		wp := wps[0].(map[string]any)["waypoint"].(map[string]any)
		loc := wp["location"].(map[string]any)
		if wp["action"] != "follow" || loc["file_name"] != "prog.i" || loc["line"].(int) < 1 {
			t.Errorf("waypoint %v", wp)
		}
		if _, ok := wp["thread_id"].(int); !ok {
			t.Errorf("waypoint without thread_id: %v", wp)
		}
		ty := wp["type"].(string)
		if ty == "function_return" {
			c := wp["constraint"].(map[string]any)
			ty += "(" + c["value"].(string) + " " + c["format"].(string) + ")"
		}
		if ty == "function_enter" {
			ty += "(" + loc["function"].(string) + ")"
		}
		types = append(types, ty)
	}
	got := strings.Join(types, " ")
	if !strings.Contains(got, `function_enter(w) function_return(\result == 7 acsl_expression)`) || !strings.HasSuffix(got, "target") {
		t.Errorf("waypoints %s", got)
	}
}

// TestUninitialized: the value of an uninitialized local, which no call
// returns, is an assumption on the local: it reads back and replays.
func TestUninitialized(t *testing.T) {
	src := `extern void reach_error(void);
int main(void) {
    unsigned char c;
    if (c == 3) reach_error();
    return 0;
}
`
	p, w := sample(t, src)
	var buf bytes.Buffer
	for _, f := range []Format{GraphML, YAML} {
		buf.Reset()
		if err := Write(&buf, f, w); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "c == 3") {
			t.Errorf("%s: no assumption c == 3:\n%s", f, buf.String())
		}
		back, err := Read(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		moves, err := back.Schedule(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.Confirm(moves, ir.ReachError); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestInexpressible: a counterexample without a violation has no witness.
func TestInexpressible(t *testing.T) {
	p, run, _ := counterexample(t, drawSrc)
	ms := moves(run)
	if _, err := Build(p, ms[:len(ms)-1]); !errors.Is(err, ErrInexpressible) {
		t.Errorf("Build: %v, want ErrInexpressible", err)
	}
}

// TestMalformed: witnesses kbmc cannot replay are refused with a reason.
func TestMalformed(t *testing.T) {
	_, w := sample(t, drawSrc)
	var g, y bytes.Buffer
	if err := WriteGraphML(&g, w); err != nil {
		t.Fatal(err)
	}
	if err := WriteYAML(&y, w); err != nil {
		t.Fatal(err)
	}
	gml, yml := g.String(), y.String()
	for _, c := range []struct{ name, text, want string }{
		{"not XML", "<graphml><graph>", "GraphML"},
		{"correctness witness", strings.Replace(gml, "violation_witness", "correctness_witness", 1), "witness-type"},
		{"no violation node", strings.Replace(gml, `<data key="violation">true</data>`, "", 1), "no entry node or no violation node"},
		{"bad thread", strings.Replace(gml, `<data key="threadId">0</data>`, `<data key="threadId">main</data>`, 1), "not a thread number"},
		{"no thread", strings.Replace(gml, `<data key="threadId">0</data>`, "", 1), "no threadId"},
		{"bad assumption", strings.Replace(gml, `\result == 7;`, `x == 7;`, 1), "want"},
		{"bad value", strings.Replace(gml, `\result == 7;`, `\result == 99999999999999999999;`, 1), "out of range"},
		{"branching path", strings.Replace(gml, `source="N1"`, `source="N0"`, 1), "two outgoing edges"},
		{"not YAML", "- [", "YAML"},
		{"two entries", yml + strings.Replace(yml, "- entry_type", "- entry_type", 1), "2 entries"},
		{"wrong entry type", strings.Replace(yml, "violation_sequence", "invariant_set", 1), "entry_type"},
		{"format 1.0", strings.Replace(yml, `format_version: "2.2"`, `format_version: "1.0"`, 1), "format_version"},
		{"avoid", strings.Replace(yml, "action: follow", "action: avoid", 1), "follow"},
		{"no thread_id", strings.Replace(yml, "\n            thread_id: 0", "", 1), "thread_id"},
		{"no target", yml[:strings.LastIndex(yml, "    - segment:")], "no target"},
		{"bad constraint", strings.Replace(yml, `\result == 7`, `\result > 7`, 1), "want"},
		{"branching waypoint", strings.Replace(yml, "type: assumption", "type: branching", 1), "waypoint type"},
		{"two waypoints", strings.Replace(yml, "    - segment:\n        - waypoint:\n            type: function_return",
			"    - segment:\n        - waypoint:\n            type: target\n            action: follow\n            location: {file_name: prog.i, line: 2}\n            thread_id: 0\n        - waypoint:\n            type: function_return", 1), "segments of one follow waypoint"},
	} {
		if _, err := Read([]byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// FuzzRead: whatever the bytes, Read returns a witness or an error, never
// panics, and a witness it returns has steps.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0"?><graphml><key id="t" for="graph" attr.name="witness-type"/><graph><data key="t">violation_witness</data>` +
			`<node id="a"><data key="entry">true</data></node><node id="b"><data key="violation">true</data></node>` +
			`<edge source="a" target="b"><data key="threadId">0</data><data key="startline">3</data></edge></graph></graphml>`,
		"- entry_type: violation_sequence\n  metadata: {format_version: '2.2', task: {input_files: [p.c]}}\n  content:\n" +
			"    - segment: [{waypoint: {type: assumption, action: follow, location: {file_name: p.c, line: 2}, thread_id: 0, constraint: {value: '1'}}}]\n" +
			"    - segment: [{waypoint: {type: function_return, action: follow, location: {file_name: p.c, line: 2}, thread_id: 0, constraint: {value: '\\result == -3'}}}]\n" +
			"    - segment: [{waypoint: {type: target, action: follow, location: {file_name: p.c, line: 4}, thread_id: 0}}]\n",
		"",
		"<",
		"- entry_type: violation_sequence",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Read(data)
		if err == nil && len(w.Steps) == 0 {
			t.Errorf("a witness without steps was accepted")
		}
	})
}

// raceSrc: main and the thread it creates both write x without a lock; the
// race is between the writer's write on line 5 and main's on line 8.
const raceSrc = `int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int x;
void *w(void *a) {
    int y = 1;
    x = y;
    return 0;
}
int main(void) { unsigned long t; pthread_create(&t, 0, w, 0); x = 2; return 0; }
`

// overflowSrc: a thread's signed addition overflows when the value drawn is
// above 47.
const overflowSrc = `extern unsigned char __VERIFIER_nondet_uchar(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int x;
void *w(void *a) { int v = __VERIFIER_nondet_uchar(); x = 2147483600 + v; return 0; }
int main(void) { unsigned long t; pthread_create(&t, 0, w, 0); return 0; }
`

// readBack writes w in format f and reads it back.
func readBack(t *testing.T, f Format, w *Witness) *Witness {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f, w); err != nil {
		t.Fatal(err)
	}
	back, err := Read(buf.Bytes())
	if err != nil {
		t.Fatalf("%s: %v\n%s", f, err, buf.String())
	}
	return back
}

// TestPropertyWitnesses: a data race's and an overflow's witnesses carry
// their specifications, the race's YAML names both accesses in its last
// segment, and each reads back to a schedule that replays to the violation
// under the property the specification names.
func TestPropertyWitnesses(t *testing.T) {
	for _, c := range []struct {
		name    string
		src     string
		kind    ir.ViolationKind
		spec    string
		targets []Target
	}{
		{"race", raceSrc, ir.DataRace, "CHECK( init(main()), LTL(G ! data-race) )",
			[]Target{{At: Location{Line: 5, Column: 5}, Thread: 1}, {At: Location{Line: 8, Column: 64}, Thread: 0}}},
		{"overflow", overflowSrc, ir.Overflow, "CHECK( init(main()), LTL(G ! overflow) )", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, w := sampleOf(t, c.src, c.kind)
			if w.Specification != c.spec || Property(w.Specification) != c.kind {
				t.Errorf("specification %q (property %v), want %q", w.Specification, Property(w.Specification), c.spec)
			}
			if c.targets != nil {
				got := slices.Clone(w.Targets)
				slices.SortFunc(got, func(a, b Target) int { return a.Thread - b.Thread })
				want := slices.Clone(c.targets)
				slices.SortFunc(want, func(a, b Target) int { return a.Thread - b.Thread })
				if !slices.Equal(got, want) {
					t.Errorf("targets %+v, want %+v", w.Targets, c.targets)
				}
			} else if len(w.Targets) != 1 {
				t.Errorf("targets %+v, want one", w.Targets)
			}
			for _, f := range []Format{GraphML, YAML} {
				back := readBack(t, f, w)
				if f == YAML && !slices.Equal(back.Targets, w.Targets) {
					t.Errorf("YAML: targets read back as %+v, want %+v", back.Targets, w.Targets)
				}
				moves, err := back.Schedule(p)
				if err != nil {
					t.Fatal(err)
				}
				if _, v, err := p.Confirm(moves, c.kind); err != nil || v == nil || v.Kind != c.kind {
					t.Errorf("%s: the schedule read back does not replay to a %v: %v, %v", f, c.kind, v, err)
				}
			}
		})
	}
}

// A bug hunt's counterexample whose pool gives its slots to the last spawns:
// the witness carries the delay (Delays, which kbmc keeps in the
// configuration), and only with it does its schedule replay to the bug.
func TestWitnessDelays(t *testing.T) {
	const src = `extern void reach_error(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int busy;
void *w(void *arg) { if ((long)arg >= 90) { busy = 1; busy = 0; } return 0; }
int main(void) {
    unsigned long ids[100];
    for (long i = 0; i < 100; i++) pthread_create(&ids[i], 0, w, (void *)i);
    if (busy) reach_error();
    return 0;
}
`
	p, err := cfront.Compile("prog.i", []byte(src), cfront.Config{Phantoms: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only a hang ends it
	defer cancel()
	res, err := explicit.Hunt(ctx, p, explicit.HuntOptions{Seed: 2})
	if err != nil || res.Verdict != verify.Unsafe {
		t.Fatalf("hunt: %v, %v", res.Verdict, err)
	}
	path, err := Build(p, res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(path.Delays) != 1 || path.Delays[0] == 0 {
		t.Fatalf("delays %v, want one, not 0", path.Delays)
	}
	w := &Witness{ProgramFile: "prog.i", Specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )",
		DataModel: "ILP32", Steps: path.Steps, Targets: path.Targets, Delays: path.Delays}
	for _, f := range []Format{GraphML, YAML} {
		back := readBack(t, f, w)
		for _, delays := range [][]int64{path.Delays, nil} {
			back.Delays = delays
			moves, err := back.Schedule(p)
			if err != nil {
				t.Fatal(err)
			}
			_, v, err := p.Confirm(moves, ir.ReachError)
			if replays := err == nil && v != nil; replays != (delays != nil) {
				t.Errorf("%s with delays %v: replays to the bug %v (%v)", f, delays, replays, err)
			}
		}
	}
}
