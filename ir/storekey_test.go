package ir_test

import (
	"testing"

	"kbmc/ir"
)

// The shared cells' and locks' store keys are distinct, below FirstFreeKey,
// and LocateKey names each cell and lock back.
func TestStoreKeys(t *testing.T) {
	p := compile(t, "shared int x;\nshared int a[3];\nmutex m;\nmutex f[2];\nthread t { lock(m); x = 1; unlock(m); }\n", 8)
	seen := map[ir.StoreKey]bool{}
	check := func(k ir.StoreKey, kind ir.LocKind, i int) {
		t.Helper()
		if seen[k] || k < 0 || k >= p.FirstFreeKey() {
			t.Errorf("%v %d: key %d is taken or outside [0, %d)", kind, i, k, p.FirstFreeKey())
		}
		seen[k] = true
		if gotKind, got := p.LocateKey(k); gotKind != kind || got != i {
			t.Errorf("LocateKey(%d) = %v %d, want %v %d", k, gotKind, got, kind, i)
		}
	}
	for c := range p.SharedSize {
		check(p.CellKey(c), ir.LocCell, c)
	}
	for i := range p.NumLocks {
		check(p.LockKey(i), ir.LocLock, i)
	}
	for k, want := range map[ir.StoreKey]string{p.CellKey(0): "x", p.CellKey(3): "a[2]", p.LockKey(0): "m", p.LockKey(2): "f[1]"} {
		if got := p.LocationName(p.KeyLocation(k)); got != want {
			t.Errorf("key %d is %s, want %s", k, got, want)
		}
	}
	if len(seen) != 4+3 || int(p.FirstFreeKey()) != len(seen) {
		t.Errorf("%d keys, FirstFreeKey %d; want 7", len(seen), p.FirstFreeKey())
	}
}
