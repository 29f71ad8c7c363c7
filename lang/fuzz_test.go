package lang

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"kbmc/internal/progen"
	"kbmc/ir"
)

// fuzzSeeds are inline programs for the fuzz corpus, in addition to ../testdata.
var fuzzSeeds = []string{
	"shared int x; thread a { int l = x; l = l + 1; x = l; }",
	"shared int x; shared int y; thread a { if (y == 0 && cas(x, 0, 1)) { y = 1; } } thread b { y = 1; }",
	"shared int x; func add(int a, int b) int { int s = a + b; return s; } thread a { int l = add(x, 1); x = add(l, 2); }",
	"shared int x; func sq(int v) int { return v * v; } thread a[2] { int l = sq(nondet(0, 3)) + sq(x); x = l >> tid; }",
	"mutex m; mutex f[2]; thread w[2] { lock(m); lock(f[tid]); unlock(f[tid]); unlock(m); yield; } thread main { join(w); join(w[1]); }",
	"shared int x; thread a { atomic { await(x == 0); x = 1; } atomic { } for (int i = 0; i < 3; i++) { int z; if (i == 1) { continue; } x = z; } }",
	"const N = 2; shared int a[N] = {1}; thread t[N] { a[tid] += 127; a[tid]--; assert(a[tid] != 0 || tid == 1, \"m\"); }",
	"shared int x; func tryLock() bool { return cas(x, 0, 1); } thread t { while (!tryLock()) { yield; } x = x / (x - 1) % 3 << 2; }",
	"shared bool b; thread t { bool c = b ? !b : b & true | false ^ b; int i = c ? -128 : ~0; assume(i != 5); }",
	// Processes and channels.
	`const N = 2; chan (int, bool) to[N] capacity 2; chan (int) done capacity 1;
process node[N] { shared int seen[N]; shared bool b; mutex m; func next() int { return (pid + 1) % N; }
  thread rx { int v; recv(to[pid], v, b); lock(m); seen[v % N]++; unlock(m); }
  thread tx[2] { send(to[next()], pid * 10 + tid, tid == 0); }
  thread lead { join(rx); join(tx[1]); send(done, len(to[pid])); } }
process sink { thread main { int n; for (int i = 0; i < N; i++) { recv(done, n); assert(n <= 2); } } }`,
	`chan (bool) c capacity 1; chan (int, int) d[3] capacity 2;
process p { shared int x; shared int a[3];
  thread w { atomic { await(len(c) == 1); x = len(d[x % 3]); } bool f; recv(c, f); recv(d[2], a[1], x); }
  thread v { assume(len(d[0]) < 2); if (len(c) > 0) { bool g; recv(c, g); } } }
process q[3] { thread s { send(c, pid > 0); send(d[pid], pid, 2 / (pid + 1)); } }`,
	"chan (int) c capacity 1; shared int sum; thread p[2] { send(c, tid); } thread q { int a; recv(c, a); recv(c, sum); sum = sum + a; }",
	"chan (int) c[2] capacity 1; process n[2] { shared int r; thread t { send(c[pid + 1], 1); recv(c[pid], r); } }",
	"chan (int) c capacity 1; process n { thread t { while (len(c) < 1) { yield; } send(c, 1); send(c, 2); } }",
	// Global invariants, valid and not.
	`const N = 2; chan (int) c[N] capacity 1;
process node[N] { shared int leader = -1; shared bool v[N]; thread t { int me = pid; leader = me; v[me] = true; send(c[pid], me); } }
process coord { shared int round; thread t { round = 1; } }
invariant one: forall i in 0..N-1: forall j in i..N-1: node[i].leader < 0 || node[j].leader < 0 || node[i].leader == node[j].leader;
invariant votes: coord.round == 0 || (exists i in 0..N-1: node[i].v[i]) && len(c[1]) <= 1 && node[0].v[node[1].leader + 1];`,
	"shared int x; thread t { x = 1; } invariant a: x / (x - 1) < 3; invariant b: forall k in 0..3: x != k * k || k > 1;",
	"process p[2] { shared int x; thread t { int l = 0; x = l; } } invariant a: l == 0 && p[2].x == p.x && forall i in 0..x: p[i].t;",
}

// generatedSeeds are a few programs of the random-program generator, classic and
// distributed: valid programs that combine every construct.
func generatedSeeds() []string {
	var out []string
	for seed := range uint64(4) {
		out = append(out, progen.Generate(seed, progen.DefaultConfig()), progen.Generate(seed, progen.DistributedConfig()))
	}
	for seed := range uint64(2) {
		withInvariants := progen.DistributedConfig()
		withInvariants.Invariants = 2
		out = append(out, progen.Generate(seed, withInvariants))
	}
	return out
}

// FuzzCompile runs the whole front end on arbitrary input at widths 8 and 32,
// with and without --no-fold: no input may panic or hang, errors must be
// ErrorLists with positions, and an accepted program must be well formed enough
// for the ir semantics to run it for a few steps.
func FuzzCompile(f *testing.F) {
	for _, file := range testdataFiles(f) {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src)
		}
	}
	for _, src := range fuzzSeeds {
		f.Add([]byte(src))
	}
	for _, src := range generatedSeeds() {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, cfg := range []Config{{Width: 8}, {Width: 32}, {Width: 8, NoFold: true}, {Width: 32, NoFold: true}} {
			p, err := Compile("fuzz.kb", src, cfg)
			if err != nil {
				var list ErrorList
				if !errors.As(err, &list) || len(list) == 0 {
					t.Fatalf("%+v: error is not an ErrorList: %v", cfg, err)
				}
				_ = err.Error()
				continue
			}
			if err := wellFormed(p); err != nil {
				t.Fatalf("%+v: %v", cfg, err)
			}
			simulate(p, 40)
		}
	})
}

// wellFormed checks what lang promises about a lowered program beyond what
// Program.Finish checks.
func wellFormed(p *ir.Program) error {
	for _, tm := range p.Templates {
		if !tm.Nodes[tm.Entry].Cut {
			return fmt.Errorf("thread %s: entry is not a cut point", tm.Name)
		}
		for i, n := range tm.Nodes {
			if n.Pos.Line < 1 || n.Text == "" {
				return fmt.Errorf("thread %s: node %d has no position or text", tm.Name, i)
			}
			if err := nodeOperands(n); err != nil {
				return fmt.Errorf("thread %s: node %d (%s): %v", tm.Name, i, n.Text, err)
			}
		}
	}
	return nil
}

func nodeOperands(n *ir.Node) error {
	need := func(ok bool, what string) error {
		if !ok {
			return errors.New("missing " + what)
		}
		return nil
	}
	var err error
	switch n.Op {
	case ir.OpAssign:
		err = errors.Join(need(n.LHS != nil && n.X != nil, "assignment operands"), typed(n.X, n.LHS.Var.Type))
	case ir.OpBranch, ir.OpAssert, ir.OpAssume, ir.OpAwait:
		err = errors.Join(need(n.X != nil, "condition"), typed(n.X, ir.Bool))
	case ir.OpLock, ir.OpUnlock:
		err = need(n.Mutex != nil, "mutex")
	case ir.OpJoin:
		err = need(n.Join != nil, "thread")
	case ir.OpCas:
		err = errors.Join(need(n.LHS != nil && n.X != nil && n.Y != nil, "cas operands"),
			typed(n.X, n.LHS.Var.Type), typed(n.Y, n.LHS.Var.Type))
	case ir.OpSend:
		if err = errors.Join(need(n.Chan != nil, "channel"), channelIndex(n.Chan, n.CIndex)); err != nil {
			return err
		}
		err = need(len(n.Args) == len(n.Chan.Fields), "one value per field")
		for i, a := range n.Args {
			if i < len(n.Chan.Fields) {
				err = errors.Join(err, typed(a, n.Chan.Fields[i]))
			}
		}
	case ir.OpRecv:
		if err = errors.Join(need(n.Chan != nil, "channel"), channelIndex(n.Chan, n.CIndex)); err != nil {
			return err
		}
		err = need(len(n.Dsts) == len(n.Chan.Fields), "one destination per field")
		for i, lv := range n.Dsts {
			if i < len(n.Chan.Fields) && (lv == nil || lv.Var.Type != n.Chan.Fields[i]) {
				err = errors.Join(err, fmt.Errorf("destination %d does not hold a %s", i, n.Chan.Fields[i]))
			}
		}
	}
	return err
}

// channelIndex checks that a channel array, and only an array, is indexed by an
// int.
func channelIndex(c *ir.Channel, index *ir.Expr) error {
	if (c.Len == 0) != (index == nil) {
		return fmt.Errorf("channel %s (length %d) with index %v", c.Name, c.Len, index != nil)
	}
	return typed(index, ir.Int)
}

// typed checks that e has type t and that its operands are typed consistently.
func typed(e *ir.Expr, t ir.Type) error {
	if e == nil {
		return nil
	}
	if e.Type != t {
		return fmt.Errorf("expression of type %s where %s is needed", e.Type, t)
	}
	if e.Pos.Line < 1 {
		return fmt.Errorf("expression %s without position", e.Op)
	}
	switch e.Op {
	case ir.EConst, ir.EVar, ir.ETid, ir.ENondet:
		return nil
	case ir.EIndex:
		return typed(e.X, ir.Int)
	case ir.ENot, ir.ENeg, ir.ECompl:
		return typed(e.X, t)
	case ir.ELAnd, ir.ELOr:
		return errors.Join(typed(e.X, ir.Bool), typed(e.Y, ir.Bool))
	case ir.ECond:
		return errors.Join(typed(e.X, ir.Bool), typed(e.Y, t), typed(e.Z, t))
	case ir.ELt, ir.ELe, ir.EGt, ir.EGe:
		return errors.Join(typed(e.X, ir.Int), typed(e.Y, ir.Int))
	case ir.EEq, ir.ENe:
		return typed(e.Y, e.X.Type)
	case ir.ELen:
		if t != ir.Int || e.Chan == nil {
			return errors.New("len without a channel, or not an int")
		}
		return channelIndex(e.Chan, e.X)
	}
	return errors.Join(typed(e.X, t), typed(e.Y, t))
}

// simulate runs up to steps steps, always moving the first enabled thread.
func simulate(p *ir.Program, steps int) {
	s := p.Initial()
	var ev ir.Event
	for range steps {
		moved := false
		for t := range p.Threads {
			if p.Enabled(s, t) {
				p.Step(s, t, nil, &ev)
				moved = true
				break
			}
		}
		if !moved || ev.Violation != nil {
			return
		}
	}
}

// testdataFiles returns the .kb programs of the repository's testdata directory,
// the fuzz corpus's seeds.
func testdataFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.kb"))
	return files
}
