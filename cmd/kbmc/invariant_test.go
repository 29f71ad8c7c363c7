package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const twoInvariants = `shared int x = 0;
shared int y = 0;
thread a { x = 1; assert(x == 1); }
thread b { y = 1; }
invariant x_first: !(x == 0 && y == 1);
invariant small: x + y < 5;
`

// --invariant selects invariants, --property invariant.NAME one property,
// --show-properties lists them by name, and the text and JSON reports name
// the invariant that fails and show what it read.
func TestInvariantFlags(t *testing.T) {
	p := writeProgram(t, twoInvariants)
	tests := []struct {
		args []string
		code int
		out  []string
	}{
		{nil, exitUnsafe, []string{"unsafe: invariant", ":5:11: invariant: x_first does not hold: x = 0, y = 1 (thread b)", "state at the violation:"}},
		{[]string{"--invariant", "small"}, exitOK, []string{"safe: no violation"}},
		{[]string{"--invariant", "small", "--invariant", "x_first"}, exitUnsafe, []string{"unsafe: invariant"}},
		{[]string{"--invariant", "nope"}, exitUsage, nil},
		{[]string{"--property", "invariant.x_first"}, exitUnsafe, []string{"property: invariant.x_first (invariant", "x_first does not hold"}},
		{[]string{"--property", "invariant.small"}, exitOK, []string{"safe"}},
		{[]string{"--property", "assertion.1"}, exitOK, []string{"safe"}},
		{[]string{"--show-properties"}, exitOK, []string{"assertion.1", "invariant.x_first", "!(x == 0 && y == 1)", "invariant.small", "x + y < 5", "deadlock"}},
		{[]string{"--engine", "symbolic"}, exitUnsafe, []string{"x_first does not hold: x = 0, y = 1 (thread b)"}},
		{[]string{"--algo", "dpor"}, exitUnsafe, []string{"x_first does not hold: x = 0, y = 1 (thread b)"}},
	}
	for _, tt := range tests {
		code, out, errs := kbmc(t, append(append([]string{"check"}, tt.args...), p)...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tt.args, code, tt.code, out, errs)
			continue
		}
		for _, want := range tt.out {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%s", tt.args, want, out)
			}
		}
	}
	if _, _, errs := kbmc(t, "check", "--invariant", "nope", p); !strings.Contains(errs, "no invariant nope (the program declares x_first, small)") {
		t.Errorf("--invariant nope: %s", errs)
	}

	code, out, errs := kbmc(t, "check", "--json", p)
	var j jsonResult
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitUnsafe || j.Violation == nil {
		t.Fatalf("--json: exit %d (%v)\n%s%s", code, err, out, errs)
	}
	if v := j.Violation; v.Kind != "invariant" || v.Invariant != "x_first" || v.Thread != "b" || !strings.HasSuffix(v.Pos, ":5:11") {
		t.Errorf("--json violation %+v", v)
	}
	code, out, _ = kbmc(t, "check", "--json", "--invariant", "small", "--invariant", "x_first", p)
	if code != exitUnsafe || !strings.Contains(out, `"invariant=small,x_first"`) {
		t.Errorf("--json settings do not list the invariants selected:\n%s", out)
	}
}

// An invariant the initial state breaks: the empty trace, said so.
func TestInvariantInitialState(t *testing.T) {
	p := writeProgram(t, "shared int x = 5;\nthread a { x = 1; }\ninvariant pos: x < 3;\n")
	for _, engine := range []string{"explicit", "symbolic"} {
		code, out, errs := kbmc(t, "check", "--engine", engine, p)
		if code != exitUnsafe || !strings.Contains(out, "pos does not hold: x = 5 (in the initial state)") || !strings.Contains(out, "trace (0 steps)") {
			t.Errorf("%s: exit %d\n%s%s", engine, code, out, errs)
		}
	}
}
