package explicit

import (
	"fmt"
	"strings"

	"kbmc/verify"
)

// Algorithms lists the --algo names New accepts, the reference DFS first.
func Algorithms() []string {
	return []string{"dfs", "dpor", "lazypor", "persistent", "process-local", "bpor-preempt", "bpor-fair"}
}

// New returns the explicit algorithm called name, configured by opts.
func New(name string, opts Options) (verify.Engine, error) {
	if opts.LocalDeadlock && (name != "dfs" || !opts.Stateful) {
		return nil, fmt.Errorf("--local-deadlock needs the whole state graph, which only dfs --stateful explores: " +
			"the reduced graphs of the other algorithms may show a process stuck when it is not (use --algo dfs --stateful)")
	}
	if opts.Workers > 1 || opts.Shard.Count > 1 {
		if opts.Shard.Count > 1 && (opts.Shard.Index < 0 || opts.Shard.Index >= opts.Shard.Count) {
			return nil, fmt.Errorf("shard %s: the index must be in 0..%d", opts.Shard, opts.Shard.Count-1)
		}
		if opts.LocalDeadlock {
			if opts.Shard.Count > 1 {
				return nil, fmt.Errorf("--local-deadlock needs the whole state graph in one run: it cannot be sharded")
			}
			opts.Workers = 1 // the analysis runs on one state graph
		} else {
			if _, err := New(name, Options{Options: opts.Options, Stateful: opts.Stateful, TCSSolver: opts.TCSSolver}); err != nil {
				return nil, err
			}
			return parallelSearch{algo: name, opts: opts}, nil
		}
	}
	switch name {
	case "dfs":
		return DFS{Options: opts}, nil
	case "dpor":
		return DPOR{Options: opts}, nil
	case "bpor-preempt":
		return BPORPreempt{Options: opts}, nil
	case "bpor-fair":
		return BPORFair{Options: opts}, nil
	case "lazypor":
		if err := CheckTCSSolver(opts.TCSSolver); err != nil {
			return nil, err
		}
		return LazyPOR{Options: opts}, nil
	case "persistent":
		return Persistent{Options: opts}, nil
	case "process-local":
		return ProcessLocal{Options: opts}, nil
	}
	return nil, fmt.Errorf("unknown explicit algorithm %q (available: %s)", name, strings.Join(Algorithms(), ", "))
}
