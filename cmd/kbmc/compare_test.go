package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSvcompCompareScript runs scripts/svcomp-compare on two tasks of its
// own, with a stand-in for CBMC that always answers false and with CBMC
// absent: the CSV has a row per task and tool, and the Markdown table scores
// each tool (a wrong true costs CBMC's stand-in -16 on the safe task).
func TestSvcompCompareScript(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the script cannot run here")
	}
	dir, put := taskDir(t)
	bin := filepath.Join(dir, "kbmc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const prog = `extern void reach_error(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
int x;
void *inc(void *a) { __atomic_fetch_add(&x, 1, 5); return 0; }
int main(void) {
    unsigned long a, b;
    pthread_create(&a, 0, inc, 0); pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0); pthread_join(b, 0);
    if (x != LIMIT) reach_error();
    return 0;
}
`
	put("safe.i", strings.Replace(prog, "LIMIT", "2", 1))
	put("bug.i", strings.Replace(prog, "LIMIT", "3", 1))
	task := func(name, input, expected string) string {
		return put(name, "format_version: '2.0'\ninput_files: '"+input+"'\nproperties:\n  - property_file: unreach-call.prp\n    expected_verdict: "+
			expected+"\noptions:\n  language: C\n  data_model: ILP32\n")
	}
	tasks := []string{task("safe.yml", "safe.i", "true"), task("bug.yml", "bug.i", "false")}
	fake := put("fake-cbmc", "#!/bin/sh\necho 'VERIFICATION FAILED'\n")
	script := filepath.Join("..", "..", "scripts", "svcomp-compare")
	for _, tc := range []struct {
		cbmc string
		csv  []string
		md   []string
	}{
		{fake,
			[]string{"unreach-call,kbmc,true,True,2,", "unreach-call,cbmc,false,True,-16,", "unreach-call,kbmc,false,False,1,", "unreach-call,cbmc,false,False,1,"},
			[]string{"| kbmc | unreach-call | 1 | 1 | 0 | 0 | 3 |", "| cbmc | unreach-call | 0 | 1 | 1 | 0 | -15 |"}},
		{filepath.Join(dir, "no-such-cbmc"),
			[]string{"unreach-call,kbmc,true,True,2,", "unreach-call,kbmc,false,False,1,"},
			[]string{"CBMC was not found", "| kbmc | unreach-call | 1 | 1 | 0 | 0 | 3 |"}},
	} {
		out := filepath.Join(dir, "cmp")
		cmd := exec.Command(python, append([]string{script, out}, tasks...)...)
		cmd.Env = append(os.Environ(), "KBMC="+bin, "CBMC="+tc.cbmc, "TIMEOUT=30")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("svcomp-compare: %v\n%s", err, msg)
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
				t.Errorf("CBMC %s: the CSV has no %q:\n%s", tc.cbmc, want, csv)
			}
		}
		if strings.Contains(tc.cbmc, "no-such") && strings.Contains(string(csv), ",cbmc,") {
			t.Errorf("CBMC absent, yet the CSV has its rows:\n%s", csv)
		}
		for _, want := range tc.md {
			if !strings.Contains(string(md), want) {
				t.Errorf("CBMC %s: the table has no %q:\n%s", tc.cbmc, want, md)
			}
		}
	}
}
