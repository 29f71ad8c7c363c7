package oracle

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"kbmc/ir"
	"kbmc/verify"
)

// A Graph is what an exhaustive search of a program's whole state graph
// establishes, independently of every engine: for each violation kind, the
// fewest steps that reach one (a deadlock: the steps to a deadlocked state),
// and the length of the longest execution. From it follow the verdict at any
// depth and the kinds reachable within it, which the .kb and C forms of a
// program must share (translation), and each engine must report (engines).
type Graph struct {
	// Dist is the fewest steps to a violation of each kind.
	Dist map[ir.ViolationKind]int
	// Longest is the steps of the longest execution; -1: some execution
	// runs for ever (a cycle).
	Longest int
	// States is the number of states.
	States int
}

// ErrTooBig says that a state graph has more states than the oracle explores.
var ErrTooBig = fmt.Errorf("state graph too large for the oracle")

// Explore searches p's state graph breadth-first (so that the first time a
// kind is met is the fewest steps to it), then computes the longest execution
// over the graph it stored.
//
// class maps a violation to the kind it counts as (nil: its own kind), so
// that the forms of a program in two languages compare: a Go panic that
// stands for a .kb assertion is an assertion.
func Explore(p *ir.Program, maxStates int, class func(*ir.Violation) ir.ViolationKind) (*Graph, error) {
	o := &Graph{Dist: map[ir.ViolationKind]int{}}
	index := map[string]int32{}
	var states []ir.State
	var succ [][]int32 // successor states of each state
	var fails []bool   // some step from the state fails (a violation ends that execution after one step)
	key := func(s ir.State) string {
		b := make([]byte, 0, len(s)*2)
		for _, v := range s {
			b = binary.AppendVarint(b, v)
		}
		return string(b)
	}
	add := func(s ir.State) int32 {
		k := key(s)
		if i, ok := index[k]; ok {
			return i
		}
		i := int32(len(states))
		index[k] = i
		states = append(states, s)
		succ = append(succ, nil)
		fails = append(fails, false)
		return i
	}
	note := func(k ir.ViolationKind, d int) {
		if old, ok := o.Dist[k]; !ok || d < old {
			o.Dist[k] = d
		}
	}
	add(p.Initial())
	dist := []int{0}
	var ev ir.Event
	for i := 0; i < len(states); i++ {
		if len(states) > maxStates {
			return nil, ErrTooBig
		}
		s := states[i]
		d := dist[i]
		enabled := false
		for t := range p.Threads {
			if !p.Enabled(s, t) {
				continue
			}
			enabled = true
			var ch ir.Choices
			var fixed []int64
			for more := true; more; fixed, more = ch.Next(fixed) {
				next := s.Clone()
				ch.Reset(fixed)
				p.Step(next, t, &ch, &ev)
				if v := ev.Violation; v != nil {
					if v.Kind == ir.Unsupported {
						return nil, fmt.Errorf("a step the model cannot express: %s", v.Msg)
					}
					k := v.Kind
					if class != nil {
						k = class(v)
					}
					note(k, d+1)
					fails[i] = true
					continue
				}
				j := add(next)
				if int(j) == len(dist) {
					dist = append(dist, d+1)
				}
				succ[i] = append(succ[i], j)
			}
		}
		if enabled {
			continue
		}
		switch end, _ := p.End(s); end {
		case ir.Deadlocked:
			note(ir.Deadlock, d)
		case ir.CutByLimit:
			return nil, fmt.Errorf("a thread or heap pool of the model ran out")
		}
	}
	o.States = len(states)
	// The longest execution: a depth-first pass over the stored graph, whose
	// cycles (a state on the current path met again) run for ever.
	const (
		unseen = iota
		open
		done
	)
	mark := make([]uint8, len(states))
	long := make([]int, len(states))
	type frame struct {
		s    int32
		next int
	}
	stack := []frame{{0, 0}}
	mark[0] = open
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(succ[f.s]) {
			c := succ[f.s][f.next]
			f.next++
			switch mark[c] {
			case open:
				o.Longest = -1
				return o, nil
			case unseen:
				mark[c] = open
				stack = append(stack, frame{c, 0})
			}
			continue
		}
		l := 0
		if fails[f.s] {
			l = 1
		}
		for _, c := range succ[f.s] {
			l = max(l, 1+long[c])
		}
		long[f.s], mark[f.s] = l, done
		stack = stack[:len(stack)-1]
	}
	o.Longest = long[0]
	return o, nil
}

// Complete reports whether every execution ends within depth steps.
func (o *Graph) Complete(depth int) bool { return o.Longest >= 0 && o.Longest <= depth }

// Kinds are the violation kinds reachable within depth steps (deadlocks left
// out with noDeadlock), in order.
func (o *Graph) Kinds(depth int, noDeadlock bool) []ir.ViolationKind {
	var ks []ir.ViolationKind
	for k, d := range o.Dist {
		if d <= depth && !(noDeadlock && k == ir.Deadlock) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// Verdict is the verdict every exact search owes at depth.
func (o *Graph) Verdict(depth int, noDeadlock bool) verify.Verdict {
	switch {
	case len(o.Kinds(depth, noDeadlock)) > 0:
		return verify.Unsafe
	case !o.Complete(depth):
		return verify.BoundedSafe
	}
	return verify.Safe
}

func (o *Graph) String() string {
	var ks []string
	for _, k := range o.Kinds(int(^uint(0)>>1), false) {
		ks = append(ks, fmt.Sprintf("%s in %d", k, o.Dist[k]))
	}
	long := fmt.Sprint(o.Longest)
	if o.Longest < 0 {
		long = "unbounded"
	}
	return fmt.Sprintf("%d states, longest execution %s steps, violations {%s}", o.States, long, strings.Join(ks, ", "))
}
