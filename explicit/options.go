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
	// Workers > 1 shares the search among that many goroutines; Shard makes the
	// run one part of a sharded search (see parallel.go).
	Workers int
	Shard   Shard
	// LocalDeadlock (dfs --stateful): after the search, report a reachable state
	// where some process can never move again (see localdeadlock.go).
	LocalDeadlock bool
	MaxNondet     int64 // largest nondet range explored (values); 0 means DefaultMaxNondet

	// HashCompact and Bitstate make the visited set of a stateful search (dfs
	// --stateful, persistent, process-local) lossy, for reach beyond memory:
	// it keeps only a state's 64-bit hash (HashCompact, as SPIN's hash
	// compaction), or only bits that a state's hashes set in an array of
	// BitstateMB MiB (Bitstate, SPIN's supertrace; 0: DefaultBitstateMB).
	// Two states may then be taken for one, and the search skip what it has
	// not explored: no violation found is verdict unknown, never safe
	// (verify.Outcome.Incomplete). Such a run is sequential (one worker).
	HashCompact bool
	Bitstate    bool
	BitstateMB  int

	NoSleep     bool   // dpor, persistent: no sleep sets (dpor keeps source-DPOR race reversal, so counts differ from the thesis baseline)
	Preemptions int    // bpor-preempt: preemption bound c
	Fair        int    // bpor-fair: fair bound c
	MaxSteps    int    // bpor-fair: livelock report past this many steps
	TCSSolver   string // lazypor: "topo" (default), "z3" or "gini"

	// Coverage: the result reports what the search executed (verify.Coverage;
	// coverage.go).
	Coverage bool

	// Terminal, if set, is called with every terminal state the search reaches (no
	// thread enabled; deadlock says whether it is a deadlock), without its channel
	// heads (ir.Program.IdentityCells: they only number message slots, and two runs
	// that end alike may have received different numbers of messages when a lossy
	// channel lost some). Differential tests use it to compare the reachable
	// terminal states of algorithms; the state is only valid during the call, which
	// may come from any worker of the run.
	Terminal func(s ir.State, deadlock bool)
}

// A Shard names one of Count parts of a run (Index from 0); Count 0 is no sharding.
type Shard struct{ Index, Count int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// DefaultBitstateMB is the size of --bitstate's bit array when none is given:
// 2^29 bits.
const DefaultBitstateMB = 64

// maxBitstateMB is the largest bit array --bitstate takes: 1 TiB.
const maxBitstateMB = 1 << 20

// storeMode is how the visited sets of a run tell states apart.
func (o Options) storeMode() storeMode {
	switch {
	case o.Bitstate:
		return storeMode{kind: bitStateStore, bits: bitstateBits(o.BitstateMB)}
	case o.HashCompact:
		return storeMode{kind: hashCompactStore}
	}
	return storeMode{}
}

// lossy names the lossy visited set the options ask for (the flag's name), or
// is empty.
func (o Options) lossy() string {
	switch {
	case o.Bitstate:
		return "bitstate"
	case o.HashCompact:
		return "hash-compact"
	}
	return ""
}

// DefaultMaxNondet is the largest nondet range explored when none is given.
const DefaultMaxNondet = 256

// Supported reports, as a *verify.UnsupportedError, the first construct the explicit
// engine cannot explore: nondet() without a range, a range wider than MaxNondet, or a
// program with phantom threads (ir.Pool.Overflow).
func Supported(p *ir.Program, opts Options) error {
	if p.HasPhantoms() {
		// The searches' static footprints do not know the overflow cells;
		// only Hunt, which has none, runs such a program.
		return &verify.UnsupportedError{Engine: "explicit engine", Msg: "a program lowered with phantom threads is for the random bug hunt only"}
	}
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
