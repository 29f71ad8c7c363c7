package ir_test

import (
	"path/filepath"
	"testing"

	"kbmc/cfront"
	"kbmc/ir"
)

// Phantom threads (ir.Pool.Overflow): a spawn on a full pool succeeds with a
// thread value of its own, the phantom never runs, a join of it waits at the
// pool's bound, and an execution that started one ends cut by a bound.
func TestPhantoms(t *testing.T) {
	for _, tc := range []struct {
		name string
		join bool
	}{{"main returns", false}, {"main joins", true}} {
		t.Run(tc.name, func(t *testing.T) {
			src := `#include <pthread.h>
void *w(void *arg) { return 0; }
pthread_t ids[100];
int main(void) {
    for (int i = 0; i < 100; i++) pthread_create(&ids[i], 0, w, 0);
`
			if tc.join {
				src += "    for (int i = 0; i < 100; i++) pthread_join(ids[i], 0);\n"
			}
			src += "    return 0;\n}\n"
			p, err := cfront.Compile(filepath.Join(t.TempDir(), "p.c"), []byte(src), cfront.Config{Phantoms: true})
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasPhantoms() || len(p.Pools) != 1 {
				t.Fatalf("HasPhantoms %v with %d pools", p.HasPhantoms(), len(p.Pools))
			}
			slots := len(p.Pools[0].Slots)
			if slots >= 100 {
				t.Fatalf("%d slots: the test wants a pool smaller than the loop", slots)
			}
			// Run every enabled thread, lowest first, until none is.
			s := p.Initial()
			var ch ir.Choices
			var ev ir.Event
			for steps := 0; ; steps++ {
				if steps > 100000 {
					t.Fatal("no end")
				}
				moved := false
				for th := range p.Threads {
					if p.Enabled(s, th) {
						ch.Reset(nil)
						p.Step(s, th, &ch, &ev)
						if ev.Violation != nil {
							t.Fatalf("step of %s: %s", p.Threads[th].Name, ev.Violation.Msg)
						}
						moved = true
						break
					}
				}
				if !moved {
					break
				}
			}
			if end, v := p.End(s); end != ir.CutByLimit || v != nil {
				t.Errorf("End = %v, %v; want cut by a limit: the phantoms would still run", end, v)
			}
			// The values main stored: the slots' and then distinct phantoms'.
			ids := p.Shared[0]
			for _, v := range p.Shared {
				if v.Name == "ids" {
					ids = v
				}
			}
			seen := map[int64]bool{}
			for i := range 100 {
				v := s[ids.Offset+i]
				if seen[v] || v < 1 {
					t.Fatalf("ids[%d] = %d: not a fresh thread value", i, v)
				}
				seen[v] = true
				if phantom := v > int64(len(p.Threads)); phantom != (i >= slots) {
					t.Errorf("ids[%d] = %d: phantom %v, want %v", i, v, phantom, i >= slots)
				}
			}
			if tc.join {
				if st := p.Status(s, 0); st != ir.BlockedLimit {
					t.Errorf("main joining a phantom is %v, want blocked at a limit", st)
				}
			}
		})
	}
}
