package detect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readFiles(t *testing.T, paths ...string) []File {
	t.Helper()
	var out []File
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, File{Name: filepath.Base(p), Data: data})
	}
	return out
}

var lockLogs = []string{"govector/lock-bug/alice-Log.txt", "govector/lock-bug/bob-Log.txt", "govector/lock-bug/server-Log.txt"}

// detectOne compiles pred for c and runs every search, which must agree.
func detectOne(t *testing.T, c *Computation, m Modality, pred string) *Result {
	t.Helper()
	phi, err := CompilePredicate("predicate", pred, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first *Result
	for _, opts := range allOptions {
		res, err := Detect(context.Background(), c, phi, m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
		} else if res.Verdict != first.Verdict {
			t.Errorf("%s %s: %s says %s, lattice %s", m, pred, optName(opts), res.Verdict, first.Verdict)
		}
	}
	return first
}

// TestGoVector reads the logs of a lock service whose server grants the lock to
// bob before alice has released it, as GoVector writes them (bob's logger uses
// timestamps), and finds the two holding the lock at once.
func TestGoVector(t *testing.T) {
	files := readFiles(t, lockLogs...)
	if f := DetectFormat(files[1]); f != FormatGoVector {
		t.Errorf("format of bob-Log.txt detected as %s", f)
	}
	cs, err := ReadGoVector(files...)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("%d computations, want 1", len(cs))
	}
	c := cs[0]
	var names []string
	for _, p := range c.Procs {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"alice", "bob", "server"}) {
		t.Errorf("processes %v", names)
	}
	alice := c.Procs[0]
	var kinds []string
	for _, e := range alice.Events {
		kinds = append(kinds, e.Kind.String())
	}
	if want := []string{"local", "send", "recv", "send"}; !slices.Equal(kinds, want) {
		t.Errorf("alice's kinds %v, want %v", kinds, want)
	}
	if w := c.Where(alice.Events[2].Pos); w != "alice-Log.txt:5" {
		t.Errorf("alice's third event at %q", w)
	}
	if got := FormatState(c.State(2, 5)); got != "owner=bob" {
		t.Errorf("server after 5 events: %q", got)
	}
	res := detectOne(t, c, Possibly, "alice.holding && bob.holding")
	if res.Verdict != Yes || !slices.Equal(res.Witness.Cut[:2], []int{3, 3}) {
		t.Errorf("Poss(alice.holding && bob.holding): %s, witness %v", res.Verdict, res.Witness)
	}
	if res := detectOne(t, c, Definitely, "server.owner == bob"); res.Verdict != Yes {
		t.Errorf("Def(server.owner == bob): %s", res.Verdict)
	}
}

// TestGoVectorRuns reads logs written with AppendLog: each run is a computation.
func TestGoVectorRuns(t *testing.T) {
	cs, err := ReadGoVector(readFiles(t, "govector/appended/a-Log.txt", "govector/appended/b-Log.txt")...)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("%d computations, want 2", len(cs))
	}
	if !strings.Contains(cs[1].Name, "run 2 (Mon Jan  6 11:00:00 UTC 2025)") {
		t.Errorf("second run called %q", cs[1].Name)
	}
	if res := detectOne(t, cs[0], Possibly, "a.x == 1 && b.y == 1"); res.Verdict != Yes {
		t.Errorf("run 1: %s", res.Verdict)
	}
	if res := detectOne(t, cs[1], Definitely, "a.x == 2"); res.Verdict != Yes {
		t.Errorf("run 2: %s", res.Verdict)
	}
}

// TestShiViz reads the same lock service as one ShiViz file (the format GoVector's
// command writes: its regular expression, an empty delimiter, the logs) and as a
// file with two labelled executions and ShiViz's default expression.
func TestShiViz(t *testing.T) {
	f := readFiles(t, "shiviz/lock.log")[0]
	if DetectFormat(f) != FormatShiViz {
		t.Errorf("lock.log detected as %s", DetectFormat(f))
	}
	cs, err := ReadShiViz(f)
	if err != nil {
		t.Fatal(err)
	}
	gv, err := ReadGoVector(readFiles(t, lockLogs...)...)
	if err != nil {
		t.Fatal(err)
	}
	a, b := cs[0], gv[0]
	if len(a.Procs) != len(b.Procs) {
		t.Fatalf("ShiViz has %d processes, GoVector %d", len(a.Procs), len(b.Procs))
	}
	for i, p := range a.Procs {
		q := b.Procs[i]
		if p.Name != q.Name || len(p.Events) != len(q.Events) {
			t.Fatalf("process %d: %s/%d vs %s/%d", i, p.Name, len(p.Events), q.Name, len(q.Events))
		}
		for k := range len(p.Events) + 1 {
			if !slices.Equal(a.Clock(i, k), b.Clock(i, k)) {
				t.Errorf("%s state %d: clock %v vs %v", p.Name, k, a.Clock(i, k), b.Clock(i, k))
			}
		}
	}

	cs, err = ReadShiViz(readFiles(t, "shiviz/lock-runs.log")[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || !strings.HasSuffix(cs[1].Name, `execution "granted after the release"`) {
		t.Fatalf("executions %d, second called %q", len(cs), cs[len(cs)-1].Name)
	}
	for i, want := range []Verdict{Yes, No} {
		if res := detectOne(t, cs[i], Possibly, "alice.holding && bob.holding"); res.Verdict != want {
			t.Errorf("%s: %s, want %s", cs[i].Name, res.Verdict, want)
		}
	}
}

// TestShiVizFields reads a file whose expression has further named groups, which
// become variables, and whose clocks have escaped quotes (as TLA+ writes them).
func TestShiVizFields(t *testing.T) {
	cs, err := ReadShiViz(readFiles(t, "shiviz/fields.log")[0])
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if got := FormatState(c.State(1, 1)); got != "active=true counter=-1" {
		t.Errorf("n2 after its first event: %q", got)
	}
	if c.Procs[0].Events[0].Text != "SendMsg" || c.Where(c.Procs[1].Events[1].Pos) != "fields.log:25" {
		t.Errorf("events %q at %s", c.Procs[0].Events[0].Text, c.Where(c.Procs[1].Events[1].Pos))
	}
	if res := detectOne(t, c, Possibly, "!n1.active && n2.active && n1.counter + n2.counter == 0"); res.Verdict != Yes {
		t.Errorf("Poss: %s", res.Verdict)
	}
	if res := detectOne(t, c, Definitely, "!n1.active && !n2.active"); res.Verdict != Yes {
		t.Errorf("Def: %s", res.Verdict)
	}
}

// edit returns a copy of f with old replaced by new, which must occur.
func edit(t *testing.T, f File, old, new string) File {
	t.Helper()
	s := string(f.Data)
	if !strings.Contains(s, old) {
		t.Fatalf("%s lacks %q", f.Name, old)
	}
	return File{Name: f.Name, Data: []byte(strings.Replace(s, old, new, 1))}
}

// editAll is edit replacing every occurrence.
func editAll(t *testing.T, f File, old, new string) File {
	t.Helper()
	if !strings.Contains(string(f.Data), old) {
		t.Fatalf("%s lacks %q", f.Name, old)
	}
	return File{Name: f.Name, Data: []byte(strings.ReplaceAll(string(f.Data), old, new))}
}

// TestMalformed checks that every kind of malformed input is an input error with
// the file, the line and the reason.
func TestMalformed(t *testing.T) {
	lock := readFiles(t, lockLogs...)
	alice, bob, server := lock[0], lock[1], lock[2]
	runs := readFiles(t, "govector/appended/a-Log.txt", "govector/appended/b-Log.txt")
	shiviz := readFiles(t, "shiviz/lock.log")[0]
	multi := readFiles(t, "shiviz/lock-runs.log")[0]
	c0 := readFiles(t, "c0.json")[0]
	tests := []struct {
		name   string
		format Format
		files  []File
		want   string
	}{
		{"clock skips", FormatGoVector, []File{edit(t, alice, `{"alice":3, "server":3}`, `{"alice":4, "server":3}`), bob, server},
			`alice-Log.txt:5: the clock of alice goes from 2 to 4`},
		{"clock starts late", FormatGoVector, []File{edit(t, alice, `alice {"alice":1}`, `alice {"alice":5}`), bob, server},
			`alice-Log.txt:3: the clock of alice starts at 2, want 1`},
		{"clock repeats", FormatGoVector, []File{edit(t, alice, `{"alice":3, "server":3}`, `{"alice":2, "server":3}`), bob, server},
			`alice-Log.txt:5: two events of alice have clock 2 (the other is at alice-Log.txt:3)`},
		{"host missing from its own clock", FormatGoVector, []File{edit(t, alice, `alice {"alice":2}`, `alice {"server":1}`), bob, server},
			`alice-Log.txt:3: host "alice" is missing from its own clock`},
		{"unknown host", FormatGoVector, []File{edit(t, alice, `alice {"alice":2}`, `alice {"alice":2, "carol":1}`), bob, server},
			`alice-Log.txt:3: unknown host "carol" in the clock`},
		{"missing log", FormatGoVector, []File{alice, server},
			`server-Log.txt:7: unknown host "bob" in the clock`},
		{"happened-before cycle", FormatGoVector, []File{alice, bob, editAll(t, server, `"alice":2`, `"alice":3`)},
			`server-Log.txt:3: happened-before cycle: event 2 of server knows of event 3 of alice, which knows of event 3 of server`},
		{"clock from the future", FormatGoVector, []File{edit(t, alice, `{"alice":4, "server":3}`, `{"alice":4, "server":9}`), bob, server},
			`alice-Log.txt:7: the clock says 9 events of server happened before, but server has only 6`},
		{"clock that knows too little", FormatGoVector, []File{alice, edit(t, bob, `{"alice":2, "bob":3, "server":5}`, `{"bob":3, "server":5}`), server},
			`bob-Log.txt:5: event 3 of bob knows of event 5 of server, but not of event 2 of alice, which that event knew of`},
		{"clock goes back", FormatGoVector, []File{alice, bob, edit(t, server, `{"alice":4, "bob":2, "server":6}`, `{"alice":4, "bob":1, "server":6}`)},
			`server-Log.txt:11: the clock entry for bob goes back from 2 to 1`},
		{"bad clock", FormatGoVector, []File{edit(t, alice, `{"alice":2}`, `{"alice":2,}`), bob, server},
			`alice-Log.txt:3: bad clock "{\"alice\":2,}"`},
		{"negative clock", FormatGoVector, []File{edit(t, alice, `{"alice":2}`, `{"alice":-2}`), bob, server},
			`alice-Log.txt:3: bad clock "{\"alice\":-2}": the entry for "alice" is not a non-negative integer`},
		{"bad header", FormatGoVector, []File{edit(t, alice, `alice {"alice":2}`, `alice-2`), bob, server},
			"alice-Log.txt:3: expected a GoVector header line"},
		{"header without event", FormatGoVector, []File{edit(t, alice, "INFO Sending release holding=false\n", ""), bob, server},
			"alice-Log.txt:7: a header line without the event line"},
		{"empty log", FormatGoVector, []File{{Name: "x-Log.txt"}}, "x-Log.txt: no events"},
		{"runs differ", FormatGoVector, []File{runs[0], edit(t, runs[1], " \n=== Execution #Mon Jan  6 11:00:00 UTC 2025  ===\nb {\"a\":1, \"b\":1}\nINFO Received ping y=2\n", "")},
			"b-Log.txt: holds 1 runs, but a-Log.txt holds 2"},

		{"bad regular expression", FormatShiViz, []File{edit(t, shiviz, `(?<clock>{.*})`, `(?<clock>{.*}`)},
			"lock.log:1: bad parsing regular expression: missing closing )"},
		{"look-ahead", FormatShiViz, []File{edit(t, shiviz, `(?<host>\S*)`, `(?<host>(?=a)\S*)`)},
			"lock.log:1: bad parsing regular expression: invalid or unsupported Perl syntax"},
		{"missing group", FormatShiViz, []File{edit(t, shiviz, `(?<clock>{.*})`, `({.*})`)},
			"lock.log:1: the parsing regular expression lacks the named group(s) clock"},
		{"duplicate group", FormatShiViz, []File{edit(t, shiviz, `(?<event>.*)`, `(?<event>.*)(?<host>)`)},
			"lock.log:1: bad parsing regular expression"},
		{"bad delimiter", FormatShiViz, []File{edit(t, multi, "=== (?<trace>.*) ===\n", "=== (?<trace>.* ===\n")},
			"lock-runs.log:2: bad execution delimiter"},
		{"repeated label", FormatShiViz, []File{edit(t, multi, "=== granted after the release ===", "=== granted too early ===")},
			`lock-runs.log:30: two executions are labelled "granted too early"`},
		{"no match", FormatShiViz, []File{edit(t, shiviz, `(?<host>\S*) (?<clock>{.*})`, `(?<host>\S*) (?<clock>\[.*\])`)},
			"lock.log:3: the parsing regular expression matches no event in the first execution"},
		{"skip in an execution", FormatShiViz, []File{edit(t, multi, `bob {"alice":4, "bob":3, "server":6}`, `bob {"alice":4, "bob":4, "server":6}`)},
			"lock-runs.log:55: the clock of bob goes from 2 to 4"},
		{"no second line", FormatShiViz, []File{{Name: "one.log", Data: []byte("(?<host>.*)")}},
			"one.log: a ShiViz file starts with a line holding the parsing regular expression"},

		{"bad JSON", FormatKBMC, []File{edit(t, c0, `"clock": [1, 0],`, `"clock": [1, 0]`)},
			"c0.json:10: bad JSON: invalid character"},
		{"truncated JSON", FormatKBMC, []File{{Name: "t.json", Data: c0.Data[:200]}},
			"t.json:9: bad JSON: unexpected end of input"},
		{"unknown key", FormatKBMC, []File{edit(t, c0, `"kind": "local"`, `"knd": "local"`)},
			`c0.json:20: bad JSON: json: unknown field "knd"`},
		{"wrong format", FormatKBMC, []File{edit(t, c0, `"kbmc-computation"`, `"shiviz"`)},
			`c0.json:2: format "shiviz": want "kbmc-computation"`},
		{"short clock", FormatKBMC, []File{edit(t, c0, `"clock": [1, 3]`, `"clock": [1]`)},
			"c0.json:20: the clock has 1 entries, want one per process (2)"},
		{"clock as text", FormatKBMC, []File{edit(t, c0, `"clock": [1, 3]`, `"clock": "1, 3"`)},
			`c0.json:20: bad JSON: "clock" must be an array of integers, not string`},
		{"local event that receives", FormatKBMC, []File{edit(t, c0, `{"kind": "recv", "text": "recv m1 from P1"`, `{"kind": "local", "text": "recv m1 from P1"`)},
			"c0.json:18: event 1 of P2 is a local event, but its clock merges another process's knowledge"},
		{"send that is not one", FormatKBMC, []File{edit(t, c0, `{"kind": "send", "text": "send m2 to P1"`, `{"kind": "local", "text": "send m2 to P1"`)},
			"c0.json:19: event 2 of P2 is a local event, but another process learns of it directly"},
		{"unknown kind", FormatKBMC, []File{edit(t, c0, `"kind": "local"`, `"kind": "internal"`)},
			`c0.json:20: kind "internal": want send, recv or local`},
		{"same name twice", FormatKBMC, []File{edit(t, c0, `"name": "P2"`, `"name": "P1"`)},
			`c0.json:15: two processes are called "P1" (the other at line 7)`},
		{"null value", FormatKBMC, []File{edit(t, c0, `"state": {"p": "D"}`, `"state": {"p": null}`)},
			`c0.json:20: variable "p": want an integer, a boolean, a string or an array, not null`},
		{"fraction", FormatKBMC, []File{edit(t, c0, `"state": {"p": "D"}`, `"state": {"p": 1.5}`)},
			`c0.json:20: variable "p": 1.5 is not a 64-bit integer`},
		{"text after", FormatKBMC, []File{{Name: "x.json", Data: append(append([]byte{}, c0.Data...), "{}"...)}},
			"x.json:25: text after the computation"},
		{"no format", FormatKBMC, []File{{Name: "x.json", Data: []byte(`{"version": 1, "processes": []}`)}},
			`x.json:1: the "format": "kbmc-computation" key is missing`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.format, tc.files)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T %v is not an ErrorList", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
			for _, e := range list {
				if e.File == "" {
					t.Errorf("error without a file: %v", e)
				}
			}
		})
	}
}

func TestTextAssignments(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"INFO Sending grant to alice owner=alice", `owner="alice"`},
		{"x=1, y=-2; z=0x10 done=true ready=false", "x=1 y=-2 z=16 done=true ready=false"},
		{"if x==1 or y<=2 or z>=3 or w!=4", ""},
		{"x = 1", ""},
		{"leader=node[1] slot[2]=7 v=5.", `leader="node[1]" slot[2]=7 v=5`},
		{`msg="hello world" (term=3)`, `msg="hello world" term=3`},
		{"node[1].leader=3 a.b=4 x=", ""},
		{"addr=10.0.0.1:80 v=1_000 w=08", "addr=\"10.0.0.1:80\" v=\"1_000\" w=8"},
	}
	for _, tc := range tests {
		var got []string
		textAssignments(tc.text, func(k string, v Value) {
			if v.Kind == WordValue {
				got = append(got, k+"="+strconv.Quote(v.Word))
			} else {
				got = append(got, k+"="+v.String())
			}
		})
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, s, tc.want)
		}
	}
}
