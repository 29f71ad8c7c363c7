package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kbmc/internal/progen"
)

// FuzzParse checks that the parser neither panics nor hangs on any input, that
// it reports errors in order with positions inside the file, and that every file
// it accepts survives printing and parsing again.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.kb"))
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src)
		}
	}
	for _, src := range roundTripSources {
		f.Add([]byte(src))
	}
	f.Add([]byte("thread t { x = 1 }"))
	f.Add([]byte("thread t {\n if (x = 1) { y = 2; }\n z = ;\n}"))
	f.Add([]byte("const C = ((((((1))))));"))
	f.Add([]byte("shared int a[3] = {1, 2,}; mutex m[2]; func f(int a) int { return a; }"))
	// Processes and channels, whole and broken.
	f.Add([]byte("chan (int, bool) c[2] capacity K; process p[N] { shared int x; mutex m; thread t { recv(c[pid], x, b); send(c[(pid + 1) % N], len(c[0]), !b); } }"))
	f.Add([]byte("chan () c capacity 0; process p { process q { } thread t[2] { await(len(c) > 0); assume(len() == 1); } }"))
	f.Add([]byte("chan (int c capacity; process p[ { thread t { send(c); recv(); len; pid = 1; } }"))
	f.Add([]byte("process { } chan (int) capacity 1; thread t { send(c, 1, ); recv(c, ); }"))
	// Invariants, whole and broken.
	f.Add([]byte("invariant ok: forall i in 0..N-1: exists j in 0..i: p[i].v[j] == q.x || len(c[i]) > 0;"))
	f.Add([]byte("invariant bad: forall i in 0...: p[.x; invariant : ; invariant invariant: exists in 0..1;"))
	for seed := range uint64(4) {
		f.Add([]byte(progen.Generate(seed, progen.DistributedConfig())))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.kb", src)
		if file == nil {
			t.Fatal("nil file")
		}
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for i, e := range list {
				if e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Fatalf("error without position: %v", e)
				}
				if i > 0 && (list[i-1].Pos.Line > e.Pos.Line ||
					list[i-1].Pos.Line == e.Pos.Line && list[i-1].Pos.Col > e.Pos.Col) {
					t.Fatalf("errors out of order: %v", err)
				}
			}
			_ = err.Error()
			return
		}
		out := Print(file)
		again, err := Parse("fuzz.kb", []byte(out))
		if err != nil {
			t.Fatalf("printed form does not parse: %v\n%s", err, out)
		}
		if out2 := Print(again); out2 != out {
			t.Fatalf("printing is not stable:\n%s\n----\n%s", out, out2)
		}
	})
}
