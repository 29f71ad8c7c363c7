package lang

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// compileErrors compiles src and returns its errors as "line:col: message".
func compileErrors(t *testing.T, src string, cfg Config) []string {
	t.Helper()
	_, err := Compile("t.kb", []byte(src), cfg)
	if err == nil {
		return nil
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("%q: error %v is not an ErrorList", src, err)
	}
	var out []string
	for _, e := range list {
		out = append(out, fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg))
	}
	return out
}

func TestCheckErrors(t *testing.T) {
	w8 := Config{Width: 8}
	tests := []struct {
		src  string
		cfg  Config
		want []string // "line:col: substring" of each error, in order
	}{
		// A program without a thread runs nothing: every property would hold.
		{"", Config{}, []string{"0:0: no thread"}},
		{"shared int x; func f() { x = 1; }", Config{}, []string{"0:0: no thread"}},
		// Names.
		{"shared int x; thread t { x = y + 1; }", Config{}, []string{"1:30: undefined: y"}},
		{"thread t { join(helper); }", Config{}, []string{"1:17: undefined: helper"}},
		{"thread t { f(); }", Config{}, []string{"1:12: undefined: f"}},
		{"shared int x; mutex x; thread t {}", Config{}, []string{"1:21: x redeclared in this file (previous declaration as shared variable at 1:12)"}},
		{"thread t { int x; { int x; } }", Config{}, []string{"1:25: x redeclared (previous declaration at 1:16)"}},
		{"thread t { for (int i = 0; i < 1; i++) { int i; } }", Config{}, []string{"1:46: i redeclared"}},
		{"func f(int a) { int a; } thread t {}", Config{}, []string{"1:21: a redeclared"}},
		{"func f(int a, bool a) { } thread t {}", Config{}, []string{"1:20: a redeclared in this function"}},
		{"const A = B; const B = A; thread t {}", Config{}, []string{"1:24: initialization cycle: constant A refers to itself"}},

		// Types.
		{"shared int x; thread t { x = true; }", Config{}, []string{"1:30: cannot use true (bool) as int value in assignment"}},
		{"thread t { bool b = 1; }", Config{}, []string{"1:21: cannot use 1 (int) as bool value in initialisation of b"}},
		{"func f(int a) { } thread t { f(false); }", Config{}, []string{"1:32: cannot use false (bool) as int value in argument to f"}},
		{"func f() int { return true; } thread t { }", Config{}, []string{"1:23: cannot use true (bool) as int value in return statement"}},
		{"shared bool b = 1; thread t {}", Config{}, []string{"1:17: cannot use 1 (int) as bool value in initial value of shared b"}},
		{"shared int x; thread t { if (x) {} }", Config{}, []string{"1:30: non-bool condition in if statement: x (int)"}},
		{"thread t { while (1) {} }", Config{}, []string{"1:19: non-bool condition in while loop: 1 (int)"}},
		{"thread t { for (;2;) {} }", Config{}, []string{"1:18: non-bool condition in for loop"}},
		{"thread t { assert(3); }", Config{}, []string{"1:19: non-bool condition in assert"}},
		{"thread t { await(3); }", Config{}, []string{"1:18: non-bool condition in await"}},
		{"thread t { int x = 3 ? 1 : 2; }", Config{}, []string{"1:20: non-bool condition in conditional expression"}},
		{"thread t { int x = true ? 1 : false; }", Config{}, []string{"1:29: invalid operation: true ? 1 : false (mismatched types int and bool)"}},
		{"thread t { int x = 1 + true; }", Config{}, []string{"1:22: invalid operation: 1 + true (mismatched types int and bool)"}},
		{"thread t { bool b = true && false; int x = !1; }", Config{}, []string{"1:44: invalid operation: operator ! not defined on 1 (int)"}},
		{"thread t { bool b = true < false; }", Config{}, []string{"1:26: invalid operation: operator < not defined on true (bool)"}},
		{"thread t { bool b = 1 && 2; }", Config{}, []string{"1:23: invalid operation: operator && not defined on 1 (int)"}},
		{"shared bool b; thread t { b++; }", Config{}, []string{"1:28: invalid operation: b++"}},
		{"shared bool b; thread t { b += true; }", Config{}, []string{"1:29: invalid operation: operator += not defined on b (bool)"}},
		{"thread t { int x; x + 1; }", Config{}, []string{"1:19: x + 1 (int) is not used"}},
		{"shared int a[2]; thread t { a[true] = 1; }", Config{}, []string{"1:31: invalid array index true (bool): must be int"}},

		// Constants, sizes and literals.
		{"const N = 3; thread t { N = 4; }", Config{}, []string{"1:25: cannot assign to constant N"}},
		{"thread t { tid = 1; }", Config{}, []string{"1:12: cannot assign to tid"}},
		{"thread t { int x; x + 1 = 2; }", Config{}, []string{"1:19: cannot assign to x + 1 (not a variable)"}},
		{"shared int n = 2; shared int a[n]; thread t {}", Config{}, []string{"1:32: array size n is not a constant"}},
		{"const K = 2; shared int k; thread w[k] {}", Config{}, []string{"1:37: thread count k is not a constant"}},
		{"thread t { int l = 2; int a[l]; }", Config{}, []string{"1:29: array size l is not a constant"}},
		{"shared int x; const C = x; thread t {}", Config{}, []string{"1:25: constant C: x is not a constant"}},
		{"const C = 1 / 0; thread t {}", Config{}, []string{"1:11: constant C: 1 / 0 is not a constant: division by zero"}},
		{"const C = 1 << 40; thread t {}", Config{}, []string{"1:11: constant C: 1 << 40 is not a constant: shift count 40 out of range [0, 32)"}},
		{"shared int a[0]; mutex m[-1]; thread t[2 - 2] {}", Config{}, []string{
			"1:14: array size 0 must be positive, is 0",
			"1:26: mutex array size -1 must be positive, is -1",
			"1:40: thread count 2 - 2 must be positive, is 0",
		}},
		{"thread t[2000] {}", Config{}, []string{"1:10: thread count 2000 too large (limit 1024)"}},
		{"thread t[600] {} thread u[600] {}", Config{}, []string{"1:18: too many threads: more than 1024 instances"}},
		{"shared int a[2000000]; thread t {}", Config{}, []string{"1:14: array size 2000000 too large (limit 1048576)"}},
		{"shared int a[3] = {1, 2, 3, 4}; thread t {}", Config{}, []string{"1:29: too many initialisers for a[3]: 4"}},
		{"shared int x = {1}; shared int a[2] = 1; thread t {}", Config{}, []string{
			"1:16: cannot initialise scalar x with a list",
			"1:39: cannot initialise array a with a single value",
		}},
		{"shared int y; shared int x = y; thread t {}", Config{}, []string{"1:30: initial value of shared x y is not a constant"}},
		{"shared int x; thread t { x = 128; }", w8, []string{"1:30: integer literal 128 out of range for 8-bit int (-128..127)"}},
		{"shared int x; thread t { x = 0xFF; }", w8, []string{"1:30: integer literal 0xFF out of range"}},
		{"shared int x; thread t { x = -129; }", w8, []string{"1:31: integer literal 129 out of range"}},
		{"shared int x; thread t { x = -(128); }", w8, []string{"1:32: integer literal 128 out of range"}},
		{"shared int x; thread t { x = 99999999999999999999; }", Config{Width: 64}, []string{"1:30: integer literal 99999999999999999999 out of range"}},
		{"const N = 1; thread t {}", Config{Defines: map[string]int64{"M": 2}}, []string{"0:0: -D M=2: undefined: no constant M is declared"}},
		{"shared int M; thread t {}", Config{Defines: map[string]int64{"M": 2}}, []string{"0:0: -D M=2: M is a shared variable, not a constant"}},
		{"const N = 1; thread t {}", Config{Width: 8, Defines: map[string]int64{"N": 200}}, []string{"0:0: -D N=200: value out of range for 8-bit int"}},

		// Arrays, mutexes, threads.
		{"shared int a[3]; shared int x; thread t { x = a + 1; }", Config{}, []string{"1:47: array used without index: a"}},
		{"shared int a[3]; thread t { a = 1; }", Config{}, []string{"1:29: array used without index: a"}},
		{"thread t { int a[2]; int b = a; }", Config{}, []string{"1:30: array used without index: a"}},
		{"shared int x; thread t { x[0] = 1; }", Config{}, []string{"1:27: cannot index x (not an array)"}},
		{"shared int m; thread t { lock(m); }", Config{}, []string{"1:31: m is not a mutex (it is a shared variable)"}},
		{"thread t { lock(t); unlock(nope); }", Config{}, []string{"1:17: t is not a mutex (it is a thread)", "1:28: undefined: nope"}},
		{"mutex m[2]; thread t { lock(m); }", Config{}, []string{"1:29: array used without index: mutex array m"}},
		{"mutex m; thread t { lock(m[0]); }", Config{}, []string{"1:27: cannot index mutex m (not an array)"}},
		{"mutex m; shared int x; thread t { x = m; }", Config{}, []string{"1:39: mutex m cannot be used in an expression"}},
		{"shared int x; thread t { join(x); }", Config{}, []string{"1:31: x is not a thread (it is a shared variable)"}},
		{"thread t { join(t[0]); }", Config{}, []string{"1:18: cannot index thread t (declared without a count)"}},
		{"shared int x; thread t { x = t; }", Config{}, []string{"1:30: thread t cannot be used in an expression"}},

		// Control flow and returns.
		{"thread t { break; }", Config{}, []string{"1:12: break outside loop"}},
		{"thread t { if (true) { continue; } }", Config{}, []string{"1:24: continue outside loop"}},
		{"func f() { break; } thread t { while (true) { f(); } }", Config{}, []string{"1:12: break outside loop"}},
		{"func f() int { int x = 1; } thread t {}", Config{}, []string{"1:27: missing return at end of function f (it returns int)"}},
		{"func f() int { return; } thread t {}", Config{}, []string{"1:16: missing return value (function f returns int)"}},
		{"func f() { return 1; } thread t {}", Config{}, []string{"1:19: return value in void function f"}},
		{"thread t { return 1; }", Config{}, []string{"1:19: return value in thread t"}},

		// Calls.
		{"func add(int a, int b) int { return a + b; } shared int x; thread t { x = add(1); }", Config{}, []string{
			"1:80: wrong number of arguments in call to add: have 1, want 2"}},
		{"func f() int { int s = 1; return s; } shared int x; thread t { x = f() + 1; }", Config{}, []string{
			"1:68: call of f cannot be used in an expression"}},
		{"func f() int { int s = 1; return s; } func g() int { return f(); } thread t {}", Config{}, []string{
			"1:61: call of f cannot be used in an expression"}},
		{"func f() { } shared int x; thread t { x = f(); }", Config{}, []string{"1:43: cannot use f() (no value) as int value in assignment"}},
		{"func f() int { return 1; } shared int x; thread t { x = f; }", Config{}, []string{"1:57: function f used without a call"}},
		{"shared int x; thread t { x = x(1); }", Config{}, []string{"1:30: cannot call x: x is a shared variable, not a function"}},
		{"func f(int n) int { int r = f(n - 1); return r; } thread t {}", Config{}, []string{"1:29: recursive call: f calls itself"}},
		{"func f(int n) bool { return g(n); } func g(int n) bool { return n == 0 || f(n - 1); } thread t {}", Config{}, []string{
			"1:75: recursive call: f → g → f"}},
		{"thread t { int x = nondet(1); bool b = cas(1, 2); }", Config{}, []string{
			"1:20: wrong number of arguments to nondet: have 1, want 0 or 2",
			"1:40: wrong number of arguments to cas: have 2, want 3",
		}},
		{"shared int x; thread t { int v = nondet(0, x); }", Config{}, []string{"1:44: nondet bounds: upper bound x is not a constant"}},
		{"thread t { int v = nondet(5, 1); }", Config{}, []string{"1:27: nondet bounds: lower bound 5 is greater than upper bound 1"}},
		{"shared bool b; thread t { cas(b, 0, 1); }", Config{}, []string{
			"1:34: cannot use 0 (int) as bool value in argument to cas",
			"1:37: cannot use 1 (int) as bool value in argument to cas",
		}},
		{"const N = 1; thread t { cas(N, 0, 1); }", Config{}, []string{"1:29: cannot assign to constant N"}},
		{"chan (int) c capacity 1; thread t { close(c, 1); }", Config{}, []string{"1:47: close takes one channel: close(c), have 2 arguments"}},
		{"shared int x; thread t { close(x); }", Config{}, []string{"1:32: x is not a channel (it is a shared variable) in close"}},
		{"chan (int) c capacity 1; thread t { int x; int k; recv(c, x) ok(k); }", Config{}, []string{"1:65: ok(…) needs a bool location, not k (int)"}},
		{"chan (int) c capacity 1; thread t { int x; select { case recv(c, x) when (x): } }", Config{}, []string{"1:75: non-bool condition in when: x (int)"}},
		{"chan (int) c capacity 1; thread t { int x; select { case recv(c, x) when (nondet(0, 1) == 1): } }", Config{}, []string{"1:75: nondet not allowed in a select case's when condition"}},
		{"chan (int) c capacity 1; thread t { atomic { close(c); } }", Config{}, []string{"1:46: close inside atomic: a channel operation is a step of its own"}},

		// Atomic blocks and guards.
		{"shared int x; thread t { atomic { while (x < 3) { x++; } } }", Config{}, []string{"1:35: loop inside atomic"}},
		{"thread t { atomic { for (;;) {} } }", Config{}, []string{"1:21: loop inside atomic"}},
		{"mutex m; thread t { atomic { lock(m); } }", Config{}, []string{"1:30: lock inside atomic"}},
		{"thread t { atomic { join(t); } }", Config{}, []string{"1:21: join inside atomic"}},
		{"thread t { atomic { yield; } }", Config{}, []string{"1:21: yield inside atomic"}},
		{"func f() { } thread t { atomic { f(); } }", Config{}, []string{"1:34: call inside atomic: f is not an expression function"}},
		{"func f() int { int r = 1; return r; } thread t { atomic { int y = f(); } }", Config{}, []string{"1:67: call inside atomic"}},
		{"shared int x; thread t { atomic { x = 1; await(x == 1); } }", Config{}, []string{"1:42: await must be the first statement of atomic"}},
		{"shared int x; thread t { atomic { x = 1; assume(x == 1); } }", Config{}, []string{"1:42: assume must be the first statement of atomic"}},
		{"shared int x; thread t { atomic { if (true) { await(x == 1); } } }", Config{}, []string{"1:47: await must be the first statement of atomic"}},
		{"shared int x; thread t { atomic { x = 1; atomic { await(x == 1); } } }", Config{}, []string{"1:51: await must be the first statement of atomic"}},
		{"shared int x; thread t { await(cas(x, 0, 1)); }", Config{}, []string{"1:32: cas not allowed in await condition"}},
		{"func tas() bool { return cas(x, 0, 1); } shared int x; thread t { assume(tas()); }", Config{}, []string{"1:74: cas not allowed in assume condition"}},
		{"shared int x; thread t { await(x == nondet(0, 1)); }", Config{}, []string{"1:32: nondet not allowed in await condition"}},
		{"mutex m[2]; thread t { lock(m[nondet(0, 1)]); }", Config{}, []string{"1:31: nondet not allowed in lock index"}},
		{"thread t[2] { join(t[nondet(0, 1)]); }", Config{}, []string{"1:22: nondet not allowed in join index"}},

		// Several errors at once, in order, without cascades.
		{"shared int x;\nthread t {\n  x = y;\n  x = true;\n  z = 1;\n  int v = x + q;\n}", Config{}, []string{
			"3:7: undefined: y", "4:7: cannot use true", "5:3: undefined: z", "6:15: undefined: q"}},
		// end: marks only a statement that may wait.
		{"shared int x; thread t { end: x = 1; }", Config{}, []string{"1:26: end: marks a statement a thread may wait at"}},
		{"mutex m; thread t { lock(m); end: unlock(m); }", Config{}, []string{"1:30: end: marks a statement a thread may wait at (send, recv, lock, join, await); unlock never waits"}},
		{"shared int x; thread t { end: assume(x == 0); }", Config{}, []string{"1:26: end: marks a statement a thread may wait at (send, recv, lock, join, await); a false assume cuts"}},
	}
	for _, tt := range tests {
		got := compileErrors(t, tt.src, tt.cfg)
		ok := len(got) == len(tt.want)
		for i := 0; ok && i < len(got); i++ {
			pos, msg, _ := strings.Cut(tt.want[i], ": ")
			ok = strings.HasPrefix(got[i], pos+": ") && strings.Contains(got[i], msg)
		}
		if !ok {
			t.Errorf("%s\n got %s\nwant %s", tt.src, strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
		}
	}
}

// TestCheckAccepts lists programs at the edges of the rules that must compile.
func TestCheckAccepts(t *testing.T) {
	tests := []struct {
		src string
		cfg Config
	}{
		{"shared int x; thread t { x = -128; x = 127; x = 0x7F; x = -0x80; }", Config{Width: 8}},
		{"shared int x; thread t { x = -9223372036854775808; x = 0x7FFFFFFFFFFFFFFF; }", Config{Width: 64}},
		{"const N = 100; const M = N * 2; shared int a[M]; thread t[N] { a[tid] = M; }", Config{Width: 32}},
		{"const N = 3; shared int a[N]; thread t {}", Config{Defines: map[string]int64{"N": 8}}},
		{"const B = A + 1; const A = 1; shared int a[B]; thread t {}", Config{}},
		{"thread t { { int x; } { int x; } for (int i = 0; i < 1; i++) {} for (int i = 0; i < 1; i++) {} }", Config{}},
		{"shared int x; thread t { int x = x; }", Config{}},
		{"thread t { int t = 1; }", Config{}},
		{"func f(int x) int { return x; } shared int f2 = 0; thread t { int f = f(1); }", Config{}},
		{"thread a { join(b); } thread b { join(c[1]); } thread c[2] { }", Config{}},
		{"mutex fork[5]; thread p[5] { lock(fork[tid]); lock(fork[(tid + 1) % 5]); unlock(fork[tid]); unlock(fork[(tid + 1) % 5]); }", Config{}},
		{"mutex m; shared int x; thread t { atomic { await(x == 0); x = 1; unlock(m); } }", Config{}},
		{"shared int x; thread t { atomic { atomic { await(x == 0); } x = 1; } }", Config{}},
		{"shared int x; thread t { atomic { { await(x == 0); } x = 1; } }", Config{}},
		{"func f() int { while (true) { } } func g(bool b) int { if (b) { return 1; } else { return 2; } } thread t {}", Config{}},
		{"func f(int a) int { int r; for (;;) { r = a; return r; } } thread t {}", Config{}},
		{"func f() { } func g() int { int r = 1; f(); return r; } shared int x; thread t { f(); x = g(); int y = g(); x += g(); }", Config{}},
		{"func tas() bool { return cas(x, 0, 1); } shared int x; thread t { tas(); if (tas()) { x = 0; } }", Config{}},
		{"shared bool a; shared bool b; thread t { bool c = a & b | a ^ b; bool d = a == b; }", Config{}},
		{"shared int x; thread t { x = 1 / 0; x = 1 << 40; }", Config{}}, // run-time violations, not compile errors
		{"shared int a[3]; thread t { a[3] = 1; }", Config{}},
		{"thread t { while (true) {} }", Config{}},
		{"thread t { }", Config{Width: 64}},
		// end: labels a statement a thread may wait at for ever; end is a name elsewhere.
		{"chan (int) c capacity 1; mutex m; shared int x; thread t { int y; end: recv(c, y); end: send(c, 1); end: lock(m); end: await(x == 1); end: join(u); }\nthread u { }", Config{}},
		{"shared int end; thread t { int e = end; end = e + 1; while (end < 3) { end: await(end > 5); } }", Config{}},
	}
	for _, tt := range tests {
		if errs := compileErrors(t, tt.src, tt.cfg); len(errs) > 0 {
			t.Errorf("%s\n%s", tt.src, strings.Join(errs, "\n"))
		}
	}
}

func TestConfig(t *testing.T) {
	for _, w := range []int{7, 65, -1} {
		_, err := Compile("t.kb", []byte("thread t {}"), Config{Width: w})
		var list ErrorList
		if err == nil || errors.As(err, &list) {
			t.Errorf("width %d: got %v, want a configuration error", w, err)
		}
	}
	p, err := Compile("t.kb", []byte("thread t {}"), Config{})
	if err != nil || p.Width != DefaultWidth {
		t.Errorf("default width: %v, %v", p, err)
	}
}

func TestConstantFolding(t *testing.T) {
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
		{8, "1 << 7", -128},
		{8, "-128 >> 7", -1},
		{8, "~0", -1},
		{8, "64 * 4", 0},
		{32, "0x7FFFFFFF + 1", -2147483648},
		{32, "true ? 3 : 1 / 0", 3},
		{64, "0x7FFFFFFFFFFFFFFF + 1", -9223372036854775808},
		{64, "-9223372036854775808 / -1", -9223372036854775808},
		{64, "-9223372036854775808 % -1", 0},
		{16, "(3 > 2) == true ? 1 : 0", 1},
	}
	for _, tt := range tests {
		src := fmt.Sprintf("const C = %s; shared int x = C; thread t {}", tt.expr)
		p, err := Compile("t.kb", []byte(src), Config{Width: tt.width})
		if err != nil {
			t.Errorf("%s at width %d: %v", tt.expr, tt.width, err)
			continue
		}
		if got := p.Shared[0].Init[0]; got != tt.want {
			t.Errorf("%s at width %d: got %d, want %d", tt.expr, tt.width, got, tt.want)
		}
	}
}

func TestErrorListRendering(t *testing.T) {
	src := "shared int x;\nthread t {\n\tif (true) {\n\t\tx = y + 1;\n\t}\n}\n"
	_, err := Compile("file.kb", []byte(src), Config{})
	want := "file.kb:4:7: undefined: y\n\t\tx = y + 1;\n\t\t    ^"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}
