package annotation

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"kbmc/ir"
	"kbmc/lang"
)

// Annotations are a testdata program's //@ lines.
type Annotations struct {
	Expect    string   // safe, unsafe, bounded-safe or error
	Violation string   // for unsafe: the kind of violation, e.g. assertion
	Error     string   // for error: a substring of the expected input error
	Args      []string // the flags the program is checked with, split at white space
	Engines   []string // the engines to run it on (none: the caller's default)
}

// Parse reads the //@ key: value lines of src. Keys are expect, violation, error,
// args and engines; the expectation must be consistent: unsafe needs a known
// violation kind, error needs an error text, and safe or bounded-safe take no
// violation.
func Parse(src []byte) (Annotations, error) {
	var a Annotations
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "//@")
		if !ok {
			continue
		}
		key, val, ok := strings.Cut(rest, ":")
		if !ok {
			return a, fmt.Errorf("annotation %q: want //@ key: value", line)
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "expect":
			a.Expect = val
		case "violation":
			a.Violation = val
		case "error":
			a.Error = val
		case "args":
			a.Args = strings.Fields(val)
		case "engines":
			a.Engines = splitEngines(val)
		default:
			return a, fmt.Errorf("unknown annotation %q", strings.TrimSpace(key))
		}
	}
	if err := sc.Err(); err != nil {
		return a, err
	}
	switch a.Expect {
	case "error":
		if a.Error == "" {
			return a, errors.New("//@ expect: error needs //@ error: TEXT")
		}
	case "unsafe":
		if _, ok := ir.ParseViolationKind(a.Violation); !ok {
			return a, fmt.Errorf("//@ expect: unsafe needs a //@ violation: KIND, got %q", a.Violation)
		}
	case "safe", "bounded-safe":
		if a.Violation != "" {
			return a, fmt.Errorf("//@ violation given for expect: %s", a.Expect)
		}
	case "":
		return a, errors.New("no //@ expect: annotation")
	default:
		return a, fmt.Errorf("//@ expect: %s: want safe, unsafe, bounded-safe or error", a.Expect)
	}
	return a, nil
}

// splitEngines splits an engine list at commas and spaces, dropping empty items,
// as `kbmc regress --engines` does.
func splitEngines(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, f)
	}
	return out
}

// Flags are what the test harnesses take from an //@ args: line.
type Flags struct {
	Depth         int  // --depth N; 0 if not given
	NoDeadlock    bool // --no-deadlock
	Stateful      bool // --stateful (dfs)
	LocalDeadlock bool // --local-deadlock (dfs --stateful)
	Config        lang.Config
}

// ParseArgs interprets args, the fields of an //@ args: line. It understands
// --depth N, --width N, -D NAME=VALUE (VALUE an integer in Go syntax, possibly
// negative), --no-fold, --no-deadlock, --stateful and --local-deadlock, in the
// forms the CLI accepts; any other
// argument is an error, so a harness never passes a program kbmc regress rejects.
func ParseArgs(args []string) (Flags, error) {
	var f Flags
	for i := 0; i < len(args); i++ {
		arg := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", arg)
			}
			i++
			return args[i], nil
		}
		switch {
		case arg == "--depth" || arg == "--width":
			v, err := value()
			if err != nil {
				return f, err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return f, fmt.Errorf("%s %s: %q is not an integer", arg, v, v)
			}
			if arg == "--depth" {
				if n < 0 {
					return f, fmt.Errorf("--depth %d: must not be negative", n)
				}
				f.Depth = n
			} else {
				if n < 8 || n > 64 {
					return f, fmt.Errorf("--width %d: must be between 8 and 64", n)
				}
				f.Config.Width = n
			}
		case arg == "-D":
			def, err := value()
			if err != nil {
				return f, err
			}
			name, val, ok := strings.Cut(def, "=")
			if !ok || name == "" {
				return f, fmt.Errorf("-D %s: want NAME=VALUE", def)
			}
			n, err := strconv.ParseInt(val, 0, 64)
			if err != nil {
				return f, fmt.Errorf("-D %s: %q is not an integer", def, val)
			}
			if f.Config.Defines == nil {
				f.Config.Defines = map[string]int64{}
			}
			f.Config.Defines[name] = n
		case arg == "--no-fold":
			f.Config.NoFold = true
		case arg == "--no-deadlock":
			f.NoDeadlock = true
		case arg == "--stateful":
			f.Stateful = true
		case arg == "--local-deadlock":
			f.LocalDeadlock = true
		default:
			return f, fmt.Errorf("unknown argument %q (known: --depth N, --width N, -D NAME=VALUE, --no-fold, --no-deadlock, --stateful, --local-deadlock)", arg)
		}
	}
	return f, nil
}
