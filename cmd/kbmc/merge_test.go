package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMerge runs a program as shards and merges them: the merged verdict and
// counts are the sequential ones, and a missing, duplicated or foreign part is an
// input error.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	safe := writeProgram(t, "shared int x;\nthread w[3] { int t = x; x = t + 1; }\n")
	unsafe := writeProgram(t, racy)
	other := writeProgram(t, "shared int x;\nthread w[3] { x = x + 1; }\n")
	files := 0
	part := func(prog string, i, n int, extra ...string) string {
		args := append([]string{"check", "--json", "--shard", strings.Join([]string{itoa(i), itoa(n)}, "/")}, extra...)
		_, out, errs := kbmc(t, append(args, prog)...)
		if out == "" {
			t.Fatalf("part %d/%d wrote nothing: %s", i, n, errs)
		}
		files++
		f := filepath.Join(dir, "part"+itoa(files)+".json")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	var safeParts, unsafeParts []string
	for i := range 4 {
		safeParts = append(safeParts, part(safe, i, 4))
		unsafeParts = append(unsafeParts, part(unsafe, i, 4))
	}
	_, seq, _ := kbmc(t, "check", "--workers", "1", safe)
	seqStats := seq[strings.Index(seq, "executions"):]
	seqStats = seqStats[:strings.Index(seqStats, ",")]
	for _, tc := range []struct {
		name  string
		files []string
		code  int
		want  string
	}{
		{"safe", safeParts, 0, seqStats},
		{"unsafe", unsafeParts, 10, "lost update"},
		{"missing", safeParts[:3], 2, "parts missing: 3/4"},
		{"duplicated", append([]string{safeParts[0]}, safeParts...), 2, "given twice"},
		{"other program", append(safeParts[:3:3], part(other, 3, 4)), 2, "another program"},
		{"other flags", append(safeParts[:3:3], part(safe, 3, 4, "--depth=50")), 2, "other settings"},
		{"other count", append(safeParts[:3:3], part(safe, 3, 5)), 2, "part of 4"},
		{"other kbmc", append(safeParts[:3:3], otherVersion(t, safeParts[3])), 2, `"kbmc=`},
		{"not sharded", []string{writeJSONFile(t, dir)}, 2, "not the result of a sharded run"},
		{"one part", []string{part(unsafe, 0, 1)}, 10, "unsafe (1 part merged)"},
		{"unknown verdict", []string{forged(t, unsafeParts[0], `"verdict":"unsafe"`, `"verdict":"banana"`)}, 2, `unknown verdict "banana"`},
		{"error verdict", []string{forged(t, safeParts[0], `"verdict":"safe"`, `"verdict":"error"`)}, 2, `unknown verdict "error"`},
		{"no verdict", []string{forged(t, safeParts[0], `"verdict":"safe",`, ``)}, 2, `no "verdict"`},
		{"unsafe without trace", []string{forged(t, unsafeParts[0], `"trace":`, `"xtrace":`)}, 2, "without its violation and trace"},
		{"huge counter", append(safeParts[:3:3], forged(t, safeParts[3], `"executions":`, `"executions":1180591620717411303424,"x":`)), 2, "not a count"},
		{"negative counter", append(safeParts[:3:3], forged(t, safeParts[3], `"transitions":`, `"transitions":-5,"x":`)), 2, "not a count"},
		{"counter as text", append(safeParts[:3:3], forged(t, safeParts[3], `"transitions":`, `"transitions":"many","x":`)), 2, "not a number"},
		{"no digest", append(safeParts[:3:3], forged(t, safeParts[3], `"program_sha256":`, `"program":`)), 2, "no program digest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := kbmc(t, append([]string{"merge"}, tc.files...)...)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Errorf("exit %d, want %d; output lacks %q?\n%s%s", code, tc.code, tc.want, out, errs)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// otherVersion writes a copy of a part's result as another kbmc build would have
// written it.
func otherVersion(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"kbmc=`, `"kbmc=0.0.1 (elsewhere) `, 1)
	if s == string(data) {
		t.Fatalf("%s records no kbmc version in its settings", file)
	}
	f := file + ".other.json"
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// forged writes a copy of a part's result with old replaced by new.
func forged(t *testing.T, file, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), old, new, 1)
	if s == string(data) {
		t.Fatalf("%s has no %s", file, old)
	}
	f, err := os.CreateTemp(filepath.Dir(file), "forged-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// writeJSONFile writes the --json result of an unsharded run.
func writeJSONFile(t *testing.T, dir string) string {
	t.Helper()
	_, out, _ := kbmc(t, "check", "--json", writeProgram(t, "shared int x;\nthread a { x = 1; }\n"))
	f := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
