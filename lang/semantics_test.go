package lang

import (
	"testing"

	"kbmc/ir"
)

// explore runs every interleaving and every nondeterministic choice of p up to
// depth steps and returns the first violation it meets (deadlocks excluded).
func explore(p *ir.Program, s ir.State, depth int) *ir.Violation {
	if depth == 0 {
		return nil
	}
	for t := range p.Threads {
		if !p.Enabled(s, t) {
			continue
		}
		var ch ir.Choices
		var fixed []int64
		for {
			next := s.Clone()
			var ev ir.Event
			ch.Reset(fixed)
			p.Step(next, t, &ch, &ev)
			if ev.Violation != nil {
				return ev.Violation
			}
			if v := explore(p, next, depth-1); v != nil {
				return v
			}
			var more bool
			if fixed, more = ch.Next(nil); !more {
				break
			}
		}
	}
	return nil
}

// TestSemantics checks that lowering keeps the meaning of the source: C's
// evaluation order around hoisted cas, short-circuiting, arguments evaluated
// once, re-initialised declarations in loops, W-bit arithmetic.
func TestSemantics(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		width  int
		unsafe bool // an assertion can fail
	}{
		{"operand read before a later cas", "shared int x; thread t { int l = x + (cas(x, 0, 5) ? 1 : 0); assert(l == 1 && x == 5); }", 0, false},
		{"index computed before the right-hand side's cas", "shared int x; shared int a[2]; thread t { a[x] = cas(x, 0, 1) ? 1 : 2; assert(a[0] == 1 && a[1] == 0); }", 0, false},
		{"nondet argument drawn once", "func sq(int v) int { return v * v; } thread t { int l = sq(nondet(0, 3)); assert(l == 0 || l == 1 || l == 4 || l == 9); }", 0, false},
		{"&& skips the cas", "shared int x; shared int y; thread t { if (y == 1 && cas(x, 0, 1)) { } assert(x == 0); }", 0, false},
		{"|| skips the cas", "shared int x = 1; thread t { bool b = x == 1 || cas(x, 1, 2); assert(b && x == 1); }", 0, false},
		{"?: runs one branch", "shared int x; thread t { int l = x == 0 ? (cas(x, 0, 3) ? 10 : 20) : (cas(x, 0, 4) ? 30 : 40); assert(l == 10 && x == 3); }", 0, false},
		{"argument evaluated before the body's cas", "shared int y; func h(int v) int { return cas(y, 0, 1) ? v : 7; } thread t { int r = h(y); assert(r == 0 && y == 1); }", 0, false},
		{"statement function arguments left to right", "shared int x; func f(bool a, int b) int { int r = b; return r; } thread t { int r = f(cas(x, 0, 1), x); assert(r == 1); }", 0, false},
		{"declarations in loops start at zero", "thread t { for (int i = 0; i < 3; i++) { int z; assert(z == 0); z = 5; int a[2] = {i}; assert(a[0] == i && a[1] == 0); a[1] = 9; } }", 0, false},
		{"function locals start at zero on every call", "func f() int { int z; z++; return z; } thread t { int s = 0; for (int i = 0; i < 3; i++) { s += f(); } assert(s == 3); }", 0, false},
		{"compound assignment draws its index once", "shared int a[4]; thread t { a[nondet(0, 3)] += 1; assert(a[0] + a[1] + a[2] + a[3] == 1); }", 0, false},
		{"cas loop", "shared int x; thread t { int n = 0; while (!cas(x, 0, 1)) { n++; } assert(n == 0 && x == 1); }", 0, false},
		{"early return from a function", "func f(int n) int { if (n > 0) { return 1; } return 2; } thread t { int a = f(5); int b = f(-1); assert(a == 1 && b == 2); }", 0, false},
		{"return ends the thread", "shared int x; thread t { x = 1; return; } thread u { join(t); assert(x == 1); }", 0, false},
		{"wrap-around at width 8", "shared int x = 127; thread t { x++; assert(x == -128); x = -128 / -1; assert(x == -128); }", 8, false},
		{"racy increment loses an update", "shared int x; thread t[2] { int l = x; x = l + 1; } thread m { join(t); assert(x == 2); }", 0, true},
		{"atomic increment does not", "shared int x; thread t[2] { x++; } thread m { join(t); assert(x == 2); }", 0, false},
		{"atomic block with a guard", "shared int x; thread a { atomic { await(x == 1); x = 2; } } thread b { x = 1; } thread m { join(a); assert(x == 2); }", 0, false},
		{"assert fails", "shared int x; thread t { x = nondet(0, 2); assert(x != 2); }", 0, true},
		{"short-circuit protects an index", "shared int a[2]; thread t { int i = 2; bool b = i < 2 && a[i] == 0; assert(!b); }", 0, false},
		{"statement function result in a compound assignment", "shared int x = 1; func two() int { int r = 2; return r; } thread t { x += two(); assert(x == 3); }", 0, false},
	}
	for _, tt := range tests {
		p := compileOK(t, tt.src, Config{Width: tt.width})
		v := explore(p, p.Initial(), 40)
		if v != nil && v.Kind != ir.Assertion {
			t.Errorf("%s: unexpected violation %s: %s", tt.name, v.Kind, v.Msg)
		} else if (v != nil) != tt.unsafe {
			t.Errorf("%s: violation %v, want unsafe=%v", tt.name, v, tt.unsafe)
		}
	}
}
