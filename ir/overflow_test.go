package ir_test

import (
	"testing"

	"kbmc/ir"
)

// TestOverflow: with the check selected, a signed operation whose exact
// result leaves its type is the violation Overflow; without it, the result
// wraps as .kb defines. Programs of width 8: int is -128..127.
func TestOverflow(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		over       bool
	}{
		{"add in range", "x + 27", false},
		{"add past the top", "x + 28", true},
		{"sub past the bottom", "-x - 30", true},
		{"sub in range", "-x - 28", false},
		{"mul", "x * 2", true},
		{"mul in range", "x - x * 1", false},
		{"negate the least", "-(y)", true},
		{"divide the least by -1", "y / -1", true},
		{"remainder of the least by -1", "y % -1", true},
		{"divide in range", "y / 2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, "shared int x = 100; shared int y = -128; shared int r;\nthread a { r = "+tc.expr+"; }\n", 8)
			for _, on := range []bool{false, true} {
				p.SelectProperty(map[bool]ir.ViolationKind{false: ir.NoViolation, true: ir.Overflow}[on])
				s := p.Initial()
				var ev ir.Event
				p.Step(s, 0, nil, &ev)
				got := ev.Violation != nil && ev.Violation.Kind == ir.Overflow
				if want := on && tc.over; got != want {
					t.Errorf("check %v: %s: violation %v, want overflow %v", on, tc.expr, ev.Violation, want)
				}
				if ev.Violation != nil && ev.Violation.Kind != ir.Overflow {
					t.Errorf("check %v: %s: %v", on, tc.expr, ev.Violation)
				}
			}
		})
	}
}

// TestOverflow64 checks the 64-bit arithmetic the check relies on at its edges.
func TestOverflow64(t *testing.T) {
	p := compile(t, "shared int x = 9223372036854775807; shared int y = -9223372036854775807; shared int r;\n"+
		"thread a { r = x + 1; }\nthread b { r = y - 1; }\nthread c { r = y - 2; }\nthread d { r = x * -1; }\nthread e { r = y * 2; }\nthread f { r = x - y; }\n", 64)
	p.SelectProperty(ir.Overflow)
	for th, want := range []bool{true, false, true, false, true, true} {
		s := p.Initial()
		var ev ir.Event
		p.Step(s, th, nil, &ev)
		if got := ev.Violation != nil && ev.Violation.Kind == ir.Overflow; got != want {
			t.Errorf("thread %s: overflow %v, want %v (%v)", p.Threads[th].Name, got, want, ev.Violation)
		}
	}
}
