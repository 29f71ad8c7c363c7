package oracle_test

import (
	"errors"
	"slices"
	"testing"

	"kbmc/internal/oracle"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

func TestExplore(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		kinds   []ir.ViolationKind
		dist    map[ir.ViolationKind]int
		longest int // -1: a cycle
	}{
		{"safe", "shared int x;\nthread a { x = 1; }\nthread b { x = 2; }\n", nil, nil, 2},
		{"an assertion one interleaving fails", "shared int x;\nthread a { x = 1; }\nthread b { assert(x == 0); }\n",
			[]ir.ViolationKind{ir.Assertion}, map[ir.ViolationKind]int{ir.Assertion: 2}, 2},
		{"a deadlock in the initial state", "shared int x;\nthread a { await(x == 1); }\n",
			[]ir.ViolationKind{ir.Deadlock}, map[ir.ViolationKind]int{ir.Deadlock: 0}, 0},
		{"a spin loop runs for ever", "shared int x;\nthread a { while (x == 0) { yield; } }\nthread b { x = 1; }\n", nil, nil, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := lang.Compile("t.kb", []byte(tc.src), lang.Config{})
			if err != nil {
				t.Fatal(err)
			}
			o, err := oracle.Explore(p, 1<<12, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.Kinds(1<<30, false); !slices.Equal(got, tc.kinds) || o.Longest != tc.longest {
				t.Fatalf("%s; want kinds %v, longest %d", o, tc.kinds, tc.longest)
			}
			for k, d := range tc.dist {
				if o.Dist[k] != d {
					t.Errorf("%s in %d steps, want %d", k, o.Dist[k], d)
				}
				// Below the fewest steps to it, the kind is out of reach.
				if d > 0 && slices.Contains(o.Kinds(d-1, false), k) {
					t.Errorf("%s reachable within %d steps", k, d-1)
				}
			}
			if len(tc.kinds) > 0 && o.Verdict(1<<30, false) != verify.Unsafe {
				t.Errorf("verdict %s, want unsafe", o.Verdict(1<<30, false))
			}
			if tc.longest >= 0 && len(tc.kinds) == 0 && o.Verdict(tc.longest, false) != verify.Safe {
				t.Errorf("verdict at depth %d: %s, want safe", tc.longest, o.Verdict(tc.longest, false))
			}
			if tc.longest < 0 && o.Verdict(100, false) != verify.BoundedSafe {
				t.Errorf("verdict %s, want bounded-safe", o.Verdict(100, false))
			}
		})
	}
	// A class function maps a violation to the kind it counts as.
	p, err := lang.Compile("t.kb", []byte("thread a { assert(false); }\n"), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := oracle.Explore(p, 1<<12, func(*ir.Violation) ir.ViolationKind { return ir.Panic })
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Kinds(1<<30, false); !slices.Equal(got, []ir.ViolationKind{ir.Panic}) {
		t.Errorf("with a class: kinds %v, want [panic]", got)
	}
	q, err := lang.Compile("t.kb", []byte("shared int x;\nthread a { x = 1; x = 2; }\nthread b { x = 3; }\n"), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oracle.Explore(q, 2, nil); !errors.Is(err, oracle.ErrTooBig) {
		t.Errorf("a graph over the limit: %v, want ErrTooBig", err)
	}
}
