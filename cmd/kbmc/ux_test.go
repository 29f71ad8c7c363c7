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
// suggests a larger depth.
func TestBoundedWithoutCycle(t *testing.T) {
	p := writeProgram(t, "shared int x;\nthread c { for (int i = 0; i < 10; i++) { x++; } }\n")
	_, out, _ := kbmc(t, "check", "--depth", "10", p)
	for _, want := range []string{"bounded-safe", "some executions are longer than the bound", "executions were cut at depth 10", "next: try --depth 20"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
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

// check --trail writes a documented JSON witness; run --replay re-executes it,
// and refuses a program that changed.
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
	if err := os.WriteFile(prog, []byte(src+"// changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = kbmc(t, "run", "--replay", trailPath, prog)
	if code != 2 || !strings.Contains(errs, "has changed since the trail was written") {
		t.Errorf("changed program: exit %d %s", code, errs)
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
// --json still printed, exit 5.
func TestInterrupt(t *testing.T) {
	spin := writeProgram(t, "shared int f;\nthread s[4] { while (f == 0) { yield; } }\n")
	for _, args := range []string{"check --json --algo dfs " + spin, "check --algo dfs " + spin} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "KBMC_TEST_MAIN=1", "KBMC_TEST_ARGS="+args)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != exitUnknown {
			t.Errorf("%s: exit %d, want 5\n%s%s", args, code, out.String(), errb.String())
		}
		if strings.Contains(args, "--json") {
			var j jsonResult
			if err := json.Unmarshal(out.Bytes(), &j); err != nil || j.Verdict != "unknown" || !strings.Contains(j.Note, "interrupted") ||
				j.Stats["executions"] == nil {
				t.Errorf("--json after Ctrl-C (%v): %s", err, out.String())
			}
		} else if !strings.Contains(out.String(), "unknown: stopped: interrupted") || !strings.Contains(out.String(), "stats: executions") {
			t.Errorf("text after Ctrl-C: %s", out.String())
		}
	}
}
