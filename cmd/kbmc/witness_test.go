package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWitness writes violation witnesses of the project's C programs with
// violations, in both formats, checks their structure as validators parse
// them, and replays each with kbmc run --replay.
func TestWitness(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		args []string // engine flags
		kind string
	}{
		{"c-threads-in-loop.c", nil, "reach-error"},                         // threads created in a loop
		{"c-nondet-bool.c", nil, "reach-error"},                             // a nondet value
		{"c-nondet-int.c", []string{"--engine", "symbolic"}, "reach-error"}, // a full-range nondet, a mutex
		{"c-trylock-ignored.c", []string{"--algo", "dpor"}, "reach-error"},  // mutexes, another search
		{"c-pthread-exit-main.c", nil, "reach-error"},                       // a thread created by a thread
		{"c-null-deref.c", nil, "invalid-deref"},
		{"c-double-free.c", nil, "invalid-free"},
		{"c-uninit-local.c", nil, "reach-error"}, // an uninitialized local's value
		{"c-overflow-counter.c", []string{"--property", "no-overflow"}, "overflow"},
		{"c-overflow-negate.c", []string{"--property", "no-overflow", "--algo", "dpor"}, "overflow"},
		{"c-race-heap.c", []string{"--property", "no-data-race"}, "data-race"}, // a race on a malloc'd block
		{"c-race-atomic-vs-plain.c", []string{"--property", "no-data-race", "--algo", "bfs"}, "data-race"},
	} {
		for _, ext := range []string{".graphml", ".yml"} {
			name := c.file + ext
			w := filepath.Join(dir, name)
			args := append(append([]string{"check", "-q", "--witness", w}, c.args...), filepath.Join("..", "..", "testdata", c.file))
			code, out, errs := kbmc(t, args...)
			if code != 10 {
				t.Errorf("%s: check exit %d, want 10\n%s%s", name, code, out, errs)
				continue
			}
			data, err := os.ReadFile(w)
			if err != nil {
				t.Fatal(err)
			}
			checkWitnessFile(t, name, ext, data)
			code, out, errs = kbmc(t, "run", "-q", "--replay", w)
			if code != 10 || !strings.Contains(out, "the witness's violation, reproduced") || !strings.Contains(out, ": "+c.kind+": ") {
				t.Errorf("%s: run --replay exit %d, want 10 and a %s\n%s%s", name, code, c.kind, out, errs)
			}
		}
	}
}

// checkWitnessFile parses a witness as a validator does and checks what
// identifies the task: the specification, the program's hash, the format.
func checkWitnessFile(t *testing.T, name, ext string, data []byte) {
	t.Helper()
	if ext == ".graphml" {
		var doc struct {
			Graph struct {
				Data []struct {
					Key   string `xml:"key,attr"`
					Value string `xml:",chardata"`
				} `xml:"data"`
				Edges []struct {
					Data []struct {
						Key string `xml:"key,attr"`
					} `xml:"data"`
				} `xml:"edge"`
			} `xml:"graph"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]string{}
		for _, d := range doc.Graph.Data {
			got[d.Key] = d.Value
		}
		if got["witness-type"] != "violation_witness" || !strings.HasPrefix(got["specification"], "CHECK( init(main()), LTL(G ") ||
			len(got["programhash"]) != 64 || got["architecture"] != "32bit" || got["producer"] != "kbmc "+version || len(doc.Graph.Edges) == 0 {
			t.Errorf("%s: graph data %v, %d edges", name, got, len(doc.Graph.Edges))
		}
		return
	}
	var doc []struct {
		EntryType string `yaml:"entry_type"`
		Metadata  struct {
			FormatVersion string `yaml:"format_version"`
			Task          struct {
				InputFiles      []string          `yaml:"input_files"`
				InputFileHashes map[string]string `yaml:"input_file_hashes"`
				Specification   string            `yaml:"specification"`
			} `yaml:"task"`
		} `yaml:"metadata"`
		Content []struct {
			Segment []struct {
				Waypoint map[string]any `yaml:"waypoint"`
			} `yaml:"segment"`
		} `yaml:"content"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(doc) != 1 || doc[0].EntryType != "violation_sequence" || doc[0].Metadata.FormatVersion != "2.2" || len(doc[0].Content) == 0 {
		t.Fatalf("%s: %+v", name, doc)
	}
	task := doc[0].Metadata.Task
	if len(task.InputFiles) != 1 || len(task.InputFileHashes[task.InputFiles[0]]) != 64 || !strings.HasPrefix(task.Specification, "CHECK(") {
		t.Errorf("%s: task %+v", name, task)
	}
	last := doc[0].Content[len(doc[0].Content)-1].Segment[0].Waypoint
	if last["type"] != "target" {
		t.Errorf("%s: the last waypoint is %v, want the target", name, last)
	}
}

// TestWitnessRefused: what has no witness says so, and a witness that does
// not fit the program is refused with the reason.
func TestWitnessRefused(t *testing.T) {
	dir := t.TempDir()
	td := func(f string) string { return filepath.Join("..", "..", "testdata", f) }
	kb := writeProgram(t, racy)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "--witness", filepath.Join(dir, "a.graphml"), kb}, 1, "no C program"},
		{[]string{"check", "--witness", filepath.Join(dir, "a.yml"), td("c-abba-deadlock.c")}, 1, "deadlock violation has no SV-COMP specification"},
		{[]string{"check", "--witness", filepath.Join(dir, "a.txt"), td("c-null-deref.c")}, 1, "name the format by the extension"},
		{[]string{"check", "--witness", filepath.Join(dir, "a.txt"), "--witness-format", "xml", td("c-null-deref.c")}, 1, "want graphml or yaml"},
		{[]string{"check", "--witness-format", "yaml", td("c-null-deref.c")}, 1, "applies with --witness"},
	} {
		code, out, errs := kbmc(t, c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("kbmc %v: exit %d, want %d and %q\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
	// A safe program has no counterexample, so no witness.
	w := filepath.Join(dir, "safe.graphml")
	if code, _, errs := kbmc(t, "check", "--witness", w, td("c-mutex-counter.c")); code != 0 || !strings.Contains(errs, "no witness written") {
		t.Errorf("safe program: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(w); err == nil {
		t.Errorf("a witness was written for a safe program")
	}

	// A witness of one program does not replay on another, nor a malformed one.
	src, err := os.ReadFile(td("c-nondet-bool.c"))
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "bug.c")
	if err := os.WriteFile(prog, src, 0o644); err != nil {
		t.Fatal(err)
	}
	w = filepath.Join(dir, "bug.yml")
	if code, out, errs := kbmc(t, "check", "-q", "--witness", w, prog); code != 10 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if err := os.WriteFile(prog, append(src, []byte("\nint changed;\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := kbmc(t, "run", "--replay", w); code != 2 || !strings.Contains(errs, "is not the program the witness was written for") {
		t.Errorf("changed program: exit %d: %s", code, errs)
	}
	bad := filepath.Join(dir, "bad.graphml")
	if err := os.WriteFile(bad, []byte("<graphml><graph>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := kbmc(t, "run", "--replay", bad); code != 2 || !strings.Contains(errs, "GraphML") {
		t.Errorf("malformed witness: exit %d: %s", code, errs)
	}
	if code, _, errs := kbmc(t, "run", "--replay", w, "--seed", "3"); code != 1 || !strings.Contains(errs, "does not apply with --replay") {
		t.Errorf("--seed with a witness: exit %d: %s", code, errs)
	}
}
