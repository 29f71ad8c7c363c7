package detect

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kbmc/lang/syntax"
)

// checkRead checks what every reader promises on any input: no panic, errors
// that are an ErrorList naming the file, and computations whose initial and
// final global states are consistent (which a happened-before cycle or a clock
// from the future would break).
func checkRead(t *testing.T, cs []*Computation, err error) {
	if err != nil {
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
		}
		for _, e := range list {
			if e.File == "" {
				t.Fatalf("error without a file: %v", e)
			}
		}
		_ = err.Error()
		return
	}
	for _, c := range cs {
		zero, final := make([]int, c.N()), make([]int, c.N())
		for i, p := range c.Procs {
			final[i] = len(p.Events)
		}
		if !c.Consistent(zero) || !c.Consistent(final) {
			t.Fatalf("%s: the initial or final state is not consistent", c.Name)
		}
	}
}

func addFiles(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	addFiles(f, "*.json")
	f.Add([]byte(`{"format": "kbmc-computation", "version": 1, "processes": [{"name": "a", "events": [{"clock": [1]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadJSON(File{Name: "f.json", Data: data})
		var cs []*Computation
		if c != nil {
			cs = append(cs, c)
		}
		checkRead(t, cs, err)
	})
}

// FuzzReadGoVector reads its input as several logs, split at NUL bytes.
func FuzzReadGoVector(f *testing.F) {
	for _, dir := range []string{"govector/lock-bug", "govector/appended"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*-Log.txt"))
		var all [][]byte
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				all = append(all, data)
			}
		}
		f.Add(bytes.Join(all, []byte{0}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var files []File
		for i, part := range bytes.Split(data, []byte{0}) {
			files = append(files, File{Name: string(rune('a'+i%26)) + "-Log.txt", Data: part})
		}
		cs, err := ReadGoVector(files...)
		checkRead(t, cs, err)
	})
}

func FuzzReadShiViz(f *testing.F) {
	addFiles(f, "shiviz/*.log")
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ReadShiViz(File{Name: "f.log", Data: data})
		checkRead(t, cs, err)
	})
}

// FuzzPredicate compiles any text as a predicate over c_0: no panic, and errors
// with positions inside the text.
func FuzzPredicate(f *testing.F) {
	for _, s := range []string{"P1.p == Y && P2.p == D", `"P1".p != P2.p`, "P1[0].p[1]", "a.b.c", "P1.p == Y ? 1 / 0 : 2", "\"x\\\".p"} {
		f.Add(s)
	}
	data, err := os.ReadFile("testdata/c0.json")
	if err != nil {
		f.Fatal(err)
	}
	c, err := ReadJSON(File{Name: "c0.json", Data: data})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := CompilePredicate("predicate", src, c, map[string]int64{"N": 1})
		if err != nil {
			var list syntax.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a syntax.ErrorList", err)
			}
			for _, e := range list {
				if e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Fatalf("error without a position: %v", e)
				}
			}
			return
		}
		for a := range 3 {
			for b := range 4 {
				if c.Consistent([]int{a, b}) {
					p.Holds([]int{a, b})
				}
			}
		}
	})
}
