package bench

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	"kbmc/cfront"
	"kbmc/ir"
	"kbmc/lang"
)

//go:embed programs/*.kb programs/*.c
var programs embed.FS

// A Family is one parametric benchmark program; N is set with -D N=….
type Family struct {
	Name string // file name without .kb; a C family's keeps its .c
	Args []string
}

// File is the family's file name.
func (f Family) File() string {
	if f.IsC() {
		return f.Name
	}
	return f.Name + ".kb"
}

// IsC reports whether the family is a C program (checked through cfront).
func (f Family) IsC() bool { return strings.HasSuffix(f.Name, ".c") }

// Source returns the family's program text.
func (f Family) Source() ([]byte, error) {
	return programs.ReadFile("programs/" + f.File())
}

// suites names the benchmark suites of kbmc bench --suite.
func suites() map[string][]string {
	return map[string][]string{
		"thesis": {"readers-writers", "indexer", "indexer-small", "branching"},
		"classic": {"peterson", "dekker", "bakery", "szymanski", "philosophers",
			"philosophers-fixed", "fib-bench", "producer-consumer", "spinlock"},
		// Protocols: processes that share no memory and talk through channels.
		"distributed": {"two-phase-commit", "ring-election", "token-ring",
			"database-partitioning", "primary-secondary"},
		// The same programs in C with POSIX threads, for comparing the C front
		// end's cost with the .kb forms' (docs/c.md, "Speed").
		"c": {"readers-writers.c", "indexer.c", "fib-bench.c", "philosophers.c", "philosophers-fixed.c"},
	}
}

// Suites lists the suite names, plus "all".
func Suites() []string {
	var names []string
	for n := range suites() {
		names = append(names, n)
	}
	sort.Strings(names)
	return append(names, "all")
}

// Families returns the families of a suite ("all" for every embedded program), or of
// a comma-separated list of family names.
func Families(suite string) ([]Family, error) {
	all, err := programs.ReadDir("programs")
	if err != nil {
		return nil, err
	}
	exists := map[string]bool{}
	var every []string
	for _, e := range all {
		name := strings.TrimSuffix(e.Name(), ".kb")
		exists[name] = true
		every = append(every, name)
	}
	names, ok := suites()[suite]
	switch {
	case suite == "all":
		names = every
	case !ok:
		names = strings.Split(suite, ",")
	}
	var fams []Family
	for _, n := range names {
		if !exists[n] {
			return nil, fmt.Errorf("unknown suite or family %q (suites: %s; families: %s)",
				n, strings.Join(Suites(), ", "), strings.Join(every, ", "))
		}
		fams = append(fams, Family{Name: n})
	}
	return fams, nil
}

// compile compiles the family's program with N = n: a .kb family with the
// given integer width, a C family (whose types fix its widths) as ILP32.
func (f Family) compile(src []byte, width int, noFold bool, n int) (*ir.Program, error) {
	defines := map[string]int64{"N": int64(n)}
	if f.IsC() {
		return cfront.Compile(f.File(), src, cfront.Config{NoFold: noFold, Defines: defines})
	}
	return lang.Compile(f.File(), src, lang.Config{Width: width, NoFold: noFold, Defines: defines})
}
