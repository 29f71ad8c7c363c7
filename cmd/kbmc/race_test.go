package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckDataRace checks --property no-data-race from the command line:
// the violation names both accesses (file:line:col, thread, location) in
// text and JSON, the engines that check it agree (the explicit dfs and bfs,
// the symbolic engine's step encoding, which its default encoding falls back
// to), and the others refuse it with an input error that names what to use
// instead.
func TestCheckDataRace(t *testing.T) {
	const racy = "../../testdata/c-race-some-interleaving.c"
	for _, algo := range [][]string{{"--algo", "dfs"}, {"--algo", "bfs"}, {"--engine", "symbolic"}, {"--engine", "symbolic", "--encoding", "step", "--solver", "z3"}} {
		code, out, errs := kbmc(t, append(append([]string{"check", "--property", "no-data-race"}, algo...), racy)...)
		if code != exitUnsafe {
			t.Fatalf("%s: exit %d\n%s%s", algo, code, out, errs)
		}
		for _, want := range []string{"unsafe: data-race", "property: no-data-race", "data race on data:",
			"producer[0]'s write at ../../testdata/c-race-some-interleaving.c:13:5 (data = 42;)",
			"consumer[0]'s write at ../../testdata/c-race-some-interleaving.c:25:9 (data = 0;)"} {
			if !strings.Contains(out, want) {
				t.Errorf("--algo %s: output lacks %q:\n%s", algo, want, out)
			}
		}
	}
	code, out, _ := kbmc(t, "check", "--property", "no-data-race", "--json", racy)
	var j struct {
		Verdict   string `json:"verdict"`
		Violation struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"violation"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != exitUnsafe || j.Violation.Kind != "data-race" ||
		!strings.Contains(j.Violation.Message, "consumer[0]'s write") {
		t.Errorf("--json: exit %d, %v, %+v\n%s", code, err, j, out)
	}
	// Without the property, the same program has no violation.
	if code, out, _ := kbmc(t, "check", racy); code != exitOK {
		t.Errorf("without --property: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--algo", "dpor"}, "--algo dpor does not check the property no-data-race"},
		{[]string{"--algo", "persistent"}, "use --algo dfs or bfs"},
		{[]string{"--engine", "symbolic", "--encoding", "partial-order"}, "use --encoding step"},
	} {
		code, out, errs := kbmc(t, append(append([]string{"check", "--property", "no-data-race"}, tc.args...), racy)...)
		if code != exitInput || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s%s", tc.args, code, exitInput, tc.want, out, errs)
		}
	}
}
