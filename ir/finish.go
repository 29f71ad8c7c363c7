package ir

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sort"
)

// Limits that keep a lowered program small enough to execute and encode.
const (
	MaxThreads    = 1024
	MaxStateCells = 1 << 20
)

// Finish lays out the state vector, instantiates threads and cuts every template into
// transitions at its cut points. lang calls it once after lowering.
func (p *Program) Finish() error {
	if p.Width < 2 || p.Width > 64 {
		return fmt.Errorf("width %d outside 2..64", p.Width)
	}
	cells := 0
	p.Objects = p.Objects[:0]
	most := 0
	for _, v := range p.Shared {
		v.Offset = cells
		cells += v.Cells()
		if v.CellTypes != nil && len(v.CellTypes) != v.Cells() || v.CellNames != nil && len(v.CellNames) != v.Cells() {
			return fmt.Errorf("variable %s: %d cells, %d cell types, %d cell names", v.Name, v.Cells(), len(v.CellTypes), len(v.CellNames))
		}
		v.Object = 0
		if v.Addressable {
			p.Objects = append(p.Objects, v)
			v.Object = len(p.Objects)
			most = max(most, v.Cells())
		}
	}
	// Offsets up to one past an object's end fit below the object number.
	p.PtrShift = uint(bits.Len(uint(most + 1)))
	if len(p.Objects) > 0 && p.PtrShift+uint(bits.Len(uint(len(p.Objects)))) > 62 {
		return fmt.Errorf("%d objects of up to %d cells: pointers do not fit 62 bits", len(p.Objects), most)
	}
	for _, a := range p.Allocs {
		if a.Status == nil || a.Status.Cells() != len(a.Blocks) || len(a.Blocks) == 0 {
			return fmt.Errorf("allocation site %s: %d blocks without a status cell each", a.Name, len(a.Blocks))
		}
		for i, b := range a.Blocks {
			if b.Block != a || b.BlockIndex != i || !b.Addressable || b.Cells() != a.Blocks[0].Cells() {
				return fmt.Errorf("allocation site %s: block %d is not one of its blocks", a.Name, i)
			}
		}
	}
	p.phantoms = false
	for i, pool := range p.Pools {
		pool.index = i
		for _, t := range pool.Slots {
			if t.Start == nil || t.Start.Cells() != StartCells || !t.Start.Shared || t.Count != 0 {
				return fmt.Errorf("thread pool %s: slot %s has no start cells", pool.Name, t.Name)
			}
		}
		if o := pool.Overflow; o != nil {
			if o.Cells() != OverflowCells || !o.Shared {
				return fmt.Errorf("thread pool %s: its overflow is not %d shared cells", pool.Name, OverflowCells)
			}
			p.phantoms = true
		}
	}
	if err := p.checkPrivate(); err != nil {
		return err
	}
	p.SharedSize = cells
	p.MutexBase = cells
	p.NumLocks = 0
	for _, m := range p.Mutexes {
		m.Offset = p.NumLocks
		p.NumLocks += m.Count()
	}
	cells += p.NumLocks
	p.ChanBase = cells
	p.NumChannels = 0
	p.chanBase, p.chanDecl = p.chanBase[:0], p.chanDecl[:0]
	p.chanLoc, p.chanOfLoc = p.chanLoc[:0], p.chanOfLoc[:0]
	if err := p.markExtensions(); err != nil {
		return err
	}
	for _, c := range p.Channels {
		if c.Cap < 0 || len(c.Fields) == 0 {
			return fmt.Errorf("channel %s: capacity %d, %d fields", c.Name, c.Cap, len(c.Fields))
		}
		if c.Rendezvous() && (c.Lossy || c.Unordered) {
			return fmt.Errorf("channel %s: a rendezvous (capacity 0) cannot be lossy or unordered", c.Name)
		}
		c.Offset = p.NumChannels
		for range c.Count() {
			p.chanBase = append(p.chanBase, cells)
			p.chanDecl = append(p.chanDecl, c)
			p.chanLoc = append(p.chanLoc, len(p.chanOfLoc))
			for range 2 + c.Cap {
				p.chanOfLoc = append(p.chanOfLoc, int32(p.NumChannels))
			}
			cells += c.Stride()
			p.NumChannels++
		}
		if cells > MaxStateCells {
			return fmt.Errorf("program state has more than %d cells", MaxStateCells)
		}
	}
	p.Threads = p.Threads[:0]
	for _, t := range p.Templates {
		t.FrameSize = 0
		for _, v := range t.Locals {
			v.Offset = t.FrameSize
			t.FrameSize += v.Cells()
		}
		t.First = len(p.Threads)
		for i := 0; i < t.Instances(); i++ {
			if len(p.Threads) >= MaxThreads {
				return fmt.Errorf("more than %d threads", MaxThreads)
			}
			name := t.Name
			if t.Count > 0 {
				name = fmt.Sprintf("%s[%d]", t.Name, i)
			}
			p.Threads = append(p.Threads, &Thread{ID: len(p.Threads), Name: name, Template: t, Tid: i, Base: cells})
			cells += 1 + t.FrameSize
			if cells > MaxStateCells {
				return fmt.Errorf("program state has more than %d cells", MaxStateCells)
			}
		}
		if err := p.cut(t); err != nil {
			return fmt.Errorf("thread %s: %w", t.Name, err)
		}
	}
	p.linkRendezvous()
	if err := p.checkInvariants(); err != nil {
		return err
	}
	p.invariantLoc = len(p.Invariants) > 0
	p.noteInvariantReads()
	p.HeadBase = cells
	cells += p.NumChannels
	if cells > MaxStateCells {
		return fmt.Errorf("program state has more than %d cells", MaxStateCells)
	}
	p.StateSize = cells
	return nil
}

// markExtensions sets Channel.Closable on the channels some OpClose names
// (their state has a closed flag) and notes whether some unlock is Go's
// (AnyOwnerUnlocks), and checks the nodes that use these extensions: OK on
// receives only, When on select cases only, AnyOwner on locks and unlocks
// only.
func (p *Program) markExtensions() error {
	for _, c := range p.Channels {
		c.Closable = false
	}
	p.anyOwner = false
	if p.Entry != nil && !slices.Contains(p.Templates, p.Entry) {
		return fmt.Errorf("the entry goroutine %s is none of the program's templates", p.Entry.Name)
	}
	for _, t := range p.Templates {
		for _, n := range t.Nodes {
			p.anyOwner = p.anyOwner || n.AnyOwner
			if n.Op == OpClose {
				if n.Chan == nil {
					return fmt.Errorf("thread %s: close at %s names no channel", t.Name, n.Pos)
				}
				n.Chan.Closable = true
			}
			if n.OK != nil && n.Op != OpRecv || n.When != nil || n.AnyOwner && n.Op != OpUnlock && n.Op != OpLock {
				return fmt.Errorf("thread %s: %s at %s has an ok flag, a when condition or any-owner it cannot have", t.Name, n.Op, n.Pos)
			}
			for _, c := range n.Cases {
				if c.OK != nil && c.Op != OpRecv {
					return fmt.Errorf("thread %s: a select case at %s has an ok flag but sends", t.Name, c.Pos)
				}
			}
		}
	}
	return nil
}

// cut numbers the cut points as control locations and collects, for each, the nodes
// its transition may execute and its static footprint.
func (p *Program) cut(t *Template) error {
	if len(t.Nodes) == 0 || t.Entry < 0 || t.Entry >= len(t.Nodes) {
		return errors.New("no entry node")
	}
	t.Nodes[t.Entry].Cut = true
	t.loc = make([]int, len(t.Nodes))
	t.Transitions = t.Transitions[:0]
	for i, n := range t.Nodes {
		t.loc[i] = -1
		if n.Next != Exit && (n.Next < 0 || n.Next >= len(t.Nodes)) ||
			n.Op == OpBranch && n.Else != Exit && (n.Else < 0 || n.Else >= len(t.Nodes)) {
			return fmt.Errorf("node %d has a successor out of range", i)
		}
	}
	// Locations in node order, so that they read in source order.
	for i, n := range t.Nodes {
		if n.Cut {
			t.loc[i] = len(t.Transitions)
			t.Transitions = append(t.Transitions, &Transition{Template: t, Index: len(t.Transitions), Entry: i})
		}
	}
	for _, tr := range t.Transitions {
		if err := p.collect(tr); err != nil {
			return err
		}
	}
	if t.Start != nil {
		// Its first step starts it: OpStart at the entry, or right after a
		// lock it was folded into (HoistStarts).
		started := false
		for _, i := range t.Transitions[t.loc[t.Entry]].Nodes {
			started = started || t.Nodes[i].Op == OpStart
		}
		if !started {
			return errors.New("a created thread whose first step does not start it")
		}
	}
	p.deadLocals(t)
	return nil
}

// collect walks the nodes reachable from the entry without crossing another cut point
// and orders them topologically; a cycle there would be a loop without a cut point.
func (p *Program) collect(tr *Transition) error {
	t := tr.Template
	const (
		white = iota
		grey
		black
	)
	color := map[int]uint8{}
	var post []int
	succ := map[int]bool{}
	var visit func(n int) error
	visit = func(n int) error {
		color[n] = grey
		node := t.Nodes[n]
		next := []int{node.Next}
		if node.Op == OpBranch {
			next = append(next, node.Else)
		}
		for _, m := range next {
			if m == Exit || t.Nodes[m].Cut {
				succ[t.Loc(m)] = true
				continue
			}
			switch color[m] {
			case grey:
				return fmt.Errorf("loop without a cut point at %s", t.Nodes[m].Pos)
			case white:
				if err := visit(m); err != nil {
					return err
				}
			}
		}
		color[n] = black
		post = append(post, n)
		return nil
	}
	if err := visit(tr.Entry); err != nil {
		return err
	}
	tr.Nodes = tr.Nodes[:0]
	for i := len(post) - 1; i >= 0; i-- {
		tr.Nodes = append(tr.Nodes, post[i])
	}
	tr.Succ = tr.Succ[:0]
	for l := range succ {
		tr.Succ = append(tr.Succ, l)
	}
	sort.Ints(tr.Succ)

	reads, writes := map[*Var]bool{}, map[*Var]bool{}
	locks, joins := map[*Mutex]bool{}, map[*Template]bool{}
	chans := map[*Channel]bool{}
	// What a pointer may address: any object, and the status of any heap
	// block, which every access to a block reads.
	pointed := func(m map[*Var]bool) {
		for _, o := range p.Objects {
			m[o] = true
		}
		for _, a := range p.Allocs {
			reads[a.Status] = true
		}
	}
	tr.InnerGuard = false
	for i, n := range tr.Nodes {
		node := t.Nodes[n]
		if i > 0 && node.Atomic && (node.Op == OpAssume || node.Op == OpAwait || node.Op == OpLock ||
			node.Op == OpJoin && node.JThread != nil) {
			tr.InnerGuard = true
		}
		for e := range node.Exprs() {
			Inspect(e, func(x *Expr) bool {
				if (x.Op == EVar || x.Op == EIndex) && x.Var.Shared {
					reads[x.Var] = true
				}
				if x.Op == EDeref {
					pointed(reads)
				}
				if x.Op == ELen {
					chans[x.Chan] = true
				}
				return true
			})
		}
		if node.Chan != nil {
			chans[node.Chan] = true
		}
		for _, c := range node.Cases {
			chans[c.Chan] = true
		}
		for lv := range node.LValues() {
			switch {
			case lv.Ptr != nil:
				pointed(writes)
				if node.Op == OpCas {
					pointed(reads)
				}
			case lv.Var.Shared:
				writes[lv.Var] = true
				if node.Op == OpCas {
					reads[lv.Var] = true
				}
			}
		}
		if node.Mutex != nil {
			locks[node.Mutex] = true
		}
		if node.Addr != nil {
			pointed(writes)
		}
		if node.Join != nil {
			joins[node.Join] = true
		}
		switch node.Op {
		case OpJoin:
			if node.JThread != nil {
				for _, pool := range p.Pools {
					for _, u := range pool.Slots {
						joins[u] = true
						reads[u.Start] = true
					}
				}
			}
		case OpStart:
			reads[t.Start] = true
		case OpSpawn:
			for _, u := range node.Pool.Slots {
				reads[u.Start] = true
				writes[u.Start] = true
			}
		case OpAlloc:
			reads[node.Alloc.Status] = true
			writes[node.Alloc.Status] = true
		case OpFree:
			for _, a := range p.Allocs {
				reads[a.Status] = true
				writes[a.Status] = true
			}
		}
	}
	tr.Reads = sortedVars(reads)
	tr.Writes = sortedVars(writes)
	tr.Locks = tr.Locks[:0]
	for m := range locks {
		tr.Locks = append(tr.Locks, m)
	}
	sort.Slice(tr.Locks, func(i, j int) bool { return tr.Locks[i].Offset < tr.Locks[j].Offset })
	tr.Joins = tr.Joins[:0]
	for j := range joins {
		tr.Joins = append(tr.Joins, j)
	}
	sort.Slice(tr.Joins, func(i, j int) bool { return tr.Joins[i].First < tr.Joins[j].First })
	tr.Chans = tr.Chans[:0]
	for c := range chans {
		tr.Chans = append(tr.Chans, c)
	}
	sort.Slice(tr.Chans, func(i, j int) bool { return tr.Chans[i].Offset < tr.Chans[j].Offset })
	return nil
}

func sortedVars(m map[*Var]bool) []*Var {
	vs := make([]*Var, 0, len(m))
	for v := range m {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Offset < vs[j].Offset })
	return vs
}

// Visible reports whether the transition's first operation is visible (touches shared
// state, can block, or yields). A transition that is not visible is a thread-local step.
func (tr *Transition) Visible() bool {
	n := tr.EntryNode()
	return n.Atomic || n.Visible() || len(tr.Reads) > 0 || len(tr.Writes) > 0
}

// Visible reports whether the operation is visible on its own (docs/language.md §10):
// it can block, yields, is a cas, or reads or writes shared state other threads
// can reach (a Private variable is accessed by its thread alone, like a local).
func (n *Node) Visible() bool {
	if n.Op.Props().Visible {
		return true
	}
	for e := range n.Exprs() {
		if Any(e, func(x *Expr) bool {
			return (x.Op == EVar || x.Op == EIndex) && x.Var.Shared && !x.Var.Private || x.Op == EDeref || x.Op == ELen
		}) {
			return true
		}
	}
	for lv := range n.LValues() {
		if lv.Ptr != nil || lv.Var.Shared && !lv.Var.Private {
			return true
		}
	}
	return false
}

// ReadsShared reports whether evaluating e reads a shared variable or a cell a
// pointer addresses; e may be nil.
func (e *Expr) ReadsShared() bool {
	return Any(e, func(x *Expr) bool { return (x.Op == EVar || x.Op == EIndex) && x.Var.Shared || x.Op == EDeref })
}
