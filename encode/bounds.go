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
		byTemplate[tm] = Unbounded
		if n, ok := tm.LongestPath(); ok {
			byTemplate[tm] = n
		}
	}
	out := make([]int, len(p.Threads))
	for t, th := range p.Threads {
		out[t] = byTemplate[th.Template]
	}
	return out
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
