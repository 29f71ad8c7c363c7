package explicit

import (
	"slices"

	"kbmc/ir"
)

// Work stealing for the stateless partial-order reductions (DPOR, BPOR) on
// several workers.
//
// A frontier of prefixes (parallel.go) serves these searches badly: its subtrees
// are reduced only by sleep sets, so it explores interleavings DPOR never would
// (on indexer with 17 threads, a third more transitions, and nearly all the work
// under one prefix). Instead the run is one DPOR (or BPOR) search that workers
// share as it grows. A worker with nothing to do waits in the pool; a busy worker
// sees it waiting the next time it picks a thread to run, and gives away the first
// thread still to run at the shallowest state of its path that has one: it copies
// its stack down to that state (porTask) and marks the thread done there.
//
// What must not be lost is DPOR's backtracking points. The thief's exploration
// may find a race that needs a point at a state above the one it was given, which
// in the sequential search the same search would add and explore on its way back.
// Here the states from the root down to the one given away are shared (Simsa,
// Bryant, Gibson and Hickey, "Scalable Dynamic Partial Order Reduction", RV 2012,
// keep one exploration tree for the same reason): their backtrack and done sets
// become one copy under a lock (porNode), which the victim and every thief holding
// a copy of the state read and write. Each worker, returning up its own copy of the
// path, claims whatever is still to run at each state, whoever added it; the one
// who added a point returns through that state after adding it, so every point is
// claimed, and claimed once. Sleep sets are kept per state as the threads claimed
// there before (by any worker): a thread sleeps below a later sibling while
// another worker may still be exploring it, which is sound because that
// exploration covers the executions the sleep set prunes, whenever it ends
// (Godefroid's argument does not depend on the order the siblings are explored in).
// But a search that gives a thread away from a state where it is itself running a
// thread with nondeterministic draws keeps its own sleep set there: the draws'
// other values are explored before the stolen sibling, sequentially, and must not
// start with it, or their own thread, asleep.
//
// A sharded dpor run cannot share states between its parts, which are processes.
// Instead every part splits the search alike (porSplit, giveAll: a search gives
// all its work away at once, and the pieces are dealt out); see splitSearch.

// porTask is work for one worker: a subtree to start (a root of the run: the
// initial state, or where a task of a split search starts), or thread to run at
// depth of a path that another search gave away.
type porTask struct {
	root   *prefix // where the search starts
	depth  int     // -1: start at root
	thread int
	path   *porPath    // the path, down to depth or deeper
	only   bool        // the task is the path's only one: install takes it as it is
	sleep  bitSet      // the sleep set thread's subtree starts with (DPOR)
	after  []ir.Choice // if set, thread runs only its successors after these draws
}

// porPath is a copy of a search's path from the root down to some depth, which
// the tasks given away along it share: each worker that takes one copies what it
// needs of it (install), so that the tasks a sharded part deals to the others
// cost nothing but their claim.
type porPath struct {
	frames []*porFrame // copies of the frames (their sets are shared through nodes)
	steps  []traceStep // the execution
	moves  []ir.Move
	// BPOR: the bound's cost of the path at each depth; bpor-fair: each
	// thread's yields at the path's end, and which moves were yields.
	costs    []int
	yields   []int
	yielding []bool
}

// offer gives work to a waiting worker, if there is one, from a search whose
// path has depth d and which is about to pick a thread at depth d: the first
// thread still to run at the shallowest state of the path that has one, whose
// subtree is likely the largest. The frames from the root down to that state
// become shared.
func (s *porStack) offer(d int) {
	if s.split != nil {
		if !s.quit && s.x.stats.Transitions >= s.split.budget {
			s.giveAll(d)
		}
		return
	}
	if s.pool == nil || !s.pool.hungry.Load() {
		return
	}
	if s.idle > 0 {
		s.idle--
		return
	}
	for j := 0; j <= d; j++ {
		f := s.frames[j]
		if f.node == nil && s.toRun(f) < 0 {
			continue
		}
		s.share(j, d)
		t, sleep := s.claimFor(f)
		if t < 0 {
			continue // a shared state with nothing left to run
		}
		s.pool.give(&task{root: s.x.from, stolen: &porTask{root: s.x.from, depth: j, thread: t, path: s.snapshot(j, d), only: true, sleep: sleep}})
		return
	}
	// Nothing to give: look again only after a while, rather than lock every
	// shared state of the path at each thread picked while a worker waits.
	s.idle = offerPause
}

// offerPause is how many threads a search picks, after it found nothing to give
// a waiting worker, before it looks again.
const offerPause = 16

// snapshot copies the search's path, whose depth is d, down to depth j.
func (s *porStack) snapshot(j, d int) *porPath {
	path := &porPath{frames: make([]*porFrame, j+1), moves: ir.CloneMoves(s.moves[:j])}
	for k := range j + 1 {
		path.frames[k] = s.frames[k].copy()
	}
	path.steps = s.trace.prefix(j)
	if s.capture != nil {
		s.capture(path, j, d)
	}
	return path
}

// A porSplit makes a search give all its work away once it has executed budget
// transitions: at that point every thread still to run at every state of its
// path, and the successors still to run of the thread it is running there,
// become tasks, and the search ends. A sharded run splits its search so
// (splitSearch), the same way in every part, and deals the tasks out.
type porSplit struct {
	budget int64
	tasks  []*porTask
}

// giveAll gives the work of a search whose path has depth d away (porSplit).
func (s *porStack) giveAll(d int) {
	s.quit = true
	s.share(d, d)
	path := s.snapshot(d, d)
	for j := 0; j <= d; j++ {
		f := s.frames[j]
		if j < d && len(f.succ.ch.Made) > 0 {
			// The thread running here has more successors to run (its
			// draws' other values), with the sleep set it started with.
			var sleep bitSet
			if s.sleepy {
				sleep = slices.Clone(f.sleep)
			}
			s.split.tasks = append(s.split.tasks, &porTask{root: s.x.from, depth: j, thread: s.moves[j].Thread,
				path: path, sleep: sleep, after: slices.Clone(f.succ.ch.Made)})
		}
		for {
			t, sleep := s.claimFor(f)
			if t < 0 {
				break
			}
			s.split.tasks = append(s.split.tasks, &porTask{root: s.x.from, depth: j, thread: t, path: path, sleep: sleep})
		}
	}
}

// claimFor claims the next thread to run at the shared frame f for another
// search, and returns it (or -1) with the sleep set its subtree starts with: the
// node's before the thread joins it. (Not the frame's: this search may be running
// a thread from it, whose successors start with the frame's.)
func (s *porStack) claimFor(f *porFrame) (int, bitSet) {
	var sleep bitSet
	if s.sleepy {
		sleep = newBitSet(len(s.p.Threads))
	}
	f.node.mu.Lock()
	t := s.claimShared(f, sleep)
	f.node.mu.Unlock()
	return t, sleep
}

// share makes the frames 0..j of a path of depth d shared, those that are not
// yet. A frame above d is running the thread of the path's next move, which
// sleeps in the siblings claimed after it, as the threads done before it do.
func (s *porStack) share(j, d int) {
	for k := range j + 1 {
		f := s.frames[k]
		if f.node != nil {
			continue
		}
		f.node = &porNode{wide: f.wide}
		if s.sleepy {
			f.node.sleep = slices.Clone(f.sleep)
			if k < d {
				f.node.sleep.add(s.moves[k].Thread)
			}
		}
	}
}

// copy is a copy of a shared frame for another worker: its own state, statuses
// and accesses, the node's sets.
func (f *porFrame) copy() *porFrame {
	c := &porFrame{
		state:     f.state.Clone(),
		status:    slices.Clone(f.status),
		fp:        make([][]ir.Access, len(f.fp)),
		own:       make([][]ir.Access, len(f.fp)),
		enabled:   slices.Clone(f.enabled),
		fresh:     newBitSet(len(f.fp)),
		backtrack: f.backtrack,
		done:      f.done,
		sleep:     slices.Clone(f.sleep),
		node:      f.node,
	}
	for t, acc := range f.fp {
		c.own[t] = slices.Clone(acc)
		c.fp[t] = c.own[t]
	}
	return c
}

// install makes the search's stack a copy of the task's path down to its depth
// (the frames' sets shared), the frame there starting with the task's sleep set.
func (s *porStack) install(t *porTask) {
	j := t.depth
	if t.only {
		s.frames, s.moves = t.path.frames, t.path.moves
		s.trace.reset(t.path.steps)
	} else {
		s.frames = make([]*porFrame, j+1)
		for k := range j + 1 {
			s.frames[k] = t.path.frames[k].copy()
		}
		s.moves = ir.CloneMoves(t.path.moves[:j])
		s.trace.reset(hbPrefix(t.path.steps[:j]))
	}
	if s.sleepy {
		s.frames[j].sleep.copyFrom(t.sleep)
	}
}

// prefix copies the first j steps of the execution.
func (h *hbTrace) prefix(j int) []traceStep { return hbPrefix(h.steps[:j]) }

// hbPrefix is a copy of steps that shares no memory with them.
func hbPrefix(steps []traceStep) []traceStep {
	out := make([]traceStep, len(steps))
	for i, st := range steps {
		st.acc = slices.Clone(st.acc)
		st.clock = slices.Clone(st.clock)
		out[i] = st
	}
	return out
}
