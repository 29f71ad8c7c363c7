package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGoKbmc answers `check DIR --entry TEST ...` (the test name is the
// fourth argument) with the JSON object and exit code a Go front end would
// give for that kernel.
const fakeGoKbmc = `#!/bin/sh
case "$4" in
TestLeak) echo '{"verdict": "unsafe", "violation": {"kind": "leak", "message": "goroutine blocked for ever"}, "stats": {"time_ms": 1500}}'; exit 10;;
TestDeadlock) echo '{"verdict": "unsafe", "violation": {"kind": "deadlock", "message": "all goroutines are asleep"}, "stats": {"time_ms": 2500}}'; exit 10;;
TestSafe) echo '{"verdict": "safe", "stats": {"time_ms": 500}}'; exit 0;;
TestPanic) echo '{"verdict": "unsafe", "violation": {"kind": "panic", "message": "close of closed channel"}, "stats": {"time_ms": 100}}'; exit 10;;
TestRace) echo '{"verdict": "unsafe", "violation": {"kind": "data-race", "message": "race on x"}, "stats": {"time_ms": 300}}'; exit 10;;
TestUnsupported) echo '{"verdict": "error", "errors": [{"file": "k_test.go", "line": 3, "col": 4, "message": "sync.Map.Range: not supported"}]}'; exit 2;;
TestSlow) echo '{"verdict": "unknown", "note": "stopped: time limit 60s", "stats": {"time_ms": 60000}}'; exit 5;;
TestBroken) echo 'panic: nil map' >&2; exit 6;;
TestTypeError) echo '{"verdict": "error", "errors": [{"file": "k_test.go", "line": 5, "col": 2, "message": "undefined: x"}]}'; exit 2;;
esac
`

// TestGobenchScript runs scripts/gobench on a kernels.tsv of its own with a
// stand-in for kbmc that prints canned JSON, on the buggy kernels and with
// --fixed, and with a kbmc that has no Go front end: the CSV has each
// kernel's outcome and the Markdown summary counts them per bug class.
func TestGobenchScript(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the script cannot run here")
	}
	dir := t.TempDir()
	put := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kernels := [][3]string{ // id, class/subclass, entry
		{"proj_1", "blocking\tResource Deadlock", "TestDeadlock"},
		{"proj_2", "blocking\tCommunication Deadlock", "TestLeak"},
		{"proj_3", "blocking\tCommunication Deadlock", "TestSafe"},
		{"proj_4", "blocking\tCommunication Deadlock", "TestPanic"},
		{"proj_5", "blocking\tMixed Deadlock", "TestUnsupported"},
		{"proj_6", "blocking\tMixed Deadlock", "TestSlow"},
		{"proj_7", "nonblocking\tTraditional", "TestRace"},
		{"proj_8", "nonblocking\tGo-Specific", "TestBroken"},
		{"proj_9", "nonblocking\tGo-Specific", "TestTypeError"},
	}
	tsv := "# a comment line\nkernel\tpath\tproject\tclass\tsubclass\tsubtype\tentry\n"
	for _, k := range kernels {
		class, _, _ := strings.Cut(k[1], "\t")
		path := class + "/" + k[0]
		tsv += k[0] + "\t" + path + "\tproj\t" + k[1] + "\tsome subtype\t" + k[2] + "\n"
		put(filepath.Join("buggy", path, "k_test.go"), "package k\n")
	}
	put("kernels.tsv", tsv)
	// The fixed versions are laid out by kernel id; proj_3 has none.
	for _, id := range []string{"proj_1", "proj_2", "proj_4"} {
		put(filepath.Join("fixed", id, "k_test.go"), "package k\n")
	}
	fake := put("fake-kbmc", fakeGoKbmc)
	old := put("old-kbmc", "#!/bin/sh\necho \"kbmc: flag provided but not defined: -entry (see 'kbmc check --help')\" >&2\nexit 1\n")
	script := filepath.Join("..", "..", "scripts", "gobench")
	for _, tc := range []struct {
		name, kbmc, dir string
		fixed           bool
		csv, md         []string
		notCSV          []string
	}{
		{"buggy", fake, "buggy", false,
			[]string{
				"proj_1,blocking,Resource Deadlock,some subtype,unsafe,deadlock,found,2.5,",
				"proj_2,blocking,Communication Deadlock,some subtype,unsafe,leak,found,1.5,",
				"proj_3,blocking,Communication Deadlock,some subtype,safe,,missed,0.5,",
				"proj_4,blocking,Communication Deadlock,some subtype,unsafe,panic,other finding,0.1,",
				"proj_5,blocking,Mixed Deadlock,some subtype,error,,unsupported,",
				"proj_6,blocking,Mixed Deadlock,some subtype,unknown,,unknown,60.0,stopped: time limit 60s",
				"proj_7,nonblocking,Traditional,some subtype,unsafe,data-race,found,0.3,",
				"proj_8,nonblocking,Go-Specific,some subtype,,,error,",
				"proj_9,nonblocking,Go-Specific,some subtype,error,,error,",
			},
			[]string{
				"| blocking | Communication Deadlock | 3 | 1 | 1 | 1 | 0 | 0 | 0 | 0.50 | 1.50 |",
				"| blocking | Resource Deadlock | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 2.50 | 2.50 |",
				"| blocking | **all** | 6 | 2 | 1 | 1 | 1 | 1 | 0 |",
				"| nonblocking | **all** | 3 | 1 | 0 | 0 | 0 | 0 | 2 |",
				"Gomela (ASE 2021) found 40",
			},
			nil},
		{"fixed", fake, "fixed", true,
			[]string{"proj_1,blocking,Resource Deadlock,some subtype,unsafe,deadlock,false alarm,", "proj_4,blocking,Communication Deadlock,some subtype,unsafe,panic,false alarm,"},
			[]string{"| blocking | **all** | 3 | 0 | 3 | 0 | 0 | 0 |", "False alarms: proj_1 (deadlock), proj_2 (leak), proj_4 (panic)."},
			[]string{"proj_3", "proj_5"}},
		{"no front end", old, "buggy", false,
			[]string{"proj_1,blocking,Resource Deadlock,some subtype,,,error,", "no Go front end: kbmc: flag provided but not defined: -entry"},
			[]string{"has no Go front end", "| blocking | **all** | 6 | 0 | 0 | 0 | 0 | 0 | 6 |"},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			args := []string{script}
			if tc.fixed {
				args = append(args, "--fixed")
			}
			args = append(args, filepath.Join(dir, "kernels.tsv"), filepath.Join(dir, tc.dir), out)
			cmd := exec.Command(python, args...)
			cmd.Env = append(os.Environ(), "KBMC="+tc.kbmc, "TIMEOUT=60")
			msg, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gobench: %v\n%s", err, msg)
			}
			if tc.kbmc == old && !strings.Contains(string(msg), "has no Go front end") {
				t.Errorf("the script did not say that kbmc has no Go front end:\n%s", msg)
			}
			csv, err := os.ReadFile(out + ".csv")
			if err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(out + ".md")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.csv {
				if !strings.Contains(string(csv), want) {
					t.Errorf("the CSV has no %q:\n%s", want, csv)
				}
			}
			for _, absent := range tc.notCSV {
				if strings.Contains(string(csv), absent) {
					t.Errorf("the CSV has %q, a kernel the directory does not hold:\n%s", absent, csv)
				}
			}
			for _, want := range tc.md {
				if !strings.Contains(string(md), want) {
					t.Errorf("the summary has no %q:\n%s", want, md)
				}
			}
		})
	}
}
