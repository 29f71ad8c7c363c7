package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const detectData = "../../detect/testdata/"

func writeFile(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// independentJSON is a computation of n processes with k local events each and
// no messages: (k+1)^n consistent global states, more than any time limit allows
// the lattice to visit when n and k are large.
func independentJSON(n, k int) string {
	var procs []string
	for i := range n {
		var evs []string
		for e := 1; e <= k; e++ {
			clock := make([]string, n)
			for j := range clock {
				clock[j] = "0"
			}
			clock[i] = fmt.Sprint(e)
			evs = append(evs, fmt.Sprintf(`{"kind": "local", "clock": [%s], "state": {"x": %d}}`, strings.Join(clock, ", "), e))
		}
		procs = append(procs, fmt.Sprintf(`{"name": "p[%d]", "initial": {"x": 0}, "events": [%s]}`, i, strings.Join(evs, ",\n")))
	}
	return `{"format": "kbmc-computation", "version": 1, "processes": [` + strings.Join(procs, ",\n") + "]}\n"
}

func TestDetectExitCodes(t *testing.T) {
	c0 := detectData + "c0.json"
	logs, _ := filepath.Glob(detectData + "govector/lock-bug/*-Log.txt")
	runs := detectData + "shiviz/lock-runs.log"
	big := writeFile(t, "big.json", independentJSON(8, 30))
	badClock := writeFile(t, "a-Log.txt", "a {\"a\":1}\nx\na {\"a\":3}\ny\n")
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout+stderr
	}{
		{"possibly yes", []string{"detect", "--possibly", "P1.p == Y && P2.p == D", c0}, 10, "c0.json: possibly: yes"},
		{"possibly no", []string{"detect", "--possibly", "P1.p == X && P2.p == B", c0}, 0, "c0.json: possibly: no"},
		{"definitely yes", []string{"detect", "--definitely", "P1.p == Y && P2.p == B", c0}, 0, "definitely: yes"},
		{"definitely no", []string{"detect", "--definitely", "P1.p == Y && P2.p == D", c0}, 10, "a history that avoids Φ"},
		{"lattice", []string{"detect", "--algo", "lattice", "--possibly", "P1.p == Y && P2.p == D", c0}, 10, "stats: lattice, states"},
		{"sleep", []string{"detect", "--sleep", "--possibly", "P1.p == X && P2.p == B", c0}, 0, "stats: persistent+sleep"},
		{"fallback", []string{"detect", "--definitely", "P1.p == Y && P2.p == D || P1.p == X && P2.p == B", c0}, 10, "note: Def Φ: Φ is not a conjunction of 1-local predicates"},
		{"flags after files", []string{"detect", c0, "--possibly", "P1.p == Z"}, 10, "P1  after 2 of 2 events  p=Z"},
		{"define", []string{"detect", "-D", "K=2", "--possibly", "P1.p == Z && K > 1", c0}, 10, "possibly: yes"},
		{"govector", append([]string{"detect", "--possibly", "alice.holding && bob.holding"}, logs...), 10, "server  after 5 of 6 events  owner=bob"},
		{"shiviz executions", []string{"detect", "--possibly", "alice.holding && bob.holding", runs}, 10, `execution "granted after the release": possibly: no`},
		{"format given", []string{"detect", "--format", "shiviz", "--possibly", "bob.holding", detectData + "shiviz/lock.log"}, 10, "possibly: yes"},
		{"timeout", []string{"detect", "--algo", "lattice", "--timeout", "300ms", "--possibly", "p[0].x == 99", big}, 5, "possibly: unknown (stopped: time limit 300ms)"},
		{"no predicate", []string{"detect", c0}, 1, "exactly one of --possibly EXPR and --definitely EXPR"},
		{"two predicates", []string{"detect", "--possibly", "P1.p == X", "--definitely", "P1.p == X", c0}, 1, "exactly one"},
		{"no file", []string{"detect", "--possibly", "P1.p == X"}, 1, "one or more FILEs"},
		{"bad algo", []string{"detect", "--algo", "dfs", "--possibly", "P1.p == X", c0}, 1, "--algo dfs: want lattice or persistent"},
		{"bad format", []string{"detect", "--format", "xml", "--possibly", "P1.p == X", c0}, 1, "--format xml"},
		{"bad define", []string{"detect", "-D", "K", "--possibly", "P1.p == X", c0}, 1, "NAME=VALUE"},
		{"missing file", []string{"detect", "--possibly", "P1.p == X", "/nonexistent.json"}, 2, "no such file"},
		{"malformed log", []string{"detect", "--possibly", "a.x == 1", badClock}, 2, "a-Log.txt:3: the clock of a goes from 1 to 3"},
		{"mixed formats", []string{"detect", "--possibly", "P1.p == X", c0, runs}, 2, "say which with --format"},
		{"predicate error", []string{"detect", "--possibly", "P1.p == X &&", c0}, 2, "predicate:1:13: expected expression, found end of file\nP1.p == X &&\n            ^"},
		{"unknown process", []string{"detect", "--possibly", "P3.p == X", c0}, 2, `predicate:1:1: no process "P3"`},
		{"division by zero", []string{"detect", "--possibly", "1 / (P1.p == Z ? 0 : 1) == 2", c0}, 2, "predicate:1:3: division by zero"},
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

func TestDetectJSON(t *testing.T) {
	code, out, errs := kbmc(t, "detect", "--json", "--possibly", "P1.p == Y && P2.p == D", detectData+"c0.json")
	if code != 10 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var j struct {
		Files        []string `json:"files"`
		Format       string   `json:"format"`
		Modality     string   `json:"modality"`
		Predicate    string   `json:"predicate"`
		Algo         string   `json:"algo"`
		Computations []struct {
			Name      string   `json:"name"`
			Processes []string `json:"processes"`
			Events    int      `json:"events"`
			Verdict   string   `json:"verdict"`
			Search    string   `json:"search"`
			Cut       []struct {
				Process string         `json:"process"`
				Events  int            `json:"events"`
				State   map[string]any `json:"state"`
			} `json:"cut"`
			History []struct {
				Step    int            `json:"step"`
				Process string         `json:"process"`
				Event   int            `json:"event"`
				Kind    string         `json:"kind"`
				Pos     string         `json:"pos"`
				Text    string         `json:"text"`
				Sets    map[string]any `json:"sets"`
			} `json:"history"`
			Stats map[string]float64 `json:"stats"`
		} `json:"computations"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if j.Format != "kbmc" || j.Modality != "possibly" || j.Algo != "persistent" || len(j.Computations) != 1 {
		t.Fatalf("header: %+v", j)
	}
	c := j.Computations[0]
	if c.Verdict != "yes" || c.Events != 5 || len(c.Cut) != 2 || c.Cut[1].Events != 3 || c.Cut[0].State["p"] != "Y" {
		t.Errorf("computation: %+v", c)
	}
	if len(c.History) != 4 || c.History[3].Process != "P2" || c.History[3].Kind != "local" || c.History[3].Sets["p"] != "D" ||
		!strings.HasSuffix(c.History[0].Pos, "c0.json:10") {
		t.Errorf("history: %+v", c.History)
	}
	for _, k := range []string{"states", "transitions", "time_ms"} {
		if _, ok := c.Stats[k]; !ok {
			t.Errorf("stats lack %s: %v", k, c.Stats)
		}
	}
}

// TestDetectLongHistory: the text output shows the two ends of a long history.
func TestDetectLongHistory(t *testing.T) {
	path := writeFile(t, "long.json", independentJSON(2, 150))
	code, out, _ := kbmc(t, "detect", "--definitely", "p[0].x == 1000", path)
	if code != 10 || !strings.Contains(out, "… 100 events (--json lists them all) …") || !strings.Contains(out, "\n  300  p[") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
