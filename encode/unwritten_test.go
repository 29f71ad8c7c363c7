package encode

import (
	"context"
	"testing"

	"kbmc/ir"
	"kbmc/solver"
	"kbmc/solver/gini"
)

// TestUnwritten checks which reads the partial-order encoding takes for the
// initial value without a read-from choice: reads of a cell no other thread
// writes, before any write of the reading thread. A cell written by another
// thread, or by an earlier event of the reader's own, is read from its
// writers.
func TestUnwritten(t *testing.T) {
	p := compile(t, `shared int never;
shared int mine;
shared int theirs;
shared int arr[2];
thread a { int r = never; mine = 1; int s = mine; r = theirs; arr[0] = 1; }
thread b { theirs = 2; int u = arr[1]; int v = mine; }
`)
	b := solver.NewBuilder()
	be, err := gini.New(b)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	po, err := NewPartialOrder(p, b, be, Options{}, 20)
	if err != nil {
		t.Fatal(err)
	}
	for th := range p.Threads {
		if err := po.Grow(context.Background(), th, 5); err != nil {
			t.Fatal(err)
		}
	}
	key := func(name string, i int) ir.StoreKey {
		for _, v := range p.Shared {
			if v.Name == name {
				return ir.StoreKey(v.Offset + i)
			}
		}
		t.Fatalf("no variable %s", name)
		return 0
	}
	first := func(th int) *event { return po.threads[th].events[0] }
	last := func(th int) *event { return po.threads[th].events[len(po.threads[th].events)-1] }
	for _, tc := range []struct {
		name string
		e    *event
		k    ir.StoreKey
		want bool
	}{
		{"a cell no thread writes", first(0), key("never", 0), true},
		{"a thread's own cell, before it writes it", first(0), key("mine", 0), true},
		{"a thread's own cell, after it wrote it", last(0), key("mine", 0), false},
		{"another thread's cell", first(0), key("theirs", 0), false},
		{"a cell another thread writes, read by that thread", first(1), key("theirs", 0), true},
		{"an array another thread writes an element of", first(1), key("arr", 1), false},
		{"the final state", po.end, key("never", 0), false},
	} {
		if got := po.unwritten(tc.e, tc.k); got != tc.want {
			t.Errorf("%s: unwritten = %v, want %v", tc.name, got, tc.want)
		}
	}
}
