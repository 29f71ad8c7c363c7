package ir

// Main's prefix. A C program's main runs alone from the initial state until it
// creates a thread, and then goes on for a while doing what no other thread
// can influence: creating the rest of its threads, computing their
// arguments. SpecializePrefix runs that prefix once, on the lowered program,
// and uses what it sees to simplify the code without changing any step's
// effect, so that every engine sees the same executions with less to follow:
//
//   - Thread arguments that are constants. main typically creates its threads
//     in a loop and passes thread k the value k (or &a[k]); the created
//     thread receives it through memory, its slot's start cell, so to every
//     analysis its index is any value, where a .kb thread's tid is a constant
//     of each instance. The argument the prefix gives a slot is propagated
//     into the slot's code (each slot of a pool has code of its own),
//     replacing the reads of locals that surely hold a known value by that
//     value.
//   - Joins that are one step. main typically joins its threads in a loop,
//     one pthread_join after the other, where a .kb program's join waits for
//     all at once; the joins that follow where the prefix stops, with only
//     local code between them, wait for threads the prefix's state fixes, and
//     become one join that waits for them all (joinChain says why).
//   - Stores that change nothing. pthread_mutex_init of a global mutex stores
//     "unlocked" into a cell that already holds it; as a step of main it is a
//     write that every lock of the mutex must be ordered with. A store that
//     main makes while no other thread has started, of the value its cell
//     already holds, in code main never runs again once the prefix is over,
//     is removed (the node does nothing; it stays a step, a local one).
//   - Steps that change nothing. Before its first pthread_create main often
//     declares its thread handles and initializes global mutexes in a loop
//     (pthread_mutex_init stores what the cell holds): steps after which the
//     state is the initial state with main elsewhere. Every execution begins
//     with them (no other thread exists yet), none fails, draws or waits, and
//     none leaves a trace but main's location, so main starts after the last
//     of them instead: each execution loses those steps and nothing else, and
//     a stateful search the states between. Not under --no-fold.
//
// Why the prefix is the same in every execution: a step of it reads only
// main's own locals and shared cells no other thread may write (no
// nondeterministic choice, no lock, join or other wait), so whatever other
// threads do in between, main's first steps compute the same values and take
// the same branches. Before main's first pthread_create no other thread
// exists at all, so a cell main stores into then holds the same value in
// every execution. Slots are taken first free, and when main is the only
// thread that spawns into a pool, main's j-th spawn into it starts slot j in
// every execution in which that spawn happens; so the argument the prefix
// gives slot j is the argument slot j receives whenever it starts.

// maxPrefixSteps bounds the run of main's prefix.
const maxPrefixSteps = 1 << 16

// SpecializePrefix runs main's prefix and simplifies the program with what
// it sees (see above). It reports whether it changed any template; the caller
// then runs Finish again. p must be finished.
func (p *Program) SpecializePrefix() bool {
	args, noop, join, skip := p.runPrefix()
	changed := false
	if skip >= 0 && !p.NoFold {
		// main starts where its steps that changed nothing have brought it
		// (see skip in runPrefix); the code it no longer reaches has no
		// locations.
		mt := p.Threads[0].Template
		mt.Entry = skip
		reach := reachableNodes(mt, skip)
		for i, n := range mt.Nodes {
			if n.Cut && !reach[i] {
				c := *n
				c.Cut = false
				mt.Nodes[i] = &c
			}
		}
		changed = true
	}
	for t, a := range args {
		if p.propagate(t, &a) {
			changed = true
		}
	}
	if mt := p.Threads[0].Template; len(p.Pools) > 0 && mt.Start == nil && mt.Instances() == 1 && p.propagate(mt, nil) {
		changed = true
	}
	if join != nil {
		mt := p.Threads[0].Template
		first := *mt.Nodes[join.first]
		for _, v := range join.values {
			first.JAlso = append(first.JAlso, &Expr{Op: EConst, Type: first.JThread.Type, Val: v, Pos: first.JThread.Pos})
		}
		mt.Nodes[join.first] = &first
		for _, i := range join.rest {
			n := mt.Nodes[i]
			mt.Nodes[i] = &Node{Op: OpNop, Next: n.Next, Else: Exit, Pos: n.Pos, Text: n.Text}
		}
		changed = true
	}
	if noop != nil {
		mt := p.Threads[0].Template
		for i := range noop {
			n := *mt.Nodes[i]
			mt.Nodes[i] = &Node{Op: OpNop, Next: n.Next, Else: Exit, Cut: n.Cut, Atomic: n.Atomic, Pos: n.Pos, Text: n.Text}
			changed = true
		}
	}
	return changed
}

// runPrefix runs the prefix of main that cannot depend on other threads. It
// returns the argument it gives each slot it starts, for pools only main
// spawns into, and main's stores that change nothing (node indices).
func (p *Program) runPrefix() (args map[*Template]int64, noop map[int]bool, join *joinFold, skip int) {
	skip = -1
	if len(p.Pools) == 0 {
		return nil, nil, nil, skip
	}
	main := -1
	for _, th := range p.Threads {
		if th.Template.Start == nil {
			if main >= 0 {
				return nil, nil, nil, skip // two threads run from the start
			}
			main = th.ID
		}
	}
	if main != 0 {
		return nil, nil, nil, skip
	}
	mt := p.Threads[main].Template
	// Pools that only main spawns into, and the locations other threads may
	// write.
	only := map[*Pool]bool{}
	for _, pool := range p.Pools {
		only[pool] = true
	}
	written := make([]bool, p.NumLocations())
	markVar := func(v *Var) {
		for c := range v.Cells() {
			written[p.CellLocation(v.Offset+c)] = true
		}
	}
	objects := func() {
		for _, o := range p.Objects {
			markVar(o)
		}
	}
	for _, t := range p.Templates {
		if t == mt {
			continue
		}
		for th := t.First; th < t.First+t.Instances(); th++ {
			written[p.ThreadLocation(th)] = true
		}
		for _, n := range t.Nodes {
			for lv := range n.LValues() {
				switch {
				case lv.Ptr != nil:
					objects()
				case !lv.Var.Shared:
				case lv.Index != nil && lv.Index.Op == EConst && lv.Index.Val >= 0 && lv.Index.Val < int64(lv.Var.Cells()):
					written[p.CellLocation(lv.Var.Offset+int(lv.Index.Val))] = true
				default:
					markVar(lv.Var)
				}
			}
			switch n.Op {
			case OpSpawn:
				only[n.Pool] = false
				for _, u := range n.Pool.Slots {
					markVar(u.Start)
				}
			case OpAlloc, OpFree:
				for _, a := range p.Allocs {
					markVar(a.Status)
					for _, b := range a.Blocks {
						markVar(b)
					}
				}
			case OpLock, OpUnlock, OpTryLock:
				if n.Mutex != nil {
					for i := range n.Mutex.Count() {
						written[p.LockLocation(n.Mutex.Offset+i)] = true
					}
				} else {
					objects()
				}
			case OpSend, OpRecv, OpSelect:
				for c := range p.NumChannels {
					first, n := p.ChannelLocations(c)
					for l := first; l < first+n; l++ {
						written[l] = true
					}
				}
			}
		}
	}
	args = map[*Template]int64{}
	s := p.Initial()
	before, initial := s.Clone(), s.Clone()
	ev := Event{TraceLocals: true}
	var ch Choices
	// While solo, no other thread has started. stores counts, per node of
	// main, its stores then, and same those of the value the cell held.
	solo := true
	stores, same := map[int]int{}, map[int]int{}
	resume := -1 // where main is when solo ends: the entry of the step that ends it
	// stopped: main stands in s, which every execution passes through,
	// before a step the prefix cannot take (it waits, or may depend on
	// other threads).
	stopped := false
	for range maxPrefixSteps {
		if p.Status(s, main) != Enabled {
			stopped = true
			break
		}
		tr := p.Transition(s, main)
		if !prefixSafe(mt, tr) {
			stopped = true
			break
		}
		ch.Reset(nil)
		copy(before, s)
		p.Step(s, main, &ch, &ev)
		if ev.Violation != nil || len(ch.Made) > 0 {
			break
		}
		if solo && p.started(s) {
			solo, resume = false, tr.Entry
		}
		if solo && p.sameButLocation(s, initial, main) {
			// main has run alone and changed nothing but where it is (a
			// dead local is cleared at the end of a step, so a loop
			// counter no longer read counts as unchanged).
			if next := p.Transition(s, main); next != nil {
				skip = next.Entry
			}
		}
		if solo {
			from := 0
			for _, vis := range ev.Visits {
				for _, a := range ev.Accesses[from:vis.Accesses] {
					if a.Kind == Write {
						stores[vis.Node]++
						if before[a.Loc] == a.Value {
							same[vis.Node]++
						}
					}
				}
				from = vis.Accesses
			}
		}
		dependent := false
		for _, a := range ev.Accesses {
			if a.Kind == Read && written[a.Loc] {
				dependent = true
			}
		}
		if dependent {
			break
		}
		for _, pool := range p.Pools {
			if !only[pool] {
				continue
			}
			for _, u := range pool.Slots {
				if _, seen := args[u]; !seen && s[u.Start.Offset+StartFlag] != 0 {
					args[u] = s[u.Start.Offset+StartArg]
				}
			}
		}
		if p.Done(s, main) {
			break
		}
	}
	if !solo && resume >= 0 {
		again := reachableNodes(mt, resume)
		for i, n := range stores {
			nd := mt.Nodes[i]
			if same[i] == n && !again[i] && nd.Op == OpAssign && nd.LHS.Shared() {
				if noop == nil {
					noop = map[int]bool{}
				}
				noop[i] = true
			}
		}
	}
	if stopped {
		join = p.joinChain(s)
	}
	return args, noop, join, skip
}

// sameButLocation reports whether s is init with only thread t's control
// location changed.
func (p *Program) sameButLocation(s, init State, t int) bool {
	b := p.Threads[t].Base
	return s[:b].Equal(init[:b]) && s[b+1:].Equal(init[b+1:])
}

// joinFold is main's consecutive joins made one step: the first, and the
// thread values of the others, which become no-ops.
type joinFold struct {
	first  int
	values []int64
	rest   []int
}

// joinChain finds, where main stands in s (a state every execution passes
// through), a join of a thread value followed by more with only local code
// between them, and returns them as one step (nil if there is no second).
// main's frame in s is the same in every execution, so is the local code's
// result, so each later join waits for the same thread, a constant; and that
// code cannot fail (it ran here). Waiting for them all at once loses nothing:
// a join only reads a thread's end, which is set once and for good, so a
// join done early can always be moved to just before the next, past steps of
// other threads that are independent of it; and a deadlocked main waits in
// either form. Each join of the chain must name its thread by main's locals
// alone, have no left-hand side, be reached only from the one before and lie
// on no cycle (it runs once, in this frame). Under --no-fold every join stays
// a step.
func (p *Program) joinChain(s State) *joinFold {
	mt := p.Threads[0].Template
	tr := p.Transition(s, 0)
	if tr == nil || p.NoFold {
		return nil
	}
	preds := make([]int, len(mt.Nodes))
	for _, n := range mt.Nodes {
		for _, m := range [2]int{n.Next, n.Else} {
			if m != Exit && (m == n.Next || n.Op == OpBranch) {
				preds[m]++
			}
		}
	}
	joinable := func(i int) bool {
		n := mt.Nodes[i]
		return n.Op == OpJoin && n.JThread != nil && len(n.JAlso) == 0 && n.LHS == nil && !n.Atomic &&
			!n.JThread.ReadsShared() && !onCycle(mt, i)
	}
	if !joinable(tr.Entry) {
		return nil
	}
	scratch := s.Clone()
	// joinedAt marks the thread join node i waits for as ended in scratch, so
	// that main's code can run on past it.
	joinedAt := func(i int) (int64, bool) {
		m := p.newMachine(scratch, 0, nil, nil)
		u := m.joined(mt.Nodes[i])
		if m.failed {
			return 0, false
		}
		scratch[p.Threads[u].Base] = int64(p.Threads[u].Template.Terminated())
		return int64(u + 1), true
	}
	if _, ok := joinedAt(tr.Entry); !ok {
		return nil
	}
	fold := &joinFold{first: tr.Entry}
	var ev Event
	for cur := tr; ; {
		for _, i := range cur.Nodes[1:] {
			if n := mt.Nodes[i]; n.Op == OpBranch || n.Atomic || n.Visible() {
				return fold.orNil()
			}
		}
		p.Step(scratch, 0, nil, &ev)
		if ev.Violation != nil {
			return fold.orNil()
		}
		next := p.Transition(scratch, 0)
		if next == nil || !joinable(next.Entry) || preds[next.Entry] != 1 {
			return fold.orNil()
		}
		v, ok := joinedAt(next.Entry)
		if !ok {
			return fold.orNil()
		}
		fold.values = append(fold.values, v)
		fold.rest = append(fold.rest, next.Entry)
		cur = next
	}
}

func (f *joinFold) orNil() *joinFold {
	if len(f.rest) == 0 {
		return nil
	}
	return f
}

// onCycle reports whether some path from node i of t leads back to it.
func onCycle(t *Template, i int) bool {
	n := t.Nodes[i]
	for _, m := range [2]int{n.Next, n.Else} {
		if m != Exit && (m == n.Next || n.Op == OpBranch) && reachableNodes(t, m)[i] {
			return true
		}
	}
	return false
}

// started reports whether some created thread has been started in s.
func (p *Program) started(s State) bool {
	for _, pool := range p.Pools {
		for _, u := range pool.Slots {
			if s[u.Start.Offset+StartFlag] != 0 {
				return true
			}
		}
	}
	return false
}

// reachableNodes returns the nodes of t a path from node n reaches, n
// included.
func reachableNodes(t *Template, n int) map[int]bool {
	seen := map[int]bool{n: true}
	stack := []int{n}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := t.Nodes[i]
		for _, m := range [2]int{nd.Next, nd.Else} {
			if m != Exit && (m != nd.Else || nd.Op == OpBranch) && !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return seen
}

// prefixSafe reports whether transition tr of main performs only operations
// whose shared reads its accesses show: assignments, branches, assertions,
// spawns (which read the pool's flags). A lock, a wait, a cas or a join depends
// on other threads in ways a read access does not show (a lock that finds its
// mutex free records a write).
func prefixSafe(t *Template, tr *Transition) bool {
	for _, i := range tr.Nodes {
		switch t.Nodes[i].Op {
		case OpNop, OpAssign, OpBranch, OpAssert, OpSpawn, OpYield:
		default:
			return false
		}
	}
	return true
}

// scalarLocal reports whether lv assigns the whole of a scalar local.
func scalarLocal(lv *LValue) bool {
	return lv != nil && lv.Ptr == nil && lv.Var != nil && !lv.Var.Shared && lv.Index == nil && lv.Var.Len == 0
}

// propagate replaces, in template t's code, each read of a scalar local that
// holds the same known value on every path to it by that value. With arg
// set, t is a slot whose start stores *arg into its left-hand side. Without,
// t is main, whose locals hold their initial values at its entry: main's
// counted loops of pthread_create and pthread_join, lowered as copies of
// their bodies (cfront/spawns.go), then read constants, not a counter that to
// a flow-insensitive analysis (ValueBits) grows by one each round. A local is
// the thread's own, so what its thread's code stores is what it holds. It
// reports whether it replaced any.
func (p *Program) propagate(t *Template, arg *int64) bool {
	start := t.Nodes[t.Entry]
	if arg != nil && (start.Op != OpStart || !scalarLocal(start.LHS)) {
		return false
	}
	index := map[*Var]int{}
	for i, v := range t.Locals {
		index[v] = i
	}
	nv := len(t.Locals)
	// env[i] is what the locals hold before node i: nil while no path has
	// reached it; known[j] says local j holds val[j] on every path.
	type env struct {
		known []bool
		val   []int64
	}
	envs := make([]*env, len(t.Nodes))
	th := p.Threads[t.First]
	scratch := make(State, p.StateSize)
	frame := th.Base + 1
	eval := func(e *Expr, in *env) (int64, bool) {
		ok := true
		Inspect(e, func(x *Expr) bool {
			switch x.Op {
			case EVar:
				if j, local := index[x.Var]; !local || x.Var.Shared || x.Var.Len != 0 || !in.known[j] {
					ok = false
				}
			case EIndex, EDeref, ENondet, ELen:
				ok = false
			}
			return ok
		})
		if !ok {
			return 0, false
		}
		for j, v := range t.Locals {
			if in.known[j] {
				scratch[frame+v.Offset] = in.val[j]
			}
		}
		m := p.newMachine(scratch, th.ID, nil, nil)
		v := m.eval(e)
		return v, !m.failed
	}
	transfer := func(i int, in *env) *env {
		n := t.Nodes[i]
		out := &env{known: append([]bool(nil), in.known...), val: append([]int64(nil), in.val...)}
		for lv := range n.LValues() {
			if lv.Ptr == nil && !lv.Var.Shared {
				if j, ok := index[lv.Var]; ok {
					out.known[j] = false
				}
			}
		}
		switch {
		case arg != nil && i == t.Entry && n.Op == OpStart:
			j := index[n.LHS.Var]
			out.known[j], out.val[j] = true, *arg
		case n.Op == OpAssign && scalarLocal(n.LHS):
			if j, ok := index[n.LHS.Var]; ok {
				out.val[j], out.known[j] = eval(n.X, in)
			}
		}
		return out
	}
	meet := func(i int, in *env) bool {
		cur := envs[i]
		if cur == nil {
			envs[i] = &env{known: append([]bool(nil), in.known...), val: append([]int64(nil), in.val...)}
			return true
		}
		changed := false
		for j := range nv {
			if cur.known[j] && (!in.known[j] || in.val[j] != cur.val[j]) {
				cur.known[j] = false
				changed = true
			}
		}
		return changed
	}
	envs[t.Entry] = &env{known: make([]bool, nv), val: make([]int64, nv)}
	if arg == nil {
		// main starts at its entry with its initial frame: the steps it
		// skips (runPrefix) leave the initial state as it was.
		init := p.Initial()
		for j, v := range t.Locals {
			if !v.Shared && v.Len == 0 && v.Cells() == 1 {
				envs[t.Entry].known[j], envs[t.Entry].val[j] = true, init[frame+v.Offset]
			}
		}
	}
	work := []int{t.Entry}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		out := transfer(i, envs[i])
		n := t.Nodes[i]
		succ := []int{n.Next}
		if n.Op == OpBranch {
			succ = append(succ, n.Else)
		}
		for _, s := range succ {
			if s != Exit && meet(s, out) {
				work = append(work, s)
			}
		}
	}
	changed := false
	for i, n := range t.Nodes {
		in := envs[i]
		if in == nil {
			continue
		}
		subst := func(e *Expr) *Expr {
			r := substitute(e, func(v *Var) (int64, bool) {
				j, ok := index[v]
				if !ok || v.Shared || v.Len != 0 || !in.known[j] {
					return 0, false
				}
				return in.val[j], true
			})
			if r != e {
				changed = true
			}
			return r
		}
		if subst(n.X) == n.X && subst(n.Y) == n.Y && subst(n.MIndex) == n.MIndex && subst(n.JIndex) == n.JIndex &&
			subst(n.CIndex) == n.CIndex && subst(n.Addr) == n.Addr && subst(n.JThread) == n.JThread &&
			!argsChange(n.Args, subst) && !lhsChanges(n, subst) {
			continue
		}
		c := *n
		c.X, c.Y, c.MIndex, c.JIndex, c.CIndex = subst(n.X), subst(n.Y), subst(n.MIndex), subst(n.JIndex), subst(n.CIndex)
		c.Addr, c.JThread = subst(n.Addr), subst(n.JThread)
		if len(n.Args) > 0 {
			c.Args = make([]*Expr, len(n.Args))
			for k, a := range n.Args {
				c.Args[k] = subst(a)
			}
		}
		if lhsChanges(n, subst) {
			lv := *n.LHS
			lv.Index, lv.Ptr = subst(n.LHS.Index), subst(n.LHS.Ptr)
			c.LHS = &lv
		}
		t.Nodes[i] = &c
	}
	return changed
}

func argsChange(args []*Expr, subst func(*Expr) *Expr) bool {
	for _, a := range args {
		if subst(a) != a {
			return true
		}
	}
	return false
}

// lhsChanges reports whether substituting changes the index or pointer of
// n's left-hand side. Only the operations that store one value there, after
// evaluating everything else, qualify: a cas, a recv or a trylock stores into
// several lvalues one after the other, and a later one's index may read what
// an earlier one wrote.
func lhsChanges(n *Node, subst func(*Expr) *Expr) bool {
	switch n.Op {
	case OpAssign, OpSpawn, OpJoin, OpStart:
	default:
		return false
	}
	return n.LHS != nil && (subst(n.LHS.Index) != n.LHS.Index || subst(n.LHS.Ptr) != n.LHS.Ptr)
}

// substitute returns e with every read of a variable that known maps to a
// value replaced by that value; e itself when none is (expressions may be
// shared between nodes, so e is never modified).
func substitute(e *Expr, known func(*Var) (int64, bool)) *Expr {
	if e == nil {
		return nil
	}
	if e.Op == EVar {
		if v, ok := known(e.Var); ok {
			return &Expr{Op: EConst, Type: e.Type, Val: v, Pos: e.Pos}
		}
		return e
	}
	x, y, z := substitute(e.X, known), substitute(e.Y, known), substitute(e.Z, known)
	if x == e.X && y == e.Y && z == e.Z {
		return e
	}
	c := *e
	c.X, c.Y, c.Z = x, y, z
	return &c
}
