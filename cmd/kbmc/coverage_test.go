package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const deadCode = `shared int x = 0;
thread a {
    x = x + 1;
    if (x > 10) {
        x = 0;
    }
}
thread b { x = x + 2; }
`

// The state graph of deadCode: a takes two steps (x = x + 1; the if, which
// reads x), b one. Its states are the initial one, a1, b, a1·a2, a1·b (=
// b·a1) and the final one (every order ends with x = 3): 6, reached by 7 steps
// of dfs --stateful (8 generated with the initial state); stateless dfs's tree
// of the 3 executions has 8 steps (9 generated).

// TestCoverage: check --coverage lists the statement no execution runs, not
// the live ones, says what the list is relative to, and gives the counts; in
// text and JSON; and refuses where it cannot count.
func TestCoverage(t *testing.T) {
	p := writeProgram(t, deadCode)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout+stderr, in order
		not  []string
	}{
		{"dfs stateful", []string{"check", "--coverage", p}, 0,
			[]string{"safe", "coverage: 3 of 4 statements executed; never executed in any execution:", "  thread a:", ":5:9: x = 0",
				"states: 8 generated, 6 distinct; diameter 3"}, []string{"x = x + 1", "x = x + 2"}},
		{"stateless", []string{"check", "--coverage", "--algo", "dfs", p}, 0,
			[]string{"states: 9 generated, distinct not known (dfs counts no stored states); diameter 3"}, nil},
		{"cut by the bound", []string{"check", "--coverage", "--depth", "1", p}, 0,
			[]string{"bounded-safe", "never executed within depth 1 (the bound cut some executions", ":4:5: if (x > 10)", ":5:9: x = 0", "states: 3 generated, 3 distinct; diameter 1"}, nil},
		{"symbolic", []string{"check", "--coverage", "--engine", "symbolic", p}, 1,
			[]string{"--coverage applies only to the explicit engine"}, nil},
		{"a shard", []string{"check", "--coverage", "--shard", "0/2", p}, 1,
			[]string{"--coverage: one part of a sharded run"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := kbmc(t, tc.args...)
			all := out + errOut
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, all)
			}
			rest := all
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("no %q (in this order) in:\n%s", w, all)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(all[strings.Index(all, "coverage:"):], n) {
					t.Errorf("%q listed as never executed:\n%s", n, all)
				}
			}
		})
	}
	_, out, _ := kbmc(t, "check", "--coverage", "--json", p)
	var j struct {
		Coverage jsonCoverage `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	c := j.Coverage
	if c.Statements != 4 || c.Executed != 3 || len(c.NeverExecuted) != 1 || c.NeverExecuted[0].Text != "x = 0" ||
		c.NeverExecuted[0].Thread != "a" || c.Scope != "complete" || c.Generated != 8 || c.Distinct == nil || *c.Distinct != 6 || c.Diameter != 3 {
		t.Errorf("JSON coverage %+v", c)
	}
}
