package compgen

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"kbmc/detect"
)

// Random describes a random computation: Procs processes named p[0], p[1], …,
// each with between 1 and MaxEvents events, fewer when Budget is set: then the
// product of (events + 1) over the processes, the number of global states if no
// message were sent, is at most Budget, so that the lattice stays small enough
// for the reference search whatever the messages. Each event sends a message to a
// random other process with probability Send, receives the oldest message
// waiting for it (if any) with probability Recv, or is local; and sets the
// variables x (an int in 0..3), b (a bool) and w (a word, red or green) with
// probability Change each.
type Random struct {
	Procs, MaxEvents   int
	Budget             float64
	Send, Recv, Change float64
}

// Words are the values of w.
var Words = []string{"red", "green"}

// Generate makes a random computation.
func (r Random) Generate(rng *rand.Rand, name string) *detect.Computation {
	n := r.Procs
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("p[%d]", i)
	}
	b := detect.NewBuilder(name, nil, names)
	left := make([]int, n)
	clocks := make([][]int64, n)
	type msg struct{ clock []int64 }
	inbox := make([][]msg, n)
	total := 0
	for i := range n {
		left[i] = 1 + rng.IntN(r.MaxEvents)
	}
	for r.Budget > 0 {
		prod, big := 1.0, 0
		for i, e := range left {
			prod *= float64(e + 1)
			if e > left[big] {
				big = i
			}
		}
		if prod <= r.Budget || left[big] == 1 {
			break
		}
		left[big]--
	}
	for i := range n {
		total += left[i]
		clocks[i] = make([]int64, n)
		b.Set(i, "x", detect.IntVal(int64(rng.IntN(4))), detect.Pos{})
		b.Set(i, "b", detect.BoolVal(rng.IntN(2) == 0), detect.Pos{})
		b.Set(i, "w", detect.WordVal(Words[rng.IntN(2)]), detect.Pos{})
	}
	for ; total > 0; total-- {
		i := rng.IntN(n)
		for left[i] == 0 {
			i = (i + 1) % n
		}
		left[i]--
		c := clocks[i]
		c[i]++
		kind := detect.Local
		switch u := rng.Float64(); {
		case u < r.Recv && len(inbox[i]) > 0:
			m := inbox[i][0]
			inbox[i] = inbox[i][1:]
			for j, v := range m.clock {
				c[j] = max(c[j], v)
			}
			kind = detect.Recv
		case u < r.Recv+r.Send && n > 1:
			to := rng.IntN(n - 1)
			if to >= i {
				to++
			}
			inbox[to] = append(inbox[to], msg{append([]int64(nil), c...)})
			kind = detect.Send
		}
		b.Event(i, kind, kind.String(), detect.Pos{}, c)
		if rng.Float64() < r.Change {
			b.Set(i, "x", detect.IntVal(int64(rng.IntN(4))), detect.Pos{})
		}
		if rng.Float64() < r.Change {
			b.Set(i, "b", detect.BoolVal(rng.IntN(2) == 0), detect.Pos{})
		}
		if rng.Float64() < r.Change {
			b.Set(i, "w", detect.WordVal(Words[rng.IntN(2)]), detect.Pos{})
		}
	}
	c, err := b.Build()
	if err != nil {
		panic("compgen: a generated computation does not build: " + err.Error())
	}
	return c
}

// LocalPredicate returns a random conjunction of 1-local predicates over the
// processes of a computation made by Random.
func LocalPredicate(rng *rand.Rand, procs int) string {
	var parts []string
	for i := range procs {
		if rng.IntN(3) == 0 {
			continue
		}
		parts = append(parts, localAtom(rng, i))
	}
	if len(parts) == 0 {
		parts = append(parts, localAtom(rng, rng.IntN(procs)))
	}
	return strings.Join(parts, " && ")
}

func localAtom(rng *rand.Rand, i int) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("p[%d].x == %d", i, rng.IntN(4))
	case 1:
		return fmt.Sprintf("p[%d].x >= %d", i, 1+rng.IntN(3))
	case 2:
		return fmt.Sprintf("p[%d].b", i)
	case 3:
		return fmt.Sprintf("!p[%d].b", i)
	case 4:
		return fmt.Sprintf("p[%d].w == %s", i, Words[rng.IntN(2)])
	}
	return fmt.Sprintf("(p[%d].x != %d || p[%d].b)", i, rng.IntN(4), i)
}

// Predicate returns a random predicate over the processes of a computation made
// by Random: a conjunction whose conjuncts may read several processes,
// disjunctions, arithmetic and comparisons of words included.
func Predicate(rng *rand.Rand, procs int) string {
	k := 1 + rng.IntN(3)
	parts := make([]string, k)
	for c := range parts {
		parts[c] = atom(rng, procs, 2)
	}
	return strings.Join(parts, " && ")
}

func atom(rng *rand.Rand, procs, depth int) string {
	p := func() int { return rng.IntN(procs) }
	switch rng.IntN(8) {
	case 0:
		return localAtom(rng, p())
	case 1:
		return fmt.Sprintf("p[%d].x == p[%d].x", p(), p())
	case 2:
		return fmt.Sprintf("p[%d].x + p[%d].x >= %d", p(), p(), 2+rng.IntN(4))
	case 3:
		return fmt.Sprintf("p[%d].w != p[%d].w", p(), p())
	case 4:
		return fmt.Sprintf("(p[%d].b ? p[%d].x : 3 - p[%d].x) > 1", p(), p(), p())
	case 5:
		if depth > 0 {
			return fmt.Sprintf("(%s || %s)", atom(rng, procs, depth-1), atom(rng, procs, depth-1))
		}
	case 6:
		if depth > 0 {
			return fmt.Sprintf("!(%s)", atom(rng, procs, depth-1))
		}
	}
	return fmt.Sprintf("p[%d].b != p[%d].b", p(), p())
}
