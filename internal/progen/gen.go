package progen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Generate returns the source text of a random, valid .kb program. It is a pure
// function of seed and cfg: the same pair always gives the same text.
func Generate(seed uint64, cfg Config) string {
	src, _ := generate(seed, cfg)
	return src
}

// generate returns the program and its estimated number of interleavings.
func generate(seed uint64, cfg Config) (src string, est float64) {
	cfg = cfg.withDefaults()
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6b626d63)), cfg: cfg}
	if g.has(Processes) {
		g.distributed()
	} else {
		g.classic()
	}
	// Thread bodies that turn out larger than the bound (nondet values, statements
	// that overshoot their budget) are drawn again with a smaller budget for the
	// biggest thread; the stream of random numbers simply continues, so the result
	// is still a function of the seed.
	for range 40 {
		for _, t := range g.allThreads() {
			g.enter(t.sp)
			g.thread(t)
		}
		est = g.estimate()
		if est <= float64(cfg.MaxInterleavings) || !g.shrink() {
			break
		}
	}
	return g.render(seed), est
}

// classic plans a program without processes: shared memory, mutexes, functions
// and threads at top level, and with Channels channels between the threads.
func (g *gen) classic() {
	g.enter(&space{})
	g.spaces = []*space{g.space}
	g.declare()
	g.layout()
	if g.has(Channels) {
		g.plan()
	}
	if g.has(Funcs) && g.chance(0.45) {
		g.functions()
	}
	g.slot = g.has(Funcs) && g.has(SharedIndices) && g.chance(0.3)
	g.scenarios()
}

// distributed plans a program with processes: one to three process templates,
// some with several instances, each with its own memory, mutexes, functions and
// threads; with Channels, the flows of messages between them.
func (g *gen) distributed() {
	g.declareConsts()
	total := g.threadCount()
	rest := total
	for rest > 0 && len(g.spaces) < len(processNames) {
		sp := &space{proc: &process{name: processNames[len(g.spaces)]}}
		g.spaces = append(g.spaces, sp)
		g.enter(sp)
		p := sp.proc
		switch {
		case rest >= 2 && g.chance(0.55):
			p.count = 2 + g.pick(min(rest, 3)-1)
		case g.chance(0.1):
			p.count = 1 // a process of one instance: pid is 0
		}
		if p.count > 0 {
			p.countText = fmt.Sprint(p.count)
			if c, ok := g.constWith(int64(p.count)); ok && g.chance(0.7) {
				p.countText = c
			}
		}
		// Threads per instance: mostly one; the last process takes what is left.
		most := rest / sp.instances()
		per := 1
		switch {
		case g.cfg.GoForm:
			// One goroutine per process instance: its memory stays local.
		case len(g.spaces) == len(processNames) || sp.instances() == rest && g.chance(0.3):
			per = most
		case most >= 2 && g.chance(0.3):
			per = 2 + g.pick(min(most, 3)-1)
		}
		g.templates(per)
		for _, t := range sp.threads {
			rest -= t.instances()
		}
	}
	g.budgets()
	if g.has(Channels) {
		g.plan()
	}
	for _, sp := range g.spaces {
		g.enter(sp)
		g.declareMemory()
		if g.has(Funcs) && g.chance(0.35) {
			g.functions()
		}
		g.slot = g.has(Funcs) && g.has(SharedIndices) && g.chance(0.3)
		g.scenarios()
	}
}

type typ uint8

const (
	tInt typ = iota
	tBool
)

func (t typ) String() string {
	if t == tBool {
		return "bool"
	}
	return "int"
}

// An expr is generated expression text; shared says whether evaluating it reads
// shared state, which makes the statement holding it a visible operation.
type expr struct {
	text   string
	shared bool
}

type sharedVar struct {
	name string
	typ  typ
	n    int   // array length; 0 for a scalar
	init int64 // initial value of an int scalar
	decl string
}

type mutexDecl struct {
	name  string
	n     int // array length; 0 for a single mutex
	index int // declaration order: nested sections lock in this order unless a fault says otherwise
}

// A lockRef is one lock as a statement names it.
type lockRef struct {
	decl *mutexDecl
	text string // "m", "ms[tid % 2]"
}

type constDecl struct {
	name string
	val  int64
}

type function struct {
	name   string
	params []typ
	result typ
	void   bool
	expr   bool  // an expression function: its body is one return
	shared bool  // an expression function that reads shared state
	cost   int   // transitions a call executes (statement functions)
	locks  []int // mutex declarations a call locks
	text   string
}

type template struct {
	name      string
	sp        *space // where it is declared
	count     int    // instances; 0: declared without a count
	countText string
	budget    int
	main      bool                // joins the others and checks the final state
	forced    []func(b *body) int // scenario statements emitted first
	planned   []*chanOp           // channel operations, emitted in order between other statements
	joinable  []*template         // templates declared before it, in the same process
	text      string              // the whole declaration
	steps     int                 // transitions on its longest path
	nondet    float64             // nondet combinations of one instance
}

// local is the number of instances of the template in one instance of its process.
func (t *template) local() int { return max(t.count, 1) }

// instances is the number of threads the template declares in the whole program.
func (t *template) instances() int { return t.local() * t.sp.instances() }

// A process is a process template.
type process struct {
	name      string
	count     int // instances; 0: declared without a count
	countText string
}

// A space is what one body can see besides its locals: the shared memory,
// mutexes, functions and threads of a program without processes, or of one
// process template.
type space struct {
	proc    *process // nil: the top level of a program without processes
	ints    []*sharedVar
	bools   []*sharedVar
	arrays  []*sharedVar
	mutexes []*mutexDecl
	funcs   []*function
	threads []*template
	written []string   // literals written to shared ints, for assertions that may fail
	slot    bool       // slot(n) is declared: an index in [0, n) computed from x
	sel     *sharedVar // the variable of a planted redirection (see redirect), or nil
	busy    *sharedVar // the gate of a planted redirection, or nil
}

// localThreads is the number of threads in one instance of the space's process.
func (sp *space) localThreads() int {
	n := 0
	for _, t := range sp.threads {
		n += t.local()
	}
	return n
}

// instances is the number of instances of the space's process (1 without one).
func (sp *space) instances() int {
	if sp.proc == nil {
		return 1
	}
	return max(sp.proc.count, 1)
}

type gen struct {
	r   *rand.Rand
	cfg Config

	*space          // the space being generated
	spaces []*space // every space, in declaration order
	consts []constDecl
	chans  []*channel
	flows  []*flow
}

// enter makes sp the space that declarations and bodies are generated in.
func (g *gen) enter(sp *space) { g.space = sp }

// allThreads returns the templates of every space.
func (g *gen) allThreads() []*template {
	var ts []*template
	for _, sp := range g.spaces {
		ts = append(ts, sp.threads...)
	}
	return ts
}

func (g *gen) has(f Feature) bool { return g.cfg.Features&f != 0 }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// fault reports whether to make a deliberate mistake at this opportunity.
func (g *gen) fault() bool { return g.has(Faults) && g.chance(g.cfg.FaultRate) }

func (g *gen) pick(n int) int { return g.r.IntN(n) }

var (
	intNames  = []string{"x", "y", "z"}
	boolNames = []string{"flag", "done"}
)

// declare declares the constants and the shared memory of a program without
// processes.
func (g *gen) declare() {
	g.declareConsts()
	g.declareMemory()
}

func (g *gen) declareConsts() {
	if g.has(Consts) && g.chance(0.4) {
		g.consts = append(g.consts, constDecl{"N", int64(2 + g.pick(2))})
		if g.chance(0.3) {
			g.consts = append(g.consts, constDecl{"K", int64(1 + g.pick(3))})
		}
	}
}

// declareMemory declares the shared variables and mutexes of the current space.
func (g *gen) declareMemory() {
	// A process's memory is smaller: mostly one thread per instance uses it, and
	// mutexes matter only where several do.
	maxBools, pArrays, pMutexes := 3, 0.75, 0.8
	if g.proc != nil {
		maxBools, pArrays = 2, 0.45
		if threads := g.localThreads(); threads < 2 {
			pMutexes = 0.2
		}
	}
	// Few shared variables, so that threads interfere: the interesting
	// interleavings are the ones where they touch the same location.
	nInts := 1 + g.pick(2)
	if g.chance(0.15) {
		nInts = 3
	}
	for i := range nInts {
		v := &sharedVar{name: intNames[i], typ: tInt}
		switch g.pick(4) {
		case 0:
			v.decl = fmt.Sprintf("shared int %s;", v.name)
		case 1:
			v.init = int64(1 + g.pick(2))
			v.decl = fmt.Sprintf("shared int %s = %d;", v.name, v.init)
		default:
			v.decl = fmt.Sprintf("shared int %s = 0;", v.name)
		}
		g.ints = append(g.ints, v)
	}
	for i := range g.pick(maxBools) {
		v := &sharedVar{name: boolNames[i], typ: tBool}
		v.decl = fmt.Sprintf("shared bool %s;", v.name)
		if g.chance(0.3) {
			v.decl = fmt.Sprintf("shared bool %s = %v;", v.name, g.chance(0.5))
		}
		g.bools = append(g.bools, v)
	}
	if g.has(Arrays) && g.chance(pArrays) {
		n := 2 + g.pick(3)
		size := fmt.Sprint(n)
		if c, ok := g.constWith(int64(n)); ok && g.chance(0.6) {
			size = c
		}
		a := &sharedVar{name: "a", typ: tInt, n: n}
		a.decl = fmt.Sprintf("shared int a[%s];", size)
		if g.chance(0.4) {
			vals := make([]string, n)
			for i := range vals {
				vals[i] = fmt.Sprint(g.pick(3))
			}
			a.decl = fmt.Sprintf("shared int a[%s] = {%s};", size, strings.Join(vals, ", "))
		}
		g.arrays = append(g.arrays, a)
		if g.chance(0.3) {
			s := &sharedVar{name: "seen", typ: tBool, n: 2}
			s.decl = "shared bool seen[2];"
			g.arrays = append(g.arrays, s)
		}
	}
	if g.has(Mutexes) && g.chance(pMutexes) {
		g.mutexes = append(g.mutexes, &mutexDecl{name: "m"})
		if g.chance(0.4) {
			g.mutexes = append(g.mutexes, &mutexDecl{name: "n", index: 1})
		}
		if g.chance(0.35) {
			g.mutexes = append(g.mutexes, &mutexDecl{name: "ms", n: 2 + g.pick(2), index: len(g.mutexes)})
		}
	}
}

// constWith returns the name of a constant with value v, if one is declared.
func (g *gen) constWith(v int64) (string, bool) {
	for _, c := range g.consts {
		if c.val == v {
			return c.name, true
		}
	}
	return "", false
}

var threadNames = []string{"alpha", "beta", "gamma", "delta", "epsilon"}

var processNames = []string{"node", "peer", "hub"}

// layout decides the thread templates, their instance counts and their budgets.
func (g *gen) layout() {
	g.templates(g.threadCount())
	g.budgets()
}

// threadCount draws the number of threads.
func (g *gen) threadCount() int {
	// Fewer threads leave room for longer ones: the lower counts are likelier.
	return g.cfg.MinThreads + min(g.pick(g.cfg.MaxThreads-g.cfg.MinThreads+1), g.pick(g.cfg.MaxThreads-g.cfg.MinThreads+2))
}

// templates declares thread templates with total instances in the current space
// (per instance of its process).
func (g *gen) templates(total int) {
	withMain := g.has(Join) && total >= 2 && g.chance(0.4)
	rest := total
	if withMain {
		rest--
	}
	for rest > 0 {
		name := fmt.Sprintf("t%d", len(g.threads))
		if len(g.threads) < len(threadNames) {
			name = threadNames[len(g.threads)]
		}
		t := g.newTemplate(name)
		switch {
		case g.has(Templates) && rest >= 2 && g.chance(0.45):
			t.count = 2 + g.pick(min(rest, 3)-1)
		case g.has(Templates) && g.chance(0.08):
			t.count = 1 // a template of one instance: tid is 0, join(t[0]) is valid
		}
		if t.count > 0 {
			t.countText = fmt.Sprint(t.count)
			if c, ok := g.constWith(int64(t.count)); ok && g.chance(0.7) {
				t.countText = c
			}
		}
		t.joinable = append([]*template(nil), g.threads...)
		g.threads = append(g.threads, t)
		rest -= t.local()
	}
	if withMain {
		t := g.newTemplate("main")
		t.main = true
		t.joinable = append([]*template(nil), g.threads...)
		g.threads = append(g.threads, t)
	}
}

// newTemplate returns a thread template of the current space (not yet declared
// in it).
func (g *gen) newTemplate(name string) *template { return &template{name: name, sp: g.space} }

// budgets gives every thread template its budget of transitions.
func (g *gen) budgets() {
	threads := g.allThreads()
	for _, t := range threads {
		// Mostly at or next to the maximum: the interleaving bound below trims them.
		t.budget = g.cfg.MaxOps - g.pick(min(g.cfg.MaxOps, 2))
		if g.chance(0.1) {
			t.budget = min(1+g.pick(2), g.cfg.MaxOps)
		}
		if t.main {
			t.budget = 2 + g.pick(2)
		}
	}
	// Shrink the largest budgets until the estimate leaves room for nondet values.
	for {
		var steps []int
		for _, t := range threads {
			for range t.instances() {
				steps = append(steps, t.budget)
			}
		}
		if multinomial(steps) <= float64(g.cfg.MaxInterleavings)/2 {
			break
		}
		var big *template
		for _, t := range threads {
			if t.budget > 1 && (big == nil || t.budget*t.instances() > big.budget*big.instances()) {
				big = t
			}
		}
		if big == nil {
			break
		}
		big.budget--
	}
}

// shrink lowers the budget of the thread with the most transitions or, when every
// budget is down to one, drops the planted scenario of the biggest thread that has
// one (they ignore budgets), and then the last flow of messages, at both ends. It
// reports false if nothing can shrink.
func (g *gen) shrink() bool {
	var big, planted *template
	for _, t := range g.allThreads() {
		if t.budget > 1 && (big == nil || t.steps*t.instances() > big.steps*big.instances()) {
			big = t
		}
		if len(t.forced) > 0 && (planted == nil || t.steps*t.instances() > planted.steps*planted.instances()) {
			planted = t
		}
	}
	switch {
	case big != nil:
		big.budget--
	case planted != nil:
		planted.forced = nil
	default:
		for i := len(g.flows) - 1; i >= 0; i-- {
			if !g.flows[i].dropped {
				g.flows[i].dropped = true
				return true
			}
		}
		return false
	}
	return true
}

// scenarios plants what needs a plan rather than one statement: a thread that spins
// (with SpinLoops), and the faults that need more than one thread, a lock-order
// inversion between two templates or between the instances of one template through
// a mutex array indexed by tid.
func (g *gen) scenarios() {
	if g.has(SpinLoops) && g.chance(0.6) {
		// A thread that spins until another one changes shared state.
		t := g.threads[g.pick(len(g.threads))]
		if !t.main {
			t.forced = append(t.forced, func(b *body) int { return b.spin() })
		}
	}
	if g.has(SharedIndices) && g.chance(0.4) {
		g.redirect()
	}
	if !g.has(Faults) || len(g.mutexes) == 0 || !g.chance(min(1, 3*g.cfg.FaultRate)) {
		return
	}
	var workers []*template
	for _, t := range g.threads {
		if !t.main {
			workers = append(workers, t)
		}
	}
	arr := g.mutexArray()
	for _, t := range workers {
		if arr != nil && t.count >= 2 && g.chance(0.6) {
			n := arr.n
			t.forced = append(t.forced, func(b *body) int {
				first := lockRef{arr, fmt.Sprintf("%s[tid %% %d]", arr.name, n)}
				second := lockRef{arr, fmt.Sprintf("%s[(tid + 1) %% %d]", arr.name, n)}
				return b.nestedSection(first, second)
			})
			return
		}
	}
	locks := g.distinctLocks()
	if len(workers) < 2 || locks == nil {
		return
	}
	i := g.pick(len(workers))
	j := (i + 1 + g.pick(len(workers)-1)) % len(workers)
	a, c := locks[0], locks[1]
	workers[i].forced = append(workers[i].forced, func(b *body) int { return b.nestedSection(a, c) })
	workers[j].forced = append(workers[j].forced, func(b *body) int { return b.nestedSection(c, a) })
}

// redirect plants a blocking operation whose target is chosen by a shared variable,
// and in another thread a write that changes it — lock(ms[(sel != 0 ? 1 : 0)]),
// join(t[…]), await(a[…] == 3), assume(a[…] == 3), or an atomic block guarded by
// one — together with what makes the first target unavailable and the second one
// available: a thread that holds ms[0] meanwhile, a second instance to join, a write
// to a[1]. While the first thread waits, the write makes it wait for another mutex,
// thread or cell: a partial-order reduction must count the writer among the threads
// that can enable the waiter.
func (g *gen) redirect() {
	var workers []*template
	for _, t := range g.threads {
		if !t.main {
			workers = append(workers, t)
		}
	}
	// Another thread than the waiter: another template, or another instance of
	// the waiter's own.
	other := func(w *template) *template {
		var cands []*template
		for _, t := range workers {
			if t != w || t.count >= 2 {
				cands = append(cands, t)
			}
		}
		if len(cands) == 0 {
			return nil
		}
		return cands[g.pick(len(cands))]
	}
	waiter := g.threads[g.pick(len(g.threads))]
	writer := other(waiter)
	switch {
	case g.instances() > 1:
		// A thread of its own would be one per process instance: too many.
		if writer == nil {
			return
		}
	case writer == nil || g.chance(0.5):
		// A thread that does nothing but redirect, declared last: its one write
		// conflicts with nothing but the waiter's index.
		writer = g.newTemplate("mover")
		writer.budget = 1
		g.threads = append(g.threads, writer)
	}
	// Mostly a variable of its own, which only the writer writes and only the index
	// reads: nothing else then ties the writer to the waiter, which is where a
	// reduction that overlooks the redirection postpones the writer.
	v := g.ints[g.pick(len(g.ints))]
	if g.chance(0.6) {
		v = &sharedVar{name: "sel", typ: tInt, decl: "shared int sel = 0;"}
		g.sel = v
	}
	// idx is 0 before the write and 1 after it.
	idx := func(n int) string {
		if g.chance(0.5) {
			return fmt.Sprintf("(%s != %d ? 1 : 0)", v.name, v.init)
		}
		return fmt.Sprintf("((%s - %d) %% %d + %d) %% %d", v.name, v.init, n, n, n)
	}
	redirect := func(b *body) int {
		cost := b.visibleCost()
		b.line("%s = %d;", v.name, v.init+1)
		return cost
	}
	var plans []func()
	if arr := g.mutexArray(); arr != nil && g.has(Mutexes) {
		plans = append(plans, func() {
			waited := lockRef{arr, fmt.Sprintf("%s[%s]", arr.name, idx(arr.n))}
			first := lockRef{arr, arr.name + "[0]"}
			holder := other(waiter)
			if holder == writer || holder == nil || g.chance(0.5) {
				// The writer redirects while it holds the first mutex.
				waiter.forced = append(waiter.forced, func(b *body) int { return b.plantedSection(waited, nil) })
				writer.forced = append(writer.forced, func(b *body) int { return b.plantedSection(first, redirect) })
				return
			}
			if !g.has(Atomic) || !g.has(Await) || !g.has(Asserts) || g.chance(0.5) {
				// A third thread holds the first mutex now and then.
				waiter.forced = append(waiter.forced, func(b *body) int { return b.plantedSection(waited, nil) })
				holder.forced = append(holder.forced, func(b *body) int { return b.plantedSection(first, nil) })
				writer.forced = append(writer.forced, redirect)
				return
			}
			// The writer can only redirect while the holder is inside and has raised
			// busy; the holder's write to u is undone before it leaves, and the
			// steps in between touch nothing the writer does. The waiter, moved to
			// the other mutex, may see u's passing value.
			busy := &sharedVar{name: "busy", typ: tInt, decl: "shared int busy = 0;"}
			g.busy = busy
			u := g.ints[0]
			waiter.forced = append(waiter.forced, func(b *body) int {
				return b.plantedSection(waited, func(b *body) int {
					b.line("assert(%s != %d);", u.name, u.init+5)
					return 0
				})
			})
			holder.forced = append(holder.forced, func(b *body) int {
				return b.plantedSection(first, func(b *body) int {
					b.line("%s = %d;", u.name, u.init+5)
					b.line("%s = 1;", busy.name)
					b.line("%s = %d;", u.name, u.init)
					b.line("%s = 0;", busy.name)
					return 4
				})
			})
			writer.forced = append(writer.forced, func(b *body) int {
				cost := b.visibleCost()
				b.open("atomic {")
				b.line("await(%s == 1);", busy.name)
				b.line("%s = %d;", v.name, v.init+1)
				b.close("}")
				return cost
			})
		})
	}
	var joinable []*template
	for _, t := range waiter.joinable {
		if t.count >= 2 {
			joinable = append(joinable, t)
		}
	}
	if len(joinable) > 0 && g.has(Join) {
		t := joinable[g.pick(len(joinable))]
		plans = append(plans, func() {
			waiter.forced = append(waiter.forced, func(b *body) int {
				cost := b.visibleCost()
				b.line("join(%s[%s]);", t.name, idx(t.count))
				return cost
			})
			writer.forced = append(writer.forced, redirect)
		})
	}
	if arr := g.intArray(); arr != nil && (g.has(Await) || g.has(Assume)) {
		plans = append(plans, func() {
			op := "await"
			if !g.has(Await) || g.has(Assume) && g.chance(0.4) {
				op = "assume"
			}
			val := g.r.IntN(2) + 3
			guard := fmt.Sprintf("%s(%s[%s] == %d);", op, arr.name, idx(arr.n), val)
			atomic := op == "await" && g.has(Atomic) && g.chance(0.4)
			waiter.forced = append(waiter.forced, func(b *body) int {
				cost := b.visibleCost()
				if !atomic {
					b.line("%s", guard)
					return cost
				}
				b.open("atomic {")
				b.atomic = true
				b.line("%s", guard)
				b.atomicStmt()
				b.atomic = false
				b.close("}")
				return cost
			})
			// The first cell keeps its initial value unless someone else writes
			// it; the second one is set here.
			setter := other(waiter)
			if setter == nil {
				setter = writer
			}
			setter.forced = append(setter.forced, func(b *body) int {
				cost := b.visibleCost()
				b.line("%s[1] = %d;", arr.name, val)
				return cost
			})
			writer.forced = append(writer.forced, redirect)
		})
	}
	if len(plans) == 0 {
		return
	}
	plans[g.pick(len(plans))]()
}

func (g *gen) mutexArray() *mutexDecl {
	for _, m := range g.mutexes {
		if m.n > 0 {
			return m
		}
	}
	return nil
}

// distinctLocks returns two different locks, in declaration order, or nil.
func (g *gen) distinctLocks() []lockRef {
	var refs []lockRef
	for _, m := range g.mutexes {
		if m.n == 0 {
			refs = append(refs, lockRef{m, m.name})
		}
	}
	if arr := g.mutexArray(); arr != nil && (len(refs) < 2 || g.chance(0.3)) {
		refs = append(refs[:0], lockRef{arr, arr.name + "[0]"}, lockRef{arr, arr.name + "[1]"})
	}
	if len(refs) < 2 {
		return nil
	}
	return refs[:2]
}

// functions declares one or two functions: expression functions, usable anywhere,
// and statement functions with visible operations of their own.
func (g *gen) functions() {
	names := []string{"inc", "pick", "bump", "take", "probe"}
	for i := range 1 + g.pick(2) {
		f := &function{name: names[g.pick(len(names))] + fmt.Sprint(i)}
		b := newBody(g, nil, f)
		np := 1 + g.pick(2)
		if g.chance(0.2) {
			np = 0
		}
		var params []string
		for p := range np {
			pt := tInt
			if g.chance(0.15) {
				pt = tBool
			}
			name := fmt.Sprintf("p%d", p)
			f.params = append(f.params, pt)
			b.declare(&local{name: name, typ: pt, max: -1})
			params = append(params, pt.String()+" "+name)
		}
		sig := fmt.Sprintf("func %s(%s)", f.name, strings.Join(params, ", "))
		switch {
		case np > 0 && g.chance(0.5):
			f.expr = true
			f.result = tInt
			if g.chance(0.3) {
				f.result = tBool
			}
			e := b.exprOf(f.result, 2)
			f.shared = e.shared
			f.text = fmt.Sprintf("%s %s { return %s; }", sig, f.result, e.text)
		default:
			f.void = g.chance(0.5)
			b.depth = 1
			cost := b.block(1+g.pick(2), 3)
			ret := ""
			if !f.void {
				f.result = tInt
				e := b.intExpr(1)
				if e.shared {
					cost++
				}
				b.line("return %s;", e.text)
				ret = " int"
			}
			f.cost = cost
			f.locks = b.lockedDecls
			f.text = fmt.Sprintf("%s%s {\n%s}", sig, ret, b.w.String())
		}
		g.funcs = append(g.funcs, f)
	}
}

// thread generates a template's body within its budget.
func (g *gen) thread(t *template) {
	b := newBody(g, t, nil)
	b.depth = 1
	if g.chance(0.1) {
		// Comments are control flow for nobody, but the scanner must skip them.
		b.w.WriteString("    /* " + t.name + " */ // starts here\n")
	}
	b.first = true
	cost := 0
	for _, f := range t.forced {
		cost += f(b)
	}
	var planned []*chanOp
	for _, op := range t.planned {
		if !op.f.dropped {
			planned = append(planned, op)
		}
	}
	switch {
	case t.main:
		cost += b.mainBody(t.budget)
		for _, op := range planned {
			cost += b.chanOp(op)
		}
	case len(planned) > 0:
		// The channel operations in their order, with the rest of the budget
		// spread over the gaps before, between and after them.
		left := max(t.budget-cost-len(planned), 0)
		for _, op := range planned {
			share := g.pick(left + 1)
			cost += b.block(share, 3)
			left -= share
			cost += b.chanOp(op)
		}
		cost += b.block(left, 4)
	default:
		cost += b.block(max(t.budget-cost, 0), 7)
	}
	if cost == 0 && g.chance(0.9) {
		// A thread without a visible operation is valid, but keep it rare.
		cost += b.write()
	}
	t.steps = max(cost, 1)
	t.nondet = b.combos
	head := "thread " + t.name
	if t.count > 0 {
		head += "[" + t.countText + "]"
	}
	t.text = fmt.Sprintf("%s {\n%s}", head, b.w.String())
}

// estimate is the number of interleavings of the threads' longest paths (each with
// StartSteps more transitions), times the nondet combinations.
func (g *gen) estimate() float64 {
	var steps []int
	f := 1.0
	for _, t := range g.allThreads() {
		for range t.instances() {
			steps = append(steps, t.steps+g.cfg.StartSteps)
			f *= t.nondet
		}
	}
	return multinomial(steps) * f
}

// multinomial is (Σ n_i)! / Π n_i!, as a float (it only bounds sizes).
func multinomial(ns []int) float64 {
	r, k := 1.0, 0
	for _, n := range ns {
		for i := 1; i <= n; i++ {
			k++
			r = r * float64(k) / float64(i)
		}
	}
	return r
}

func (g *gen) render(seed uint64) string {
	var w strings.Builder
	fmt.Fprintf(&w, "// progen seed %d\n", seed)
	for _, c := range g.consts {
		fmt.Fprintf(&w, "const %s = %d;\n", c.name, c.val)
	}
	for _, c := range g.chans {
		w.WriteString(c.decl + "\n")
	}
	for _, sp := range g.spaces {
		g.enter(sp)
		if sp.proc == nil {
			g.renderSpace(&w, "")
			continue
		}
		head := "process " + sp.proc.name
		if sp.proc.count > 0 {
			head += "[" + sp.proc.countText + "]"
		}
		w.WriteString("\n" + head + " {\n")
		g.renderSpace(&w, "    ")
		w.WriteString("}\n")
	}
	g.invariants(&w, seed)
	return w.String()
}

// renderSpace writes the declarations of the current space, each line indented.
func (g *gen) renderSpace(out *strings.Builder, indent string) {
	var w strings.Builder
	for _, v := range g.ints {
		w.WriteString(v.decl + "\n")
	}
	for _, v := range g.bools {
		w.WriteString(v.decl + "\n")
	}
	for _, v := range []*sharedVar{g.sel, g.busy} {
		if v != nil {
			w.WriteString(v.decl + "\n")
		}
	}
	for _, v := range g.arrays {
		w.WriteString(v.decl + "\n")
	}
	// Names of mutexes, functions and threads are visible before their declaration;
	// now and then declare them late to exercise that.
	lateMutexes := g.chance(0.1)
	mutexes := func() {
		for _, m := range g.mutexes {
			if m.n > 0 {
				fmt.Fprintf(&w, "mutex %s[%d];\n", m.name, m.n)
			} else {
				fmt.Fprintf(&w, "mutex %s;\n", m.name)
			}
		}
	}
	if !lateMutexes {
		mutexes()
	}
	lateFuncs := g.chance(0.15)
	funcs := func() {
		for _, f := range g.funcs {
			w.WriteString("\n" + f.text + "\n")
		}
		if g.slot {
			fmt.Fprintf(&w, "\nfunc slot(int n) int { return ((%s %% n) + n) %% n; }\n", g.ints[0].name)
		}
	}
	if !lateFuncs {
		funcs()
	}
	for _, t := range g.threads {
		w.WriteString("\n" + t.text + "\n")
	}
	if lateFuncs {
		funcs()
	}
	if lateMutexes {
		w.WriteString("\n")
		mutexes()
	}
	for _, line := range strings.SplitAfter(w.String(), "\n") {
		if strings.TrimSpace(line) != "" {
			out.WriteString(indent)
		}
		out.WriteString(line)
	}
}
