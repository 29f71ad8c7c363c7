package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

const rareBugProgram = `shared int x = 0;
thread writer {
    x = 1; x = 2; x = 3; x = 4; x = 5; x = 6; x = 7;
}
thread reader {
    int r = x;
    assert(r != 5, "read the fifth write");
}
`

// TestRunsFindAndReplay: run --runs finds the bug one run misses, names the
// seed and the command that replays it, and that command prints the same run.
func TestRunsFindAndReplay(t *testing.T) {
	p := writeProgram(t, rareBugProgram)
	if code, out, _ := kbmc(t, "run", p); code != 0 {
		t.Fatalf("the first run already fails (exit %d): the test needs one that misses the bug\n%s", code, out)
	}
	for _, pct := range []string{"", "2"} {
		args := []string{"run", "--runs", "200"}
		if pct != "" {
			args = append(args, "--pct", pct)
		}
		code, out, errOut := kbmc(t, append(args, p)...)
		if code != 10 {
			t.Fatalf("%v: exit %d, want 10\n%s%s", args, code, out, errOut)
		}
		m := regexp.MustCompile(`^run (\d+) of 200 \(seed (\d+), [^)]*\)? ?[^;]*; replay it with: (kbmc run [^\n]*)\n`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%v: no header naming the run and its seed:\n%s", args, out)
		}
		if m[1] != m[2] {
			t.Errorf("run %s has seed %s, want the run's number (seeds from 1)", m[1], m[2])
		}
		replay := strings.Fields(strings.TrimPrefix(m[3], "kbmc "))
		code2, out2, _ := kbmc(t, replay...)
		trace := out[len(m[0]):strings.Index(out, "runs: ")]
		if code2 != 10 || out2 != trace {
			t.Errorf("%s: exit %d\n%s\nwant the run's\n%s", m[3], code2, out2, trace)
		}
		if !strings.Contains(out, "  1 (run "+m[1]+") in the violation above\n") {
			t.Errorf("summary does not count the violating run:\n%s", out)
		}
	}
}

const outcomesProgram = `shared int f = 0;
thread a {
    int v = nondet(0, 3);
    f = v;
    if (v == 0) { assume(false); }
    if (v == 1) { await(f == 7); }
    if (v == 2) { while (true) { yield; } }
}
`

// TestRunsSummaryOutput: runs that end without a violation are summarized by
// how they ended and their final states, in text and JSON, and the counts add
// up; a time limit leaves the summary and exit code 5.
func TestRunsSummaryOutput(t *testing.T) {
	p := writeProgram(t, outcomesProgram)
	code, out, errOut := kbmc(t, "run", "--runs", "100", "--depth", "20", "--no-deadlock", p)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"runs: 100 of 100 (seeds 1..100, uniform random schedules, depth 20)\n", " complete\n",
		" deadlocked (not reported: --no-deadlock)\n", " cut by a false assume\n", " cut by the depth bound (20 steps)\n",
		"final states: 3 distinct; by shared memory, most frequent first:\n", " runs: f = 3\n",
		"outcome: no violation in 100 runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	_, out, _ = kbmc(t, "run", "--runs", "100", "--depth", "20", "--no-deadlock", "--json", p)
	var j struct {
		Outcome string   `json:"outcome"`
		Runs    jsonRuns `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r := j.Runs
	sum := 0
	for _, f := range r.Finals {
		sum += f.Runs
	}
	if r.Done != 100 || r.Complete+r.Deadlocked+r.CutByAssume+r.CutByDepth != 100 || r.Distinct != 3 || sum != 100-r.CutByDepth ||
		r.Scheduler != "random" || r.Seed != 1 || r.Run != 0 {
		t.Errorf("JSON runs %+v", r)
	}

	code, out, _ = kbmc(t, "run", "--runs", "100", "--depth", "20", p)
	if code != 10 || !strings.Contains(out, "deadlock") {
		t.Errorf("without --no-deadlock: exit %d, want 10 at the first deadlock\n%s", code, out)
	}

	code, out, _ = kbmc(t, "run", "--runs", "100000", "--timeout", "1ns", p)
	if code != 5 || !strings.Contains(out, "stopped") || !strings.Contains(out, "outcome: no violation in 0 runs before the runs were stopped") {
		t.Errorf("--timeout: exit %d, want 5 and the summary\n%s", code, out)
	}
}

func TestRunsFlags(t *testing.T) {
	p := writeProgram(t, rareBugProgram)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--runs", "0", p}, "--runs 0: must be at least 1"},
		{[]string{"run", "--pct", "0", p}, "--pct 0"},
		{[]string{"run", "--runs", "3", "--schedule", "rr", p}, "--runs and --pct make random schedules"},
		{[]string{"run", "--runs", "3", "--record", "x.json", p}, "--record records one run"},
		{[]string{"run", "--replay", "x.json", "--runs", "3"}, "--runs does not apply with --replay"},
	} {
		code, out, errOut := kbmc(t, tc.args...)
		if code != 1 || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q:\n%s%s", tc.args, code, tc.want, out, errOut)
		}
	}
}
