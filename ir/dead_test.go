package ir_test

import (
	"fmt"
	"testing"

	"kbmc/ir"
)

// TestDeadLocals: a step clears the locals its thread can no longer read
// before writing them, and only those; a thread's last step clears its frame.
// want lists, after each step of thread 0 run alone, the values of the named
// locals.
func TestDeadLocals(t *testing.T) {
	tests := []struct {
		name string
		src  string
		vars []string
		want []string // after each step: the locals' values
	}{
		{
			name: "read later stays",
			src:  "shared int x = 5;\nthread main { int a = x; x = 1; x = a; }\n",
			vars: []string{"a"},
			want: []string{"[5]", "[5]", "[0]"},
		},
		{
			name: "never read is cleared",
			src:  "shared int x = 5;\nthread main { int a = x; x = 1; x = 2; }\n",
			vars: []string{"a"},
			want: []string{"[0]", "[0]", "[0]"},
		},
		{
			name: "overwritten before read is cleared",
			src:  "shared int x = 5;\nthread main { int a = x; x = 1; a = 3; x = a; }\n",
			vars: []string{"a"},
			want: []string{"[0]", "[3]", "[0]"},
		},
		{
			name: "a branch that may read keeps it",
			src:  "shared int x = 5;\nthread main { int a = x; x = 1; if (x == 0) { x = a; } x = 2; }\n",
			vars: []string{"a"},
			want: []string{"[5]", "[5]", "[0]", "[0]"},
		},
		{
			name: "loop counter stays",
			src:  "shared int x;\nthread main { int i = 0; while (i < 2) { x = i; i = i + 1; } }\n",
			vars: []string{"i"},
			want: []string{"[0]", "[0]", "[1]", "[1]", "[2]", "[0]"},
		},
		{
			name: "an element written keeps the array",
			src:  "shared int x = 5;\nthread main { int a[2]; a[0] = x; x = 1; a[1] = 2; x = a[0]; }\n",
			vars: []string{"a"},
			want: []string{"[5 0]", "[5 2]", "[0 0]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, tc.src, 32)
			th := p.Threads[0]
			cells := func(s ir.State) string {
				var out []int64
				for _, name := range tc.vars {
					for _, v := range th.Template.Locals {
						if v.Name == name {
							at := th.Base + 1 + v.Offset
							out = append(out, s[at:at+v.Cells()]...)
						}
					}
				}
				return fmt.Sprint(out)
			}
			s := p.Initial()
			var ev ir.Event
			var got []string
			for i := 0; i < 20 && !p.Done(s, 0); i++ {
				p.Step(s, 0, nil, &ev)
				if ev.Violation != nil {
					t.Fatal(ev.Violation.Msg)
				}
				got = append(got, cells(s))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("after each step %v, want %v", got, tc.want)
			}
		})
	}
}
