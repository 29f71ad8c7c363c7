package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// growing has more states than fit in 64 MiB: three threads mixing
// nondeterministic values into x and y.
const growing = `shared int x;
shared int y;
thread t[3] {
    int i = 0;
    while (i < 40) {
        x = x * 3 + nondet(0, 3) + tid;
        y = y + x;
        i = i + 1;
    }
}
`

func TestMemoryLimit(t *testing.T) {
	prog := writeProgram(t, growing)
	for _, algo := range [][]string{{"--algo", "persistent"}, {"--algo", "dfs", "--stateful"}} {
		args := append(append([]string{"check", "--json", "--memory", "64MiB", "--depth", "300", "--workers", "1"}, algo...), prog)
		code, out, errs := kbmc(t, args...)
		var j jsonResult
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: %v\n%s%s", algo, err, out, errs)
		}
		if code != exitUnknown || j.Verdict != "unknown" || j.Stopped != "memory" || !strings.Contains(j.Note, "memory limit of 64 MiB") {
			t.Errorf("%v: exit %d, verdict %s, stopped %q, note %q", algo, code, j.Verdict, j.Stopped, j.Note)
		}
		if j.Stats["states"] == nil {
			t.Errorf("%v: no statistics: %s", algo, out)
		}
	}
	code, out, _ := kbmc(t, "check", "--timeout", "50ms", "--memory", "none", "--algo", "dfs", "--depth", "300", prog)
	if code != exitUnknown || !strings.Contains(out, "stopped: time limit 50ms") {
		t.Errorf("--timeout: exit %d:\n%s", code, out)
	}
}

func TestMemoryFlag(t *testing.T) {
	tests := []struct {
		spec string
		want int64
		err  string
	}{
		{"4GB", 4e9, ""},
		{"512MiB", 512 << 20, ""},
		{"2 GiB", 2 << 30, ""},
		{"none", 0, ""},
		{"0", 0, ""},
		{"lots", 0, "want a size"},
		{"-1GB", 0, "want a size"},
		{"12", 0, "too small"},
	}
	for _, tt := range tests {
		got, err := parseMemory(tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseMemory(%q) = %d, %v; want an error with %q", tt.spec, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseMemory(%q) = %d, %v; want %d", tt.spec, got, err, tt.want)
		}
	}
	if n, err := parseMemory("auto"); err != nil || n < 0 {
		t.Errorf("parseMemory(auto) = %d, %v", n, err)
	}
}
