package lang

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
	}
	return err
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
