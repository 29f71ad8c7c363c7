package bench

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed programs/*.kb
var programs embed.FS

// A Family is one parametric benchmark program; N is set with -D N=….
type Family struct {
	Name string // file name without .kb
	Args []string
}

// Source returns the family's program text.
func (f Family) Source() ([]byte, error) {
	return programs.ReadFile("programs/" + f.Name + ".kb")
}

// suites names the benchmark suites (DESIGN.md §8).
func suites() map[string][]string {
	return map[string][]string{
		"thesis": {"readers-writers", "indexer", "indexer-small", "branching"},
		"classic": {"peterson", "dekker", "bakery", "szymanski", "philosophers",
			"philosophers-fixed", "fib-bench", "producer-consumer", "spinlock"},
		// Protocols: processes that share no memory and talk through channels.
		"distributed": {"two-phase-commit", "ring-election", "token-ring",
			"database-partitioning", "primary-secondary"},
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
