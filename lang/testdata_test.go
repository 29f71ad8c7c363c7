package lang_test

// This file is an external test package because it reads the annotations with
// kbmc/internal/annotation, which imports lang.

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kbmc/internal/annotation"
	"kbmc/lang"
)

// TestTestdata compiles every annotated program of ../testdata: those expected to
// be rejected must fail with their error text, every other one must compile.
func TestTestdata(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*.kb"))
	if len(files) == 0 {
		t.Fatal("no ../testdata/*.kb files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a, err := annotation.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			flags, err := annotation.ParseArgs(a.Args)
			if err != nil {
				t.Fatalf("//@ args: %v", err)
			}
			for _, noFold := range []bool{false, true} {
				cfg := flags.Config
				cfg.NoFold = cfg.NoFold || noFold
				_, err = lang.Compile(filepath.Base(file), src, cfg)
				if a.Expect == "error" {
					var list lang.ErrorList
					if err == nil {
						t.Fatalf("compiled; want error containing %q", a.Error)
					}
					if !errors.As(err, &list) {
						t.Fatalf("error %v is not an ErrorList", err)
					}
					if !strings.Contains(err.Error(), a.Error) {
						t.Fatalf("error\n%v\ndoes not contain %q", err, a.Error)
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
