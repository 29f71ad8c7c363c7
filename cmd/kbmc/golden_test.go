package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of cmd/kbmc/testdata")

// stable drops what changes from run to run: the statistics line (times).
var statsLine = regexp.MustCompile(`(?m)^stats: .*\n`)

// TestGolden pins the output people read: traces, explanations, dot graphs,
// property lists. Run with -update after a deliberate change, and read the diff.
func TestGolden(t *testing.T) {
	ex := func(name string) string { return filepath.Join("..", "..", "docs", "examples", name+".kb") }
	tests := []struct {
		golden string
		args   []string
		code   int
	}{
		{"ticket-broken.txt", []string{"check", ex("ticket-broken")}, 10},
		{"philosophers.txt", []string{"check", ex("philosophers")}, 10},
		{"philosophers.dot", []string{"check", "--trace", "dot", ex("philosophers")}, 10},
		{"dcl-broken.txt", []string{"check", ex("dcl-broken")}, 10},
		{"dcl-broken-relevant.txt", []string{"check", "--relevant", "--threads", ex("dcl-broken")}, 10},
		{"withdrawals.dot", []string{"check", "--trace", "dot", ex("withdrawals")}, 10},
		{"ticket-lock.txt", []string{"check", ex("ticket-lock")}, 0},
		{"bounded-buffer.txt", []string{"check", ex("bounded-buffer")}, 0},
		{"semaphore.dot", []string{"check", "--trace", "dot", ex("semaphore")}, 0},
		{"barrier-properties.txt", []string{"check", "--show-properties", ex("barrier")}, 0},
		// Beside a process that can never move again, the waiting list
		// shows the threads that can as waiting for nothing.
		{"local-deadlock-waits.txt", []string{"check", "--local-deadlock", filepath.Join("testdata", "local-deadlock-waits.kb")}, 10},
		{"racy-stack-run.txt", []string{"run", "--schedule", "pusher[0],pusher[1],pusher[0],pusher[1],pusher[0],pusher[1],pusher[0],pusher[1],checker,checker", ex("racy-stack")}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			// One worker: a parallel search may find another counterexample
			// first, and counts its executions otherwise.
			args := append([]string{tc.args[0], "--workers", "1"}, tc.args[1:]...)
			if tc.args[0] == "run" {
				args = tc.args
			}
			code, out, errs := kbmc(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			got := statsLine.ReplaceAllString(out, "")
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/kbmc -run TestGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
			}
			if strings.HasSuffix(tc.golden, ".dot") {
				// The same every run: a second run prints the very same graph.
				_, again, _ := kbmc(t, args...)
				if again != out {
					t.Errorf("dot output differs between two runs")
				}
			}
		})
	}
}

// The README's example outputs are what `kbmc check` prints by default: each
// block that starts with "$ kbmc check FILE" matches a run, up to the numbers
// of the stats: and why: lines (they follow the number of workers, which
// follows the CPUs, and the timing).
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```\n\\$ kbmc check ([^\n]+)\n(.*?)```")
	counts := regexp.MustCompile(`\d[\d,.]*(µs|ms|s)?`)
	normalize := func(s string) string {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "stats:") || strings.HasPrefix(l, "why:") {
				lines[i] = counts.ReplaceAllString(l, "N")
			}
		}
		return strings.Join(lines, "\n")
	}
	found := block.FindAllStringSubmatch(string(readme), -1)
	if len(found) < 3 {
		t.Fatalf("README has %d example blocks of kbmc check, want at least 3", len(found))
	}
	for _, m := range found {
		file, want := m[1], m[2]
		_, out, errs := kbmc(t, "check", filepath.Join("..", "..", file))
		got := strings.ReplaceAll(out, filepath.Join("..", "..")+string(filepath.Separator), "")
		if normalize(got) != normalize(want) {
			t.Errorf("README's output of kbmc check %s differs from a run:\n--- run\n%s%s\n--- README\n%s", file, got, errs, want)
		}
	}
}

// The Markdown tables of the docs are whole: every run of table rows starts
// with a header and its |---| line. A paragraph between two rows splits a
// table, and Markdown then renders the rows after it as text.
func TestDocsTablesWhole(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	if len(files) < 5 {
		t.Fatalf("found %d Markdown files", len(files))
	}
	sep := regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		fence := false
		for i := 0; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "```") {
				fence = !fence
			}
			if fence || !strings.HasPrefix(lines[i], "|") || i > 0 && strings.HasPrefix(lines[i-1], "|") {
				continue
			}
			// The first row of a run of rows: a header, followed by the
			// separator.
			if i+1 >= len(lines) || !sep.MatchString(strings.TrimSpace(lines[i+1])) {
				t.Errorf("%s:%d: table rows without a header (a table split by a paragraph?): %.60s", file, i+1, lines[i])
			}
		}
	}
}

// The symbolic engine checks programs with channels (docs/output.md once said
// regress skipped it on them): a channel program gets a verdict, not an
// unsupported construct.
func TestSymbolicChannels(t *testing.T) {
	p := writeProgram(t, "chan (int) c capacity 1;\nprocess a { thread t { send(c, 1); } }\n"+
		"process b { thread t { int x; recv(c, x); assert(x == 2); } }\n")
	for _, enc := range []string{"partial-order", "step"} {
		code, out, errs := kbmc(t, "check", "--engine", "symbolic", "--encoding", enc, p)
		if code != exitUnsafe || !strings.Contains(out, "unsafe: assertion") {
			t.Errorf("--encoding %s: exit %d\n%s%s", enc, code, out, errs)
		}
	}
	// A rendezvous: the default encoding falls back to the step encoding,
	// the partial-order encoding refuses it by name, at the declaration.
	rdv := writeProgram(t, "chan (int) c capacity 0;\nprocess a { thread t { send(c, 1); } }\n"+
		"process b { thread t { int x; recv(c, x); assert(x == 2); } }\n")
	if code, out, errs := kbmc(t, "check", "--engine", "symbolic", rdv); code != exitUnsafe || !strings.Contains(out, "unsafe: assertion") {
		t.Errorf("a rendezvous: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := kbmc(t, "check", "--engine", "symbolic", "--encoding", "partial-order", rdv)
	if code != exitInput || !strings.Contains(errs, ":1:12: symbolic engine: channel c is a rendezvous") {
		t.Errorf("a rendezvous, --encoding partial-order: exit %d, want %d and the refusal\n%s%s", code, exitInput, out, errs)
	}
}
