package encode

import (
	"os"
	"path/filepath"
	"testing"

	"kbmc/cfront"
	"kbmc/internal/annotation"
	"kbmc/lang"
	"kbmc/solver"
)

// TestWidthKB checks that a .kb program's ints keep the width they had
// before C: ValueBits's at the query bound, never widened for typed values,
// and Bools held as Boolean terms. The C memory model must cost .kb programs
// nothing.
func TestWidthKB(t *testing.T) {
	files, err := filepath.Glob("../testdata/*.kb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := annotation.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if a.Expect == "error" {
			continue
		}
		flags, err := annotation.ParseArgs(a.Args)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		p, err := lang.Compile(f, src, flags.Config)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, steps := range []int{0, 11, 101} {
			u := newCore(p, solver.NewBuilder(), nil, Options{Steps: steps})
			want := p.Width
			if steps > 0 {
				want = p.ValueBits(steps)
			}
			if u.w != want || u.raw {
				t.Errorf("%s, %d steps: width %d (raw bools %v), want %d as ValueBits says", filepath.Base(f), steps, u.w, u.raw, want)
			}
		}
	}
}

// TestWidthC checks the width of C programs' values. Without a step bound
// it is the program's (64 bits: every value of every type); with one, what
// the values of executions within it need (ir.Program.ValueBits): a few bits
// where they stay small, a type's width where an operation may wrap (an
// unsigned type one bit more, to stay positive) or a nondet draws any value
// of it. Raw Bools only where an 8-bit access may meet a _Bool cell, and
// then every type's full width (ValueBits reads a Bool as 0 or 1).
func TestWidthC(t *testing.T) {
	tests := []struct {
		name, src string
		bound     int  // the width within 10 steps
		exact     bool // else at most bound
		raw       bool
	}{
		{"int only", "int x; int main(void) { x = x + 1; return 0; }", 8, false, false},
		{"unsigned that wraps", "unsigned x; int main(void) { x = x - 1u; return 0; }", 33, true, false},
		{"short and char", "short s; signed char c; int main(void) { s = c; return 0; }", 8, false, false},
		{"long long", "long long x; int main(void) { while (1) x = x * 3 + 1; return 0; }", 24, false, false},
		{"a full-range int", "extern int __VERIFIER_nondet_int(void); int x; int main(void) { x = __VERIFIER_nondet_int(); return 0; }", 32, true, false},
		{"a 64-bit nondet", "extern long long __VERIFIER_nondet_longlong(void); long long x; int main(void) { x = __VERIFIER_nondet_longlong(); return 0; }", 64, true, false},
		{"a pointer", "int x; int main(void) { int *p = &x; *p = 1; return 0; }", 8, false, false},
		{"a char pointer over a _Bool", "_Bool b; int main(void) { char *p = (char *)&b; *p = 2; return b; }", 64, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := cfront.Compile(filepath.Join(t.TempDir(), "p.i"), []byte(tt.src), cfront.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if u := newCore(p, solver.NewBuilder(), nil, Options{}); u.w != p.Width || u.raw != tt.raw {
				t.Errorf("no step bound: width %d, raw bools %v; want %d, %v", u.w, u.raw, p.Width, tt.raw)
			}
			u := newCore(p, solver.NewBuilder(), nil, Options{Steps: 10})
			if tt.exact && u.w != tt.bound || !tt.exact && u.w > tt.bound || u.raw != tt.raw {
				t.Errorf("10 steps: width %d, raw bools %v; want %d (exact %v), %v", u.w, u.raw, tt.bound, tt.exact, tt.raw)
			}
		})
	}
}
