package lang

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// annotations are the //@ lines at the top of a testdata program (DESIGN.md §9).
type annotations struct {
	expect string
	errMsg string
	cfg    Config
}

func parseAnnotations(t *testing.T, src string) annotations {
	var a annotations
	for _, line := range strings.Split(src, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//@")
		if !ok {
			continue
		}
		key, val, _ := strings.Cut(rest, ":")
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "expect":
			a.expect = val
		case "error":
			a.errMsg = val
		case "args":
			fields := strings.Fields(val)
			for i := 0; i < len(fields); i++ {
				switch f := fields[i]; {
				case f == "--width" && i+1 < len(fields):
					i++
					w, err := strconv.Atoi(fields[i])
					if err != nil {
						t.Fatalf("bad --width %q", fields[i])
					}
					a.cfg.Width = w
				case f == "-D" && i+1 < len(fields):
					i++
					a.define(t, fields[i])
				case strings.HasPrefix(f, "-D") && len(f) > 2:
					a.define(t, f[2:])
				case f == "--no-fold":
					a.cfg.NoFold = true
				}
			}
		}
	}
	return a
}

func (a *annotations) define(t *testing.T, def string) {
	name, val, ok := strings.Cut(def, "=")
	if !ok {
		t.Fatalf("bad -D %q", def)
	}
	v, err := strconv.ParseInt(val, 0, 64)
	if err != nil {
		t.Fatalf("bad -D %q: %v", def, err)
	}
	if a.cfg.Defines == nil {
		a.cfg.Defines = map[string]int64{}
	}
	a.cfg.Defines[name] = v
}

// testdataFiles returns the .kb programs of the repository's testdata directory.
func testdataFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.kb"))
	return files
}

// TestTestdata compiles every annotated program of ../testdata: those expected to
// be rejected must fail with their error text, every other one must compile.
func TestTestdata(t *testing.T) {
	files := testdataFiles(t)
	if len(files) == 0 {
		t.Skip("no ../testdata/*.kb files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseAnnotations(t, string(src))
			for _, noFold := range []bool{false, true} {
				cfg := a.cfg
				cfg.NoFold = cfg.NoFold || noFold
				_, err = Compile(filepath.Base(file), src, cfg)
				if a.expect == "error" {
					var list ErrorList
					if err == nil {
						t.Fatalf("compiled; want error containing %q", a.errMsg)
					}
					if !errors.As(err, &list) {
						t.Fatalf("error %v is not an ErrorList", err)
					}
					if !strings.Contains(err.Error(), a.errMsg) {
						t.Fatalf("error\n%v\ndoes not contain %q", err, a.errMsg)
					}
					continue
				}
				if err != nil {
					t.Fatalf("unexpected error:\n%v", err)
				}
			}
		})
	}
}
