package explicit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"kbmc/ir"
	"kbmc/verify"
)

// The algorithms of the explicit engine, one descriptor per --algo. This table is
// the one place that knows an algorithm by its name: cmd/kbmc reads it for the
// flags that apply and the default number of workers, regress and xval for the
// engines' names, and the parallel driver (parallel.go) for how a run is shared
// out. An algorithm is its descriptor here and its search in a file of its own
// (dfs.go, dpor.go, …): the search explores the tasks the driver gives it
// (search), whatever the number of workers.
var algorithms = []*algorithm{
	{
		name:   "dfs",
		engine: func(o Options) engine { return DFS{Options: o} },
		flags:  []string{"stateful", "local-deadlock", "hash-compact", "bitstate", "bitstate-mb"},
		stats:  func(o Options) []string { return when(o.Stateful, "states") },
		variant: func(o Options) string {
			if o.Stateful {
				return "stateful"
			}
			return ""
		},
		setVariant: func(v string, o *Options) error {
			if v != "stateful" {
				return fmt.Errorf("explicit algorithm dfs has no variant %q (dfs/stateful)", v)
			}
			o.Stateful = true
			return nil
		},
		check: func(o Options) error {
			if o.LocalDeadlock && !o.Stateful {
				return errLocalDeadlock
			}
			if l := o.lossy(); l != "" && !o.Stateful {
				return fmt.Errorf("--%s makes the visited set lossy, and stateless dfs keeps none (use --stateful)", l)
			}
			if o.lossy() != "" && o.LocalDeadlock {
				return fmt.Errorf("--local-deadlock needs the whole state graph, which --%s does not keep", o.lossy())
			}
			return nil
		},
		// The subtrees of a frontier are disjoint, so that the executions add
		// up to the sequential count (and, with --stateful, share one store).
		workers:  atFrontier,
		shards:   atFrontier,
		frontier: func(o Options) frontierRule { return frontierRule{distinct: o.Stateful, store: o.Stateful} },
		races:    true,
	},
	{
		// Breadth first: the first violation is one of the fewest steps
		// (kbmc check --shortest). One queue on one worker.
		name:   "bfs",
		races:  true,
		engine: func(o Options) engine { return BFS{Options: o} },
		flags:  []string{"local-deadlock"},
		stats:  func(Options) []string { return []string{"states", "depth"} },
		check: func(o Options) error {
			if o.Shard.Count > 1 {
				return fmt.Errorf("bfs explores its levels on one worker from one queue: it cannot be sharded")
			}
			return nil
		},
	},
	{
		name:    "dpor",
		engine:  func(o Options) engine { return DPOR{Options: o} },
		flags:   []string{"no-sleep"},
		stats:   func(o Options) []string { return when(!o.NoSleep, "sleep_blocked") },
		workers: byStealing,
		shards:  intoPieces,
	},
	{
		name:   "lazypor",
		engine: func(o Options) engine { return LazyPOR{Options: o} },
		// Its trace constraint systems hold no event for a receiver that a
		// rendezvous handoff ended, so the receiver's own select, another
		// case of which was ready, is never tried first.
		noRendezvousChoice: true,
		flags:              []string{"tcs-solver"},
		stats:              func(Options) []string { return []string{"tcs_built", "tcs_solved", "tcs_unsat", "sleep_blocked"} },
		check:              func(o Options) error { return CheckTCSSolver(o.TCSSolver) },
		variant: func(o Options) string {
			if o.TCSSolver == "" || o.TCSSolver == TCSSolvers()[0] {
				return ""
			}
			return o.TCSSolver
		},
		setVariant: func(v string, o *Options) error {
			if err := CheckTCSSolver(v); err != nil {
				return err
			}
			o.TCSSolver = v
			return nil
		},
		workers: byNodes,
		shards:  byNodes,
	},
	{
		name:    "persistent",
		engine:  func(o Options) engine { return Persistent{Options: o} },
		flags:   []string{"no-sleep", "hash-compact", "bitstate", "bitstate-mb"},
		stats:   func(Options) []string { return []string{"states", "sleep_blocked"} },
		workers: inPhases,
		shards:  inPhases,
		frontier: func(o Options) frontierRule {
			return frontierRule{distinct: true, sleep: true, sets: persistentSets(o, false)}
		},
	},
	{
		name:    "process-local",
		engine:  func(o Options) engine { return ProcessLocal{Options: o} },
		flags:   []string{"no-sleep", "hash-compact", "bitstate", "bitstate-mb"},
		stats:   func(Options) []string { return []string{"states", "local_states", "sleep_blocked"} },
		workers: inPhases,
		shards:  inPhases,
		frontier: func(o Options) frontierRule {
			return frontierRule{distinct: true, sleep: true, sets: persistentSets(o, true)}
		},
	},
	{
		name:    "bpor-preempt",
		engine:  func(o Options) engine { return BPORPreempt{Options: o} },
		flags:   []string{"preemptions"},
		bounded: true,
		bound:   func(o Options) verify.Bound { b := depthOnly(); b.Preemptions = o.Preemptions; return b },
		workers: byStealing,
		// Split as dpor is, BPOR's parts added the same backtracking points
		// above their pieces often enough to do two to three times the
		// sequential work (docs/decisions.md): a frontier carrying the bound.
		shards: atFrontier,
		frontier: func(o Options) frontierRule {
			return frontierRule{distinct: true, preempt: true, limit: o.Preemptions}
		},
	},
	{
		name:    "bpor-fair",
		engine:  func(o Options) engine { return BPORFair{Options: o} },
		flags:   []string{"fair", "max-steps"},
		bounded: true,
		bound:   func(o Options) verify.Bound { b := depthOnly(); b.Fair = o.Fair; return b },
		workers: byStealing,
		shards:  atFrontier,
		frontier: func(o Options) frontierRule {
			return frontierRule{distinct: true, fair: true, limit: o.Fair}
		},
	},
}

// An algorithm is one --algo of the explicit engine.
type algorithm struct {
	name string
	// engine returns the algorithm's engine, configured by o.
	engine func(o Options) engine
	// flags are the flags of kbmc check, besides the ones every explicit
	// algorithm takes (--depth, --workers, …), that apply to it.
	flags []string
	// bounded: the algorithm cuts executions by a bound of its own, so it
	// answers another question than the unbounded ones (regress and xval leave
	// it out of their default engines).
	bounded bool
	// stats are the statistics it reports besides executions and transitions;
	// bound is what limits its search besides the depth; check rejects
	// options it cannot take. Each may be nil: none, the depth alone, any.
	stats func(o Options) []string
	bound func(o Options) verify.Bound
	check func(o Options) error
	// variant is the setting, if any, that makes the algorithm another engine
	// for regress, xval and bench (explicit/dfs/stateful,
	// explicit/lazypor/z3); setVariant sets it from that name.
	variant    func(o Options) string
	setVariant func(v string, o *Options) error
	// workers is how a run on several workers shares the work, shards how a
	// sharded run cuts it into parts (see splitting); frontier, for algorithms
	// split at a frontier, how the frontier is expanded.
	workers, shards splitting
	frontier        func(o Options) frontierRule
	// races: the algorithm visits every reachable state (or, with --depth,
	// every state within the bound), so that checking each state it reaches
	// decides the property no-data-race (ir.Program.SelectRaces). The
	// reductions do not keep every state, and refuse the property
	// (docs/explicit.md, "Data races").
	races bool
	// noRendezvousChoice: the algorithm refuses a program with a select
	// that may either be completed by a rendezvous sender or take another
	// case itself (ir.Program.RendezvousChoice).
	noRendezvousChoice bool
}

// engine is what the driver needs of an algorithm's engine: its options, and
// what one run of it shares between its workers (the run's searches).
type engine interface {
	verify.Engine
	options() Options
	// start prepares the algorithm's part of the run x: the state its
	// searches share, and a search for each worker.
	start(x *executor, sh *sharing) (runner, error)
}

// runner is one run of an algorithm: it gives each worker a search, and, once
// the searches have ended, says whether one of them failed (an error instead of
// a verdict).
type runner interface {
	search(w *worker) search
	finish() error
}

// search is an algorithm's search on one worker: it explores the tasks the
// driver gives it, each to the end or until the run halts.
type search interface {
	explore(t *task)
}

// Algorithms lists the --algo names, the reference DFS first.
func Algorithms() []string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return names
}

// Unbounded lists the algorithms that cut executions by no bound but the depth:
// those that answer kbmc check's question.
func Unbounded() []string {
	var names []string
	for _, a := range algorithms {
		if !a.bounded {
			names = append(names, a.name)
		}
	}
	return names
}

// RaceAlgorithms lists the algorithms that check the property no-data-race
// (ir.Program.SelectRaces): those that visit every reachable state.
func RaceAlgorithms() []string {
	var names []string
	for _, a := range algorithms {
		if a.races {
			names = append(names, a.name)
		}
	}
	return names
}

// algorithmNamed returns the descriptor of the algorithm called name.
func algorithmNamed(name string) (*algorithm, error) {
	for _, a := range algorithms {
		if a.name == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("unknown explicit algorithm %q (available: %s)", name, strings.Join(Algorithms(), ", "))
}

// FlagApplies reports whether the flag of kbmc check called flag, one of the
// algorithms' own flags, applies to algo; ok is false for a flag no algorithm
// has.
func FlagApplies(flag, algo string) (applies, ok bool) {
	for _, a := range algorithms {
		if slices.Contains(a.flags, flag) {
			ok = true
			applies = applies || a.name == algo
		}
	}
	return applies, ok
}

// FlagAlgorithms lists the algorithms the flag called flag applies to.
func FlagAlgorithms(flag string) []string {
	var names []string
	for _, a := range algorithms {
		if slices.Contains(a.flags, flag) {
			names = append(names, a.name)
		}
	}
	return names
}

// Default is the algorithm kbmc check runs when none is named, with its
// settings: dfs with a visited set, chosen by measurement (docs/decisions.md, "The
// default engine").
func Default() (algo string, set func(*Options)) {
	return "dfs", func(o *Options) { o.Stateful = true }
}

// DefaultFor is the algorithm kbmc check runs on p when none is named: for a
// program with processes persistent, whose sets exploit that sends and
// receives commute and that processes share no memory (a two-phase commit with
// crashes and timeouts: 30,388 states in 0.1 s, where dfs --stateful stores 8.8
// million in a minute; docs/decisions.md, "The default engine"), else Default.
// --local-deadlock, which only dfs --stateful and bfs decide, keeps Default.
func DefaultFor(p *ir.Program, o Options) (algo string, set func(*Options)) {
	if len(p.Processes) > 0 && !o.LocalDeadlock {
		return "persistent", func(o *Options) { o.Stateful = false }
	}
	return Default()
}

// DefaultWorkers is how many workers a run of any algorithm uses when none are
// asked for, on a machine where kbmc may use cpus CPUs: all of them. Every
// algorithm has a parallel search that does about the work of the sequential
// one (docs/scale.md).
func DefaultWorkers(cpus int) int { return max(cpus, 1) }

// EngineName is the name of algo with options o among the engines of regress,
// xval and bench: ALGO, or ALGO/VARIANT (dfs/stateful, lazypor/z3).
func EngineName(algo string, o Options) string {
	a, err := algorithmNamed(algo)
	if err != nil || a.variant == nil {
		return algo
	}
	if v := a.variant(o); v != "" {
		return algo + "/" + v
	}
	return algo
}

// ParseEngineName reads a name EngineName gives into the algorithm and the
// variant's setting, which it makes in o.
func ParseEngineName(name string, o *Options) (algo string, err error) {
	algo, v, hasVariant := strings.Cut(name, "/")
	a, err := algorithmNamed(algo)
	if err != nil {
		return "", err
	}
	if !hasVariant {
		return algo, nil
	}
	if a.setVariant == nil {
		return "", fmt.Errorf("explicit algorithm %s has no variant %q", algo, v)
	}
	return algo, a.setVariant(v, o)
}

// New returns the explicit algorithm called name, configured by opts: on
// opts.Workers workers (at most one: the sequential search) and, with
// opts.Shard, as one part of a sharded run.
func New(name string, opts Options) (verify.Engine, error) {
	a, err := algorithmNamed(name)
	if err != nil {
		return nil, err
	}
	if err := a.validate(opts); err != nil {
		return nil, err
	}
	return a.engine(opts), nil
}

// validate rejects options the algorithm, or its parallel search, cannot take.
func (a *algorithm) validate(o Options) error {
	if o.LocalDeadlock && !slices.Contains(a.flags, "local-deadlock") {
		return errLocalDeadlock
	}
	if o.Shard.Count > 1 && (o.Shard.Index < 0 || o.Shard.Index >= o.Shard.Count) {
		return fmt.Errorf("shard %s: the index must be in 0..%d", o.Shard, o.Shard.Count-1)
	}
	if o.LocalDeadlock && o.Shard.Count > 1 {
		return fmt.Errorf("--local-deadlock needs the whole state graph in one run: it cannot be sharded")
	}
	if l := o.lossy(); l != "" {
		switch {
		case !slices.Contains(a.flags, l):
			return fmt.Errorf("--%s applies only to the stateful searches (dfs --stateful, persistent, process-local), not to %s", l, a.name)
		case o.HashCompact && o.Bitstate:
			return fmt.Errorf("--hash-compact and --bitstate are two lossy visited sets: choose one")
		case o.Shard.Count > 1:
			return fmt.Errorf("--%s: a lossy visited set is one search's, so the run cannot be sharded", l)
		case o.BitstateMB < 0 || o.BitstateMB > maxBitstateMB:
			return fmt.Errorf("--bitstate-mb %d: must be in 1..%d", o.BitstateMB, maxBitstateMB)
		}
	}
	if a.check != nil {
		return a.check(o)
	}
	return nil
}

var errLocalDeadlock = fmt.Errorf("--local-deadlock needs the whole state graph, which only dfs --stateful and bfs explore: " +
	"the reduced graphs of the other algorithms may show a process stuck when it is not (use --algo dfs --stateful)")

// check runs e, an engine of the algorithm called name, on p.
func check(ctx context.Context, p *ir.Program, name string, e engine) (*verify.Result, error) {
	a, err := algorithmNamed(name)
	if err != nil {
		return nil, err
	}
	return a.run(ctx, p, e)
}

// run runs e, an engine of algorithm a, on p: the one entry point of every
// explicit run, sequential, parallel or sharded.
func (a *algorithm) run(ctx context.Context, p *ir.Program, e engine) (*verify.Result, error) {
	o := e.options()
	if err := a.validate(o); err != nil {
		return nil, err
	}
	x, err := newExecutor(ctx, p, a, o)
	if err != nil {
		return nil, err
	}
	return x.drive(e)
}

// stats and bound default to none and the depth alone.
func (a *algorithm) statKeys(o Options) []string {
	if a.stats == nil {
		return nil
	}
	return a.stats(o)
}

func (a *algorithm) boundOf(o Options) verify.Bound {
	if a.bound == nil {
		return depthOnly()
	}
	return a.bound(o)
}

// when returns keys if cond holds, else none.
func when(cond bool, keys ...string) []string {
	if cond {
		return keys
	}
	return nil
}
