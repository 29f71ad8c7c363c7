package ir_test

import (
	"slices"
	"strings"
	"testing"

	"kbmc/ir"
)

// threadNamed returns the number of p's thread called name.
func threadNamed(t *testing.T, p *ir.Program, name string) int {
	t.Helper()
	for i, th := range p.Threads {
		if th.Name == name {
			return i
		}
	}
	t.Fatalf("no thread %s", name)
	return -1
}

// schedule runs the named threads' next steps in order on s (in place) and
// returns the last step's event; every step but the last must succeed.
func schedule(t *testing.T, p *ir.Program, s ir.State, names ...string) *ir.Event {
	t.Helper()
	var ev ir.Event
	for i, name := range names {
		th := threadNamed(t, p, name)
		if st := p.Status(s, th); st != ir.Enabled {
			t.Fatalf("step %d: %s is %v, not enabled", i+1, name, st)
		}
		p.Step(s, th, nil, &ev)
		if ev.Violation != nil && i < len(names)-1 {
			t.Fatalf("step %d of %s: %v", i+1, name, ev.Violation)
		}
	}
	ev.Accesses = slices.Clone(ev.Accesses)
	return &ev
}

// TestClose: Go's close of a channel. A send on a closed channel and a second
// close panic; a recv on a closed channel takes the messages left, then zeros
// with ok false; a closed channel's state differs from an open one's in an
// identity cell.
func TestClose(t *testing.T) {
	const src = `chan (int, bool) c capacity 2;
shared int got = 0;
shared bool flag = false;
shared bool okShared = true;
thread closer { close(c); }
thread closer2 { close(c); }
thread sender { send(c, 4, true); }
thread recv1 { int x = 9; bool b = true; bool ok = false; recv(c, x, b) ok(ok); got = x; flag = b; okShared = ok; }
`
	for _, tc := range []struct {
		name     string
		schedule []string
		kind     ir.ViolationKind // of the last step; NoViolation: it succeeds
		msg      string
		got      int64 // with ok: the shared cells after the schedule
		flag, ok bool
	}{
		{"send after close", []string{"closer", "sender"}, ir.Panic, "send on closed channel", 0, false, false},
		{"close twice", []string{"closer", "closer2"}, ir.Panic, "close of closed channel", 0, false, false},
		{"message left, then closed", []string{"sender", "closer", "recv1"}, ir.NoViolation, "", 4, true, true},
		{"closed and empty", []string{"closer", "recv1"}, ir.NoViolation, "", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, src, 8)
			s := p.Initial()
			ev := schedule(t, p, s, tc.schedule...)
			if tc.kind != ir.NoViolation {
				if ev.Violation == nil || ev.Violation.Kind != tc.kind || ev.Violation.Msg != tc.msg {
					t.Fatalf("violation %v, want %v: %s", ev.Violation, tc.kind, tc.msg)
				}
				return
			}
			for !p.Done(s, threadNamed(t, p, "recv1")) {
				schedule(t, p, s, "recv1")
			}
			got := s[p.Shared[0].Offset]
			flag, ok := s[p.Shared[1].Offset] != 0, s[p.Shared[2].Offset] != 0
			if got != tc.got || flag != tc.flag || ok != tc.ok {
				t.Errorf("got=%d flag=%v ok=%v, want %d %v %v", got, flag, ok, tc.got, tc.flag, tc.ok)
			}
		})
	}

	p := compile(t, src, 8)
	open := p.Initial()
	closed := p.Initial()
	ev := schedule(t, p, closed, "closer")
	if ev.Channel != 0 || ev.ChannelOp != ir.OpClose {
		t.Errorf("close's event: channel %d op %v, want 0 close", ev.Channel, ev.ChannelOp)
	}
	send, recv := p.ChannelEnds(0)
	for _, end := range []int{send, recv} {
		if !slices.Contains(ev.Accesses, ir.Access{Loc: end, Kind: ir.Write, Value: 1}) {
			t.Errorf("close's accesses %v do not write %s", ev.Accesses, p.LocationName(end))
		}
	}
	if !p.ChannelClosed(closed, 0) || p.ChannelClosed(open, 0) {
		t.Errorf("ChannelClosed: open %v, closed %v", p.ChannelClosed(open, 0), p.ChannelClosed(closed, 0))
	}
	// closer's location differs too; compare the channel's cells alone.
	if slices.Equal(p.ChannelQueue(open, 0), p.ChannelQueue(closed, 0)) {
		t.Error("a closed channel's queue equals the open one's: a stateful search would merge them")
	}
	if got := p.ChannelOf(0).Stride(); got != 2+2*2 {
		t.Errorf("a closable channel's stride is %d, want 6 (length, two slots of two fields, closed flag)", got)
	}
	// A receive on a closed, empty channel says so in its event, and writes
	// the receiving end, no slot.
	for ev = schedule(t, p, closed, "recv1"); ev.Channel < 0; ev = schedule(t, p, closed, "recv1") {
	}
	if !ev.Closed || ev.Channel != 0 || ev.ChannelOp != ir.OpRecv || !slices.Equal(ev.Message, []int64{0, 0}) {
		t.Errorf("recv on a closed empty channel: closed %v channel %d op %v message %v", ev.Closed, ev.Channel, ev.ChannelOp, ev.Message)
	}
	for _, a := range ev.Accesses {
		if p.OrderedLocation(a.Loc) {
			t.Errorf("recv on a closed empty channel accesses slot %s", p.LocationName(a.Loc))
		}
	}
	if !slices.Contains(ev.Accesses, ir.Access{Loc: recv, Kind: ir.Write}) {
		t.Errorf("recv on a closed empty channel: %v does not write the receiving end", ev.Accesses)
	}
}

// TestCloseChecks: the nodes that may panic list it (Node.Checks): a close,
// a send on a closable channel (not on another), a select's send case on one.
func TestCloseChecks(t *testing.T) {
	p := compile(t, `chan (int) c capacity 1;
chan (int) d capacity 1;
thread a { close(c); }
thread b { send(c, 1); send(d, 1); int x = 0; select { case send(c, 2): case recv(d, x) ok(ok): } }
shared bool ok;
`, 8)
	panics := map[string]int{}
	for _, tm := range p.Templates {
		for _, n := range tm.Nodes {
			for _, c := range n.Checks() {
				if c.Kind == ir.Panic {
					panics[n.Text]++
				}
			}
		}
	}
	want := map[string]int{"close(c)": 1, "send(c, 1)": 1, "select { send(c, 2) | recv(d, x) ok(ok) }": 1}
	for text, n := range want {
		if panics[text] != n {
			t.Errorf("%s lists %d panics, want %d (all: %v)", text, panics[text], n, panics)
		}
	}
	if len(panics) != len(want) {
		t.Errorf("panics listed at %v, want only at %v", panics, want)
	}
}

// TestCloseRendezvous: closing a rendezvous channel enables every receiver
// waiting on it, each receiving zeros (ok false) by a step of its own, and a
// sender blocked on it, which then panics; a sender's Handoffs do not include
// the receivers a close wakes (a close hands nothing over).
func TestCloseRendezvous(t *testing.T) {
	p := compile(t, `chan (int) c capacity 0;
shared int sum = 0;
thread r[2] { int x = 5; bool ok = true; recv(c, x) ok(ok); sum = sum + x + (ok ? 10 : 1); }
thread closer { close(c); }
thread s { send(c, 3); }
`, 8)
	s := p.Initial()
	r0, r1, sender := threadNamed(t, p, "r[0]"), threadNamed(t, p, "r[1]"), threadNamed(t, p, "s")
	// Let both receivers arrive at their recv (their declarations first).
	for _, r := range []int{r0, r1} {
		for p.Status(s, r) == ir.Enabled {
			var ev ir.Event
			p.Step(s, r, nil, &ev)
		}
		if p.Status(s, r) != ir.Blocked {
			t.Fatalf("%s is %v before the close, want blocked at its recv", p.Threads[r].Name, p.Status(s, r))
		}
	}
	before := append(ir.State(nil), s...)
	schedule(t, p, s, "closer")
	for _, r := range []int{r0, r1} {
		if p.Status(s, r) != ir.Enabled {
			t.Fatalf("%s is %v after the close, want enabled", p.Threads[r].Name, p.Status(s, r))
		}
	}
	if st := p.Status(s, sender); st != ir.Enabled {
		t.Fatalf("the sender is %v on a closed rendezvous, want enabled (to panic)", st)
	}
	ev := schedule(t, p, append(ir.State(nil), s...), "s")
	if ev.Violation == nil || ev.Violation.Kind != ir.Panic || ev.Partner >= 0 {
		t.Fatalf("send on a closed rendezvous: %v (partner %d), want a panic and no handoff", ev.Violation, ev.Partner)
	}
	schedule(t, p, s, "r[0]", "r[0]", "r[1]", "r[1]")
	if got := s[p.Shared[0].Offset]; got != 2 {
		t.Errorf("sum = %d, want 2: both receivers got zero and ok false", got)
	}
	// Before the close, the send hands its message to a receiver instead.
	ev = schedule(t, p, before, "s")
	if ev.Violation != nil || ev.Partner < 0 {
		t.Errorf("send before the close: %v, partner %d; want a handoff", ev.Violation, ev.Partner)
	}
	for _, tm := range p.Templates {
		if tm.Name != "closer" {
			continue
		}
		for _, tr := range tm.Transitions {
			if len(tr.Handoffs) > 0 {
				t.Errorf("the close's transition has handoffs %v", tr.Handoffs)
			}
		}
	}
}

// TestSelectWhen: a select case whose When is false is not considered: not
// ready though its channel is, not taken, not what a blocked select waits
// for; a select whose every case is off waits for ever (a deadlock). When
// reads what it reads: a blocked select's guard reads its condition.
func TestSelectWhen(t *testing.T) {
	const src = `chan (int) a capacity 1;
chan (int) b capacity 1;
shared bool on = false;
thread fill { send(a, 1); }
thread sel {
    int x = 0;
    select {
    case recv(a, x) when (on):
        x = 10;
    case recv(b, x):
        x = 20;
    }
}
thread flip { on = true; }
`
	p := compile(t, src, 8)
	sel := threadNamed(t, p, "sel")
	s := p.Initial()
	schedule(t, p, s, "fill")
	for p.Status(s, sel) == ir.Enabled && p.Transition(s, sel).EntryNode().Op != ir.OpSelect {
		schedule(t, p, s, "sel")
	}
	if st := p.Status(s, sel); st != ir.Blocked {
		t.Fatalf("sel is %v with a's case off and b empty, want blocked", st)
	}
	if w := p.WaitsFor(s, sel); !strings.Contains(w, "b, which is empty") || strings.Contains(w, "channel a") {
		t.Errorf("WaitsFor = %q, want b alone", w)
	}
	pr := p.NewProbe()
	guard := pr.Accesses(s, sel, ir.Blocked, ir.Exact, nil)
	onLoc := p.CellLocation(p.Shared[0].Offset)
	if !slices.ContainsFunc(guard, func(a ir.Access) bool { return a.Loc == onLoc && a.Kind == ir.Read }) {
		t.Errorf("the blocked select's guard %v does not read on", guard)
	}
	schedule(t, p, s, "flip")
	if st := p.Status(s, sel); st != ir.Enabled {
		t.Fatalf("sel is %v once on is true, want enabled", st)
	}
	ev := schedule(t, p, s, "sel")
	if ev.Channel != 0 {
		t.Errorf("the select took channel %d, want a (0)", ev.Channel)
	}

	// Every case off, no default: a deadlock, though a holds a message.
	p = compile(t, `chan (int) a capacity 1;
thread main {
    bool on = false;
    int x = 0;
    send(a, 1);
    select {
    case recv(a, x) when (on):
    }
}`, 8)
	s = p.Initial()
	for p.Status(s, 0) == ir.Enabled {
		schedule(t, p, s, "main")
	}
	if end, v := p.End(s); end != ir.Deadlocked || v == nil || v.Kind != ir.Deadlock {
		t.Errorf("End = %v, %v; want a deadlock", end, v)
	}
}

// TestSelectWhenRendezvous: a receiver waits on a rendezvous only through a
// case whose When holds, and a blocked sender's guard reads the waiting
// receivers' conditions, which a write may change to enable it.
func TestSelectWhenRendezvous(t *testing.T) {
	p := compile(t, `chan (int) c capacity 0;
shared bool on = false;
thread r { int x = 0; select { case recv(c, x) when (on): } }
thread s { send(c, 1); }
thread flip { on = true; }
`, 8)
	s := p.Initial()
	r, snd := threadNamed(t, p, "r"), threadNamed(t, p, "s")
	for p.Status(s, r) == ir.Enabled {
		schedule(t, p, s, "r")
	}
	if st := p.Status(s, snd); st != ir.Blocked {
		t.Fatalf("the sender is %v while the receiver's case is off, want blocked", st)
	}
	guard := p.NewProbe().Accesses(s, snd, ir.Blocked, ir.Exact, nil)
	onLoc := p.CellLocation(p.Shared[0].Offset)
	if !slices.ContainsFunc(guard, func(a ir.Access) bool { return a.Loc == onLoc && a.Kind == ir.Read }) {
		t.Errorf("the blocked sender's guard %v does not read the receiver's condition", guard)
	}
	schedule(t, p, s, "flip")
	ev := schedule(t, p, s, "s")
	if ev.Violation != nil || ev.Partner != r {
		t.Errorf("send once the case is on: %v, partner %d; want a handoff to r", ev.Violation, ev.Partner)
	}
}

// goProgram builds by hand what the Go front end will: a mutex m, a
// goroutine main (Program.Entry) and a goroutine worker, each a list of
// nodes run in order.
func goProgram(t *testing.T, entry bool, mainOps, workerOps []*ir.Node) *ir.Program {
	t.Helper()
	m := &ir.Mutex{Name: "m"}
	tmpl := func(name string, ops []*ir.Node) *ir.Template {
		tm := &ir.Template{Name: name}
		for i, n := range ops {
			n.Cut = true
			if n.Mutex == nil && (n.Op == ir.OpLock || n.Op == ir.OpUnlock) {
				n.Mutex = m
			}
			n.Next = i + 1
			if i == len(ops)-1 {
				n.Next = ir.Exit
			}
			n.Pos = ir.Pos{Line: i + 1, Col: 1}
			n.Text = n.Op.String()
			tm.Nodes = append(tm.Nodes, n)
		}
		return tm
	}
	mainT, workerT := tmpl("main", mainOps), tmpl("worker", workerOps)
	p := &ir.Program{Width: 8, Mutexes: []*ir.Mutex{m}, Templates: []*ir.Template{mainT, workerT}}
	if entry {
		p.Entry = mainT
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGoUnlockAndPanic: Go's unlock (Node.AnyOwner) releases a mutex another
// thread holds and panics on a free one; an assert of Kind Panic reports a
// panic with its message; the checks list them.
func TestGoUnlockAndPanic(t *testing.T) {
	never := &ir.Expr{Op: ir.EConst, Type: ir.Bool, Val: 0}
	for _, tc := range []struct {
		name    string
		main    []*ir.Node
		worker  []*ir.Node
		order   []string
		kind    ir.ViolationKind
		msg     string
		checked ir.ViolationKind // what the last node's Checks list
	}{
		{"unlock by another goroutine", []*ir.Node{{Op: ir.OpLock}}, []*ir.Node{{Op: ir.OpUnlock, AnyOwner: true}},
			[]string{"main", "worker"}, ir.NoViolation, "", ir.Panic},
		{"unlock of an unlocked mutex", []*ir.Node{{Op: ir.OpYield}}, []*ir.Node{{Op: ir.OpUnlock, AnyOwner: true}},
			[]string{"worker"}, ir.Panic, "sync: unlock of unlocked mutex (m)", ir.Panic},
		{"owner's unlock, .kb's", []*ir.Node{{Op: ir.OpLock}}, []*ir.Node{{Op: ir.OpUnlock}},
			[]string{"main", "worker"}, ir.BadUnlock, "unlock of m, which worker does not hold", ir.BadUnlock},
		{"panic(…)", []*ir.Node{{Op: ir.OpAssert, X: never, Kind: ir.Panic, Msg: "panic: boom"}}, []*ir.Node{{Op: ir.OpYield}},
			[]string{"main"}, ir.Panic, "panic: boom", ir.Panic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := goProgram(t, true, tc.main, tc.worker)
			s := p.Initial()
			ev := schedule(t, p, s, tc.order...)
			switch {
			case tc.kind == ir.NoViolation && ev.Violation != nil:
				t.Fatalf("violation %v, want none", ev.Violation)
			case tc.kind != ir.NoViolation && (ev.Violation == nil || ev.Violation.Kind != tc.kind || ev.Violation.Msg != tc.msg):
				t.Fatalf("violation %v, want %v: %s", ev.Violation, tc.kind, tc.msg)
			}
			if tc.kind == ir.NoViolation && p.LockOwner(s, 0) != -1 {
				t.Errorf("m is held by %d after the unlock", p.LockOwner(s, 0))
			}
			last := p.Threads[threadNamed(t, p, tc.order[len(tc.order)-1])].Template.Nodes[0]
			if cs := last.Checks(); len(cs) != 1 || cs[0].Kind != tc.checked {
				t.Errorf("Checks = %v, want one %v", cs, tc.checked)
			}
		})
	}
	if ir.Panic.String() != "panic" || ir.Leak.String() != "leak" {
		t.Errorf("kinds named %q, %q", ir.Panic, ir.Leak)
	}
	for _, k := range []ir.ViolationKind{ir.Panic, ir.Leak} {
		if got, ok := ir.ParseViolationKind(k.String()); !ok || got != k {
			t.Errorf("ParseViolationKind(%q) = %v, %v", k, got, ok)
		}
	}
}

// TestLeak: in a Go program (Program.Entry set) an end state in which the
// entry goroutine has returned and another waits for ever is a leak; with
// the entry goroutine waiting too it is a deadlock, and so it is in a program
// without an entry.
func TestLeak(t *testing.T) {
	// The worker takes m and never releases it, or waits for it.
	for _, tc := range []struct {
		name  string
		entry bool
		main  []*ir.Node
		order []string
		want  ir.ViolationKind
	}{
		{"main returned, worker waits", true, []*ir.Node{{Op: ir.OpLock}}, []string{"main"}, ir.Leak},
		{"main waits too", true, []*ir.Node{{Op: ir.OpYield}, {Op: ir.OpLock}}, []string{"worker", "main"}, ir.Deadlock},
		{"no entry goroutine", false, []*ir.Node{{Op: ir.OpLock}}, []string{"main"}, ir.Deadlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := goProgram(t, tc.entry, tc.main, []*ir.Node{{Op: ir.OpLock}})
			s := p.Initial()
			var moves []ir.Move
			for _, name := range tc.order {
				schedule(t, p, s, name)
				moves = append(moves, ir.Move{Thread: threadNamed(t, p, name)})
			}
			end, v := p.End(s)
			if end != ir.Deadlocked || v == nil || v.Kind != tc.want {
				t.Fatalf("End = %v, %v; want a %v", end, v, tc.want)
			}
			if tc.want == ir.Leak && !strings.HasPrefix(v.Msg, "goroutine leak: main returned") {
				t.Errorf("message %q", v.Msg)
			}
			if _, _, err := p.Confirm(moves, tc.want); err != nil {
				t.Errorf("Confirm(%v): %v", tc.want, err)
			}
			other := ir.Leak
			if tc.want == ir.Leak {
				other = ir.Deadlock
			}
			if _, _, err := p.Confirm(moves, other); err == nil {
				t.Errorf("Confirm(%v) accepts an end state that is a %v", other, tc.want)
			}
		})
	}
}

// TestFinishChecksGoFields: Finish refuses an entry goroutine that is none
// of the program's templates, an ok flag on a send and a When outside a
// select's case.
func TestFinishChecksGoFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(p *ir.Program)
	}{
		{"foreign entry", func(p *ir.Program) { p.Entry = &ir.Template{Name: "elsewhere"} }},
		{"ok on a send", func(p *ir.Program) {
			for _, n := range p.Templates[0].Nodes {
				if n.Op == ir.OpSend {
					n.OK = &ir.LValue{Var: p.Shared[0], Type: ir.Bool}
				}
			}
		}},
		{"when outside a select", func(p *ir.Program) {
			p.Templates[0].Nodes[0].When = &ir.Expr{Op: ir.EConst, Type: ir.Bool, Val: 1}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, "chan (int) c capacity 1; shared bool b; thread a { send(c, 1); }", 8)
			tc.edit(p)
			if err := p.Finish(); err == nil {
				t.Error("Finish accepts it")
			}
		})
	}
}
