package symbolic

import (
	"testing"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// TestChannels checks the encodings of send, recv and len against the
// reference DFS, and against the verdict each program was written to have, on
// every solver × encoding × reduction combination: small protocols, FIFO order
// across the ring buffer's wrap-around, blocking while full and while empty,
// deadlocks of threads blocked on channels, channel arrays with indices
// computed at run time, bounds violations, and the order in which a send's
// fields and a recv's destinations are evaluated.
func TestChannels(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		depth int
		noDL  bool
		want  verify.Verdict
		kind  ir.ViolationKind
	}{
		{name: "request-reply", want: verify.Safe, src: `
chan (int, int) req capacity 1;
chan (int) rep[2] capacity 1;
process client[2] { thread run {
    send(req, pid, 10 + pid);
    int v; recv(rep[pid], v);
    assert(v == 11 + pid, "wrong reply");
} }
process server { thread run {
    for (int i = 0; i < 2; i++) { int who; int x; recv(req, who, x); send(rep[who], x + 1); }
} }`},
		{name: "reply to the wrong client", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int, int) req capacity 2;
chan (int) rep[2] capacity 1;
process client[2] { thread run {
    send(req, pid, 10 + pid);
    int v; recv(rep[pid], v);
    assert(v == 11 + pid, "wrong reply");
} }
process server { thread run {
    int who; int x; recv(req, who, x); send(rep[who], x + 1);
    int who2; int y; recv(req, who2, y); send(rep[who2], x + 1);
} }`},
		{name: "wrap-around keeps FIFO order", want: verify.Safe, src: `
chan (int) c capacity 2;
thread producer { for (int i = 1; i <= 5; i++) { send(c, i); } }
thread consumer { for (int k = 1; k <= 5; k++) { int v; recv(c, v); assert(v == k, "out of order"); } }`},
		{name: "two senders interleave", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 3;
thread a { send(c, 1); }
thread b { send(c, 2); }
thread r { int x; recv(c, x); int y; recv(c, y); assert(x == 1, "b first"); }`},
		{name: "send blocks while full", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 1;
thread a { send(c, 1); send(c, 2); }`},
		{name: "recv blocks while empty", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 2;
thread a { send(c, 1); }
thread b { int x; recv(c, x); recv(c, x); }`},
		{name: "blocked while full, then drained", want: verify.Safe, src: `
chan (bool, int) c capacity 1;
thread p { send(c, true, 1); send(c, false, 2); send(c, true, 3); }
thread q { for (int i = 1; i <= 3; i++) { bool b; int v; recv(c, b, v); assert(v == i && b == (v != 2)); } }`},
		{name: "no deadlock reported", want: verify.Safe, noDL: true, src: `
chan (int) c capacity 1;
thread a { int x; recv(c, x); }`},
		{name: "blocked on recv, every execution ends", want: verify.Safe, noDL: true, depth: 1, src: `
chan (int) c capacity 1;
thread a { int x; recv(c, x); }
thread b { int y = 0; y = y + 1; y = y * 3; }`},
		{name: "deadlock of a lock and a channel", want: verify.Unsafe, kind: ir.Deadlock, src: `
chan (int) c capacity 1;
mutex m;
thread a { lock(m); int x; recv(c, x); unlock(m); }
thread b { lock(m); send(c, 1); unlock(m); }`},
		{name: "channel index from a message", want: verify.Unsafe, kind: ir.Bounds, src: `
chan (int) to[2] capacity 1;
chan (int) route capacity 2;
thread a { send(route, 1); send(route, 2); }
thread b { int d; recv(route, d); send(to[d], d); recv(route, d); send(to[d], d); }`},
		{name: "bad index while every channel is empty", want: verify.Unsafe, kind: ir.Bounds, src: `
chan (int) c[2] capacity 1;
thread a { int k = 3; int x; recv(c[k - 1], x); }`},
		{name: "channel array with a drawn index", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c[3] capacity 1;
thread a { int i = nondet(0, 2); send(c[i], i); }
thread b { int x = -1; if (len(c[2]) == 1) { recv(c[2], x); } assert(x != 2, "reached c[2]"); }`},
		{name: "len read by a guard", want: verify.Safe, src: `
chan (int) c capacity 2;
thread a { send(c, 1); send(c, 2); }
thread b { await(len(c) == 2); int x; recv(c, x); assert(x == 1 && len(c) == 1); }`},
		{name: "len races with a send", want: verify.Unsafe, kind: ir.Assertion, src: `
chan (int) c capacity 2;
thread a { send(c, 1); }
thread b { int n = len(c); assert(n == 0, "the send came first"); }`},
		{name: "a send's fields see the length before it", want: verify.Safe, src: `
chan (int) c capacity 3;
thread a { send(c, len(c)); send(c, len(c)); int x; recv(c, x); int y; recv(c, y); assert(x == 0 && y == 1); }`},
		{name: "recv stores its destinations in order", want: verify.Safe, src: `
chan (int, int) c capacity 1;
shared int a[3];
thread s { send(c, 1, 5); }
thread r { int i = 2; recv(c, i, a[i]); assert(i == 1 && a[1] == 5 && a[2] == 0); }`},
		{name: "recv destination out of bounds", want: verify.Unsafe, kind: ir.Bounds, src: `
chan (int, int) c capacity 1;
shared int a[3];
thread s { send(c, 3, 5); }
thread r { int i; recv(c, i, a[i]); }`},
		{name: "division by a message", want: verify.Unsafe, kind: ir.DivisionByZero, src: `
chan (int) c capacity 2;
thread s { send(c, 2); send(c, 0); }
thread r { int x; recv(c, x); int y = 10 / x; recv(c, x); y = 10 / x; }`},
		{name: "process memory and locks", want: verify.Unsafe, kind: ir.Assertion, src: `
const N = 2;
chan (int) in[N] capacity 2;
process node[N] {
    shared int seen = 0;
    mutex m;
    thread listen { int v; recv(in[pid], v); lock(m); seen = seen + v; unlock(m); }
    thread talk { send(in[(pid + 1) % N], pid + 1); lock(m); int s = seen; unlock(m); assert(s == 0, "heard first"); }
}`},
		{name: "bounded ping-pong", want: verify.BoundedSafe, depth: 12, src: `
chan (int) ping capacity 1;
chan (int) pong capacity 1;
thread a { int n = 0; while (true) { send(ping, n); recv(pong, n); } }
thread b { while (true) { int v; recv(ping, v); send(pong, v + 1); } }`},
	}
	cs := combos(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := lang.Compile("test.kb", []byte(tt.src), lang.Config{})
			if err != nil {
				t.Fatalf("compile: %v\n%s", err, tt.src)
			}
			matchesDFS(t, p, verify.Options{Depth: tt.depth, NoDeadlock: tt.noDL}, outcome{verdict: tt.want, kind: tt.kind}, cs, refusesNothing)
		})
	}
}
