package ir

// LongestPath is the number of transitions on the longest path from the
// template's entry location to its end (Terminated), and false when a cycle
// of locations is reachable from the entry: then a thread of it may take
// some transition any number of times.
func (tm *Template) LongestPath() (int, bool) {
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
		if l >= n {
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
			best = max(best, length[min(s, n)])
		}
		length[l] = best + 1
		state[l] = done
		return true
	}
	entry := tm.Loc(tm.Entry)
	if !visit(entry) {
		return 0, false
	}
	return length[min(entry, n)], true
}
