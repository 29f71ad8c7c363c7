package progen

import (
	"fmt"
	"slices"
	"strings"
)

// Channels. A program with Channels declares a few channels at top level and plans
// flows of messages on them before any body is generated: each flow pairs the sends
// of some threads with the receives of others so that, left alone, every message
// sent is received and nobody waits for ever. The shapes are the ones protocols
// are made of — a pair of threads, a request and its reply, a ring of instances
// indexed by pid or tid, a coordinator that scatters to every instance or gathers
// from all of them. Faults unbalance a flow now and then: a receive nobody
// answers (a deadlock on an empty channel), more sends than the channel and its
// receivers can take (a deadlock on a full one), two operations of one thread in
// the wrong order, a ring whose nodes all receive first. Bodies emit a thread's
// planned operations in their order, with other statements in between, and may add
// unplanned ones: a receive or send guarded by len, len in conditions and guards.

// A channel is a channel declaration: one channel or an array of n.
type channel struct {
	name   string
	fields []typ
	n      int // array length; 0 for a single channel
	cap    int
	decl   string
}

// elem names element index of c (c itself for a single channel).
func (c *channel) elem(index string) string {
	if c.n == 0 {
		return c.name
	}
	return fmt.Sprintf("%s[%s]", c.name, index)
}

// A flow is a planned stream of messages on one channel.
type flow struct {
	ch     *channel
	vals   []valPlan // one per field
	single bool      // one sending thread, one receiving thread: the receiver sees FIFO order
	// dropped says that shrink removed the flow to meet the size bound: its
	// operations, at both ends, emit nothing.
	dropped bool
}

// valKind says what a sender puts into a field.
type valKind uint8

const (
	valAny   valKind = iota // any expression
	valIdent                // the sender's pid or tid; in a scatter, the element's index
	valSeq                  // a numbered message: the m-th message of an operation carries lit+m
)

type valPlan struct {
	kind   valKind
	lit    int64 // valSeq: the first value
	lo, hi int64 // valIdent, valSeq: the values a receiver may get
}

// A chanOp is one operation a thread template performs on a flow's channel.
type chanOp struct {
	f      *flow
	recv   bool
	index  string // the element: "" for a single channel, else an index expression
	spread bool   // one message on each element in turn, 0 .. n-1 (a scatter)
	times  int    // messages in a row (spread: the array's length)
	ident  string // a sender's identity: "pid", "tid" or a literal
	check  bool   // a receiver may assert what it got
}

var chanNames = []string{"c", "d", "e", "q"}

// plan declares channels and plans one to three flows between the thread
// templates of every space.
func (g *gen) plan() {
	n := 1 + g.pick(2)
	if g.chance(0.2) {
		n = 3
	}
	for i := range n {
		if len(g.chans) == len(chanNames) {
			break
		}
		// Undo a flow (but never the first) that makes the threads' planned
		// operations alone interleave in too many ways: the shrinking that
		// follows would drop most flows again.
		planned := map[*template][]*chanOp{}
		for _, t := range g.allThreads() {
			planned[t] = slices.Clone(t.planned)
		}
		chans, flows := len(g.chans), len(g.flows)
		shapes := g.shapes()
		shapes[g.pick(len(shapes))]()
		if i > 0 && g.plannedEstimate() > float64(g.cfg.MaxInterleavings)/4 {
			for t, ops := range planned {
				t.planned = ops
			}
			g.chans, g.flows = g.chans[:chans], g.flows[:flows]
			break
		}
	}
	// A thread that does two operations in the wrong order may wait for a
	// message that only comes after what it does next: a cycle of waits.
	if g.has(Faults) && g.chance(min(1, 1.5*g.cfg.FaultRate)) {
		var ts []*template
		for _, t := range g.allThreads() {
			if len(t.planned) >= 2 {
				ts = append(ts, t)
			}
		}
		if len(ts) > 0 {
			t := ts[g.pick(len(ts))]
			i := g.pick(len(t.planned) - 1)
			t.planned[i], t.planned[i+1] = t.planned[i+1], t.planned[i]
		}
	}
}

// plannedEstimate is the number of interleavings of the planned operations, each
// thread counted with one transition more for what surrounds them.
func (g *gen) plannedEstimate() float64 {
	var steps []int
	for _, t := range g.allThreads() {
		n := 1
		for _, op := range t.planned {
			n += op.times
		}
		for range t.instances() {
			steps = append(steps, n)
		}
	}
	return multinomial(steps)
}

// endpoint is a thread template that can take part in a flow, with how its
// instances tell themselves apart: by tid or pid among k of them, or not at all.
type endpoint struct {
	t     *template
	ident string // "tid", "pid", or "" when one of them does not suffice
	k     int
}

func (g *gen) endpoints() []endpoint {
	var es []endpoint
	for _, t := range g.allThreads() {
		if t.main {
			continue
		}
		e := endpoint{t: t}
		switch {
		case t.count >= 2 && t.sp.instances() == 1:
			e.ident, e.k = "tid", t.count
		case t.count <= 1 && t.sp.instances() >= 2:
			e.ident, e.k = "pid", t.sp.instances()
		}
		es = append(es, e)
	}
	return es
}

// shapes lists the flows that the threads allow; there is always one.
func (g *gen) shapes() []func() {
	es := g.endpoints()
	var out []func()
	// Prefer threads of different processes, the point of channels.
	var pairs, far [][2]endpoint
	for _, s := range es {
		for _, r := range es {
			if s.t == r.t {
				continue
			}
			if _, _, ok := balance(s.t.instances(), r.t.instances()); ok {
				pairs = append(pairs, [2]endpoint{s, r})
				if s.t.sp != r.t.sp {
					far = append(far, [2]endpoint{s, r})
				}
			}
		}
	}
	if len(far) > 0 && g.chance(0.75) {
		pairs = far
	}
	if len(pairs) > 0 {
		pick := func() (endpoint, endpoint) {
			p := pairs[g.pick(len(pairs))]
			return p[0], p[1]
		}
		out = append(out, func() { g.pair(pick()) }, func() { g.pair(pick()) })
		var single [][2]endpoint
		for _, p := range pairs {
			if p[0].t.instances() == 1 && p[1].t.instances() == 1 {
				single = append(single, p)
			}
		}
		if len(single) > 0 && len(g.chans)+2 <= len(chanNames) {
			out = append(out, func() {
				p := single[g.pick(len(single))]
				g.requestReply(p[0], p[1])
			})
		}
	}
	var coords, groups []endpoint
	for _, e := range es {
		if e.t.instances() == 1 {
			coords = append(coords, e)
		}
		if e.t.instances() >= 2 {
			groups = append(groups, e)
		}
	}
	for _, w := range groups {
		if w.ident != "" {
			out = append(out, func() { g.ring(w) })
		}
		for _, c := range coords {
			if w.ident != "" {
				out = append(out, func() { g.scatter(c, w) })
			}
			out = append(out, func() { g.gather(c, w) })
		}
	}
	if len(out) == 0 {
		out = append(out, func() { g.loopback(es[g.pick(len(es))]) })
	}
	return out
}

// balance returns how many messages each of a senders and each of b receivers
// handle so that all are received, if one or two each suffice.
func balance(a, b int) (sends, recvs int, ok bool) {
	switch {
	case a == b:
		return 1, 1, true
	case b == 2*a:
		return 2, 1, true
	case a == 2*b:
		return 1, 2, true
	}
	return 0, 0, false
}

// newChannel declares a channel (an array of n, if n > 0).
func (g *gen) newChannel(n int) *channel {
	c := &channel{name: chanNames[len(g.chans)], n: n, cap: 1 + g.pick(2)}
	c.fields = []typ{tInt}
	if g.chance(0.3) {
		c.fields = append(c.fields, tBool)
	}
	if g.chance(0.15) {
		c.fields = []typ{tBool}
	}
	if g.chance(0.15) && !(g.cfg.GoForm && len(c.fields) == 2) {
		// The Go form packs a message into 64 bits: two ints and a bool
		// do not fit.
		c.fields = append([]typ{tInt}, c.fields...)
	}
	var types []string
	for _, f := range c.fields {
		types = append(types, f.String())
	}
	size := ""
	if n > 0 {
		size = fmt.Sprintf("[%d]", n)
		if k, ok := g.constWith(int64(n)); ok && g.chance(0.6) {
			size = "[" + k + "]"
		}
	}
	capText := fmt.Sprint(c.cap)
	if k, ok := g.constWith(int64(c.cap)); ok && g.chance(0.5) {
		capText = k
	}
	attrs := ""
	if g.has(ChannelKinds) && !g.cfg.GoForm && g.chance(0.15) {
		attrs += " lossy"
	}
	if g.has(ChannelKinds) && !g.cfg.GoForm && g.chance(0.15) {
		attrs += " unordered"
	}
	if g.has(Rendezvous) && attrs == "" && g.chance(0.4) {
		c.cap, capText = 0, "0"
	}
	c.decl = fmt.Sprintf("chan (%s) %s%s capacity %s%s;", strings.Join(types, ", "), c.name, size, capText, attrs)
	g.chans = append(g.chans, c)
	return c
}

// newFlow plans what the senders put into each field of ch: identities in
// [0, k) when they have them (k > 0), numbered messages, or anything.
func (g *gen) newFlow(ch *channel, k, perSender int) *flow {
	f := &flow{ch: ch}
	for _, t := range ch.fields {
		v := valPlan{}
		switch x := g.pick(10); {
		case t == tBool:
		case x < 4 && k > 0:
			v = valPlan{kind: valIdent, lo: 0, hi: int64(k - 1)}
		case x < 8:
			lit := int64(g.pick(3))
			v = valPlan{kind: valSeq, lit: lit, lo: lit, hi: lit + int64(perSender) - 1}
		}
		f.vals = append(f.vals, v)
	}
	g.flows = append(g.flows, f)
	return f
}

// faulty reports whether to unbalance the flow being planned.
func (g *gen) faulty() bool { return g.has(Faults) && g.chance(min(1, 2.5*g.cfg.FaultRate)) }

// unbalance plants a fault in a flow from senders s to receivers r: one receive
// more than there are messages, or more sends than the channel and the receivers
// can take.
func (g *gen) unbalance(f *flow, s, r endpoint, sendIndex, recvIndex string) {
	if g.chance(0.5) {
		insert(g, r.t, &chanOp{f: f, recv: true, index: recvIndex, times: 1})
		return
	}
	insert(g, s.t, &chanOp{f: f, index: sendIndex, times: f.ch.cap + 1, ident: identOf(s)})
}

// insert adds op to t's planned operations at a random place.
func insert(g *gen, t *template, op *chanOp) {
	i := g.pick(len(t.planned) + 1)
	t.planned = slices.Insert(t.planned, i, op)
}

// identOf is what a sender of e sends as its identity.
func identOf(e endpoint) string {
	if e.ident != "" {
		return e.ident
	}
	return "0"
}

// pair plans messages from the instances of s to those of r on a single channel.
func (g *gen) pair(s, r endpoint) {
	sends, recvs, _ := balance(s.t.instances(), r.t.instances())
	if s.t.instances() == r.t.instances() && s.t.instances() == 1 && g.chance(0.3) {
		sends, recvs = 2, 2
	}
	ch := g.newChannel(0)
	f := g.newFlow(ch, s.k, sends)
	f.single = s.t.instances() == 1 && r.t.instances() == 1
	s.t.planned = append(s.t.planned, &chanOp{f: f, times: sends, ident: identOf(s)})
	r.t.planned = append(r.t.planned, &chanOp{f: f, recv: true, times: recvs, check: true})
	if g.faulty() {
		g.unbalance(f, s, r, "", "")
	}
}

// requestReply plans a request from c to w and w's reply.
func (g *gen) requestReply(c, w endpoint) {
	g.pair(c, w)
	g.pair(w, c)
}

// ring plans a ring of the k instances of w: each sends to the next one's
// element of a channel array and receives from its own.
func (g *gen) ring(w endpoint) {
	ch := g.newChannel(w.k)
	f := g.newFlow(ch, w.k, 1)
	k := fmt.Sprint(w.k)
	if c, ok := g.constWith(int64(w.k)); ok && g.chance(0.5) {
		k = c
	}
	send := &chanOp{f: f, index: fmt.Sprintf("(%s + 1) %% %s", w.ident, k), times: 1, ident: w.ident}
	recv := &chanOp{f: f, recv: true, index: w.ident, times: 1, check: true}
	if g.faulty() {
		// Everybody receives first: nobody ever sends.
		w.t.planned = append(w.t.planned, recv, send)
		return
	}
	w.t.planned = append(w.t.planned, send, recv)
}

// scatter plans one message from c to each instance of w, on w's element of a
// channel array.
func (g *gen) scatter(c, w endpoint) {
	ch := g.newChannel(w.k)
	f := g.newFlow(ch, w.k, 1)
	f.single = w.k == 1
	c.t.planned = append(c.t.planned, &chanOp{f: f, spread: true, times: w.k})
	w.t.planned = append(w.t.planned, &chanOp{f: f, recv: true, index: w.ident, times: 1, check: true})
	if g.faulty() {
		g.unbalance(f, c, w, fmt.Sprint(g.pick(w.k)), w.ident)
	}
}

// gather plans one message from each instance of w to c, on a single channel.
func (g *gen) gather(c, w endpoint) {
	ch := g.newChannel(0)
	f := g.newFlow(ch, w.k, 1)
	w.t.planned = append(w.t.planned, &chanOp{f: f, times: 1, ident: identOf(w)})
	c.t.planned = append(c.t.planned, &chanOp{f: f, recv: true, times: w.t.instances(), check: true})
	if g.faulty() {
		g.unbalance(f, w, c, "", "")
	}
}

// loopback plans a thread that sends to itself, when no two threads can talk.
func (g *gen) loopback(e endpoint) {
	ch := g.newChannel(0)
	f := g.newFlow(ch, 0, 1)
	f.single = e.t.instances() == 1
	e.t.planned = append(e.t.planned, &chanOp{f: f, times: 1, ident: identOf(e)},
		&chanOp{f: f, recv: true, times: 1, check: true})
}

// chanOp emits a planned operation, unrolled or as a loop, and returns its cost.
func (b *body) chanOp(op *chanOp) int {
	g := b.g
	if op.times >= 2 && g.has(Loops) && b.loops == 0 && g.chance(0.5) {
		return b.chanLoop(op)
	}
	cost := 0
	for m := range op.times {
		index := op.index
		if op.spread {
			index = fmt.Sprint(m)
		}
		cost += b.message(op, index, fmt.Sprint(m))
	}
	return cost
}

// chanLoop emits op as for (int i = 0; i < times; i++) { one message }.
func (b *body) chanLoop(op *chanOp) int {
	g := b.g
	lc := 0
	if b.first || g.cfg.NoFold {
		lc = 1
	}
	b.begin(false)
	n := op.times
	fixed := n + 1 + lc
	if g.cfg.NoFold {
		fixed += n
	}
	name := b.counter()
	b.open("for (int %s = 0; %s < %d; %s++) {", name, name, n, name)
	b.declare(&local{name: name, typ: tInt, max: int64(n - 1), fixed: true})
	b.loops++
	saved := b.mult
	b.mult *= float64(n)
	index := op.index
	if op.spread {
		index = name
	}
	inner := b.message(op, index, name)
	b.mult = saved
	b.loops--
	b.close("}")
	return fixed + n*inner
}

// counter returns an unused name for a loop counter.
func (b *body) counter() string {
	for _, c := range []string{"i", "j", "k"} {
		if !b.visible(c) {
			return c
		}
	}
	return b.fresh(tInt)
}

// message emits one send or receive of op on element index; seq is the message's
// number in the operation (a literal, or a loop counter).
func (b *body) message(op *chanOp, index, seq string) int {
	if op.recv {
		return b.receive(op, index, seq)
	}
	g := b.g
	var args []string
	for i, t := range op.f.ch.fields {
		v := op.f.vals[i]
		switch {
		case v.kind == valIdent && op.spread:
			args = append(args, index)
		case v.kind == valIdent:
			args = append(args, op.ident)
		case v.kind == valSeq:
			args = append(args, plus(v.lit, seq))
		case t == tBool && g.chance(0.3):
			args = append(args, fmt.Sprint(g.chance(0.5)))
		default:
			args = append(args, b.messageExpr(t))
		}
	}
	cost := b.visibleCost()
	b.line("send(%s, %s);", op.f.ch.elem(index), strings.Join(args, ", "))
	return cost
}

// plus is the text of lit + seq, folded when seq is a literal.
func plus(lit int64, seq string) string {
	var m int64
	if _, err := fmt.Sscan(seq, &m); err == nil {
		return fmt.Sprint(lit + m)
	}
	if lit == 0 {
		return seq
	}
	return fmt.Sprintf("%d + %s", lit, seq)
}

// receive emits a recv of op into fresh locals or the space's memory, and now and
// then an assertion over what arrived: that it is one of the values the senders
// send, or, where FIFO order decides it, the very value.
func (b *body) receive(op *chanOp, index, seq string) int {
	g := b.g
	cost := 0
	var dsts []string
	checked, shared := "", false // the int destination an assertion may check
	var plan valPlan
	for i, t := range op.f.ch.fields {
		dst, isShared := "", false
		if g.chance(0.25) {
			dst = b.sharedDst(t)
			isShared = dst != ""
		}
		if dst == "" {
			dst = b.fresh(t)
			cost += b.declCost()
			b.line("%s %s;", t, dst)
			b.declare(&local{name: dst, typ: t, max: -1})
		}
		dsts = append(dsts, dst)
		if t == tInt && op.f.vals[i].kind != valAny && checked == "" {
			checked, shared, plan = dst, isShared, op.f.vals[i]
		}
	}
	cost += b.visibleCost()
	b.line("recv(%s, %s)%s;", op.f.ch.elem(index), strings.Join(dsts, ", "), b.okFlag(&cost))
	if !op.check || checked == "" || !g.has(Asserts) || !g.chance(0.4) {
		return cost
	}
	var cond string
	switch {
	case op.f.single && plan.kind == valSeq:
		cond = fmt.Sprintf("%s == %s", checked, plus(plan.lit, seq))
	case plan.lo < plan.hi && g.chance(0.25):
		// Fails when the last value can arrive here.
		cond = fmt.Sprintf("%s != %d", checked, plan.hi)
	case plan.lo == plan.hi:
		cond = fmt.Sprintf("%s == %d", checked, plan.lo)
	default:
		cond = fmt.Sprintf("%s >= %d && %s <= %d", checked, plan.lo, checked, plan.hi)
	}
	if shared {
		cost += b.visibleCost()
	} else {
		cost += b.localCost()
	}
	b.line("assert(%s, \"unexpected message\");", cond)
	return cost
}

// sharedDst is a location of the space's memory of type t to receive into, or "".
func (b *body) sharedDst(t typ) string {
	g := b.g
	if t == tBool {
		if len(g.bools) == 0 {
			return ""
		}
		return g.bools[g.pick(len(g.bools))].name
	}
	return b.sharedIntLV()
}

// declCost is the cost of an uninitialised local declaration: control flow, not
// an operation, but at a thread's start it still makes a transition of its own.
func (b *body) declCost() int {
	c := b.localCost()
	if b.g.cfg.NoFold {
		c--
	}
	return c
}

// anyChannel picks a declared channel and an element of it.
func (b *body) anyChannel() (*channel, string) {
	g := b.g
	c := g.chans[g.pick(len(g.chans))]
	if c.n == 0 {
		return c, ""
	}
	return c, b.index(c.n)
}

// lenExpr is len of some channel.
func (b *body) lenExpr() expr {
	c, index := b.anyChannel()
	return expr{fmt.Sprintf("len(%s)", c.elem(index)), true}
}

// lenGuard is a condition on a channel's length, for await, assume and branches.
func (b *body) lenGuard() expr {
	g := b.g
	c, index := b.anyChannel()
	l := fmt.Sprintf("len(%s)", c.elem(index))
	switch g.pick(5) {
	case 0:
		return expr{l + " == 0", true}
	case 1:
		return expr{fmt.Sprintf("%s < %d", l, c.cap), true}
	case 2:
		return expr{fmt.Sprintf("%s == %d", l, c.cap), true}
	}
	return expr{l + " > 0", true}
}

// unplanned is a channel operation outside every flow; guarded by len, it
// receives only when a message is there and sends only when there is room, unless
// another thread gets in between.
func (b *body) unplanned(guarded bool) int {
	g := b.g
	c, index := b.anyChannel()
	f := &flow{ch: c, vals: make([]valPlan, len(c.fields))}
	op := &chanOp{f: f, recv: g.chance(0.5), index: index, times: 1}
	if !guarded {
		return b.message(op, index, "0")
	}
	cost := b.visibleCost()
	if op.recv {
		b.open("if (len(%s) > 0) {", c.elem(index))
	} else {
		b.open("if (len(%s) < %d) {", c.elem(index), c.cap)
	}
	cost += b.message(op, index, "0")
	b.close("}")
	return cost
}

// unplannedSelect is a select over two channel operations outside every flow
// (a receive into fresh locals or a send of small values), now and then with
// a default; a clause may record which case ran in shared memory.
func (b *body) unplannedSelect() int {
	g := b.g
	type comm struct {
		text   string
		clause string
	}
	var comms []comm
	cost := 0
	rendezvousSend := false
	for k := range 2 {
		c, index := b.anyChannel()
		var fields []string
		recv := g.chance(0.5)
		rendezvousSend = rendezvousSend || !recv && c.cap == 0
		for _, t := range c.fields {
			if !recv {
				fields = append(fields, b.messageExpr(t))
				continue
			}
			dst := b.fresh(t)
			cost += b.declCost()
			b.line("%s %s;", t, dst)
			b.declare(&local{name: dst, typ: t, max: -1})
			fields = append(fields, dst)
		}
		op := "send"
		if recv {
			op = "recv"
		}
		cm := comm{text: fmt.Sprintf("%s(%s, %s)", op, c.elem(index), strings.Join(fields, ", "))}
		if recv {
			cm.text += b.okFlag(&cost)
		}
		if g.has(Close) && g.chance(0.6) {
			cm.text += fmt.Sprintf(" when (%s)", b.whenGuard())
		}
		if g.chance(0.5) {
			cm.clause = fmt.Sprintf("%s = %d;", b.sharedIntLV(), k+1)
		}
		comms = append(comms, cm)
	}
	cost += b.visibleCost()
	b.open("select {")
	for _, cm := range comms {
		b.line("case %s:", cm.text)
		if cm.clause != "" {
			b.line("    %s", cm.clause)
		}
	}
	// A default beside a rendezvous send case sees whether a receiver
	// already waits, which the Go form cannot keep (a goroutine reaches its
	// first receive by a step of its own).
	if !(g.cfg.GoForm && rendezvousSend) && g.chance(0.4) {
		b.line("default:")
	}
	b.close("}")
	return cost
}

// messageExpr is a field of a message to send. In the Go form it reads
// locals only: Go evaluates a message before the send waits, .kb when it
// proceeds, so a message that may fail (an element of process memory at an
// index out of range) has no Go form.
func (b *body) messageExpr(t typ) string {
	if b.g.cfg.GoForm {
		if t == tBool {
			return b.localBool(1).text
		}
		return b.localInt(1).text
	}
	return b.exprOf(t, 1).text
}

// closeStmt closes some channel (Close): a later send on it panics, a recv
// on it takes what is left, then zeros.
func (b *body) closeStmt() int {
	c, index := b.anyChannel()
	b.line("close(%s);", c.elem(index))
	return b.visibleCost()
}

// okFlag is, with Close, now and then " ok(b)" for a recv, b a fresh bool
// local declared here (its cost added to cost); "" otherwise.
func (b *body) okFlag(cost *int) string {
	g := b.g
	if !g.has(Close) || !g.chance(0.3) {
		return ""
	}
	ok := b.fresh(tBool)
	*cost += b.declCost()
	b.line("%s %s;", tBool, ok)
	b.declare(&local{name: ok, typ: tBool, max: -1})
	return " ok(" + ok + ")"
}

// whenGuard is the condition of a guarded select case: a channel's length,
// or a constant (false: a case never taken, Go's nil channel). In the Go
// form the condition reads no channel (Go evaluates it in a step before the
// select's): a local condition instead of a length.
func (b *body) whenGuard() string {
	switch b.g.pick(4) {
	case 0:
		return "false"
	case 1:
		return "true"
	}
	if b.g.cfg.GoForm {
		return b.localBool(1).text
	}
	return b.lenGuard().text
}

// pid reports whether pid may be used: in the bodies of a process.
func (b *body) pid() bool { return b.g.space.proc != nil }
