package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// -stress runs every stress program on every engine with a longer time limit
// (make stress; minutes), instead of the default's one engine per program.
var stress = flag.Bool("stress", false, "stress suite: every program on every engine (minutes)")

// stressPrograms are inputs far larger than a model checker can finish on:
// each engine must still end with a verdict, or with unknown stopped by the
// time or memory limit, never with the Go runtime's out-of-memory death.
var stressPrograms = []struct {
	name, src string
	args      []string // extra flags; explicitArgs only for the explicit engine
	explicit  []string
}{
	{"1024 threads", "shared int x;\nthread t[1024] { x++; }\n", []string{"--depth", "3000"}, nil},
	{"deep loop", `shared int x;
thread t[2] {
    int i = 0;
    while (i < 1000000) { x = x + 1; i = i + 1; }
}
`, []string{"--depth", "100000"}, nil},
	{"wide nondeterminism", `shared int x;
thread t[2] {
    x = x + nondet(0, 100000000);
    assert(x != 12345678, "hit");
}
`, []string{"--depth", "10"}, []string{"--max-nondet", "1000000000"}},
	{"10^5-element array", `shared int a[100000];
thread t[2] {
    int i = 0;
    while (i < 100000) { a[i] = a[i] + tid; i = i + 1; }
}
`, []string{"--depth", "1000"}, nil},
}

// stressEngines is every engine: each explicit algorithm, dfs with a visited
// set, and the symbolic engine with both solvers on both encodings.
func stressEngines() [][]string {
	var out [][]string
	for _, a := range []string{"dfs", "dpor", "lazypor", "persistent", "process-local", "bpor-preempt", "bpor-fair"} {
		out = append(out, []string{"--algo", a})
	}
	out = append(out, []string{"--algo", "dfs", "--stateful"})
	for _, s := range []string{"gini", "z3"} {
		for _, enc := range []string{"step", "partial-order"} {
			out = append(out, []string{"--engine", "symbolic", "--solver", s, "--encoding", enc})
		}
	}
	return out
}

// stressDefault is, per engine of stressEngines, the program the default
// (short) suite runs it on: every engine once, every program three times.
var stressDefault = []int{
	1, // dfs: deep loop
	3, // dpor: array
	1, // lazypor: deep loop (its trace constraint systems are quadratic in the run)
	2, // persistent: wide nondeterminism (its sleep sets look at every draw)
	0, // process-local: 1024 threads
	1, // bpor-preempt: deep loop
	2, // bpor-fair: wide nondeterminism
	2, // dfs --stateful: wide nondeterminism
	0, // symbolic gini step: 1024 threads
	3, // symbolic gini partial-order: array
	0, // symbolic z3 step: 1024 threads
	1, // symbolic z3 partial-order: deep loop
}

// TestStress runs the real kbmc (the test binary's main, as a process of its
// own, so a runtime death shows as one) on the stress programs under a small
// time and memory limit. By default each engine runs on one program
// (stressDefault), which takes seconds; -stress runs them all with a longer
// limit.
func TestStress(t *testing.T) {
	timeout, memory := "500ms", "256MiB"
	if *stress {
		timeout = "5s"
	}
	for i, eng := range stressEngines() {
		for j, prog := range stressPrograms {
			if !*stress && j != stressDefault[i] {
				continue
			}
			args := append([]string{"check", "--json", "--timeout", timeout, "--memory", memory}, prog.args...)
			if eng[0] == "--algo" {
				args = append(args, prog.explicit...)
			}
			args = append(args, eng...)
			name := prog.name + "/" + strings.Join(eng, " ")
			t.Run(name, func(t *testing.T) {
				runStress(t, writeProgram(t, prog.src), args, "")
			})
		}
	}
}

// TestStressMemory forces the memory limit on the stateful searches and on the
// symbolic engine, whose memory grows past 64 MiB long before the time limit.
func TestStressMemory(t *testing.T) {
	for _, tc := range []struct {
		src  string
		args []string
	}{
		{growing, []string{"--depth", "300", "--algo", "persistent"}},
		{growing, []string{"--depth", "300", "--algo", "dfs", "--stateful"}},
		{stressPrograms[0].src, []string{"--engine", "symbolic", "--solver", "gini", "--encoding", "step"}},
		{stressPrograms[0].src, []string{"--engine", "symbolic", "--solver", "z3", "--encoding", "partial-order"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"check", "--json", "--memory", "64MiB", "--workers", "1"}, tc.args...)
			runStress(t, writeProgram(t, tc.src), args, "memory")
		})
	}
}

// runStress runs kbmc ARGS FILE in a process of its own and checks that it
// ended with exit 0 or 10 and a verdict, or exit 5 and unknown stopped by the
// time or memory limit (by want, when given), and without a runtime dump.
func runStress(t *testing.T, file string, args []string, want string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KBMC_TEST_MAIN=1", "KBMC_TEST_ARGS="+strings.Join(append(args, file), " "))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if s := errb.String(); strings.Contains(s, "fatal error") || strings.Contains(s, "goroutine ") || strings.Contains(s, "panic") {
		t.Fatalf("%v: exit %d with a runtime dump:\n%.2000s", args, code, s)
	}
	var j jsonResult
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("%v: exit %d, no JSON result (%v):\n%s%.2000s", args, code, err, out.String(), errb.String())
	}
	switch {
	case code == exitUnknown && j.Verdict == "unknown" && (j.Stopped == "time" || j.Stopped == "memory"):
		if want != "" && j.Stopped != want {
			t.Errorf("%v: stopped by %s, want %s (%s)", args, j.Stopped, want, j.Note)
		}
	case (code == exitOK || code == exitUnsafe) && j.Verdict != "unknown" && want == "":
	default:
		t.Errorf("%v: exit %d, verdict %s, stopped %q, note %q", args, code, j.Verdict, j.Stopped, j.Note)
	}
	// The wall time is logged, not tested (it depends on the machine's
	// load): make stress -v shows how far past the limit each run ended.
	t.Logf("exit %d after %.1f s: %s %s %s", code, elapsed.Seconds(), j.Verdict, j.Stopped, j.Note)
}
