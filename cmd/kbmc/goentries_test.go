package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoEntries: a Go file with several tests and no --entry is checked
// test by test, under a heading each, with the worst verdict's exit code;
// outputs that describe one run ask for --entry.
func TestGoEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two_test.go")
	src := "package two\nimport \"testing\"\n" +
		"func TestGood(t *testing.T) { c := make(chan int, 1); go func() { c <- 1 }(); <-c }\n" +
		"func TestLeak(t *testing.T) { c := make(chan int); go func() { c <- 1 }() }\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := kbmc(t, "check", "-q", path)
	if code != exitUnsafe {
		t.Errorf("exit %d, want %d (unsafe)", code, exitUnsafe)
	}
	for _, want := range []string{"=== TestGood\n", ": safe:", "=== TestLeak\n", ": unsafe: leak"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := kbmc(t, "check", "--json", path); code != exitUsage || !strings.Contains(errs, "name the entry with --entry") {
		t.Errorf("--json without --entry: exit %d, %s", code, errs)
	}
	if code, out, _ := kbmc(t, "check", "-q", "--entry", "TestGood", path); code != exitOK || strings.Contains(out, "===") {
		t.Errorf("--entry TestGood: exit %d:\n%s", code, out)
	}
}

// TestPropertyKeepsBounds: choosing a property turns the other assertions
// off, but never a bound of the model (a slice grown past append's block:
// unknown, not an invalid access after it) nor a Go panic.
func TestPropertyKeepsBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grow.go")
	src := "package main\nimport \"sync\"\nvar g int\nfunc main() { var wg sync.WaitGroup; wg.Add(1)\n" +
		"go func() { defer wg.Done(); var s []int; for i := 0; i < 9; i++ { s = append(s, i) }; g = len(s) }()\nwg.Wait(); _ = g }\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := kbmc(t, "check", "-q", "--property", "no-data-race", path)
	if code != exitUnknown || !strings.Contains(out, "a slice grown past 8 elements") {
		t.Errorf("exit %d, want %d (unknown: the model's bound):\n%s%s", code, exitUnknown, out, errs)
	}
}

// TestGoPackage: a directory is checked as its package, test by test, and
// the trace names the file of each position; a trail of it replays.
func TestGoPackage(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":    "module example.com/pool\n\ngo 1.22\n",
		"worker.go": "package pool\n\nfunc work(c chan int) {\n\tc <- 1\n}\n",
		"pool_test.go": "package pool\n\nimport \"testing\"\n\n" +
			"func TestLeak(t *testing.T) {\n\tc := make(chan int)\n\tgo work(c)\n}\n\n" +
			"func TestGood(t *testing.T) {\n\tc := make(chan int)\n\tgo work(c)\n\t<-c\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := kbmc(t, "check", dir)
	if code != exitUnsafe {
		t.Errorf("exit %d, want %d (unsafe):\n%s%s", code, exitUnsafe, out, errs)
	}
	worker, test := filepath.Join(dir, "worker.go"), filepath.Join(dir, "pool_test.go")
	for _, want := range []string{"=== TestLeak\n", dir + ": unsafe: leak", worker + ":4:4: leak:", test + ":7  go work(c)",
		"at c <- 1 (" + worker + ":4): waits for a receiver on channel make(chan int) at 6:11[0] (a rendezvous); started at line " + test + ":7", "=== TestGood\n", dir + ": safe:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	trail := filepath.Join(t.TempDir(), "leak.trail")
	if code, _, errs := kbmc(t, "check", "-q", "--entry", "TestLeak", "--trail", trail, dir); code != exitUnsafe {
		t.Fatalf("--trail: exit %d: %s", code, errs)
	}
	if code, out, errs := kbmc(t, "run", "--replay", trail); code != exitUnsafe || !strings.Contains(out, worker+":4:4: leak") {
		t.Errorf("replay: exit %d:\n%s%s", code, out, errs)
	}
}

// TestGoChannelValues: a cell holding a channel shows the channel's name in
// the trace and the final state, not its number.
func TestGoChannelValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chans.go")
	src := "package main\n\ntype P struct{ c chan int }\n\nvar g chan int\n\nfunc main() {\n\tp := &P{c: make(chan int, 1)}\n\tg = p.c\n\tg <- 1\n\t<-make(chan int)\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := kbmc(t, "check", path)
	if code != exitUnsafe {
		t.Fatalf("exit %d, want %d:\n%s", code, exitUnsafe, out)
	}
	for _, want := range []string{"main::complit.c=make(chan int) at 8:17[0]", "g=make(chan int) at 8:17[0]", "g = make(chan int) at 8:17[0]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
