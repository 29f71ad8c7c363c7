package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"kbmc/ir"
	"kbmc/verify"
)

// A Row is one measured run.
type Row struct {
	Family     string
	N          int
	Engine     string
	Verdict    string // a verify.Verdict, or "error"
	Executions int64
	Trans      int64
	States     int64
	Depth      int64 // symbolic: the depth reached (where it completed, or the bound)
	Variables  int64
	Clauses    int64
	Conflicts  int64         // -1 when the solver does not report it (gini): an empty cell
	HasStates  bool          // the algorithm stores states (dfs --stateful, persistent, …)
	SolveTime  time.Duration // symbolic: time inside the solver
	Time       time.Duration
	// Memory during the row (memory.go): the peak of the Go heap above the
	// row's start, sampled, and the process's peak resident set size (0 where
	// the kernel does not say), both in bytes.
	PeakHeap uint64
	PeakRSS  uint64
	Note     string
	// Incomplete: an unknown verdict because the run's visited set was lossy
	// (--hash-compact, --bitstate), not because a limit stopped it; such a
	// series goes on growing N.
	Incomplete bool
	// The campaign's settings, carried on every row so that a CSV file says
	// what was measured: the depth bound, the time limit, kbmc's version.
	Bound   int
	Timeout time.Duration
	Version string
}

// EngineFactory builds the engine called name (e.g. "explicit/dpor") for one run.
type EngineFactory func(name string) (verify.Engine, error)

// Config is one benchmark campaign.
type Config struct {
	Families []Family
	Engines  []string
	From, To int
	Timeout  time.Duration
	// Memory ends a row with verdict unknown when the process passes this
	// many bytes (0: no limit): rows share one process, which the Go runtime
	// cannot save once it runs out of memory.
	Memory int64
	Width  int // 0: 32
	NoFold bool
	New    EngineFactory
	Log    io.Writer // one line per run, may be nil
	// OnRow, if set, receives each row as soon as it is measured (kbmc bench
	// writes its reports row by row, so that an interrupted campaign keeps
	// what it measured).
	OnRow func(Row) error
	// Bound and Version are copied into every row.
	Bound   int
	Version string
}

// Run measures every (family, N, engine). A series (family, engine) stops at its
// first timeout or error, since larger N only take longer.
func Run(ctx context.Context, cfg Config) ([]Row, error) {
	var rows []Row
	for _, f := range cfg.Families {
		src, err := f.Source()
		if err != nil {
			return rows, err
		}
		for _, eng := range cfg.Engines {
			for n := cfg.From; n <= cfg.To; n++ {
				if ctx.Err() != nil {
					return rows, ctx.Err()
				}
				row := runOne(ctx, cfg, f, src, eng, n)
				row.Bound, row.Timeout, row.Version = cfg.Bound, cfg.Timeout, cfg.Version
				rows = append(rows, row)
				if cfg.OnRow != nil {
					if err := cfg.OnRow(row); err != nil {
						return rows, err
					}
				}
				if cfg.Log != nil {
					count := fmt.Sprintf("exec=%d", row.Executions)
					if strings.HasPrefix(eng, "symbolic") {
						count = fmt.Sprintf("depth=%d solve=%v", row.Depth, row.SolveTime.Round(time.Microsecond))
					}
					fmt.Fprintf(cfg.Log, "%-18s N=%-3d %-22s %-12s %-28s time=%v heap=%s rss=%s %s\n", row.Family, n, eng,
						row.Verdict, count, row.Time.Round(time.Microsecond), verify.FormatBytes(int64(row.PeakHeap)),
						verify.FormatBytes(int64(row.PeakRSS)), row.Note)
				}
				if row.Verdict == verify.Unknown.String() && !row.Incomplete || row.Verdict == "error" {
					break
				}
			}
		}
	}
	return rows, nil
}

func runOne(ctx context.Context, cfg Config, f Family, src []byte, engName string, n int) Row {
	row := Row{Family: f.Name, N: n, Engine: engName}
	width := cfg.Width
	if width == 0 {
		width = 32
	}
	p, err := f.compile(src, width, cfg.NoFold, n)
	if err != nil {
		row.Verdict, row.Note = "error", firstLine(err.Error())
		return row
	}
	eng, err := cfg.New(engName)
	if err != nil {
		row.Verdict, row.Note = "error", err.Error()
		return row
	}
	res, heap, rss, err := measure(ctx, cfg.Timeout, cfg.Memory, eng, p)
	row.PeakHeap, row.PeakRSS = heap, rss
	if err != nil {
		row.Verdict, row.Note = "error", firstLine(err.Error())
		return row
	}
	row.Verdict = res.Verdict.String()
	switch {
	case res.Violation != nil:
		row.Note = res.Violation.Kind.String()
	case res.Stopped == "time" || res.Stopped == "memory":
		// Which limit stopped the row: a memory limit reached before the time
		// limit says that N cannot grow for want of memory, not of time.
		row.Note = res.Stopped + " limit"
	case res.Stopped != "":
		row.Note = res.Stopped
	case res.Incomplete != "":
		row.Note, row.Incomplete = "incomplete: "+res.Incomplete, true
	}
	s := res.Stats
	row.HasStates = slices.Contains(res.StatKeys, "states")
	row.Executions, row.Trans, row.States = s.Executions, s.Transitions, s.States
	row.Depth, row.Variables, row.Clauses, row.Conflicts = s.Depth, s.Variables, s.Clauses, s.Conflicts
	row.SolveTime, row.Time = s.SolveTime, s.Time
	return row
}

// measure runs one check under the time and memory limits and returns the
// peak heap above the row's start and the peak resident set size (memory.go).
func measure(ctx context.Context, timeout time.Duration, memory int64, eng verify.Engine, p *ir.Program) (*verify.Result, uint64, uint64, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w %v", verify.ErrTimeLimit, timeout))
		defer cancel()
	}
	sampler := startMemorySampler()
	ctx, watch := verify.WatchMemory(ctx, memory)
	res, err := eng.Check(ctx, p)
	watch.Stop()
	heap, rss := sampler.finish()
	return res, heap, rss, err
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
