package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kbmc/lang"
	"kbmc/verify"
)

// The flags a newcomer meets: what is rejected, and what each error says.
func TestFlags(t *testing.T) {
	safe := writeProgram(t, "shared int x;\nthread a { x = 1; }\n")
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"version", []string{"--version"}, 0, "kbmc version " + version},
		{"did you mean a flag", []string{"check", "--depht", "3", safe}, 1, "did you mean --depth?"},
		{"did you mean a command", []string{"chek", safe}, 1, `did you mean "check"?`},
		{"no kbmc kbmc", []string{"--frobnicate"}, 1, "(see 'kbmc --help')"},
		{"solver with explicit", []string{"check", "--solver", "z3", safe}, 1, "--solver applies only to the symbolic engine"},
		{"preemptions with dfs", []string{"check", "--algo", "dfs", "--preemptions", "3", safe}, 1, "--preemptions applies only to --algo bpor-preempt"},
		{"algo with symbolic", []string{"check", "--engine", "symbolic", "--algo", "dpor", safe}, 1, "--algo applies only to the explicit engine"},
		{"stateful with dpor", []string{"check", "--algo", "dpor", "--stateful", safe}, 1, "--stateful applies only to --algo dfs"},
		{"hash-compact with dpor", []string{"check", "--algo", "dpor", "--hash-compact", safe}, 1,
			"--hash-compact applies only to the stateful searches"},
		{"bitstate with stateless dfs", []string{"check", "--algo", "dfs", "--bitstate", safe}, 1, "stateless dfs keeps none"},
		{"bitstate-mb alone", []string{"check", "--bitstate-mb", "8", safe}, 1, "--bitstate, which is not given"},
		{"hash-compact and bitstate", []string{"check", "--hash-compact", "--bitstate", safe}, 1, "choose one"},
		{"hash-compact is not safe", []string{"check", "--hash-compact", safe}, 5, "unknown: no violation found in the explored part"},
		{"bitstate is not safe", []string{"check", "--algo", "persistent", "--bitstate", "--bitstate-mb", "1", safe}, 5,
			"unknown: no violation found in the explored part"},
		{"depth 0", []string{"check", "--depth", "0", safe}, 1, "--depth 0: must be at least 1"},
		{"timeout in seconds", []string{"check", "--timeout", "10", safe}, 0, "safe"},
		{"timeout as a duration", []string{"check", "--timeout", "1m30s", safe}, 0, "safe"},
		{"timeout malformed", []string{"check", "--timeout", "10x", safe}, 1, "want a duration such as 30s"},
		{"bench engine beside engines", []string{"bench", "--engine", "symbolic", "--engines", "explicit/dfs"}, 1, "--engine chooses one engine"},
		{"xval algo beside engines", []string{"xval", "--algo", "dpor", safe}, 1, "--algo chooses one engine"},
		{"trace json with json", []string{"check", "--json", "--trace", "dot", safe}, 1, "--trace dot does not apply"},
		{"run trace", []string{"run", "--trace", "dot", safe}, 1, "want text or json"},
		{"run quiet", []string{"run", "--quiet", safe}, 0, "outcome: every thread terminated"},
		{"replay with schedule", []string{"run", "--replay", "x.json", "--schedule", "rr", safe}, 1, "--schedule does not apply with --replay"},
		{"no such property", []string{"check", "--property", "assertion.7", safe}, 1, "no such property"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := kbmc(t, tc.args...)
			if code != tc.code || !strings.Contains(out+errs, tc.out) {
				t.Errorf("exit %d (want %d), output lacks %q?\nstdout: %s\nstderr: %s", code, tc.code, tc.out, out, errs)
			}
			if strings.Contains(out+errs, "kbmc kbmc") {
				t.Errorf("help hint names kbmc twice: %s", errs)
			}
		})
	}
}

// The help shows the defaults that hold.
func TestHelpShowsTrueDefaults(t *testing.T) {
	_, out, _ := kbmc(t, "check", "--help")
	for _, want := range []string{"(default: dfs with --stateful)", "(default: 100)", "--show-properties", "--trail", "--relevant"} {
		if !strings.Contains(out, want) {
			t.Errorf("check --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "DESIGN.md") {
		t.Errorf("check --help cites DESIGN.md, which users do not have:\n%s", out)
	}
	_, out, _ = kbmc(t, "regress", "--help")
	if !strings.Contains(out, "(default: 1m0s)") {
		t.Errorf("regress --help does not show its time budget:\n%s", out)
	}
}

// The default engine is dfs with a visited set, and --algo dfs the stateless
// oracle.
func TestDefaultEngine(t *testing.T) {
	p := writeProgram(t, "shared int f;\nthread s[2] { while (f == 0) { yield; } }\nthread g { f = 1; }\n")
	code, out, _ := kbmc(t, "check", "--json", p)
	var j struct {
		Algo     string         `json:"algo"`
		Stateful bool           `json:"stateful"`
		Stats    map[string]any `json:"stats"`
		Verdict  string         `json:"verdict"`
		Bounded  *explanation   `json:"bounded"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if j.Algo != "dfs" || !j.Stateful || j.Stats["states"] == nil {
		t.Errorf("default engine: %s", out)
	}
	if j.Verdict != "bounded-safe" || j.Bounded == nil || !j.Bounded.Cycle || !j.Bounded.BusyWait ||
		!strings.HasSuffix(j.Bounded.Loop, ":2:15") {
		t.Errorf("a busy-wait should be explained as a cycle at 2:15: %s", out)
	}
	_, out, _ = kbmc(t, "check", "--json", "--algo", "dfs", "--depth", "8", p)
	if strings.Contains(out, `"stateful"`) || strings.Contains(out, `"states"`) {
		t.Errorf("--algo dfs is the stateless search: %s", out)
	}
}

// Without a cycle, the explanation says how many executions were cut and
// suggests a larger depth; when the bound cut every execution, it says so
// plainly, with the depth used.
func TestBoundedWithoutCycle(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		allCut    bool
	}{
		{"some cut", "shared int x;\nthread c { int k = nondet(0, 1); for (int i = 0; i < 10 * k; i++) { x++; } }\n",
			[]string{"bounded-safe", "some executions are longer than the bound", "1 executions were cut at depth 10", "next: try --depth 20"}, false},
		{"all cut", "shared int x;\nthread c { for (int i = 0; i < 10; i++) { x++; } }\n",
			[]string{"bounded-safe", "why: every execution explored was cut by the depth bound: none ended within 10 steps",
				"next: raise --depth: it is 10, which no execution fits in; try --depth 20"}, true},
	}
	for _, tc := range tests {
		p := writeProgram(t, tc.src)
		for _, args := range [][]string{{"check", "--depth", "10", p}, {"check", "--algo", "dfs", "--depth", "10", p}} {
			_, out, _ := kbmc(t, args...)
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("%s %v: output lacks %q:\n%s", tc.name, args, want, out)
				}
			}
			_, out, _ = kbmc(t, append([]string{"check", "--json"}, args[1:]...)...)
			var j jsonResult
			if err := json.Unmarshal([]byte(out), &j); err != nil || j.Bounded == nil || j.Bounded.AllCut != tc.allCut {
				t.Errorf("%s %v --json: want all_cut %v (%v)\n%s", tc.name, args, tc.allCut, err, out)
			}
		}
	}
}

// An unknown verdict (a time limit, Ctrl-C) whose explored executions were
// all cut by the bound says so and suggests a larger depth, in the note, the
// text and the JSON; one that also saw executions end does not.
func TestUnknownEveryExecutionCut(t *testing.T) {
	l, err := load(writeProgram(t, "shared int x;\nthread c { x = 1; }\n"), sourceConfig{Config: lang.Config{Width: 32}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		stats  verify.Stats
		allCut bool
	}{
		{verify.Stats{Executions: 16857118, Cut: 16857118}, true},
		{verify.Stats{Executions: 12, Cut: 11, Complete: 1, Longest: 40}, false},
		{verify.Stats{Executions: 5, Failed: 0, AssumeBlocked: 5}, false},
	}
	for _, tc := range tests {
		res := &verify.Result{Verdict: verify.Unknown, Engine: "explicit", Algo: "dfs", Note: "stopped: time limit 2m0s",
			Stopped: "time", Stats: tc.stats, Bound: verify.Bound{Depth: 100, Preemptions: -1, Fair: -1}}
		var buf bytes.Buffer
		if err := writeText(&buf, l, engineConfig{Engine: "explicit"}, res, "text", traceOptions{}); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		says := strings.Contains(text, "every one of them cut by the depth bound (100 steps): raise --depth") &&
			strings.Contains(text, "next: raise --depth: it is 100, which no execution fits in; try --depth 200")
		if says != tc.allCut {
			t.Errorf("%+v: says every execution was cut: %v, want %v\n%s", tc.stats, says, tc.allCut, text)
		}
		j, err := jsonOf(l, engineConfig{Engine: "explicit"}, res, traceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := j.Bounded != nil && j.Bounded.AllCut; got != tc.allCut || strings.Contains(j.Note, "raise --depth") != tc.allCut {
			t.Errorf("%+v: JSON all_cut %v, note %q; want %v", tc.stats, got, j.Note, tc.allCut)
		}
	}
}

// Machine-readable output: input errors as JSON, no -1, bools as bools,
// --trace json is pure JSON.
func TestJSONOutputs(t *testing.T) {
	bad := writeProgram(t, "shared int x;\nthread a {\n  x = y;\n}\n")
	code, out, errs := kbmc(t, "check", "--json", bad)
	var e struct {
		Verdict string      `json:"verdict"`
		Errors  []jsonError `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil || code != 2 || errs != "" {
		t.Fatalf("exit %d, %v\nstdout: %s\nstderr: %s", code, err, out, errs)
	}
	if e.Verdict != "error" || len(e.Errors) != 1 || e.Errors[0].Line != 3 || e.Errors[0].Col != 7 || e.Errors[0].Message != "undefined: y" {
		t.Errorf("input error as JSON: %s", out)
	}
	code, out, _ = kbmc(t, "check", "--json", "/nonexistent.kb")
	if code != 2 || !strings.Contains(out, `"verdict":"error"`) {
		t.Errorf("missing file under --json: exit %d %s", code, out)
	}

	flag := writeProgram(t, "shared bool done;\nshared int x;\nthread a { x = 1; done = true; }\nthread b { await(done); assert(x == 2); }\n")
	for _, args := range [][]string{{"check", "--json", flag}, {"check", "--trace", "json", flag}} {
		code, out, _ = kbmc(t, args...)
		var j jsonResult
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != 10 {
			t.Fatalf("%v: exit %d, not one JSON object (%v):\n%s", args, code, err, out)
		}
		found := false
		for _, st := range j.Trace {
			if v, ok := st.Writes["done"]; ok {
				found = v == true
			}
		}
		if !found || !strings.Contains(out, `"done":true`) {
			t.Errorf("bools must be true/false: %s", out)
		}
		if len(j.State) == 0 {
			t.Errorf("no final state: %s", out)
		}
	}
	code, out, _ = kbmc(t, "check", "--json", "--engine", "symbolic", flag)
	if code != 10 || strings.Contains(out, "-1") {
		t.Errorf("symbolic JSON has a -1 sentinel (exit %d): %s", code, out)
	}
	if _, out, _ = kbmc(t, "run", "--json", flag); !json.Valid([]byte(out)) {
		t.Errorf("run --json is not JSON: %s", out)
	}
}

// check --trail writes a documented JSON witness; run --replay re-executes it.
func TestTrailReplay(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "w.kb")
	src := "shared int balance = 100;\nthread client[2] {\n  int a = nondet(1, 100);\n  if (balance >= a) {\n    int b = balance;\n    balance = b - a;\n  }\n}\nthread audit { join(client); assert(balance >= 0, \"no overdraft\"); }\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	trailPath := filepath.Join(dir, "w.trail.json")
	if code, out, errs := kbmc(t, "check", "--trail", trailPath, prog); code != 10 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(trailPath)
	if err != nil {
		t.Fatal(err)
	}
	var tr trail
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Format != trailFormat || tr.SHA256 != sha256Hex([]byte(src)) || tr.Flags.Depth != 100 || tr.Violation.Kind != "assertion" ||
		len(tr.Steps) == 0 || tr.Steps[0].Thread == "" {
		t.Errorf("trail: %s", data)
	}
	nondet := false
	for _, st := range tr.Steps {
		nondet = nondet || len(st.Nondet) > 0
	}
	if !nondet {
		t.Errorf("trail lacks the nondeterministic values: %s", data)
	}
	code, out, errs := kbmc(t, "run", "--replay", trailPath)
	if code != 10 || !strings.Contains(out, "no overdraft") || !strings.Contains(out, "reproduced") {
		t.Errorf("replay: exit %d\n%s%s", code, out, errs)
	}
}

// run --replay on a program changed after the trail was written replays the
// schedule by thread names: it says whether the violation still occurs, or
// at which step the schedule stops applying, and why.
func TestTrailReplayChanged(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "r.kb")
	src := "shared int x;\nthread w[2] { int t = x; x = t + 1; }\nthread m { join(w); assert(x == 2, \"lost update\"); }\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	trailPath := filepath.Join(dir, "r.trail.json")
	if code, out, errs := kbmc(t, "check", "--algo", "dfs", "--workers", "1", "--trail", trailPath, prog); code != 10 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	tests := []struct {
		name, src string
		code      int
		outcome   string
	}{
		{"comment added", src + "// changed\n", 10, "the trail's 6 steps, replayed on the changed program: the trail's violation still occurs"},
		{"fixed with a mutex", "shared int x;\nmutex l;\nthread w[2] { lock(l); int t = x; x = t + 1; unlock(l); }\n" +
			"thread m { join(w); assert(x == 2, \"lost update\"); }\n", 0,
			"applies to the changed program for 1 of its 6 steps; step 2 does not: thread w[1] cannot move: it waits for mutex l, held by w[0]"},
		{"fixed with atomic", "shared int x;\nthread w[2] { atomic { int t = x; x = t + 1; } }\nthread m { join(w); assert(x == 2, \"lost update\"); }\n", 0,
			"for 2 of its 6 steps; step 3 does not: thread w[0] has terminated"},
		{"thread renamed", "shared int x;\nthread v[2] { int t = x; x = t + 1; }\nthread m { join(v); assert(x == 2, \"lost update\"); }\n", 0,
			"for 0 of its 6 steps; step 1 does not: the program has no thread w[0]"},
		{"assertion changed", "shared int x;\nthread w[2] { int t = x; x = t + 1; }\nthread m { join(w); assert(x >= 1); }\n", 0,
			"replayed on the changed program: no violation (the trail's assertion no longer occurs on this schedule)"},
	}
	for _, tc := range tests {
		if err := os.WriteFile(prog, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := kbmc(t, "run", "--replay", trailPath)
		if code != tc.code || !strings.Contains(out, "has changed since the trail was written") || !strings.Contains(out, "outcome: ") ||
			!strings.Contains(out, tc.outcome) {
			t.Errorf("%s: exit %d, want %d and %q\n%s%s", tc.name, code, tc.code, tc.outcome, out, errs)
		}
		code, out, _ = kbmc(t, "run", "--json", "--replay", trailPath)
		var j jsonRun
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != tc.code || j.Changed == "" || !strings.Contains(j.Outcome, tc.outcome) {
			t.Errorf("%s --json: exit %d (%v)\n%s", tc.name, code, err, out)
		}
	}
}

// --relevant hides a thread that touches nothing the violation depends on.
func TestRelevant(t *testing.T) {
	p := writeProgram(t, "shared int x;\nshared int noise;\nthread a { int t = x; x = t + 1; }\nthread b { int t = x; x = t + 1; }\n"+
		"thread n { noise = 1; noise = 2; }\nthread m { join(a); join(b); assert(x == 2); }\n")
	_, all, _ := kbmc(t, "check", "--algo", "dfs", p)
	_, some, _ := kbmc(t, "check", "--algo", "dfs", "--relevant", p)
	if !strings.Contains(all, "noise=") || strings.Contains(some, "noise=") || !strings.Contains(some, "shown: those the violation depends on") {
		t.Errorf("--relevant:\n%s\nwithout:\n%s", some, all)
	}
}

// --property checks one property: the other assertions are ignored.
func TestProperty(t *testing.T) {
	p := writeProgram(t, "shared int x;\nthread a { x = 1; assert(x == 2, \"first\"); assert(x == 3, \"second\"); }\n")
	code, out, _ := kbmc(t, "check", "--property", "assertion.2", p)
	if code != 10 || !strings.Contains(out, "assertion: second") || strings.Contains(out, "assertion: first") {
		t.Errorf("exit %d\n%s", code, out)
	}
	code, out, _ = kbmc(t, "check", "--show-properties", "--json", p)
	if code != 0 || !strings.Contains(out, `"id":"assertion.1"`) || !strings.Contains(out, `"id":"deadlock"`) {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// regress: a run over its time budget is unknown, apart from failures, and
// not a failure; --json and --junit report every run.
func TestRegressBudget(t *testing.T) {
	dir := t.TempDir()
	spin := "//@ expect: bounded-safe\n//@ args: --depth 60\n//@ engines: explicit/dfs\nshared int f;\nthread s[3] { while (f == 0) { yield; } }\n"
	ok := "//@ expect: unsafe\n//@ violation: assertion\n" + racy
	for name, src := range map[string]string{"spin.kb": spin, "ok.kb": ok} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := kbmc(t, "regress", "--timeout", "50ms", "--engines", "explicit/dfs", dir)
	if code != 0 || !strings.Contains(out, "UNKNOWN "+filepath.Join(dir, "spin.kb")) || !strings.Contains(out, "1 unknown: over the time budget") ||
		!strings.HasSuffix(out, "1 passed, 0 failed\n") {
		t.Errorf("exit %d\n%s", code, out)
	}
	junit := filepath.Join(dir, "report.xml")
	code, out, _ = kbmc(t, "regress", "--timeout", "50ms", "--engines", "explicit/dfs", "--json", "--junit", junit, dir)
	var j struct {
		Cases  []regressCase  `json:"cases"`
		Totals map[string]int `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if j.Totals["pass"] != 1 || j.Totals["unknown"] != 1 || len(j.Cases) != 2 {
		t.Errorf("regress --json: %s", out)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Suites []struct {
			Tests  int `xml:"tests,attr"`
			Errors int `xml:"errors,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &x); err != nil || len(x.Suites) != 2 || x.Suites[0].Errors+x.Suites[1].Errors != 1 {
		t.Errorf("JUnit report (%v):\n%s", err, data)
	}
}

// An engine tried by default on a program it does not support is not a
// failure of regress.
func TestRegressSkipsUnsupported(t *testing.T) {
	dir := t.TempDir()
	src := "//@ expect: safe\nconst N = 1;\nshared int x;\nthread a { x = nondet(); }\n"
	if err := os.WriteFile(filepath.Join(dir, "p.kb"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := kbmc(t, "regress", "-v", dir)
	if !strings.Contains(out, "skip ") || !strings.Contains(out, "not run: the engine does not support the program") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestXvalAndBenchJSON(t *testing.T) {
	unsafe := writeProgram(t, racy)
	code, out, _ := kbmc(t, "xval", "--json", "--engines", "explicit/dfs,explicit/dfs/stateful", unsafe)
	var x struct {
		Engines []string  `json:"engines"`
		Files   []xvalRow `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil || code != 0 || len(x.Files) != 1 ||
		x.Files[0].Answers["explicit/dfs/stateful"].Verdict != "unsafe" {
		t.Errorf("xval --json: exit %d %v\n%s", code, err, out)
	}
	code, out, errs := kbmc(t, "bench", "--json", "--suite", "readers-writers", "--engines", "explicit/dfs,explicit/persistent", "--n", "1..2")
	var b struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil || code != 0 || len(b.Rows) != 4 {
		t.Fatalf("bench --json: exit %d %v\n%s%s", code, err, out, errs)
	}
	if _, ok := b.Rows[0]["states"]; ok {
		t.Errorf("stateless dfs has a states column: %v", b.Rows[0])
	}
	if _, ok := b.Rows[2]["states"]; !ok || b.Rows[0]["depth_bound"] != float64(100) || b.Rows[0]["kbmc_version"] != version {
		t.Errorf("bench rows: %v", b.Rows)
	}
}

func TestProgressFitsAndClears(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, width: 40}
	p.report(&verify.Stats{Executions: 71718331, Cut: 12, Transitions: 999999999, Time: 75500 * time.Millisecond})
	line := strings.TrimPrefix(buf.String(), "\r\033[K")
	if len([]rune(line)) > 39 || !strings.HasPrefix(line, "71,718,331 executions") {
		t.Errorf("progress line %q does not fit 40 columns", line)
	}
	p.clear()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Errorf("progress not cleared: %q", buf.String())
	}
	buf.Reset()
	sp := &progress{w: &buf, width: 80, symbolic: true}
	sp.report(&verify.Stats{Depth: 27, SolveTime: 420 * time.Millisecond, Time: time.Second})
	if !strings.Contains(buf.String(), "depth 27 done, 420ms in the solver") {
		t.Errorf("symbolic progress %q", buf.String())
	}
}

// TestMain lets a test run the real binary's main (for signals).
func TestMain(m *testing.M) {
	if os.Getenv("KBMC_TEST_MAIN") == "1" {
		os.Args = append([]string{"kbmc"}, strings.Fields(os.Getenv("KBMC_TEST_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// Ctrl-C (SIGINT) ends a run like --timeout: verdict unknown, the statistics,
// --json still printed, exit 5. SIGTERM (timeout(1)) does the same.
func TestInterrupt(t *testing.T) {
	spin := writeProgram(t, "shared int f;\nthread s[4] { while (f == 0) { yield; } }\n")
	for _, tc := range []struct {
		sig  syscall.Signal
		args string
	}{
		{syscall.SIGINT, "check --json --algo dfs " + spin},
		{syscall.SIGINT, "check --algo dfs " + spin},
		{syscall.SIGTERM, "check --json --algo dfs " + spin},
		{syscall.SIGTERM, "check --algo dfs " + spin},
	} {
		args := tc.args
		var out, errb bytes.Buffer
		code := 0
		// A signal that arrives before main has installed its handler ends
		// the process with the signal's default action: that says nothing
		// about kbmc, so the run is tried again, later into it.
		for wait := 500 * time.Millisecond; ; wait *= 2 {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "KBMC_TEST_MAIN=1", "KBMC_TEST_ARGS="+args)
			out.Reset()
			errb.Reset()
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(wait)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			code = 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && wait < 30*time.Second {
					continue
				}
			}
			break
		}
		if code != exitUnknown {
			t.Errorf("%v %s: exit %d, want 5\n%s%s", tc.sig, args, code, out.String(), errb.String())
		}
		if strings.Contains(args, "--json") {
			var j jsonResult
			if err := json.Unmarshal(out.Bytes(), &j); err != nil || j.Verdict != "unknown" || !strings.Contains(j.Note, "interrupted") ||
				j.Stats["executions"] == nil {
				t.Errorf("%v --json (%v): %s", tc.sig, err, out.String())
			}
		} else if !strings.Contains(out.String(), "unknown: stopped: interrupted") || !strings.Contains(out.String(), "stats: executions") {
			t.Errorf("%v text: %s", tc.sig, out.String())
		}
	}
}

// Every violation kind a run reports is a property --show-properties lists, at
// the position the violation is reported at, and --property selects it: for
// each program, the unselected run's violation is found in the list, and
// selecting its id reports the same violation.
func TestPropertyListsEveryViolation(t *testing.T) {
	tests := []struct {
		name, src, ext string
		args           []string
		kind           string
	}{
		{"assertion", "shared int x;\nthread a { x = 1; assert(x == 2); }\n", ".kb", nil, "assertion"},
		{"array index", "shared int a[2];\nthread t { int i = 2; int y = a[i]; }\n", ".kb", nil, "bounds"},
		{"array store", "shared int a[2];\nthread t { int i = -1; a[i] = 1; }\n", ".kb", nil, "bounds"},
		{"len of a channel", "chan (int) c[2] capacity 1;\nthread t { int v = -1; if (len(c[v]) < 1) { v = 0; } }\n", ".kb", nil, "bounds"},
		{"send to a channel", "chan (int) c[2] capacity 1;\nthread t { int v = 2; send(c[v], 1); }\n", ".kb", nil, "bounds"},
		{"recv from a channel", "chan (int) c[2] capacity 1;\nthread t { int v = 2; int x; recv(c[v], x); }\n", ".kb", nil, "bounds"},
		{"mutex index", "mutex m[2];\nthread t { int i = 3; lock(m[i]); }\n", ".kb", nil, "bounds"},
		{"join index", "thread w[2] { }\nthread t { int i = 2; join(w[i]); }\n", ".kb", nil, "bounds"},
		{"division", "shared int z;\nthread t { int y = 1 / z; }\n", ".kb", nil, "division-by-zero"},
		{"shift", "shared int z = 40;\nthread t { int y = 1 << z; }\n", ".kb", nil, "shift"},
		{"relock", "mutex m;\nthread t { lock(m); lock(m); }\n", ".kb", nil, "relock"},
		{"bad unlock", "mutex m;\nthread t { unlock(m); }\n", ".kb", nil, "bad-unlock"},
		{"deadlock", "shared int x;\nthread t { await(x == 1); }\n", ".kb", nil, "deadlock"},
		{"invariant", "process p[2] { shared int v; thread t { v = pid + 1; } }\ninvariant low: forall i in 0..1: p[i].v < 2;\n", ".kb", nil, "invariant"},
		{"local deadlock", "chan (int) c capacity 1;\nprocess client { thread t { int x; recv(c, x); } }\n" +
			"process server { shared int n; thread t { while (true) { n = 1 - n; } } }\n", ".kb", []string{"--local-deadlock"}, "local-deadlock"},
		{"reach error", "extern void reach_error(void);\nint main(void) { reach_error(); return 0; }\n", ".c", nil, "reach-error"},
		{"null dereference", "int main(void) { int *p = 0; return *p; }\n", ".c", nil, "invalid-deref"},
		{"double free", "#include <stdlib.h>\nint main(void) { int *p = malloc(sizeof(int)); free(p); free(p); return 0; }\n", ".c", nil, "invalid-free"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p"+tc.ext)
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"check", "--json"}, tc.args...), path)
			code, out, errs := kbmc(t, args...)
			var j jsonResult
			if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitUnsafe || j.Violation == nil || j.Violation.Kind != tc.kind {
				t.Fatalf("exit %d, want an unsafe %s (%v)\n%s%s", code, tc.kind, err, out, errs)
			}
			code, out, errs = kbmc(t, append(append([]string{"check", "--show-properties", "--json"}, tc.args...), path)...)
			var list struct {
				Properties []property `json:"properties"`
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
				t.Fatalf("--show-properties: exit %d (%v)\n%s%s", code, err, out, errs)
			}
			id := ""
			for _, p := range list.Properties {
				if p.Kind != tc.kind {
					continue
				}
				// A state's property has no position; a node's is where
				// the violation is reported, up to the column.
				if p.Pos == "" || strings.HasPrefix(j.Violation.Pos, p.Pos+":") || j.Violation.Pos == p.Pos {
					id = p.ID
				}
			}
			if id == "" {
				t.Fatalf("--show-properties lists no %s at %s:\n%s", tc.kind, j.Violation.Pos, out)
			}
			code, out, errs = kbmc(t, append(append([]string{"check", "--json", "--property", id}, tc.args...), path)...)
			var sel jsonResult
			if err := json.Unmarshal([]byte(out), &sel); err != nil || code != exitUnsafe || sel.Violation == nil ||
				sel.Violation.Kind != tc.kind || sel.Violation.Pos != j.Violation.Pos {
				t.Errorf("--property %s: exit %d, want the same %s at %s (%v)\n%s%s", id, code, tc.kind, j.Violation.Pos, err, out, errs)
			}
		})
	}
}

// With a property selected, only it is checked: --local-deadlock beside
// another property does not report local deadlocks; --property local-deadlock
// does, and needs --local-deadlock.
func TestPropertyExcludesLocalDeadlock(t *testing.T) {
	p := writeProgram(t, "chan (int) c capacity 1;\nprocess client { thread t { int x; recv(c, x); } }\n"+
		"process server { shared int n; thread t { while (true) { n = 1 - n; assert(n <= 1); } } }\n")
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--local-deadlock"}, exitUnsafe, "unsafe: local-deadlock"},
		{[]string{"--property", "assertion.1", "--local-deadlock"}, exitOK, "bounded-safe"},
		{[]string{"--property", "local-deadlock", "--local-deadlock"}, exitUnsafe, "unsafe: local-deadlock"},
		{[]string{"--property", "local-deadlock"}, exitUsage, "only with --local-deadlock"},
		{[]string{"--property", "deadlock", "--local-deadlock"}, exitOK, "bounded-safe"},
	}
	for _, tc := range tests {
		code, out, errs := kbmc(t, append(append([]string{"check"}, tc.args...), p)...)
		if code != tc.code || !strings.Contains(out+errs, tc.out) {
			t.Errorf("%v: exit %d, want %d and %q\n%s%s", tc.args, code, tc.code, tc.out, out, errs)
		}
	}
}

// A stopped symbolic run reports in JSON the steps it covered and, for the
// partial-order encoding, each thread's unrolling: new fields beside the
// note and stats.depth, which keep their meaning.
func TestSymbolicUnknownReachedSteps(t *testing.T) {
	l, err := load(writeProgram(t, "shared int x;\nthread c { x = 1; }\n"), sourceConfig{Config: lang.Config{Width: 32}})
	if err != nil {
		t.Fatal(err)
	}
	o := verify.Outcome{Stopped: verify.ErrInterrupted, Reached: 4, Unrolling: []verify.ThreadSteps{{Thread: "c", Steps: 6}}}
	res := o.Decide()
	res.Engine, res.Algo, res.Solver = "symbolic", "partial-order", "gini"
	res.Stats.Depth = 10
	res.StatKeys = []string{"depth"}
	res.Bound = verify.Bound{Depth: 100, Preemptions: -1, Fair: -1}
	j, err := jsonOf(l, engineConfig{Engine: "symbolic"}, res, traceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(j)
	for _, want := range []string{`"reached_steps":4`, `"unrolling":[{"thread":"c","steps":6}]`, `"depth":10`,
		`no violation in executions of up to 4 steps, nor in any within the depth bound in which each thread takes at most the steps of its unrolling (c 6)`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
}
