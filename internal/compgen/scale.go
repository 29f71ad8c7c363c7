package compgen

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"kbmc/detect"
)

// Scale makes a computation of n processes p[0] … p[n-1] and events events in all,
// for the scale benchmarks. At each step a random process takes an event: with
// probability 0.1 it sends to a random other process, else with probability 0.1
// it receives the oldest message waiting for it, if any; and it sets x to a
// random digit, so that x == 0 holds in about one local state in ten. done is
// false until a process's last event, which sets it.
func Scale(rng *rand.Rand, n, events int) *detect.Computation {
	b := detect.NewBuilder(fmt.Sprintf("scale n=%d events=%d", n, events), nil, indexed("p", n))
	clocks := make([][]int64, n)
	inbox := make([][][]int64, n)
	var free [][]int64 // message clocks to reuse: a million events should not mean a million slices
	for i := range n {
		clocks[i] = make([]int64, n)
		b.Set(i, "x", detect.IntVal(int64(rng.IntN(10))), detect.Pos{})
		b.Set(i, "done", detect.BoolVal(false), detect.Pos{})
	}
	for range events {
		i := rng.IntN(n)
		c := clocks[i]
		c[i]++
		kind := detect.Local
		switch u := rng.Float64(); {
		case u < 0.1 && n > 1:
			to := rng.IntN(n - 1)
			if to >= i {
				to++
			}
			var m []int64
			if k := len(free); k > 0 {
				m, free = free[k-1], free[:k-1]
			} else {
				m = make([]int64, n)
			}
			copy(m, c)
			inbox[to] = append(inbox[to], m)
			kind = detect.Send
		case u < 0.2 && len(inbox[i]) > 0:
			m := inbox[i][0]
			inbox[i] = inbox[i][1:]
			for j, v := range m {
				c[j] = max(c[j], v)
			}
			free = append(free, m)
			kind = detect.Recv
		}
		b.Event(i, kind, "", detect.Pos{}, c)
		b.Set(i, "x", detect.IntVal(int64(rng.IntN(10))), detect.Pos{})
	}
	for i := range n {
		b.Set(i, "done", detect.BoolVal(true), detect.Pos{})
	}
	c, err := b.Build()
	if err != nil {
		panic("compgen: a scale computation does not build: " + err.Error())
	}
	return c
}

// AllZero is the conjunction of 1-local predicates p[i].x == 0 over n processes.
func AllZero(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("p[%d].x == 0", i)
	}
	return strings.Join(parts, " && ")
}

// AllDone is the conjunction of 1-local predicates p[i].done over n processes: it
// holds only in the final global state, so PS_Poss has to walk the whole
// computation to find it.
func AllDone(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("p[%d].done", i)
	}
	return strings.Join(parts, " && ")
}
