package main

import (
	"strings"
	"testing"
)

// TestShortest checks kbmc check --shortest: it runs bfs and says the trace is
// a shortest one, refuses what cannot give one, and a stopped run says how
// many steps it covered.
func TestShortest(t *testing.T) {
	// dfs runs the counter up first; the assertion fails sooner when b looks
	// as soon as x is 3.
	prog := writeProgram(t, "shared int x;\nthread a { int i = 0; while (i < 6) { x = x + 1; i = i + 1; } }\nthread b { assert(x != 3); }\n")
	spin := writeProgram(t, "shared int x[3];\nthread w[3] { int i = 0; while (i < 50) { x[tid] = (x[tid] + 1) % 5; i = i + 1; } }\n")
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout+stderr
	}{
		{"shortest", []string{"check", "--shortest", prog}, exitUnsafe,
			[]string{"trace (8 steps, the fewest of any counterexample: breadth-first search)", "depth 8"}},
		{"dfs is longer", []string{"check", "--algo", "dfs", "--workers", "1", prog}, exitUnsafe, []string{"trace (9 steps)"}},
		{"bfs named", []string{"check", "--shortest", "--algo", "bfs", prog}, exitUnsafe, []string{"the fewest"}},
		{"json", []string{"check", "--shortest", "--json", prog}, exitUnsafe, []string{`"algo":"bfs"`}},
		{"other algorithm", []string{"check", "--shortest", "--algo", "dpor", prog}, exitUsage,
			[]string{"--shortest needs the breadth-first search (--algo bfs): --algo dpor does not find a counterexample of the fewest steps first"}},
		{"symbolic", []string{"check", "--shortest", "--engine", "symbolic", prog}, exitUsage, []string{"--engine symbolic does not promise"}},
		{"stateful", []string{"check", "--shortest", "--stateful", prog}, exitUsage, []string{"--stateful applies only to --algo dfs"}},
		{"sharded", []string{"check", "--shortest", "--shard", "0/2", prog}, exitUsage, []string{"cannot be sharded"}},
		{"stopped", []string{"check", "--shortest", "--depth", "1000", "--timeout", "200ms", spin}, exitUnknown,
			[]string{"unknown", "no violation in executions of up to", "states "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := kbmc(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+stderr, w) {
					t.Errorf("output lacks %q\n%s%s", w, out, stderr)
				}
			}
		})
	}
}

// TestBFSClosedGraph: when breadth-first search expands every reachable state
// before the bound, a program that loops for ever is still bounded-safe, and
// the next step says that no execution of any length has a violation.
func TestBFSClosedGraph(t *testing.T) {
	path := writeProgram(t, "shared int f;\nthread a { while (f == 0) { } }\nthread b { f = 1; }\n")
	code, out, _ := kbmc(t, "check", "--algo", "bfs", path)
	if code != exitOK || !strings.Contains(out, "bounded-safe") || !strings.Contains(out, "every reachable state (") ||
		!strings.Contains(out, "no execution of any length has a violation") {
		t.Errorf("exit %d, want bounded-safe saying every reachable state was explored:\n%s", code, out)
	}
	code, out, _ = kbmc(t, "check", "--algo", "bfs", "--depth", "1", path)
	if code != exitOK || !strings.Contains(out, "bounded-safe") || strings.Contains(out, "every reachable state") {
		t.Errorf("depth 1: exit %d, want bounded-safe without the claim:\n%s", code, out)
	}
}
