package ir_test

import (
	"fmt"
	"slices"
	"testing"
)

// Checks names each check at the position Step reports its violation at: an
// index's own position for a channel, mutex or thread index (len(c[v])
// included), an lvalue's index, the operator for division and shifts.
func TestChecks(t *testing.T) {
	p := compile(t, `chan (int) c[2] capacity 1;
mutex m[2];
shared int a[2];
thread w[2] { }
thread t {
  int v = 0;
  if (len(c[v]) < 1) { v = 1; }
  send(c[v], 1);
  lock(m[v]); unlock(m[v]);
  join(w[v]);
  a[v] = 10 / v;
  assert(a[v] << v > 0);
}
`, 32)
	var got []string
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			for _, c := range n.Checks() {
				got = append(got, fmt.Sprintf("%s@%d:%d", c.Kind, c.Pos.Line, c.Pos.Col))
			}
		}
	}
	for _, want := range []string{
		"bounds@7:13",                                  // len(c[v])'s v
		"bounds@8:10",                                  // send(c[v], …)'s v
		"bounds@9:10", "relock@9:3", "bad-unlock@9:15", // m[v]'s v, lock, unlock
		"bounds@10:10",                          // join(w[v])'s v
		"bounds@11:5", "division-by-zero@11:13", // a[v] = 10 / v
		"assertion@12:3", "bounds@12:10", "shift@12:15", // assert(a[v] << v > 0)
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Checks lack %s; got %v", want, got)
		}
	}
}
