package ir_test

import (
	"slices"
	"testing"
)

// TestFixedLocals: a local that one assignment of an expression without
// variables writes, before every read on every path, is fixed; written twice,
// from a variable, or read where it may not be written yet, it is not.
func TestFixedLocals(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"declared", "int next = (tid + 1) % 3; x = next; x = next + 1;", []string{"next"}},
		{"assigned once later", "int a; a = 7; x = a;", []string{"a"}},
		{"assigned twice", "int a = 1; a = 2; x = a;", nil},
		{"from a variable", "int a = x; x = a;", nil},
		{"drawn", "int a = nondet(0, 1); x = a;", nil},
		{"read before", "int a; x = a; a = 3; x = a;", nil},
		{"on one branch", "int a; if (x > 0) { a = 3; } x = a;", nil},
		{"in a loop", "while (x < 3) { int a = 4; x = x + a; }", []string{"a"}},
		{"zeroed in a loop", "while (x < 3) { int a; x = x + a; a = 4; x = a; }", nil},
		{"before a loop", "int a = 4; while (x < 3) { x = x + a; }", []string{"a"}},
	} {
		p := compile(t, "shared int x;\nthread w[3] { "+tc.body+" }\n", 8)
		var got []string
		for v := range p.Templates[0].FixedLocals() {
			got = append(got, v.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: fixed locals %v, want %v", tc.name, got, tc.want)
		}
	}
}
