package symbolic

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kbmc/gofront"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// TestGoConstructs checks the encodings of Go's constructs against the
// reference DFS, and against the verdict each program was written to have, on
// every solver × encoding × reduction combination: close (a receive from a
// closed channel takes what is left, then zeros with ok false; a send on it
// and a second close panic; a close wakes the threads waiting on the
// channel), ok flags, select cases guarded by when, Go's mutexes
// (ir.Node.AnyOwner, which .kb cannot write: asGo) and an entry goroutine
// whose return turns a deadlock into a leak. The partial-order encoding
// refuses a closed channel by name; the others it encodes.
func TestGoConstructs(t *testing.T) {
	tests := []struct {
		name string
		src  string
		goMx bool // Go's mutexes and an entry goroutine, the first thread (asGo)
		noDL bool
		want verify.Verdict
		kind ir.ViolationKind
	}{
		{name: "drained after close: zeros, ok false", want: verify.Safe, src: `
chan (int, bool) c capacity 2;
thread a { send(c, 7, true); close(c); }
thread b { int x; bool f; bool ok; recv(c, x, f) ok(ok); assert(ok && x == 7 && f);
           recv(c, x, f) ok(ok); assert(!ok && x == 0 && !f); recv(c, x, f) ok(ok); assert(!ok); }`},
		{name: "ok flag says a message was taken", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 1;
thread a { send(c, 0); close(c); }
thread r[2] { int x = 5; bool ok; recv(c, x) ok(ok); assert(ok, "closed first"); }`},
		{name: "send on a closed channel panics", want: verify.Unsafe, kind: ir.Panic, src: `
chan (int) c capacity 2;
thread a { send(c, 1); send(c, 2); }
thread b { close(c); }`},
		{name: "close of a closed channel panics", want: verify.Unsafe, kind: ir.Panic, src: `
chan (int) c[2] capacity 1;
thread a { close(c[0]); }
thread b { int i = 0; close(c[i]); }`},
		{name: "close wakes a receiver", want: verify.Safe, src: `
chan (int) c capacity 1;
thread a { int x = 3; bool ok = true; recv(c, x) ok(ok); assert(!ok && x == 0); }
thread b { close(c); }`},
		{name: "close out of bounds", want: verify.Unsafe, kind: ir.Bounds, src: `
chan (int) c[2] capacity 1;
thread a { int i = 2; close(c[i]); }`},
		{name: "a lossy send on a closed channel panics, never lost", want: verify.Unsafe, kind: ir.Panic, src: `
chan (int) c capacity 1 lossy;
thread a { close(c); send(c, 1); }`},
		{name: "unordered, drained", want: verify.Safe, src: `
chan (int) c capacity 2 unordered;
thread a { send(c, 1); send(c, 2); close(c); }
thread b { int s = 0; int x; bool ok = true;
           while (ok) { recv(c, x) ok(ok); s = s + x; } assert(s == 3); }`},
		{name: "select: a case when false is not taken", want: verify.Safe, src: `
chan (int) c capacity 1;
chan (int) d capacity 1;
thread a { send(c, 1); send(d, 2); }
thread b { bool on = false; int x = 0; int k;
           select { case recv(c, x) when (on): k = 0; case recv(d, x): k = 1; } assert(k == 1 && x == 2); }`},
		{name: "select: every case off blocks for ever", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 1;
thread a { send(c, 1); }
thread b { int x; select { case recv(c, x) when (len(c) == 2): ; } }`},
		{name: "select: when read before the index", want: verify.Safe, src: `
chan (int) c[2] capacity 1;
thread a { send(c[1], 4); }
thread b { int i = 5; int x = 0; int k;
           select { case recv(c[i], x) when (i < 2): k = 0; case recv(c[1], x): k = 1; } assert(x == 4 && k == 1); }`},
		{name: "select: a closed channel's case is ready", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 1;
chan (int) d capacity 1;
thread a { close(c); }
thread b { send(d, 1); }
thread r { int x = 9; bool ok; int k;
           select { case recv(c, x) ok(ok): k = 0; case recv(d, x): k = 1; } assert(k == 1, "took the closed channel"); }`},
		{name: "select: send case on a closed channel panics", want: verify.Unsafe, kind: ir.Panic, src: `
chan (int) c capacity 1;
thread a { close(c); }
thread r { select { case send(c, 1): ; } }`},
		{name: "Go: unlock by another thread", goMx: true, want: verify.Safe, src: `
mutex m; shared int x;
thread main { lock(m); x = 1; }
thread w { await(x == 1); unlock(m); lock(m); unlock(m); }`},
		{name: "Go: relock waits: a leak once main returned", goMx: true, want: verify.Unsafe, kind: ir.Leak, src: `
mutex m;
thread main { yield; }
thread w { lock(m); lock(m); }`},
		{name: "Go: relock waits: a deadlock while main waits", goMx: true, want: verify.Unsafe, kind: ir.Deadlock, src: `
mutex m;
thread main { lock(m); lock(m); }`},
		{name: "Go: unlock of an unlocked mutex panics", goMx: true, want: verify.Unsafe, kind: ir.Panic, src: `
mutex m[2];
thread main { lock(m[0]); unlock(m[0]); }
thread w { int i = 0; unlock(m[i]); }`},
		{name: "Go: no leak reported under no-deadlock", goMx: true, noDL: true, want: verify.Safe, src: `
chan (int) c capacity 1;
thread main { yield; }
thread w { int x; recv(c, x); }`},
		{name: "Go: a leak needs every instance of main returned", goMx: true, want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 1;
thread main[2] { if (tid == 1) { int x; recv(c, x); } }`},
	}
	cs := combos(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := lang.Compile("test.kb", []byte(tt.src), lang.Config{})
			if err != nil {
				t.Fatalf("compile: %v\n%s", err, tt.src)
			}
			if tt.goMx {
				if err := asGo(p); err != nil {
					t.Fatal(err)
				}
			}
			closes := goUsesOf(p).close > 0
			matchesDFS(t, p, verify.Options{NoDeadlock: tt.noDL}, outcome{verdict: tt.want, kind: tt.kind}, cs, func(c combo) []string {
				if closes && c.encoding == "partial-order" {
					return []string{"closed by a close", "unordered"}
				}
				return nil
			})
		})
	}
}

// TestSelectWithoutCases: Go's select {} (blocks for ever) and a select of a
// default alone, which .kb cannot write, on every combination against dfs.
// Their select has no case, which the encoding's count of ready cases once
// indexed past.
func TestSelectWithoutCases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sel.go")
	src := "package main\n\nfunc main() {\n\tgo func() { select {} }()\n\tk := 0\n\tselect {\n\tdefault:\n\t\tk = 1\n\t}\n\tif k != 1 {\n\t\tpanic(\"default\")\n\t}\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := gofront.Compile(path, gofront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Program
	opts := verify.Options{Depth: 50}
	ref, err := dfs(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomeOf(ref); got != (outcome{verdict: verify.Unsafe, kind: ir.Leak}) {
		t.Fatalf("dfs says %s, want a leak", got)
	}
	for _, c := range combos(t) {
		r, err := symbolicRun(p, opts, c, 2*time.Minute)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if err := agree(p, opts, c, ref, r, 2*time.Minute); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}
