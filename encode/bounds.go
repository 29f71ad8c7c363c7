package encode

import "kbmc/ir"

// Unbounded is the static bound of a thread whose transition graph has a cycle.
const Unbounded = -1

// StaticBounds returns, per thread, the largest number of steps any execution
// of the program can give it, or Unbounded: the longest path from the entry
// location through its template's transition graph (Transition.Succ) when
// that graph has no cycle. A step moves the thread from a transition to one of
// its successors, whatever the other threads do, so the bound holds in every
// environment. With every thread bounded, no execution is longer than the sum,
// which settles completeness without the interleaving search of Live.
func StaticBounds(p *ir.Program) []int {
	byTemplate := make(map[*ir.Template]int, len(p.Templates))
	for _, tm := range p.Templates {
		byTemplate[tm] = longestPath(tm)
	}
	out := make([]int, len(p.Threads))
	for t, th := range p.Threads {
		out[t] = byTemplate[th.Template]
	}
	return out
}

// longestPath is the number of transitions on the longest path from the
// template's entry location to Terminated(), or Unbounded when a cycle is
// reachable.
func longestPath(tm *ir.Template) int {
	const (
		unvisited = iota
		onPath
		done
	)
	n := tm.Terminated()
	state := make([]uint8, n+1)
	length := make([]int, n+1) // steps from the location to the end, when done
	var visit func(l int) bool // false: a cycle
	visit = func(l int) bool {
		if l == n {
			return true
		}
		switch state[l] {
		case onPath:
			return false
		case done:
			return true
		}
		state[l] = onPath
		best := 0
		for _, s := range tm.Transitions[l].Succ {
			if !visit(s) {
				return false
			}
			best = max(best, length[s])
		}
		length[l] = best + 1
		state[l] = done
		return true
	}
	entry := tm.Loc(tm.Entry)
	if !visit(entry) {
		return Unbounded
	}
	return length[entry]
}

// SumBounds is the sum of the bounds, or Unbounded when one is.
func SumBounds(bounds []int) int {
	sum := 0
	for _, b := range bounds {
		if b == Unbounded {
			return Unbounded
		}
		sum += b
	}
	return sum
}
