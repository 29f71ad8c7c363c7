package encode

import (
	"slices"
	"testing"

	"kbmc/lang"
)

// TestStaticBounds checks the longest path through each thread's transition
// graph, and that a loop makes a thread unbounded.
func TestStaticBounds(t *testing.T) {
	tests := []struct {
		name, src string
		want      []int
	}{
		{"straight line", `shared int x; thread a { x = 1; x = 2; } thread b { int r = x; }`, []int{2, 1}},
		{"longest branch", `shared int x; thread a { if (x == 0) { x = 1; x = 2; } else { x = 3; } }`, []int{3}},
		{"instances", `shared int x; thread a[3] { x = tid; }`, []int{1, 1, 1}},
		{"local loop", `shared int x; thread a { for (int i = 0; i < 3; i++) { x = i; } }`, []int{Unbounded}},
		{"spin", `shared int x; thread a { while (x == 0) {} } thread b { x = 1; }`, []int{Unbounded, 1}},
		{"join and lock", `mutex m; shared int x; thread a { lock(m); x = 1; unlock(m); } thread b { join(a); int r = x; }`, []int{3, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := lang.Compile("test.kb", []byte(tt.src), lang.Config{})
			if err != nil {
				t.Fatal(err)
			}
			got := StaticBounds(p)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("bounds %v, want %v", got, tt.want)
			}
			sum := SumBounds(got)
			if slices.Contains(tt.want, Unbounded) != (sum == Unbounded) {
				t.Fatalf("sum %d of %v", sum, got)
			}
		})
	}
}
