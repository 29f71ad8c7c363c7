package main

import (
	"fmt"
	"strings"

	"kbmc/verify"
)

// explanation says why a verdict is bounded-safe and what to do next, from
// what the engine recorded (verify.Result's CutTrace, Cycle and statistics).
type explanation struct {
	// Cycle: the search found a cycle of states (an execution can run for
	// ever), so no depth covers every execution.
	Cycle bool `json:"cycle"`
	// Cut is the number of executions the depth bound cut (explicit engine).
	Cut int64 `json:"cut,omitempty"`
	// Longest is the length of the longest execution that ended within the
	// bound (explicit engine).
	Longest int64 `json:"longest_complete,omitempty"`
	// Loop is the loop that keeps running in an execution the bound cut: its
	// position, source text and thread.
	Loop       string `json:"loop,omitempty"`
	LoopText   string `json:"loop_text,omitempty"`
	LoopThread string `json:"loop_thread,omitempty"`
	// BusyWait: the loop's steps change no shared variable (a busy-wait).
	BusyWait bool `json:"busy_wait"`
	// AllCut: the depth bound cut every execution explored (explicit engine):
	// none ended within it, so nothing beyond the first Depth steps of any
	// execution was checked.
	AllCut bool   `json:"all_cut"`
	Why    string `json:"why"`
	Next   string `json:"next"`
}

// explainBounded turns a bounded-safe result into an explanation. It replays the
// execution the engine recorded (a cycle, or the first execution the bound cut):
// a state that repeats along it shows a cycle; the transition that runs most
// often in the repeating part (or the second half of the cut execution) is the
// loop that keeps running.
//
// It also explains an unknown verdict whose explored executions were all cut
// by the bound (allCut): the run was stopped, but what it did explore says the
// depth is too small.
func explainBounded(l *loaded, res *verify.Result) *explanation {
	ex := &explanation{Cycle: res.Cycle, Cut: res.Stats.Cut, Longest: res.Stats.Longest, AllCut: allCut(res)}
	trace := res.CutTrace
	if res.Cycle {
		trace = res.CycleTrace
	}
	if len(trace) > 0 {
		if run, err := l.prog.Replay(trace); err == nil {
			from, to := run.Repeat()
			if from >= 0 {
				ex.Cycle = true
			} else {
				from, to = len(run.Events)/2, len(run.Events)
			}
			// Without a cycle, a transition is a loop only if it ran at
			// least twice.
			if loop, ok := l.prog.LoopOf(run, from, to); ok && (loop.Runs >= 2 || ex.Cycle) {
				th := l.prog.Threads[loop.Thread]
				n := th.Template.Transitions[loop.Transition].EntryNode()
				ex.Loop, ex.LoopText, ex.LoopThread = posText(l, n.Pos), n.Text, th.Name
				ex.BusyWait = loop.BusyWait
			}
		}
	}
	depth := res.Bound.Depth
	var why []string
	if ex.AllCut && !ex.Cycle {
		why = append(why, fmt.Sprintf("every execution explored was cut by the depth bound: none ended within %d steps", depth))
		if ex.Loop != "" {
			why = append(why, fmt.Sprintf("the loop at %s (%s, thread %s) keeps running in them",
				shortPos(ex.Loop), ex.LoopText, ex.LoopThread))
		}
	} else if ex.Cycle {
		if ex.Loop != "" {
			why = append(why, fmt.Sprintf("a cycle of states: the loop at %s (%s, thread %s) can run for ever, so no depth covers every execution",
				shortPos(ex.Loop), ex.LoopText, ex.LoopThread))
		} else {
			why = append(why, "a cycle of states: some execution can run for ever, so no depth covers every execution")
		}
	} else if ex.Loop != "" {
		why = append(why, fmt.Sprintf("some executions are longer than the bound; the loop at %s (%s, thread %s) keeps running in them",
			shortPos(ex.Loop), ex.LoopText, ex.LoopThread))
	} else {
		why = append(why, "some executions are longer than the bound")
	}
	if res.Engine == "explicit" && !ex.AllCut {
		if ex.Cut > 0 {
			why = append(why, fmt.Sprintf("%s executions were cut at depth %d", formatCount(ex.Cut), depth))
		}
		if ex.Longest > 0 {
			why = append(why, fmt.Sprintf("the longest execution that ended took %d steps", ex.Longest))
		}
	}
	ex.Why = strings.Join(why, "; ")
	switch {
	case ex.Cycle && res.Closed:
		ex.Next = fmt.Sprintf("every reachable state (%s) was explored, so no execution of any length has a violation: "+
			"the executions longer than the bound only revisit those states", formatCount(res.Stats.States))
	case ex.Cycle && ex.BusyWait:
		ex.Next = fmt.Sprintf("a larger --depth will not help; to prove the program safe, wait with await(condition) "+
			"instead of the busy-wait at %s: a blocked thread takes no steps", shortPos(ex.Loop))
	case ex.Cycle:
		ex.Next = "a larger --depth will not help: the verdict says no violation occurs within the bound. " +
			"To prove more, bound the loop (a for loop with a limit) or make it wait with await(condition)"
	case ex.AllCut:
		ex.Next = fmt.Sprintf("raise --depth: it is %d, which no execution fits in; try --depth %d", depth, 2*depth)
	default:
		ex.Next = fmt.Sprintf("try --depth %d", 2*depth)
	}
	return ex
}

// allCut says whether the depth bound cut every execution the explicit engine
// explored: some were cut and none ended otherwise (terminated, blocked on an
// assume, deadlocked, failed). For a stateful search, the paths it followed.
func allCut(res *verify.Result) bool {
	s := res.Stats
	return res.Engine == "explicit" && s.Cut > 0 && s.Complete+s.AssumeBlocked+s.Deadlocked+s.Failed == 0
}
