package ir_test

import (
	"bytes"
	"fmt"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
)

func compile(t *testing.T, src string, width int) *ir.Program {
	t.Helper()
	p, err := lang.Compile("test.kb", []byte(src), lang.Config{Width: width})
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	return p
}

// runThread0 runs thread 0 alone to its end (or its first failure) and returns the
// final state and the violation, if any.
func runThread0(t *testing.T, p *ir.Program) (ir.State, *ir.Violation) {
	t.Helper()
	s := p.Initial()
	var ev ir.Event
	for i := 0; i < 1000 && !p.Done(s, 0); i++ {
		if !p.Enabled(s, 0) {
			t.Fatalf("thread 0 blocked at step %d", i)
		}
		p.Step(s, 0, nil, &ev)
		if ev.Violation != nil {
			return s, ev.Violation
		}
	}
	return s, nil
}

func TestArithmetic(t *testing.T) {
	tests := []struct {
		width int
		expr  string
		want  int64
	}{
		{8, "127 + 1", -128},
		{8, "-128 - 1", 127},
		{8, "-128 / -1", -128},
		{8, "-128 % -1", 0},
		{8, "-7 / 2", -3},
		{8, "-7 % 2", -1},
		{8, "7 % -2", 1},
		{8, "64 * 4", 0},
		{8, "1 << 7", -128},
		{8, "-128 >> 7", -1},
		{8, "-(-128)", -128},
		{8, "~0", -1},
		{8, "0x7F & 0x0F", 15},
		{8, "5 ^ 3", 6},
		{8, "5 | 3", 7},
		{32, "2147483647 + 1", -2147483648},
		{32, "-2147483648 / -1", -2147483648},
		{32, "1 << 31", -2147483648},
		{32, "3 < 4 ? 10 : 20", 10},
		{64, "9223372036854775807 + 1", -9223372036854775808},
		{64, "-9223372036854775808 / -1", -9223372036854775808},
		{64, "-9223372036854775808 % -1", 0},
		{16, "1000 * 1000", 16960},
	}
	for _, tc := range tests {
		src := "shared int r;\nthread main { int a = 0; r = a + (" + tc.expr + "); }\n"
		p := compile(t, src, tc.width)
		s, v := runThread0(t, p)
		if v != nil {
			t.Errorf("width %d: %s: unexpected violation %s: %s", tc.width, tc.expr, v.Kind, v.Msg)
			continue
		}
		if got := s[p.Shared[0].Offset]; got != tc.want {
			t.Errorf("width %d: %s = %d, want %d", tc.width, tc.expr, got, tc.want)
		}
	}
}

func TestRunTimeViolations(t *testing.T) {
	tests := []struct {
		name string
		body string
		kind ir.ViolationKind
		line int
	}{
		{"assert", "int a = 1;\n assert(a == 2, \"boom\");", ir.Assertion, 3},
		{"bounds read", "int i = 3;\n int v = arr[i];", ir.Bounds, 3},
		{"bounds write", "int i = -1;\n arr[i] = 1;", ir.Bounds, 3},
		{"div zero", "int z = 0;\n int v = 1 / z;", ir.DivisionByZero, 3},
		{"rem zero", "int z = 0;\n int v = 1 % z;", ir.DivisionByZero, 3},
		{"shift negative", "int n = -1;\n int v = 1 << n;", ir.Shift, 3},
		{"shift width", "int n = 32;\n int v = 1 >> n;", ir.Shift, 3},
		{"bad unlock", "unlock(m);", ir.BadUnlock, 2},
		{"relock", "lock(m);\n lock(m);", ir.Relock, 3},
		{"mutex index", "int i = 2;\n lock(ms[i]);", ir.Bounds, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "shared int arr[3];\nmutex m;\nmutex ms[2];\nthread main {\n " + tc.body + "\n}\n"
			// Line numbers in the table count from the thread's first body line (line 5).
			p := compile(t, src, 32)
			_, v := runThread0(t, p)
			if v == nil {
				t.Fatalf("no violation, want %s", tc.kind)
			}
			if v.Kind != tc.kind || v.Pos.Line != tc.line+3 {
				t.Errorf("got %s at line %d (%s), want %s at line %d", v.Kind, v.Pos.Line, v.Msg, tc.kind, tc.line+3)
			}
		})
	}
}

func TestShortCircuitAvoidsErrors(t *testing.T) {
	src := `shared int arr[3];
thread main {
    int i = 5;
    int z = 0;
    bool a = i < 3 && arr[i] == 0;
    bool b = z == 0 || 10 / z > 1;
    int c = z != 0 ? 10 / z : 7;
    assert(!a && b && c == 7);
}`
	p := compile(t, src, 32)
	if _, v := runThread0(t, p); v != nil {
		t.Fatalf("violation %s: %s", v.Kind, v.Msg)
	}
}

func TestBlockingAndDeadlock(t *testing.T) {
	src := `mutex a;
mutex b;
shared int x;
thread one { lock(a); lock(b); unlock(b); unlock(a); }
thread two { lock(b); lock(a); unlock(a); unlock(b); }
thread waiter { await(x == 1); }
thread cut { assume(x == 5); }
`
	p := compile(t, src, 32)
	s := p.Initial()
	var ev ir.Event
	step := func(th int) {
		t.Helper()
		if !p.Enabled(s, th) {
			t.Fatalf("thread %d not enabled", th)
		}
		p.Step(s, th, nil, &ev)
		if ev.Violation != nil {
			t.Fatalf("violation %v", ev.Violation)
		}
	}
	if st := p.Status(s, 2); st != ir.Blocked {
		t.Errorf("await(x == 1) with x = 0: status %d, want Blocked", st)
	}
	if st := p.Status(s, 3); st != ir.BlockedAssume {
		t.Errorf("assume(x == 5) with x = 0: status %d, want BlockedAssume", st)
	}
	step(0) // one: lock(a)
	step(1) // two: lock(b)
	if p.Enabled(s, 0) || p.Enabled(s, 1) {
		t.Fatal("ABBA: both lockers should be blocked")
	}
	// The thread sitting on a false assume cuts the execution: no deadlock.
	if v := p.Deadlock(s); v != nil {
		t.Errorf("deadlock reported although a thread waits on a false assume: %s", v.Msg)
	}
	p2 := compile(t, "mutex a;\nmutex b;\nthread one { lock(a); lock(b); }\nthread two { lock(b); lock(a); }\n", 32)
	s2 := p2.Initial()
	p2.Step(s2, 0, nil, &ev)
	p2.Step(s2, 1, nil, &ev)
	v := p2.Deadlock(s2)
	if v == nil || v.Kind != ir.Deadlock {
		t.Fatalf("ABBA state: deadlock not recognised")
	}
	// Terminated threads holding nothing, everyone done: not a deadlock.
	p3 := compile(t, "shared int x;\nthread one { x = 1; }\n", 32)
	s3 := p3.Initial()
	p3.Step(s3, 0, nil, &ev)
	if !p3.Done(s3, 0) || p3.Deadlock(s3) != nil {
		t.Fatal("a finished program is not a deadlock")
	}

	// End classifies the same states in one pass.
	p3i := p3.Initial()
	for _, c := range []struct {
		name    string
		p       *ir.Program
		s       ir.State
		want    ir.Ending
		deadlck bool
	}{
		{"a thread enabled", p3, p3i, ir.Running, false},
		{"every thread terminated", p3, s3, ir.Complete, false},
		{"ABBA beside a false assume", p, s, ir.CutByAssume, false},
		{"ABBA", p2, s2, ir.Deadlocked, true},
	} {
		end, v := c.p.End(c.s)
		if end != c.want || (v != nil) != c.deadlck {
			t.Errorf("%s: End = %d, %v; want %d, violation %v", c.name, end, v, c.want, c.deadlck)
		}
	}
}

func TestJoinAndTermination(t *testing.T) {
	src := "shared int x;\nthread w[2] { x += 1; }\nthread main { join(w); assert(x == 2); }\n"
	p := compile(t, src, 32)
	s := p.Initial()
	var ev ir.Event
	if p.Enabled(s, 2) {
		t.Fatal("join enabled before the workers terminated")
	}
	p.Step(s, 0, nil, &ev)
	if ev.Accesses[len(ev.Accesses)-1] != (ir.Access{Loc: p.ThreadLocation(0), Kind: ir.Write, Value: 1}) {
		t.Errorf("terminating step does not write the thread's status: %v", ev.Accesses)
	}
	if p.Enabled(s, 2) {
		t.Fatal("join enabled with one worker running")
	}
	p.Step(s, 1, nil, &ev)
	if !p.Enabled(s, 2) {
		t.Fatal("join disabled after both workers terminated")
	}
	probe := p.NewProbe()
	acc := probe.Accesses(s, 2, p.Status(s, 2), ir.Exact, nil)
	if len(acc) < 2 || acc[0].Loc != p.ThreadLocation(0) || acc[1].Loc != p.ThreadLocation(1) {
		t.Errorf("Exact accesses of the join = %v, want reads of both workers' status first", acc)
	}
	if probe.Steps != 1 {
		t.Errorf("the probe executed %d steps, want 1", probe.Steps)
	}
}

func TestChoicesEnumerateEveryCombination(t *testing.T) {
	src := "shared int r;\nthread main { int a = nondet(0, 2); int b = nondet(-1, 0); r = a * 10 + b; }\n"
	p := compile(t, src, 32)
	seen := map[int64]bool{}
	var ch ir.Choices
	var fixed []int64
	for {
		s := p.Initial()
		var ev ir.Event
		ch.Reset(fixed)
		for !p.Done(s, 0) {
			p.Step(s, 0, &ch, &ev)
		}
		seen[s[0]] = true
		var more bool
		if fixed, more = ch.Next(fixed); !more {
			break
		}
	}
	if len(seen) != 6 {
		t.Errorf("saw %d outcomes, want 6: %v", len(seen), seen)
	}
}

func TestReplayRejectsBadSchedules(t *testing.T) {
	p := compile(t, "mutex m;\nthread a { lock(m); }\nthread b { lock(m); }\n", 32)
	if _, err := p.Replay([]ir.Move{{Thread: 0}, {Thread: 1}}); err == nil {
		t.Error("replay of a step by a blocked thread succeeded")
	}
	if _, err := p.Replay([]ir.Move{{Thread: 7}}); err == nil {
		t.Error("replay of a nonexistent thread succeeded")
	}
	if _, _, err := p.Confirm(nil, ir.Deadlock); err == nil {
		t.Error("Check accepted a trace that does not deadlock")
	}
	// a terminates holding m: b waits forever.
	if _, v, err := p.Confirm([]ir.Move{{Thread: 0}}, ir.Deadlock); err != nil || v.Kind != ir.Deadlock {
		t.Errorf("terminating while holding a lock: %v", err)
	}
}

func TestStateHashEqual(t *testing.T) {
	a := ir.State{1, 2, 3}
	b := a.Clone()
	if !a.Equal(b) || a.Hash() != b.Hash() {
		t.Fatal("clone differs")
	}
	b[1] = 5
	if a.Equal(b) || a.Hash() == b.Hash() {
		t.Fatal("different states compare equal or hash alike")
	}
}

// HashBytes tells apart byte strings that differ in one byte, in length, or
// only in trailing zeros (the last word is padded with zeros), and hashes
// equal strings alike.
func TestHashBytes(t *testing.T) {
	base := make([]byte, 150) // two blocks of 64 bytes, two words and a partial one
	for i := range base {
		base[i] = byte(i * 7)
	}
	seen := map[uint64]string{}
	add := func(name string, b []byte) {
		h := ir.HashBytes(b)
		if other, ok := seen[h]; ok {
			t.Errorf("%s hashes as %s", name, other)
		}
		seen[h] = name
	}
	add("base", base)
	for i := range base {
		b := bytes.Clone(base)
		b[i]++
		add(fmt.Sprintf("byte %d changed", i), b)
	}
	for n := range len(base) {
		add(fmt.Sprintf("first %d bytes", n), base[:n])
	}
	add("one zero more", append(bytes.Clone(base), 0))
	add("two zeros more", append(bytes.Clone(base), 0, 0))
	if ir.HashBytes(base) != ir.HashBytes(bytes.Clone(base)) {
		t.Error("equal strings hash differently")
	}
}

// TestGuardsReadLocals: a guard over a local reads the thread's own frame.
func TestGuardsReadLocals(t *testing.T) {
	p := compile(t, "shared int x = 5;\nmutex ms[2];\nthread a { int l = 1; yield; await(l == 1); lock(ms[l]); }\n", 32)
	s := p.Initial()
	var ev ir.Event
	p.Step(s, 0, nil, &ev) // int l = 1; (folded into the start) and yield
	for i := 0; i < 3 && !p.Done(s, 0); i++ {
		if !p.Enabled(s, 0) {
			t.Fatalf("step %d: blocked although l == 1", i)
		}
		p.Step(s, 0, nil, &ev)
		if ev.Violation != nil {
			t.Fatal(ev.Violation.Msg)
		}
	}
	if s[p.MutexBase+1] != 1 {
		t.Errorf("lock(ms[l]) with l == 1 took lock %v", s[p.MutexBase:p.MutexBase+2])
	}
}

// TestStepStatusDoNotAllocate: Status, Enabled and Step are the inner loop of every
// explicit search; with a reused Event and Choices (or none) they must not allocate.
func TestStepStatusDoNotAllocate(t *testing.T) {
	src := "shared int x;\nmutex ms[2];\nshared int a[2];\n" +
		"thread w[2] { int l = nondet(0, 1); await(x >= 0); lock(ms[l]); a[l] += tid; unlock(ms[l]); }\n" +
		"thread main { join(w); assume(x == 0); }\n"
	p := compile(t, src, 32)
	s0 := p.Initial()
	s := s0.Clone()
	var ch ir.Choices
	ev := ir.Event{TraceLocals: true}
	for _, choices := range []*ir.Choices{&ch, nil} {
		run := func() {
			copy(s, s0)
			for moved := true; moved; {
				moved = false
				for th := range p.Threads {
					if p.Status(s, th) != ir.Enabled || p.Done(s, th) {
						continue
					}
					ch.Reset(nil)
					p.Step(s, th, choices, &ev)
					if ev.Violation != nil {
						t.Fatalf("violation %s", ev.Violation.Msg)
					}
					moved = true
					break
				}
			}
			if !p.Done(s, len(p.Threads)-1) {
				t.Fatal("main did not terminate")
			}
		}
		run() // grow the Event's and Choices' buffers
		if n := testing.AllocsPerRun(20, run); n != 0 {
			t.Errorf("Choices %v: Status/Step allocate %v times per run, want 0", choices != nil, n)
		}
	}
}

// WaitsFor names what a blocked thread waits for; a thread that can move
// waits for nothing, whatever its next operation (a send to a channel with
// room, a lock of a free mutex, a recv from a channel with a message).
func TestWaitsFor(t *testing.T) {
	p := compile(t, `chan (int) a capacity 1;
chan (int) b capacity 1;
chan (int) full capacity 1;
mutex m;
mutex held;
thread f { send(full, 1); lock(held); }
thread s { send(a, 1); }
thread r { int x; recv(b, x); }
thread l { lock(m); }
thread g { send(full, 2); }
thread h { lock(held); }
`, 32)
	st := p.Initial()
	id := func(name string) int {
		for i, th := range p.Threads {
			if th.Name == name {
				return i
			}
		}
		t.Fatalf("no thread %s", name)
		return -1
	}
	// f fills channel full and takes held.
	for range 2 {
		var ev ir.Event
		p.Step(st, id("f"), nil, &ev)
		if ev.Violation != nil {
			t.Fatal(ev.Violation)
		}
	}
	for _, tc := range []struct{ thread, want string }{
		{"s", "nothing (it can move)"},
		{"r", "channel b, which is empty"},
		{"l", "nothing (it can move)"},
		{"g", "channel full, which is full (1 messages)"},
		{"h", "mutex held, held by f"},
		{"f", "terminated"},
	} {
		if got := p.WaitsFor(st, id(tc.thread)); got != tc.want {
			t.Errorf("%s waits for %q, want %q", tc.thread, got, tc.want)
		}
	}
}
