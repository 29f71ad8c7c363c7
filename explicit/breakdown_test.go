package explicit

import (
	"testing"

	"kbmc/lang"
	"kbmc/verify"
)

// Every execution is counted once by how it ended, the first execution the
// depth bound cut is kept, and dfs --stateful keeps the path that closes a
// cycle: what a bounded-safe verdict's explanation is made of.
func TestExecutionBreakdown(t *testing.T) {
	src := `shared int f;
shared int x;
thread s { while (f == 0) { yield; } }
thread g { f = 1; }
thread a { assume(x == 1); }
`
	p := porCompile(t, "breakdown", src, lang.Config{})
	for _, tc := range []struct {
		name string
		e    verify.Engine
	}{
		{"dfs", DFS{Options: Options{Options: verify.Options{Depth: 12}}}},
		{"dfs-stateful", DFS{Options: Options{Options: verify.Options{Depth: 12}, Stateful: true}}},
		{"dpor", DPOR{Options: Options{Options: verify.Options{Depth: 12}}}},
		{"persistent", Persistent{Options: Options{Options: verify.Options{Depth: 12}}}},
	} {
		r := porCheck(t, tc.e, p)
		s := r.Stats
		if r.Verdict != verify.BoundedSafe {
			t.Errorf("%s: %s, want bounded-safe", tc.name, r.Verdict)
		}
		if sum := s.Complete + s.AssumeBlocked + s.Deadlocked + s.Cut + s.Failed; sum != s.Executions {
			t.Errorf("%s: %d complete + %d assume + %d deadlocked + %d cut + %d failed != %d executions",
				tc.name, s.Complete, s.AssumeBlocked, s.Deadlocked, s.Cut, s.Failed, s.Executions)
		}
		if s.AssumeBlocked == 0 || s.Cut == 0 || s.Longest == 0 || s.Longest > 12 {
			t.Errorf("%s: breakdown %+v: want executions blocked on the assume and cut by the bound", tc.name, s)
		}
		if tc.name == "dfs-stateful" {
			if !r.Cycle || len(r.CycleTrace) == 0 {
				t.Errorf("%s: no cycle recorded", tc.name)
			}
		} else if tc.name == "dfs" && len(r.CutTrace) != 12 {
			t.Errorf("%s: cut trace of %d steps, want 12", tc.name, len(r.CutTrace))
		}
	}
}
