package explicit

import (
	"fmt"

	"kbmc/ir"
	"kbmc/verify"
)

// Options configure an explicit search.
type Options struct {
	verify.Options
	Stateful bool // dfs: keep a visited set
	// Workers > 1 explores subtrees of the search on that many goroutines; Shard
	// makes the run one part of a sharded search (see parallel.go).
	Workers int
	Shard   Shard
	// LocalDeadlock (dfs --stateful): after the search, report a reachable state
	// where some process can never move again (see localdeadlock.go).
	LocalDeadlock bool
	MaxNondet     int64 // largest nondet range explored (values); 0 means DefaultMaxNondet

	NoSleep     bool   // dpor, persistent: no sleep sets (dpor keeps source-DPOR race reversal, so counts differ from the thesis baseline)
	Preemptions int    // bpor-preempt: preemption bound c
	Fair        int    // bpor-fair: fair bound c
	MaxSteps    int    // bpor-fair: livelock report past this many steps
	TCSSolver   string // lazypor: "topo" (default), "z3" or "gini"

	// Set by a parallel or sharded run (parallel.go) for each of its searches:
	// the outcome they share, and the subtree this search explores.
	shared *outcome
	from   *prefix
	// For dfs --stateful and lazypor on several workers: the store the run's
	// searches share (visited states; completed nodes), and the worker (of
	// workers) this search runs on.
	visited *sharedVisited[struct{}]
	worker  int
	// For persistent and process-local on several workers: the tables the run's
	// searches share.
	tables *persistentTables
	// For dpor and BPOR on several workers (steal.go): where the search gives
	// work away, and the work it was given (nil, or a task of depth -1: start at
	// from).
	pool  *porPool
	task  *porTask
	split *porSplit // give all the work away at a budget (a sharded run's split)
	// eagerSteal (tests) makes the searches of such a run give work away
	// whenever fewer than two tasks wait, whether or not a worker does, and a
	// sharded run split its search every 64 transitions.
	eagerSteal bool

	// Terminal, if set, is called with every terminal state the search reaches (no
	// thread enabled; deadlock says whether it is a deadlock). Differential tests use
	// it to compare the reachable terminal states of algorithms; the state is only
	// valid during the call.
	Terminal func(s ir.State, deadlock bool)
}

// DefaultMaxNondet is the largest nondet range explored when none is given.
const DefaultMaxNondet = 256

// Supported reports, as a *verify.UnsupportedError, the first construct the explicit
// engine cannot explore: nondet() without a range, or a range wider than MaxNondet.
func Supported(p *ir.Program, opts Options) error {
	max := opts.MaxNondet
	if max <= 0 {
		max = DefaultMaxNondet
	}
	var bad *verify.UnsupportedError
	check := func(e *ir.Expr) bool {
		if bad != nil || e.Op != ir.ENondet {
			return bad == nil
		}
		switch {
		case e.Text != "" && (e.Unbounded || uint64(e.Hi-e.Lo) >= uint64(max)):
			// A C or Go nondet: any value of its type.
			bad = &verify.UnsupportedError{Pos: e.Pos, Engine: "explicit engine",
				Msg: fmt.Sprintf("%s takes any of the %s values of %s, more than --max-nondet %d: the explicit engine tries values one by one; use --engine symbolic",
					e.Text, typeValues(e.Type), e.Type, max)}
		case e.Unbounded:
			bad = &verify.UnsupportedError{Pos: e.Pos, Engine: "explicit engine",
				Msg: "nondet() without a range cannot be explored exhaustively; write nondet(lo, hi)"}
		case uint64(e.Hi-e.Lo) >= uint64(max):
			bad = &verify.UnsupportedError{Pos: e.Pos, Engine: "explicit engine",
				Msg: fmt.Sprintf("nondet(%d, %d) has more than %d values (--max-nondet)", e.Lo, e.Hi, max)}
		}
		return false
	}
	for _, t := range p.Templates {
		for _, n := range t.Nodes {
			for e := range n.Exprs() {
				ir.Inspect(e, check)
			}
		}
	}
	if bad != nil {
		return bad
	}
	return nil
}

// typeValues is how many values type t has, for people: "65536", "2^32".
func typeValues(t ir.Type) string {
	if b := t.Bits(64); b > 16 {
		return fmt.Sprintf("2^%d", b)
	}
	return fmt.Sprint(1 << t.Bits(64))
}
