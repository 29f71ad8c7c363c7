package explicit

import (
	"testing"

	"kbmc/lang"
)

// TestStaticLen checks the failure analysis on len(c): its value is a queue length,
// between 0 and the capacity, whatever the channel's index. An assertion len allows
// to fail may fail; one that holds for every length cannot. (The interval
// evaluation once took len's channel index, or its missing one, for an operand and
// crashed on single channels.)
func TestStaticLen(t *testing.T) {
	for _, tc := range []struct {
		name, assert string
		mayFail      bool
	}{
		{"nonempty", "assert(len(c) > 0);", true},
		{"at-least-zero", "assert(len(c) >= 0);", false},
		{"at-most-capacity", "assert(len(c) <= 2);", false},
		{"below-capacity", "assert(len(c) < 2);", true},
		{"array-element", "assert(len(cs[1]) <= 1);", false},
		{"array-nonempty", "assert(len(cs[pid]) == 1);", true},
		{"in-arithmetic", "assert(len(c) + len(cs[0]) <= 3);", false},
		{"array-index-out-of-range", "assert(len(cs[pid + 1]) >= 0);", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "chan (int) c capacity 2;\nchan (int, bool) cs[2] capacity 1;\n" +
				"process p[2] { thread run { " + tc.assert + " } }\n"
			p := porCompile(t, tc.name, src, lang.Config{})
			in := analyze(p)
			for th := range p.Threads {
				// A process instance's pid is a constant: instance 1 indexes cs[2].
				want := tc.mayFail
				if tc.name == "array-index-out-of-range" {
					want = th == 1
				}
				tmpl := p.Threads[th].Template
				loc := tmpl.Loc(tmpl.Entry)
				if got := in.mayFail(th, loc); got != want {
					t.Errorf("%s: thread %s may fail: %v, want %v", tc.assert, p.Threads[th].Name, got, want)
				}
			}
		})
	}
}
