package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kbmc/verify"
)

func kbmc(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"kbmc"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func writeProgram(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.kb")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const racy = `shared int x;
thread w[2] { int t = x; x = t + 1; }
thread m { join(w); assert(x == 2, "lost update"); }
`

func TestExitCodes(t *testing.T) {
	safe := writeProgram(t, "shared int x;\nthread a { x = 1; }\n")
	unsafe := writeProgram(t, racy)
	spin := writeProgram(t, "shared int f;\nthread s[3] { while (f == 0) { yield; } }\n")
	bad := writeProgram(t, "shared int x;\nthread a { x = y; }\n")
	unbounded := writeProgram(t, "shared int x;\nthread a { x = nondet(); }\n")
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout+stderr
	}{
		{"safe", []string{"check", safe}, 0, "safe"},
		{"unsafe", []string{"check", unsafe}, 10, "lost update"},
		{"flags after file", []string{"check", unsafe, "--depth", "3"}, 0, "bounded-safe"},
		{"bounded", []string{"check", "--depth", "5", spin}, 0, "bounded-safe"},
		{"unknown by timeout", []string{"check", "--algo", "dfs", "--depth", "60", "--timeout", "1ns", spin}, 5, "unknown"},
		{"input error", []string{"check", bad}, 2, "undefined: y"},
		{"unsupported construct", []string{"check", unbounded}, 2, "nondet() without a range"},
		{"missing file", []string{"check", "/nonexistent.kb"}, 2, "no such file"},
		{"unknown flag", []string{"check", "--frobnicate", safe}, 1, "frobnicate"},
		{"unknown algo", []string{"check", "--algo", "magic", safe}, 1, "unknown explicit algorithm"},
		{"unknown engine", []string{"check", "--engine", "quantum", safe}, 1, "unknown engine"},
		{"bad width", []string{"check", "--width", "3", safe}, 1, "--width"},
		{"bad define", []string{"check", "-D", "N", safe}, 1, "NAME=VALUE"},
		{"undeclared define", []string{"check", "-D", "NOPE=1", safe}, 2, "NOPE"},
		{"two files", []string{"check", safe, safe}, 1, "exactly one"},
		{"unknown command", []string{"frob"}, 1, "unknown command"},
		{"run", []string{"run", "--schedule", "0,1,0,1,2,2", unsafe}, 10, "lost update"},
		{"run bad schedule", []string{"run", "--schedule", "2", unsafe}, 1, "not enabled"},
		{"run by thread names", []string{"run", "--schedule", "w[0],w[1],w[0],w[1],m,m", unsafe}, 10, "lost update"},
		{"run no such thread", []string{"run", "--schedule", "w[0],x", unsafe}, 1, "nor a thread's name"},
		{"run json without violation", []string{"run", "--json", safe}, 0, `"outcome":"every thread terminated"`},
		{"ir", []string{"ir", unsafe}, 0, "thread w[2]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := kbmc(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			if !strings.Contains(out+errs, tc.out) {
				t.Errorf("output lacks %q\nstdout: %s\nstderr: %s", tc.out, out, errs)
			}
			if strings.Contains(out+errs, "goroutine ") || strings.Contains(out+errs, "panic") {
				t.Errorf("stack trace in output:\n%s%s", out, errs)
			}
		})
	}
}

func TestInputErrorHasCaret(t *testing.T) {
	bad := writeProgram(t, "shared int x;\nthread a {\n    x = y + 1;\n}\n")
	_, _, errs := kbmc(t, "check", bad)
	want := bad + ":3:9: undefined: y\n    x = y + 1;\n        ^"
	if !strings.Contains(errs, want) {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
}

func TestJSON(t *testing.T) {
	unsafe := writeProgram(t, racy)
	code, out, _ := kbmc(t, "check", "--json", "--algo", "dfs", unsafe)
	if code != 10 {
		t.Fatalf("exit %d", code)
	}
	var j struct {
		File      string         `json:"file"`
		Verdict   string         `json:"verdict"`
		Engine    string         `json:"engine"`
		Algo      *string        `json:"algo"`
		Solver    *string        `json:"solver"`
		Bound     map[string]int `json:"bound"`
		Violation struct {
			Kind, Message, Pos, Thread string
		} `json:"violation"`
		Trace []struct {
			Step     int              `json:"step"`
			Thread   string           `json:"thread"`
			ThreadID int              `json:"thread_id"`
			Pos      string           `json:"pos"`
			Text     string           `json:"text"`
			Writes   map[string]int64 `json:"writes"`
			Reads    map[string]int64 `json:"reads"`
		} `json:"trace"`
		Stats map[string]float64 `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if j.Verdict != "unsafe" || j.Engine != "explicit" || j.Algo == nil || *j.Algo != "dfs" || j.Solver != nil {
		t.Errorf("header wrong: %s", out)
	}
	if j.Bound["depth"] != 100 || j.Violation.Kind != "assertion" || j.Violation.Message != "lost update" ||
		j.Violation.Thread != "m" || !strings.HasSuffix(j.Violation.Pos, ":3:21") {
		t.Errorf("violation wrong: %+v", j.Violation)
	}
	if len(j.Trace) == 0 || j.Trace[0].Step != 1 || j.Trace[0].Pos == "" || j.Trace[0].Text == "" {
		t.Errorf("trace wrong: %+v", j.Trace)
	}
	last := j.Trace[len(j.Trace)-1]
	if last.Thread != "m" || last.Reads["x"] != 1 {
		t.Errorf("last step %+v, want m reading x == 1", last)
	}
	for _, k := range []string{"executions", "transitions", "time_ms"} {
		if _, ok := j.Stats[k]; !ok {
			t.Errorf("stats lack %q", k)
		}
	}
	if _, ok := j.Stats["states"]; ok {
		t.Error("stateless DFS reports states")
	}
}

func TestRegressTestdata(t *testing.T) {
	code, out, errs := kbmc(t, "regress", "../../testdata")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), " 0 failed") {
		t.Errorf("last line: %q", out)
	}
}

func TestRegressReportsFailures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"wrong-verdict.kb": "//@ expect: safe\n" + racy,
		"wrong-kind.kb":    "//@ expect: unsafe\n//@ violation: deadlock\n" + racy,
		"right.kb":         "//@ expect: unsafe\n//@ violation: assertion\n" + racy,
		"no-annotation.kb": racy,
		"wrong-error.kb":   "//@ expect: error\n//@ error: something else\nthread a { x = 1; }\n",
		"right-error.kb":   "//@ expect: error\n//@ error: undefined: x\nthread a { x = 1; }\n",
		"with-args.kb":     "//@ expect: bounded-safe\n//@ args: --depth 3\n" + racy,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := kbmc(t, "regress", "--engines", "explicit/dfs", "--table", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "3 passed, 4 failed") {
		t.Errorf("summary wrong:\n%s", out)
	}
	for _, f := range []string{"wrong-verdict.kb", "wrong-kind.kb", "no-annotation.kb", "wrong-error.kb"} {
		if !strings.Contains(out, "FAIL "+filepath.Join(dir, f)) {
			t.Errorf("no FAIL line for %s:\n%s", f, out)
		}
	}
}

func TestBenchWritesReports(t *testing.T) {
	dir := t.TempDir()
	csvPath, mdPath, pngPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.png")
	code, out, errs := kbmc(t, "bench", "--suite", "readers-writers", "--engines", "explicit/dfs", "--n", "1..3",
		"--csv", csvPath, "--md", mdPath, "--plot", pngPath)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	csv, _ := os.ReadFile(csvPath)
	if lines := strings.Count(string(csv), "\n"); lines != 4 {
		t.Errorf("CSV has %d lines, want header + 3:\n%s", lines, csv)
	}
	md, _ := os.ReadFile(mdPath)
	if !strings.Contains(string(md), "| readers-writers | 2 | explicit/dfs | safe |") {
		t.Errorf("Markdown lacks the N=2 row:\n%s", md)
	}
	png, _ := os.ReadFile(pngPath)
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("plot is not a PNG")
	}
	// A campaign measured in pieces: the reports drawn again from the CSV.
	again := filepath.Join(dir, "again.md")
	code, out, errs = kbmc(t, "bench", "--from-csv", csvPath, "--md", again)
	if mdAgain, _ := os.ReadFile(again); code != 0 || !bytes.Equal(mdAgain, md) {
		t.Errorf("bench --from-csv: exit %d\n%s%s\n%s\nwant\n%s", code, out, errs, mdAgain, md)
	}
}

func TestXval(t *testing.T) {
	unsafe := writeProgram(t, racy)
	code, out, errs := kbmc(t, "xval", "--engines", "explicit/dfs,explicit/dpor,explicit/lazypor,symbolic/gini/peephole", unsafe)
	if code != 0 || strings.Count(out, "unsafe (assertion)") != 4 {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	bad := writeProgram(t, "thread a { x = 1; }\n")
	if code, _, _ := kbmc(t, "xval", "--engines", "explicit/dfs", bad); code != 2 {
		t.Errorf("xval of a bad file: exit %d, want 2", code)
	}
	// An engine that refuses the program says so, and agrees with everything.
	unord := writeProgram(t, "chan (int) a capacity 2 unordered;\nthread t { int x = 0; send(a, 1); recv(a, x); }\n")
	code, out, errs = kbmc(t, "xval", "--engines", "explicit/dfs,symbolic/gini/partial-order", unord)
	if code != 0 || !strings.Contains(out, "unsupported") {
		t.Errorf("xval with an encoding that refuses an unordered channel: exit %d, want 0 and unsupported\n%s%s", code, out, errs)
	}
}

func TestXvalDisagreement(t *testing.T) {
	cell := func(v verify.Verdict) xvalCell { return xvalCell{verdict: v.String(), res: &verify.Result{Verdict: v}} }
	tests := []struct {
		a, b     xvalCell
		disagree bool
	}{
		{cell(verify.Safe), cell(verify.Safe), false},
		{cell(verify.Safe), cell(verify.BoundedSafe), true},
		{cell(verify.Unsafe), cell(verify.BoundedSafe), true},
		{cell(verify.Unsafe), cell(verify.Unknown), false},
		{cell(verify.Safe), xvalCell{verdict: "error"}, false},
		{cell(verify.Unsafe), xvalCell{verdict: "unsupported"}, false},
	}
	for _, tc := range tests {
		if got := disagree(tc.a, tc.b) != ""; got != tc.disagree {
			t.Errorf("disagree(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.disagree)
		}
	}
}

// TestDefaultAlgorithm: without --algo, a program with processes runs
// persistent (explicit.DefaultFor), one without dfs --stateful, and
// --local-deadlock, which only dfs --stateful decides, keeps dfs.
func TestDefaultAlgorithm(t *testing.T) {
	procs := writeProgram(t, `chan (int) c capacity 1;
process p[2] { thread main { if (pid == 0) { send(c, 1); } else { int x; recv(c, x); } } }
`)
	threads := writeProgram(t, "shared int x;\nthread a { x = 1; }\n")
	for _, tc := range []struct {
		args     []string
		algo     string
		stateful bool
	}{
		{[]string{procs}, "persistent", false},
		{[]string{"--local-deadlock", procs}, "dfs", true},
		{[]string{"--algo", "dpor", procs}, "dpor", false},
		{[]string{threads}, "dfs", true},
	} {
		code, out, errs := kbmc(t, append([]string{"check", "--json"}, tc.args...)...)
		var j jsonResult
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 {
			t.Fatalf("%v: exit %d, %v\n%s%s", tc.args, code, err, out, errs)
		}
		if j.Algo == nil || *j.Algo != tc.algo || j.Stateful != tc.stateful {
			t.Errorf("%v: algo %v stateful %v, want %s %v", tc.args, j.Algo, j.Stateful, tc.algo, tc.stateful)
		}
	}
}

// The JSON settings say what ran, as the header does: the default check is dfs
// --stateful, and the symbolic engine runs no explicit algorithm.
func TestJSONSettingsMatchRun(t *testing.T) {
	safe := writeProgram(t, "shared int x;\nthread a { x = 1; }\n")
	tests := []struct {
		args           []string
		algo, stateful string
	}{
		{[]string{"check", "--json", safe}, "algo=dfs", "stateful=true"},
		{[]string{"check", "--json", "--algo", "dfs", safe}, "algo=dfs", "stateful=false"},
		{[]string{"check", "--json", "--algo", "dfs", "--stateful", safe}, "algo=dfs", "stateful=true"},
		{[]string{"check", "--json", "--algo", "dpor", safe}, "algo=dpor", "stateful=false"},
		{[]string{"check", "--json", "--engine", "symbolic", safe}, "algo=", "stateful=false"},
	}
	for _, tc := range tests {
		code, out, errs := kbmc(t, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", tc.args, code, out, errs)
		}
		var j struct {
			Algo     *string  `json:"algo"`
			Stateful bool     `json:"stateful"`
			Settings []string `json:"settings"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", tc.args, err, out)
		}
		if !slices.Contains(j.Settings, tc.algo) || !slices.Contains(j.Settings, tc.stateful) {
			t.Errorf("%v: settings %v, want %s and %s", tc.args, j.Settings, tc.algo, tc.stateful)
		}
		if fmt.Sprint("stateful=", j.Stateful) != tc.stateful {
			t.Errorf("%v: \"stateful\":%v beside %s", tc.args, j.Stateful, tc.stateful)
		}
	}
}
