package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSvcomp answers a small set of tasks written here: a correct true, a
// correct false, a wrong expectation (scored as SV-COMP scores it), a
// property kbmc does not check, and a task whose program does not compile.
func TestSvcomp(t *testing.T) {
	_, put := taskDir(t)
	put("termination.prp", "CHECK( init(main()), LTL(F end) )\n")
	const lostUpdate = `extern void reach_error(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
int x;
void *inc(void *a) { int t = x; x = t + 1; return 0; }
int main(void) {
    unsigned long a, b;
    pthread_create(&a, 0, inc, 0); pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0); pthread_join(b, 0);
    if (x != 2) reach_error();
    return 0;
}
`
	put("racy.i", lostUpdate)
	put("locked.i", strings.Replace(lostUpdate, "int t = x; x = t + 1;", "__atomic_fetch_add(&x, 1, 5);", 1))
	put("broken.i", "int main(void) { return y; }\n")
	task := func(name, input, props string) string {
		return put(name, "format_version: '2.0'\ninput_files: '"+input+"'\nproperties:\n"+props+"options:\n  language: C\n  data_model: ILP32\n")
	}
	racy := task("racy.yml", "racy.i", "  - property_file: unreach-call.prp\n    expected_verdict: false\n  - property_file: termination.prp\n    expected_verdict: true\n")
	locked := task("locked.yml", "locked.i", "  - property_file: unreach-call.prp\n    expected_verdict: true\n")
	wrong := task("wrong.yml", "racy.i", "  - property_file: unreach-call.prp\n    expected_verdict: true\n")
	broken := task("broken.yml", "broken.i", "  - property_file: unreach-call.prp\n    expected_verdict: true\n")

	code, out, errs := kbmc(t, "svcomp", racy, locked, wrong, broken)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{
		"racy.yml: unreach-call: false (expected false, +1)",
		"racy.yml: termination: unknown (expected true, +0)",
		"not supported",
		"locked.yml: unreach-call: true (expected true, +2)",
		"wrong.yml: unreach-call: false (expected true, -16)",
		"broken.yml: unreach-call: unknown (expected true, +0)",
		"undefined: y",
		"5 answers: 1 correct true, 1 correct false, 1 wrong, 2 unknown; score -13",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A bug after a loop that creates more threads than the model's pool
	// holds: the planned search stops at the pool's bound, the hunt beside it,
	// on the program lowered with phantom threads, gets past the loop.
	put("past.i", `extern void reach_error(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int x;
void *w(void *a) { return 0; }
int main(void) {
    unsigned long ids[5000];
    for (int i = 0; i < 5000; i++) pthread_create(&ids[i], 0, w, 0);
    x = 1;
    if (x == 1) reach_error();
    return 0;
}
`)
	past := task("past.yml", "past.i", "  - property_file: unreach-call.prp\n    expected_verdict: false\n")
	code, out, errs = kbmc(t, "svcomp", "--timeout", "10m", past) // the limit only ends a hang
	if code != 0 || !strings.Contains(out, "past.yml: unreach-call: false (expected false, +1)") || !strings.Contains(out, "by explicit/random") {
		t.Errorf("a bug past the pool: exit %d\n%s%s", code, out, errs)
	}

	code, out, _ = kbmc(t, "svcomp", "--json", racy, locked)
	var rows []svcompRow
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(rows) != 3 || rows[0].Result != "false" || rows[0].Score != 1 || rows[2].Result != "true" || rows[2].Engine == "" {
		t.Errorf("JSON rows %+v", rows)
	}

	code, out, _ = kbmc(t, "svcomp", "--algo", "dpor", "--depth", "40", racy)
	if code != 0 || !strings.Contains(out, "unreach-call: false (expected false, +1)") || !strings.Contains(out, "by explicit/dpor") {
		t.Errorf("--algo dpor: exit %d\n%s", code, out)
	}
	code, out, _ = kbmc(t, "svcomp", "--algo", "magic", racy)
	if code != 0 || !strings.Contains(out, "unknown explicit algorithm") {
		t.Errorf("--algo magic: exit %d\n%s", code, out)
	}

	// A nondet too wide to enumerate: svcomp.Choose gives the task to the
	// symbolic engine, which finds the one key (false) and proves that no
	// key below 10 is it (true).
	const wideSrc = `extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
    unsigned k = (unsigned)__VERIFIER_nondet_int();
    if (k * 3u == 123456790u) reach_error();
    return 0;
}
`
	put("wide.i", wideSrc)
	put("narrow.i", strings.Replace(wideSrc, "123456790u)", "123456790u && k < 10u)", 1))
	wide := task("wide.yml", "wide.i", "  - property_file: unreach-call.prp\n    expected_verdict: false\n")
	narrow := task("narrow.yml", "narrow.i", "  - property_file: unreach-call.prp\n    expected_verdict: true\n")
	code, out, _ = kbmc(t, "svcomp", wide, narrow)
	for _, want := range []string{
		"wide.yml: unreach-call: false (expected false, +1)",
		"narrow.yml: unreach-call: true (expected true, +2)",
		"by symbolic/gini",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("a full-range nondet: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	for _, args := range [][]string{{"svcomp"}, {"svcomp", "--depth", "5", racy}, {"svcomp", "--algo", "dfs", "--engine", "symbolic/gini", racy}} {
		if code, _, _ := kbmc(t, args...); code != 1 {
			t.Errorf("kbmc %v: exit %d, want 1 (usage)", args, code)
		}
	}
}

// TestSvcompWitnessDir: every false answer gets a GraphML and a YAML witness,
// named after the task and the property, and each replays with kbmc run
// --replay; a true answer gets none. The bug past the pool is found by the
// hunt on the program lowered with phantom threads, which its witnesses say.
func TestSvcompWitnessDir(t *testing.T) {
	dir, put := taskDir(t)
	const lostUpdate = `extern void reach_error(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
extern int __VERIFIER_nondet_int(void);
int x;
void *inc(void *a) { int t = x; x = t + 1; return 0; }
int main(void) {
    unsigned long a, b;
    int k = __VERIFIER_nondet_int();
    pthread_create(&a, 0, inc, 0); pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0); pthread_join(b, 0);
    if (x != 2 && k == 3) reach_error();
    return 0;
}
`
	put("racy.i", lostUpdate)
	put("locked.i", strings.Replace(lostUpdate, "int t = x; x = t + 1;", "__atomic_fetch_add(&x, 1, 5);", 1))
	put("past.i", `extern void reach_error(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int x;
void *w(void *a) { return 0; }
int main(void) {
    unsigned long ids[5000];
    for (int i = 0; i < 5000; i++) pthread_create(&ids[i], 0, w, 0);
    x = 1;
    if (x == 1) reach_error();
    return 0;
}
`)
	task := func(name, input string, expected bool) string {
		return put(name, "format_version: '2.0'\ninput_files: '"+input+"'\nproperties:\n  - property_file: unreach-call.prp\n    expected_verdict: "+
			map[bool]string{true: "true", false: "false"}[expected]+"\noptions:\n  language: C\n  data_model: ILP32\n")
	}
	tasks := []string{task("racy.yml", "racy.i", false), task("locked.yml", "locked.i", true), task("past.yml", "past.i", false)}
	wdir := filepath.Join(dir, "witnesses")
	code, out, errs := kbmc(t, append([]string{"svcomp", "--timeout", "10m", "--json", "--witness-dir", wdir}, tasks...)...)
	var rows []svcompRow
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errs)
	}
	hunted := map[string]bool{} // the witnesses of a bug the hunt found
	for _, r := range rows {
		if (r.Result == "false") != (len(r.Witnesses) == 2) || r.Reason != "" {
			t.Errorf("%s: %s with witnesses %v (%s)", r.Task, r.Result, r.Witnesses, r.Reason)
		}
		for _, w := range r.Witnesses {
			hunted[w] = r.Engine == "explicit/random"
		}
	}
	entries, err := os.ReadDir(wdir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "past.unreach-call.graphml past.unreach-call.yml racy.unreach-call.graphml racy.unreach-call.yml" {
		t.Errorf("witness directory holds %s", got)
	}
	for w, hunt := range hunted {
		data, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		if hunt != strings.Contains(string(data), "--phantoms") {
			t.Errorf("%s: says --phantoms %v", w, strings.Contains(string(data), "--phantoms"))
		}
		if !strings.Contains(string(data), "CHECK( init(main()), LTL(G ! call(reach_error())) )") {
			t.Errorf("%s: without the property file's specification", w)
		}
		code, out, errs := kbmc(t, "run", "-q", "--replay", w)
		if code != 10 || !strings.Contains(out, "the witness's violation, reproduced") {
			t.Errorf("%s: run --replay exit %d\n%s%s", w, code, out, errs)
		}
	}
}

// TestSvcompDataRace answers no-data-race tasks: a racy counter (false,
// beside its unreach-call answer), the counter incremented atomically (true),
// a race past a full-range nondet, which the explicit engine cannot
// enumerate (false: the hunt or the symbolic engine finds it), a race-free
// program with one (true, by the symbolic engine), and an algorithm that
// refuses the property (unknown).
func TestSvcompDataRace(t *testing.T) {
	_, put := taskDir(t)
	put("no-data-race.prp", "CHECK( init(main()), LTL(G ! data-race) )\n")
	const counter = `extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
int x;
void *inc(void *a) { int t = x; x = t + 1; return 0; }
int main(void) {
    unsigned long a, b;
    PREFIX
    pthread_create(&a, 0, inc, 0); pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0); pthread_join(b, 0);
    if (x != 2) reach_error();
    return 0;
}
`
	put("racy.i", strings.Replace(counter, "PREFIX", "", 1))
	put("atomic.i", strings.Replace(strings.Replace(counter, "int t = x; x = t + 1;", "__atomic_fetch_add(&x, 1, 5);", 1), "PREFIX", "", 1))
	put("wide-racy.i", strings.Replace(counter, "PREFIX", "int n = __VERIFIER_nondet_int(); if (n == 12345) return 0;", 1))
	put("wide-atomic.i", strings.Replace(strings.Replace(counter, "int t = x; x = t + 1;", "__atomic_fetch_add(&x, 1, 5);", 1),
		"PREFIX", "int n = __VERIFIER_nondet_int(); if (n == 12345) return 0;", 1))
	task := func(name, input, props string) string {
		return put(name, "format_version: '2.0'\ninput_files: '"+input+"'\nproperties:\n"+props+"options:\n  language: C\n  data_model: ILP32\n")
	}
	race := func(expected string) string {
		return "  - property_file: no-data-race.prp\n    expected_verdict: " + expected + "\n"
	}
	racy := task("racy.yml", "racy.i", "  - property_file: unreach-call.prp\n    expected_verdict: false\n"+race("false"))
	atomic := task("atomic.yml", "atomic.i", race("true"))
	wideRacy := task("wide-racy.yml", "wide-racy.i", race("false"))
	wideAtomic := task("wide-atomic.yml", "wide-atomic.i", race("true"))

	wdir := t.TempDir()
	code, out, errs := kbmc(t, "svcomp", "--timeout", "3s", "--witness-dir", wdir, racy, atomic, wideRacy, wideAtomic)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	// Every race found has its witnesses: the YAML one names both racing
	// accesses, and each replays to the race, the hunt's (sampled) one too.
	for _, base := range []string{"racy.no-data-race", "wide-racy.no-data-race"} {
		for _, ext := range []string{".graphml", ".yml"} {
			w := filepath.Join(wdir, base+ext)
			data, err := os.ReadFile(w)
			if err != nil {
				t.Errorf("%s: %v\n%s", base+ext, err, out)
				continue
			}
			if !strings.Contains(string(data), "LTL(G ! data-race)") {
				t.Errorf("%s: without the race specification", w)
			}
			if ext == ".yml" && strings.Count(string(data), "type: target") != 2 {
				t.Errorf("%s: want two target waypoints, the racing accesses:\n%s", w, data)
			}
			code, rout, rerrs := kbmc(t, "run", "-q", "--replay", w)
			if code != 10 || !strings.Contains(rout, "the witness's violation, reproduced") || !strings.Contains(rout, "data race") {
				t.Errorf("%s: run --replay exit %d\n%s%s", w, code, rout, rerrs)
			}
		}
	}
	for _, want := range []string{
		"racy.yml: unreach-call: false (expected false, +1)",
		"racy.yml: no-data-race: false (expected false, +1)",
		"atomic.yml: no-data-race: true (expected true, +2) in",
		"wide-racy.yml: no-data-race: false (expected false, +1) in",
		"by explicit/random",
		"wide-atomic.yml: no-data-race: true (expected true, +2) in",
		"by symbolic/gini",
		"5 answers: 2 correct true, 3 correct false, 0 wrong, 0 unknown; score 7",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// --property answers one property of each task and leaves out a task
	// without it.
	code, out, _ = kbmc(t, "svcomp", "--property", "unreach-call", racy, atomic)
	if code != 0 || !strings.Contains(out, "racy.yml: unreach-call: false") || strings.Contains(out, "no-data-race") ||
		!strings.Contains(out, "1 answers:") {
		t.Errorf("--property unreach-call: exit %d\n%s", code, out)
	}
	if code, _, errs := kbmc(t, "svcomp", "--property", "unreach_call", racy); code != exitUsage || !strings.Contains(errs, "no property of that name") {
		t.Errorf("--property unreach_call: exit %d, %s", code, errs)
	}
	code, out, _ = kbmc(t, "svcomp", "--engine", "symbolic/gini", wideRacy)
	if code != 0 || !strings.Contains(out, "wide-racy.yml: no-data-race: false (expected false, +1) in") || !strings.Contains(out, "by symbolic/gini") {
		t.Errorf("--engine symbolic/gini: exit %d\n%s", code, out)
	}
	code, out, _ = kbmc(t, "svcomp", "--algo", "dpor", racy)
	if code != 0 || !strings.Contains(out, "racy.yml: no-data-race: unknown") || !strings.Contains(out, "--algo dpor does not check the property no-data-race") {
		t.Errorf("--algo dpor: exit %d\n%s", code, out)
	}
}

// taskDir makes a directory for a test's SV-COMP tasks with the unreach-call
// property file in it, and returns it with a function that writes a file
// there (executable, so that a stand-in tool can be one) and returns its path.
func taskDir(t *testing.T) (string, func(name, text string) string) {
	dir := t.TempDir()
	put := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	put("unreach-call.prp", "CHECK( init(main()), LTL(G ! call(reach_error())) )\n")
	return dir, put
}

// TestSvcompMemsafety answers valid-memsafety: a use after free is
// false(valid-deref), with witnesses that replay; the same answer to a task
// expecting valid-free is wrong; a memory-safe program is unknown at once,
// since kbmc does not check valid-memtrack.
func TestSvcompMemsafety(t *testing.T) {
	_, put := taskDir(t)
	put("valid-memsafety.prp", "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n")
	const src = `void *malloc(unsigned long n);
void free(void *p);
int pthread_create(unsigned long *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(unsigned long t, void **r);
int *p;
void *f(void *a) { FREE return 0; }
int main(void) {
    unsigned long t;
    p = malloc(sizeof(int));
    pthread_create(&t, 0, f, 0);
    *p = 1;
    pthread_join(t, 0);
    return 0;
}
`
	put("uaf.i", strings.Replace(src, "FREE", "free(p);", 1))
	put("safe.i", strings.Replace(src, "FREE", "", 1))
	// A failing assertion aborts under valid-memsafety: no violation of it.
	put("asserts.i", strings.Replace(src, "FREE", "extern void reach_error(void); reach_error();", 1))
	task := func(name, input, verdict string) string {
		return put(name, "format_version: '2.0'\ninput_files: '"+input+"'\nproperties:\n  - property_file: valid-memsafety.prp\n    expected_verdict: "+verdict+
			"\noptions:\n  language: C\n  data_model: ILP32\n")
	}
	deref := task("uaf.yml", "uaf.i", "false\n    subproperty: valid-deref")
	free := task("uaf-free.yml", "uaf.i", "false\n    subproperty: valid-free")
	safe := task("safe.yml", "safe.i", "true")
	asserts := task("asserts.yml", "asserts.i", "true")
	wdir := t.TempDir()
	code, out, errs := kbmc(t, "svcomp", "--timeout", "20s", "--witness-dir", wdir, deref, free, safe, asserts)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{
		"uaf.yml: valid-memsafety: false(valid-deref) (expected false, +1)",
		"uaf-free.yml: valid-memsafety: false(valid-deref) (expected false, -16)",
		"safe.yml: valid-memsafety: unknown (expected true, +0)",
		"does not check valid-memtrack",
		// not "a reach-error …, which valid-memsafety does not cover"
		"asserts.yml: valid-memsafety: unknown (expected true, +0) in", "so it answers valid-memsafety only false\n" + "\n4 answers",
		"4 answers: 0 correct true, 1 correct false, 1 wrong, 2 unknown; score -15",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, ext := range []string{".graphml", ".yml"} {
		w := filepath.Join(wdir, "uaf.valid-memsafety"+ext)
		code, rout, rerrs := kbmc(t, "run", "-q", "--replay", w)
		if code != 10 || !strings.Contains(rout, "the witness's violation, reproduced") || !strings.Contains(rout, "invalid-deref") {
			t.Errorf("%s: run --replay exit %d\n%s%s", w, code, rout, rerrs)
		}
	}
}
