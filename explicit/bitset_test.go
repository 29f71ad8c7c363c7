package explicit

import (
	"slices"
	"testing"
)

// TestBitSetWalk walks bit sets up (next) and down (prev, step) across word
// boundaries.
func TestBitSetWalk(t *testing.T) {
	for _, tc := range []struct {
		n       int
		members []int
	}{
		{1, nil},
		{1, []int{0}},
		{64, []int{0, 63}},
		{65, []int{63, 64}},
		{200, []int{1, 62, 64, 127, 128, 199}},
		{130, []int{129}},
	} {
		b := newBitSet(tc.n)
		for _, m := range tc.members {
			b.add(m)
		}
		var up, down []int
		for m := b.next(0); m >= 0; m = b.step(m, false) {
			up = append(up, m)
		}
		for m := b.prev(tc.n - 1); m >= 0; m = b.step(m, true) {
			down = append(down, m)
		}
		want := slices.Clone(tc.members)
		if !slices.Equal(up, want) {
			t.Errorf("n=%d %v: up %v", tc.n, tc.members, up)
		}
		slices.Reverse(want)
		if !slices.Equal(down, want) {
			t.Errorf("n=%d %v: down %v", tc.n, tc.members, down)
		}
	}
}
