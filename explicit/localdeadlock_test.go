package explicit

import (
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

var localDeadlockSeeds = flag.Int("localdeadlock.seeds", 400, "TestLocalDeadlockReference: generated programs per configuration")

// referenceGraph is the whole state graph of a program, without a depth bound,
// built breadth-first by ir alone; nil if it has more than limit states.
type referenceGraph struct {
	states []ir.State
	succ   [][]int
}

func buildReference(p *ir.Program, limit int) *referenceGraph {
	g := &referenceGraph{}
	index := map[string]int{}
	key := func(s ir.State) string {
		var b strings.Builder
		for _, v := range s {
			b.WriteString(string(rune(v + 1<<20)))
		}
		return b.String()
	}
	add := func(s ir.State) int {
		k := key(s)
		if i, ok := index[k]; ok {
			return i
		}
		index[k] = len(g.states)
		g.states = append(g.states, s.Clone())
		g.succ = append(g.succ, nil)
		return len(g.states) - 1
	}
	add(p.Initial())
	var ev ir.Event
	for i := 0; i < len(g.states); i++ {
		if len(g.states) > limit {
			return nil
		}
		for t := range p.Threads {
			if !p.Enabled(g.states[i], t) {
				continue
			}
			var ch ir.Choices
			var fixed []int64
			for more := true; more; fixed, more = ch.Next(fixed) {
				next := g.states[i].Clone()
				ch.Reset(fixed)
				p.Step(next, t, &ch, &ev)
				if ev.Violation != nil {
					continue // a failed step ends its execution: no successor
				}
				j := add(next)
				g.succ[i] = append(g.succ[i], j)
			}
		}
	}
	return g
}

// locallyDeadlocked applies the definition literally: process q is stuck in state
// i, and no state reachable from i enables a thread of q.
func (g *referenceGraph) locallyDeadlocked(p *ir.Program, i, q int) bool {
	if p.Stuck(g.states[i], q) == nil {
		return false
	}
	seen := map[int]bool{i: true}
	work := []int{i}
	for len(work) > 0 {
		j := work[len(work)-1]
		work = work[:len(work)-1]
		if processEnabled(p, g.states[j], q) {
			return false
		}
		for _, k := range g.succ[j] {
			if !seen[k] {
				seen[k] = true
				work = append(work, k)
			}
		}
	}
	return true
}

func (g *referenceGraph) anyLocalDeadlock(p *ir.Program) bool {
	for i := range g.states {
		for q := range p.NumProcesses() {
			if g.locallyDeadlocked(p, i, q) {
				return true
			}
		}
	}
	return false
}

// TestLocalDeadlockReference checks dfs --stateful --local-deadlock against the
// definition applied literally on the whole state graph: on the testdata programs
// with processes and on generated programs, it reports a local deadlock exactly
// when one is reachable, and the state its trace leads to is one. Deadlock
// checking is off, so that a global deadlock (every process stuck) is found by
// the local analysis too.
func TestLocalDeadlockReference(t *testing.T) {
	type program struct {
		name string
		p    *ir.Program
	}
	var programs []program
	for _, td := range readAllTestdata(t) {
		base := filepath.Base(td.path)
		if !strings.HasPrefix(base, "dist-") && !strings.HasPrefix(base, "local-deadlock-") {
			continue
		}
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatal(err)
		}
		programs = append(programs, program{base, p})
	}
	cfg := progen.DefaultConfig()
	for seed := range uint64(*localDeadlockSeeds) {
		_, p := compileGenerated(t, seed, cfg)
		programs = append(programs, program{"seed " + string(rune('0'+seed%10)) + "…", p})
	}
	compared, found := 0, 0
	for _, pr := range programs {
		ref := buildReference(pr.p, 20000)
		if ref == nil {
			continue
		}
		var o Options
		o.Depth, o.NoDeadlock, o.Stateful, o.LocalDeadlock = 100000, true, true, true
		r, err := DFS{Options: o}.Check(context.Background(), pr.p)
		if err != nil {
			t.Fatalf("%s: %v", pr.name, err)
		}
		if r.Verdict == verify.Unsafe && r.Violation.Kind != ir.LocalDeadlock {
			continue // another violation came first
		}
		compared++
		want := ref.anyLocalDeadlock(pr.p)
		got := r.Verdict == verify.Unsafe
		if got != want {
			t.Errorf("%s: dfs --local-deadlock says %s, the reference says local deadlock: %v", pr.name, r.Verdict, want)
			continue
		}
		if !got {
			continue
		}
		found++
		run, err := pr.p.Replay(r.Trace)
		if err != nil {
			t.Fatalf("%s: %v", pr.name, err)
		}
		final := run.Final()
		i := -1
		for j, s := range ref.states {
			if s.Equal(final) {
				i = j
			}
		}
		if i < 0 || !ref.locallyDeadlocked(pr.p, i, pr.p.ProcessOf(r.Violation.Thread)) {
			t.Errorf("%s: the reported state is not a local deadlock of %s", pr.name, pr.p.ProcessName(pr.p.ProcessOf(r.Violation.Thread)))
		}
	}
	t.Logf("%d programs compared with the reference, %d with a local deadlock", compared, found)
	if found == 0 {
		t.Error("no program had a local deadlock: nothing was checked")
	}
}
