package encode

import (
	"os"
	"path/filepath"
	"testing"

	"kbmc/cfront"
	"kbmc/internal/annotation"
	"kbmc/ir"
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

// TestWidthC checks the width of C programs' values: wide enough for every
// typed value the program has (an unsigned type needs a bit more than its
// width, to stay positive), no wider; and raw Bools only where an 8-bit
// access may meet a _Bool cell.
func TestWidthC(t *testing.T) {
	tests := []struct {
		name, src string
		w         int
		raw       bool
	}{
		{"int only", "int x; int main(void) { x = x + 1; return 0; }", 32, false},
		{"unsigned", "unsigned x; int main(void) { x = x - 1u; return 0; }", 33, false},
		{"short and char", "short s; signed char c; int main(void) { s = c; return 0; }", 16, false},
		{"promoted to int", "short s; signed char c; int main(void) { s = s + c; return 0; }", 32, false},
		{"long long", "long long x; int main(void) { x = x * 3; return 0; }", 64, false},
		{"a pointer", "int x; int main(void) { int *p = &x; *p = 1; return 0; }", 64, false},
		{"a char pointer over a _Bool", "_Bool b; int main(void) { char *p = (char *)&b; *p = 2; return b; }", 64, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := cfront.Compile(filepath.Join(t.TempDir(), "p.i"), []byte(tt.src), cfront.Config{})
			if err != nil {
				t.Fatal(err)
			}
			u := newCore(p, solver.NewBuilder(), nil, Options{Steps: 10})
			if u.w != tt.w || u.raw != tt.raw {
				t.Errorf("width %d, raw bools %v; want %d, %v", u.w, u.raw, tt.w, tt.raw)
			}
			for _, v := range p.Shared {
				for c := range v.Cells() {
					if ct := v.CellType(c); ct != ir.Bool && ct.Bits(p.Width) > u.w {
						t.Errorf("%s: a cell of %d bits, width %d", v.Name, ct.Bits(p.Width), u.w)
					}
				}
			}
		})
	}
}
