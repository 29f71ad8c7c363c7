package ir_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"kbmc/cfront"
	"kbmc/internal/progen"
	"kbmc/ir"
	"kbmc/lang"
)

func TestValueBits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		steps int
		want  int // 0: at most max
		max   int
	}{
		{"flags", "shared bool f;\nshared int t = 1;\nthread a { f = true; t = 0; }\n", 5, 2, 0},
		{"counter", "shared int x;\nthread a { while (true) { x = x + 1; } }\n", 10, 0, 8},
		{"decrement", "shared int x;\nthread a { while (true) { x = x - 1; } }\n", 10, 0, 8},
		{"constant", "shared int x;\nthread a { x = 1000000; }\n", 3, 21, 0},
		{"array length", "shared int arr[300];\nthread a { arr[1] = 1; }\n", 3, 10, 0},
		{"nondet range", "shared int x;\nthread a { x = nondet(-5, 100); }\n", 3, 8, 0},
		{"unbounded nondet", "shared int x;\nthread a { x = nondet(); }\n", 3, 32, 0},
		{"shift", "shared int x = 1;\nthread a { x = x << 1; }\n", 3, 32, 0},
		{"doubling wraps", "shared int x = 1;\nthread a { while (true) { x = x * 2; } }\n", 40, 32, 0},
		{"subexpression", "shared int x;\nthread a { assert(x + 5000 > 0); }\n", 3, 0, 14},
		{"channel", "chan (int) c capacity 2;\nshared int got;\nthread a { send(c, 70); }\nthread b { int v; recv(c, v); got = v; }\n", 5, 8, 0},
		// Each thread takes its one transition once: 4 increments in all,
		// however deep the bound.
		{"acyclic threads", "shared int x;\nthread a[4] { x = x + 1; }\n", 1000, 0, 4},
		{"acyclic beside a loop", "shared int x;\nshared int y;\nthread a[4] { x = x + 1; }\nthread b { while (true) { y = y + 1; } }\n", 100, 0, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, tc.src, 32)
			got := p.ValueBits(tc.steps)
			switch {
			case tc.want != 0 && got != tc.want:
				t.Errorf("ValueBits(%d) = %d, want %d", tc.steps, got, tc.want)
			case tc.want == 0 && got > tc.max:
				t.Errorf("ValueBits(%d) = %d, want at most %d", tc.steps, got, tc.max)
			}
		})
	}
}

// TestValueBitsSound runs random programs at random and checks that every int
// cell of every state within the step bound fits in ValueBits(steps) bits.
func TestValueBitsSound(t *testing.T) {
	const steps = 12
	seeds := uint64(300)
	if testing.Short() {
		seeds = 60
	}
	for seed := range 2 * seeds {
		cfg := progen.DefaultConfig()
		if seed%2 == 1 {
			cfg = progen.DistributedConfig() // processes and channels
		}
		src := progen.Generate(seed, cfg)
		p, err := lang.Compile("random.kb", []byte(src), lang.Config{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		bits := p.ValueBits(steps)
		lo, hi := -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		rng := rand.New(rand.NewPCG(seed, 7))
		for run := 0; run < 40; run++ {
			s := p.Initial()
			ch := ir.Choices{Rand: rng}
			var ev ir.Event
			for step := 0; step <= steps; step++ {
				for _, c := range intCells(p) {
					if v := s[c]; v < lo || v > hi {
						t.Fatalf("seed %d run %d: after %d steps cell %d holds %d, outside %d bits\n%s", seed, run, step, c, v, bits, src)
					}
				}
				var enabled []int
				for th := range p.Threads {
					if p.Enabled(s, th) {
						enabled = append(enabled, th)
					}
				}
				if len(enabled) == 0 || step == steps {
					break
				}
				ch.Reset(nil)
				p.Step(s, enabled[rng.IntN(len(enabled))], &ch, &ev)
				if ev.Violation != nil {
					break
				}
			}
		}
	}
}

// intCells lists the state cells of p's int variables, shared and local.
func intCells(p *ir.Program) []int {
	var cells []int
	for _, v := range p.Shared {
		if v.Type == ir.Int {
			for c := range v.Cells() {
				cells = append(cells, v.Offset+c)
			}
		}
	}
	for _, th := range p.Threads {
		for _, v := range th.Template.Locals {
			if v.Type == ir.Int {
				for c := range v.Cells() {
					cells = append(cells, th.Base+1+v.Offset+c)
				}
			}
		}
	}
	return cells
}

// BenchmarkValueBits is the analysis on a counter that grows every round, at
// the largest bound it follows.
func BenchmarkValueBits(b *testing.B) {
	p, err := lang.Compile("counter.kb", []byte("shared int x;\nshared int y;\nthread a[4] { while (true) { x = x + 1; y = y - x % 3; } }\n"), lang.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p.ValueBits(50000)
	}
}

// TestValueBitsC runs the C programs of testdata and bench/programs at random
// and checks that every value other than a Bool — every cell of every state
// within the step bound, every value a step reads, writes or draws — fits in
// ValueBits(steps) bits: typed integers, pointers, thread values, heap
// blocks' status.
func TestValueBitsC(t *testing.T) {
	const steps = 14
	files, _ := filepath.Glob("../testdata/c-*.c")
	more, _ := filepath.Glob("../bench/programs/*.c")
	files = append(files, more...)
	if len(files) < 30 {
		t.Fatalf("%d C programs", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p, err := cfront.Compile(f, src, cfront.Config{Defines: map[string]int64{"N": 2}})
			if err != nil {
				t.Fatal(err)
			}
			bits := p.ValueBits(steps)
			lo, hi := -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
			if bits == 64 {
				return // every value fits
			}
			cells := nonBoolCells(p)
			check := func(what string, v int64) {
				t.Helper()
				if v < lo || v > hi {
					t.Fatalf("%s holds %d, outside %d bits", what, v, bits)
				}
			}
			rng := rand.New(rand.NewPCG(uint64(len(src)), 7))
			for run := 0; run < 60; run++ {
				s := p.Initial()
				ch := ir.Choices{Rand: rng}
				ev := ir.Event{TraceLocals: true}
				for step := 0; step <= steps; step++ {
					for _, c := range cells {
						check(fmt.Sprintf("run %d, after %d steps, cell %d", run, step, c), s[c])
					}
					var enabled []int
					for th := range p.Threads {
						if p.Enabled(s, th) {
							enabled = append(enabled, th)
						}
					}
					if len(enabled) == 0 || step == steps {
						break
					}
					ch.Reset(nil)
					p.Step(s, enabled[rng.IntN(len(enabled))], &ch, &ev)
					for _, a := range ev.Accesses {
						if k, _ := p.Locate(a.Loc); k == ir.LocCell {
							check(fmt.Sprintf("run %d, step %d, an access to %s", run, step, p.LocationName(a.Loc)), a.Value)
						}
					}
					for _, a := range ev.LocalWrites {
						check(fmt.Sprintf("run %d, step %d, a local", run, step), a.Value)
					}
					for _, c := range ev.Choices {
						check(fmt.Sprintf("run %d, step %d, a draw", run, step), c.Value)
					}
					if ev.Violation != nil {
						break
					}
				}
			}
		})
	}
}

// nonBoolCells lists the state cells of p's variables, shared and local,
// that are not Bools.
func nonBoolCells(p *ir.Program) []int {
	var cells []int
	for _, v := range p.Shared {
		for c := range v.Cells() {
			if v.CellType(c) != ir.Bool {
				cells = append(cells, v.Offset+c)
			}
		}
	}
	for _, th := range p.Threads {
		for _, v := range th.Template.Locals {
			for c := range v.Cells() {
				if v.CellType(c) != ir.Bool {
					cells = append(cells, th.Base+1+v.Offset+c)
				}
			}
		}
	}
	return cells
}

// TestValueBitsCMain checks the bits of a C program whose main creates and
// joins its threads in counted loops, the first of which declares its counter
// where main now starts (SpecializePrefix skips the declaration): the loops'
// copies read constants, and main's folded creation step, its longest
// transition by far, runs once. Before, the counter grew by one per round to
// the depth times that step's length: 16 bits.
func TestValueBitsCMain(t *testing.T) {
	src := `#include <pthread.h>
int x;
int l[12];
void *w(void *arg) { int tid = (int)(long)arg; int a = l[tid]; int b = x; return 0; }
int main(void) {
    pthread_t h[12];
    for (int i = 0; i < 12; i++) pthread_create(&h[i], 0, w, (void *)(long)i);
    x = 42;
    for (int i = 0; i < 12; i++) pthread_join(h[i], 0);
    return 0;
}`
	p, err := cfront.Compile("main.c", []byte(src), cfront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ValueBits(100); got > 7 {
		t.Errorf("ValueBits(100) = %d, want at most 7", got)
	}
}
