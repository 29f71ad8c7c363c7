package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exchange: each node sets phase 1, sends to the other, receives, sets phase 2.
// In every execution node[0] can be at phase 2 while node[1] is still at 1, but
// never while node[1] is at 0 (node[0] received what node[1] sent after phase
// 1), and every history ends with both at 2.
const exchange = `chan (int) c[2] capacity 1;
process node[2] {
    shared int phase;
    thread run {
        phase = 1;
        send(c[1 - pid], pid);
        int m;
        recv(c[pid], m);
        phase = 2;
        assert(pid == 0 || m == 7, "node[1] got a message");
    }
}
`

func TestRecordThenDetect(t *testing.T) {
	prog := writeProgram(t, exchange)
	safe := writeProgram(t, strings.Replace(exchange, "m == 7", "m == 0", 1))
	dir := t.TempDir()
	for _, seed := range []string{"1", "2", "3"} {
		rec := filepath.Join(dir, "run"+seed+".json")
		if code, _, errs := kbmc(t, "run", "--seed", seed, "--record", rec, safe); code != 0 {
			t.Fatalf("run --record: exit %d: %s", code, errs)
		}
		tests := []struct {
			args []string
			code int
			out  string
		}{
			{[]string{"--possibly", "node[0].phase == 2 && node[1].phase == 1"}, 10, "possibly: yes"},
			{[]string{"--possibly", "node[0].phase == 2 && node[1].phase == 0"}, 0, "possibly: no"},
			{[]string{"--definitely", "node[0].phase == 2 && node[1].phase == 2"}, 0, "definitely: yes"},
		}
		for _, tt := range tests {
			code, out, errs := kbmc(t, append(append([]string{"detect"}, tt.args...), rec)...)
			if code != tt.code || !strings.Contains(out, tt.out) {
				t.Errorf("seed %s: detect %v: exit %d, want %d; output:\n%s%s", seed, tt.args, code, tt.code, out, errs)
			}
		}
	}

	// check --record writes the counterexample.
	cex := filepath.Join(dir, "cex.json")
	if code, out, errs := kbmc(t, "check", "--record", cex, prog); code != 10 {
		t.Fatalf("check --record: exit %d: %s%s", code, out, errs)
	}
	data, err := os.ReadFile(cex)
	if err != nil || !strings.Contains(string(data), `"recv(c[pid], m)"`) && !strings.Contains(string(data), `"run: recv(c[pid], m)"`) {
		t.Fatalf("check --record wrote %q (%v)", data, err)
	}
	if code, out, _ := kbmc(t, "detect", "--possibly", "node[1].phase == 2", cex); code != 10 {
		t.Errorf("detect on the counterexample: exit %d:\n%s", code, out)
	}

	// A safe verdict has no counterexample to record, and says so.
	none := filepath.Join(dir, "none.json")
	code, _, errs := kbmc(t, "check", "--record", none, safe)
	if code != 0 || !strings.Contains(errs, "no counterexample to record") {
		t.Errorf("check --record on a safe program: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(none); err == nil {
		t.Errorf("check --record wrote %s for a safe program", none)
	}
}
