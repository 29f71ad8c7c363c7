package main

import (
	"context"
	"errors"
	"fmt"
	"kbmc/cfront"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/urfave/cli/v2"

	"kbmc/explicit"
	"kbmc/gofront"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/lang/syntax"
	"kbmc/symbolic"
	"kbmc/verify"
)

// programFlags are the flags that decide how a file is compiled.
func programFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "width", Value: 32, Usage: "integer width W in bits (8..64)"},
		&cli.StringSliceFlag{Name: "D", Usage: "override a constant: -D NAME=VALUE (repeatable)"},
		&cli.BoolFlag{Name: "no-fold", Usage: "one transition per statement (no local folding)"},
		&cli.StringFlag{Name: "data-model", Value: "ILP32", Usage: "C: ILP32 (32-bit int, long and pointers, as SV-COMP's default) or LP64"},
		&cli.IntFlag{Name: "pool", Value: cfront.DefaultLoopThreads, Usage: "C: threads a pthread_create in a loop of unknown trip count may start, and blocks a malloc there may allocate; Go: goroutines a go statement in a loop may start, and variables, channels and slices code in a loop may make; an execution needing more is cut"},
		&cli.StringFlag{Name: "entry", Usage: "Go: the function the first goroutine runs (main, a TestXxx, or a function without parameters); default: main, or the only test"},
	}
}

// sourceConfig is how a source file is compiled: .kb's settings and C's.
type sourceConfig struct {
	lang.Config
	DataModel string // C: ILP32 or LP64
	Pool      int    // C and Go: see the --pool flag
	Entry     string // Go: see the --entry flag
}

// engineFlags are the flags that choose and bound an engine.
func engineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "engine", Value: "explicit", Usage: "explicit or symbolic"},
		&cli.StringFlag{Name: "solver", Value: "gini", Usage: "symbolic: " + strings.Join(symbolic.Solvers(), ", ") + "; portfolio races gini against z3 on each solver call"},
		&cli.StringFlag{Name: "encoding", Value: symbolic.Encodings()[0], Usage: "symbolic: " + strings.Join(symbolic.Encodings(), " or ")},
		&cli.StringFlag{Name: "por", Value: "monotonic", Usage: "symbolic, step encoding: partial-order constraints, " + strings.Join(symbolic.PORs(), ", ")},
		&cli.BoolFlag{Name: "no-incremental", Usage: "symbolic: solve at the full depth at once"},
		&cli.StringFlag{Name: "algo", DefaultText: "dfs with --stateful", Usage: "explicit algorithm: " + strings.Join(explicit.Algorithms(), ", ") + "; --algo dfs alone is the stateless reference search"},
		&cli.IntFlag{Name: "depth", Value: verify.DefaultDepth, Usage: "maximum number of steps of an execution (at least 1)"},
		&cli.BoolFlag{Name: "no-deadlock", Usage: "do not report deadlocks"},
		&cli.BoolFlag{Name: "stateful", Usage: "dfs: keep a visited set"},
		&cli.BoolFlag{Name: "local-deadlock", Usage: "dfs --stateful: also report a process that can never move again while others may"},
		&cli.BoolFlag{Name: "no-sleep", Usage: "dpor, persistent: no sleep sets"},
		&cli.BoolFlag{Name: "hash-compact", Usage: "dfs --stateful, persistent, process-local: keep only a 64-bit hash per visited state (less memory; two states may be taken for one, so no violation found is verdict unknown, never safe)"},
		&cli.BoolFlag{Name: "bitstate", Usage: "dfs --stateful, persistent, process-local: keep visited states as bits in a bit array (supertrace: least memory; states may be skipped, so no violation found is verdict unknown, never safe)"},
		&cli.IntFlag{Name: "bitstate-mb", Value: explicit.DefaultBitstateMB, Usage: "--bitstate: the size of the bit array in MiB"},
		&cli.IntFlag{Name: "preemptions", Value: 2, Usage: "bpor-preempt: preemption bound (negative: none)"},
		&cli.IntFlag{Name: "fair", Value: 2, Usage: "bpor-fair: fair bound (negative: none)"},
		&cli.IntFlag{Name: "max-steps", Usage: "bpor-fair: report a possible livelock past this many steps (0: off)"},
		&cli.StringFlag{Name: "tcs-solver", Value: "topo", Usage: "lazypor: trace constraint system solver (" + strings.Join(explicit.TCSSolvers(), ", ") + ")"},
		&cli.Int64Flag{Name: "max-nondet", Value: explicit.DefaultMaxNondet, Usage: "largest nondet(lo, hi) range explored"},
		timeoutFlag(0, "give up after this long (verdict unknown): 30s, 2m, 1h30m, or a number of seconds"),
		memoryFlag(),
		&cli.IntFlag{Name: "workers", DefaultText: fmt.Sprintf("%d (the CPUs kbmc may use)", runtime.GOMAXPROCS(0)),
			Usage: "explicit: explore on this many goroutines (with more than one, which violation is reported first may vary from run to run; 1 is reproducible)"},
		&cli.StringFlag{Name: "shard", Usage: "explicit: explore part I of N of the search (I/N, 0 <= I < N); combine the parts' --json results with kbmc merge"},
	}
}

// Without --algo, the explicit engine runs dfs with a visited set (--stateful):
// chosen by measurement (docs/decisions.md, "The default engine"). Naming
// --algo dfs gives the stateless reference search, the oracle of xval and the
// differential tests.

// seconds is a duration flag's value that also reads a bare number as seconds
// (`--timeout 10` is ten seconds, as for timeout(1)).
type seconds struct{ d time.Duration }

func (s *seconds) Set(v string) error {
	if d, err := time.ParseDuration(v); err == nil {
		if d < 0 {
			return fmt.Errorf("%s: must not be negative", v)
		}
		s.d = d
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1e9 {
		return fmt.Errorf("%q: want a duration such as 30s, 2m or 1h30m, or a number of seconds", v)
	}
	s.d = time.Duration(f * float64(time.Second))
	return nil
}

func (s *seconds) String() string {
	if s == nil || s.d == 0 {
		return "none"
	}
	return formatDuration(s.d)
}

func timeoutFlag(def time.Duration, usage string) cli.Flag {
	return &cli.GenericFlag{Name: "timeout", Value: &seconds{def}, Usage: usage}
}

// timeoutOf reads a flag made by timeoutFlag.
func timeoutOf(c *cli.Context) time.Duration {
	if s, ok := c.Generic("timeout").(*seconds); ok {
		return s.d
	}
	return 0
}

// compileConfig reads the program flags.
func compileConfig(c *cli.Context) (sourceConfig, error) {
	// A run recorded for kbmc detect keeps every access to process memory a
	// step: detect's predicates read it (lang.Config.KeepPrivate).
	cfg := sourceConfig{Config: lang.Config{Width: c.Int("width"), NoFold: c.Bool("no-fold"), KeepPrivate: c.String("record") != ""},
		DataModel: c.String("data-model"), Pool: c.Int("pool"), Entry: c.String("entry")}
	if m := strings.ToUpper(cfg.DataModel); m != "ILP32" && m != "LP64" {
		return cfg, usageErr("--data-model %s: want ILP32 or LP64", cfg.DataModel)
	}
	if cfg.Pool < 1 || cfg.Pool > 64 {
		return cfg, usageErr("--pool %d: want 1..64", cfg.Pool)
	}
	if cfg.Width < 8 || cfg.Width > 64 {
		return cfg, usageErr("--width %d: must be between 8 and 64", cfg.Width)
	}
	defs, err := parseDefines(c.StringSlice("D"))
	if err != nil {
		return cfg, err
	}
	cfg.Defines = defs
	return cfg, nil
}

func parseDefines(list []string) (map[string]int64, error) {
	defs := map[string]int64{}
	for _, d := range list {
		name, val, ok := strings.Cut(d, "=")
		if !ok || name == "" {
			return nil, usageErr("-D %s: want NAME=VALUE", d)
		}
		v, err := strconv.ParseInt(val, 0, 64)
		if err != nil {
			return nil, usageErr("-D %s: %q is not an integer", d, val)
		}
		defs[name] = v
	}
	return defs, nil
}

// engineConfig is everything that picks and bounds an engine.
type engineConfig struct {
	Engine, Algo string
	// Bounds are the options every engine takes: the depth, deadlock checking,
	// progress reports.
	Bounds verify.Options
	// Symbolic: solver, POR constraints, and whether to deepen incrementally.
	Solver, Encoding, POR string
	NoIncremental         bool
	// Explicit holds the explicit engine's own options; its embedded common
	// options are taken from Bounds when the engine is built.
	Explicit explicit.Options
	Timeout  time.Duration
	// DefaultAlgo says that no --algo was given: the explicit engine then runs
	// dfs --stateful. An engine named later (engineByName) replaces it.
	DefaultAlgo bool
	// DefaultDepth says that no --depth was given: a Go program then gets
	// gofront.DefaultDepth (forProgram).
	DefaultDepth bool
}

// Name is the engine's name as regress, xval and bench spell it.
func (ec engineConfig) Name() string {
	if ec.Engine == "symbolic" {
		return "symbolic/" + ec.Solver + "/" + ec.POR
	}
	return "explicit/" + explicit.EngineName(ec.Algo, ec.Explicit)
}

func readEngineConfig(c *cli.Context) (engineConfig, error) {
	ec := engineConfig{Engine: c.String("engine"), Algo: c.String("algo"), Timeout: timeoutOf(c),
		Solver: c.String("solver"), Encoding: c.String("encoding"), POR: c.String("por"), NoIncremental: c.Bool("no-incremental")}
	if !c.IsSet("encoding") {
		ec.Encoding = "" // the engine's default, which depends on the program (invariants: step)
	}
	if ec.Algo == "" {
		var set func(*explicit.Options)
		ec.Algo, set = explicit.Default()
		set(&ec.Explicit)
		ec.DefaultAlgo = true
	}
	ec.Bounds.Depth = c.Int("depth")
	ec.DefaultDepth = !c.IsSet("depth")
	ec.Bounds.NoDeadlock = c.Bool("no-deadlock")
	ec.Explicit.Stateful = ec.Explicit.Stateful || c.Bool("stateful")
	if c.Bool("stateful") {
		ec.DefaultAlgo = false // named, though the default has it too
	}
	ec.Explicit.LocalDeadlock = c.Bool("local-deadlock")
	ec.Explicit.NoSleep = c.Bool("no-sleep")
	ec.Explicit.HashCompact = c.Bool("hash-compact")
	ec.Explicit.Bitstate = c.Bool("bitstate")
	ec.Explicit.BitstateMB = c.Int("bitstate-mb")
	if c.IsSet("bitstate-mb") && !ec.Explicit.Bitstate {
		return ec, usageErr("--bitstate-mb sizes the bit array of --bitstate, which is not given")
	}
	if ec.Explicit.BitstateMB < 1 {
		return ec, usageErr("--bitstate-mb %d: must be at least 1", ec.Explicit.BitstateMB)
	}
	ec.Explicit.TCSSolver = c.String("tcs-solver")
	ec.Explicit.Preemptions = c.Int("preemptions")
	ec.Explicit.Fair = c.Int("fair")
	ec.Explicit.MaxSteps = c.Int("max-steps")
	ec.Explicit.MaxNondet = c.Int64("max-nondet")
	if c.IsSet("workers") {
		// Unset, it is 0 and engine() chooses by the algorithm, which regress
		// and xval set per engine after this.
		ec.Explicit.Workers = c.Int("workers")
		if ec.Explicit.Workers < 1 {
			return ec, usageErr("--workers %d: must be at least 1", ec.Explicit.Workers)
		}
	}
	if spec := c.String("shard"); spec != "" {
		sh, err := parseShard(spec)
		if err != nil {
			return ec, usageErr("--shard %s: %v", spec, err)
		}
		ec.Explicit.Shard = sh
	}
	if err := checkDepth(ec.Bounds.Depth); err != nil {
		return ec, err
	}
	mem, err := parseMemory(c.String("memory"))
	if err != nil {
		return ec, err
	}
	ec.Bounds.Memory = mem
	if ec.Explicit.MaxNondet < 1 {
		return ec, usageErr("--max-nondet %d: must be positive", ec.Explicit.MaxNondet)
	}
	_, err = ec.engine()
	return ec, err
}

// engineFlagScope says, for each engine flag, which engines it applies to; the
// explicit algorithms' own flags are in their descriptors (explicit.FlagApplies).
var engineFlagScope = []struct {
	flag    string
	applies func(ec engineConfig) bool
	what    string
}{
	{"solver", isSymbolic, "the symbolic engine (--engine symbolic)"},
	{"por", isSymbolic, "the symbolic engine (--engine symbolic)"},
	{"no-incremental", isSymbolic, "the symbolic engine (--engine symbolic)"},
	{"algo", isExplicit, "the explicit engine"},
	{"max-nondet", isExplicit, "the explicit engine"},
}

func isSymbolic(ec engineConfig) bool { return ec.Engine == "symbolic" }
func isExplicit(ec engineConfig) bool { return ec.Engine == "explicit" }

// algoList is "--algo A, B or C".
func algoList(algos []string) string {
	s := strings.Join(algos, ", ")
	if i := strings.LastIndex(s, ", "); i >= 0 {
		s = s[:i] + " or " + s[i+2:]
	}
	return "--algo " + s
}

// checkApplicable rejects an engine flag given on the command line that the
// chosen engine would ignore: a flag that changes nothing must not look as if it
// did.
func checkApplicable(c *cli.Context, ec engineConfig) error {
	chosen := "--engine " + ec.Engine
	if ec.Engine == "explicit" {
		chosen = "--algo " + ec.Algo
	}
	for _, s := range engineFlagScope {
		if c.IsSet(s.flag) && !s.applies(ec) {
			return usageErr("--%s applies only to %s, not to %s", s.flag, s.what, chosen)
		}
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		applies, algoFlag := explicit.FlagApplies(name, ec.Algo)
		if algoFlag && c.IsSet(name) && (!isExplicit(ec) || !applies) {
			return usageErr("--%s applies only to %s, not to %s", name, algoList(explicit.FlagAlgorithms(name)), chosen)
		}
	}
	return nil
}

// engine builds the chosen engine.
func (ec engineConfig) engine() (verify.Engine, error) {
	switch ec.Engine {
	case "explicit":
		opts := ec.Explicit
		opts.Options = ec.Bounds
		if opts.Workers == 0 {
			opts.Workers = explicit.DefaultWorkers(runtime.GOMAXPROCS(0))
		}
		eng, err := explicit.New(ec.Algo, opts)
		if err != nil {
			return nil, usageErr("--algo %s: %v", ec.Algo, err)
		}
		return eng, nil
	case "symbolic":
		if ec.Explicit.LocalDeadlock {
			return nil, usageErr("--local-deadlock: the symbolic engine cannot decide local deadlocks " +
				"(they need every state reachable from a state); use --engine explicit --algo dfs --stateful")
		}
		eng, err := symbolic.New(ec.Bounds, ec.Solver, ec.Encoding, ec.POR, ec.NoIncremental)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return eng, nil
	}
	return nil, usageErr("--engine %s: unknown engine (available: explicit, symbolic)", ec.Engine)
}

// checkDepth validates --depth, the same way for every command.
func checkDepth(depth int) error {
	if depth < 1 {
		return usageErr("--depth %d: must be at least 1 (the number of steps an execution may take)", depth)
	}
	return nil
}

// memoryFlag is --memory LIMIT: a run that needs more stops with verdict
// unknown instead of being killed.
func memoryFlag() cli.Flag {
	return &cli.StringFlag{Name: "memory", Value: "auto", Usage: "stop with verdict unknown when kbmc's memory passes `LIMIT`: " +
		"4GB, 512MiB, none, or auto (80% of the memory of the machine or container)"}
}

// parseMemory reads a --memory value into bytes (0: no limit).
func parseMemory(spec string) (int64, error) {
	switch strings.ToLower(spec) {
	case "auto":
		return verify.DefaultMemoryLimit(), nil
	case "none", "0":
		return 0, nil
	}
	n, err := humanize.ParseBytes(spec)
	if err != nil || n == 0 || n > math.MaxInt64 {
		return 0, usageErr("--memory %s: want a size such as 4GB or 512MiB, none, or auto", spec)
	}
	if n < 64<<20 {
		return 0, usageErr("--memory %s: too small for kbmc to run in; give at least 64MiB", spec)
	}
	return int64(n), nil
}

// withLimits bounds a run: ctx ends with verify.ErrTimeLimit after timeout
// (0: never) and with verify.ErrMemoryLimit when kbmc's memory passes memory
// bytes (0: never). stop must be called when the run is over.
func withLimits(ctx context.Context, timeout time.Duration, memory int64) (_ context.Context, stop func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	cancel := context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w %v", verify.ErrTimeLimit, timeout))
	}
	ctx, watch := verify.WatchMemory(ctx, memory)
	return ctx, func() { watch.Stop(); cancel() }
}

// parseShard reads I/N.
func parseShard(spec string) (explicit.Shard, error) {
	i, n, ok := strings.Cut(spec, "/")
	if !ok {
		return explicit.Shard{}, fmt.Errorf("want I/N, e.g. 0/8")
	}
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	switch {
	case err1 != nil || err2 != nil:
		return explicit.Shard{}, fmt.Errorf("want I/N with whole numbers, e.g. 0/8")
	case count < 1 || index < 0 || index >= count:
		return explicit.Shard{}, fmt.Errorf("want 0 <= I < N")
	}
	return explicit.Shard{Index: index, Count: count}, nil
}

// loaded is a compiled program with its source, for error rendering and traces.
type loaded struct {
	path string // the input as named: a file, or a Go package's directory
	// file is the file the program's own positions are in (ir.Pos.File
	// empty): path, or for a Go package the file of its entry function.
	file string
	// src is the input's source; for a Go package, its files' sources one
	// after another (what a trail's hash covers). files holds each file's
	// source by name, for the source lines of errors.
	src      []byte
	files    map[string][]byte
	prog     *ir.Program
	settings []string // the flags that decide the verdict, as name=value (see verdictSettings)
	// property is the one property --property chose, or nil for all.
	property *property
}

// verdictFlags are the flags whose values decide a run's verdict; the parts of a
// sharded run must agree on them (kbmc merge checks). How the work is spread
// (--workers, --shard), limits and output formats are not among them.
var verdictFlags = []string{"engine", "algo", "solver", "encoding", "por", "no-incremental", "depth", "width", "D",
	"no-fold", "no-deadlock", "local-deadlock", "stateful", "no-sleep", "hash-compact", "bitstate", "bitstate-mb",
	"preemptions", "fair", "max-steps",
	"tcs-solver", "max-nondet", "property", "invariant"}

// verdictSettings lists the values of the verdict flags the command has, after
// kbmc's own version: how a sharded run is split into parts may change from one
// kbmc to the next, so the parts must come from one. algo and stateful are
// what ec runs, not the flags as typed: without --algo the explicit engine runs
// its default (dfs --stateful), and the symbolic engine runs no algorithm.
func verdictSettings(c *cli.Context, ec engineConfig) []string {
	out := []string{"kbmc=" + versionString()}
	for _, name := range verdictFlags {
		for _, f := range c.Command.Flags {
			if !slices.Contains(f.Names(), name) {
				continue
			}
			switch name {
			case "algo":
				algo := ""
				if isExplicit(ec) {
					algo = ec.Algo
				}
				out = append(out, "algo="+algo)
				continue
			case "stateful":
				out = append(out, fmt.Sprintf("stateful=%v", isExplicit(ec) && ec.Explicit.Stateful))
				continue
			}
			if name == "D" || name == "invariant" {
				list := slices.Clone(c.StringSlice(name))
				slices.Sort(list)
				out = append(out, name+"="+strings.Join(list, ","))
				continue
			}
			out = append(out, fmt.Sprintf("%s=%v", name, c.Value(name)))
		}
	}
	return out
}

// load reads and compiles a file (for Go, a package of one file, named by
// the file or its directory). Input errors come back as exit code 2.
func load(path string, cfg sourceConfig) (*loaded, error) {
	if gofront.IsGo(path) {
		res, err := compileGo(path, cfg)
		if err != nil {
			return nil, &exitError{exitInput, err}
		}
		l := &loaded{path: path, file: res.File, files: map[string][]byte{}, prog: res.Program}
		if len(res.Files) == 1 {
			l.path = res.File // a directory of one file: name the file, as before
		}
		for _, f := range res.Files {
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, &exitError{exitInput, err}
			}
			l.files[f] = src
			l.src = append(l.src, src...)
		}
		return l, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &exitError{exitInput, err}
	}
	p, err := compile(path, src, cfg)
	if err != nil {
		return nil, &exitError{exitInput, err}
	}
	return singleFile(path, src, p), nil
}

// singleFile is the loaded form of a program read from one file.
func singleFile(path string, src []byte, p *ir.Program) *loaded {
	return &loaded{path: path, file: path, src: src, files: map[string][]byte{path: src}, prog: p}
}

// fileOf is the file pos is in.
func (l *loaded) fileOf(pos ir.Pos) string {
	if pos.File != "" {
		return pos.File
	}
	return l.file
}

// compileGo lowers a Go file (or the one file of a directory).
func compileGo(path string, cfg sourceConfig) (*gofront.Result, error) {
	return gofront.Compile(path, gofront.Config{Entry: cfg.Entry, NoFold: cfg.NoFold,
		LoopGoroutines: cfg.Pool, LoopBlocks: cfg.Pool})
}

// compile lowers a source file with the front end of its language: Go for
// .go files, C for .c and .i files, .kb otherwise.
func compile(path string, src []byte, cfg sourceConfig) (*ir.Program, error) {
	if gofront.IsGo(path) {
		res, err := compileGo(path, cfg)
		if err != nil {
			return nil, err
		}
		return res.Program, nil
	}
	if cfront.IsC(path) {
		return cfront.Compile(path, src, cfront.Config{NoFold: cfg.NoFold, Defines: cfg.Defines,
			DataModel: cfg.DataModel, LoopThreads: cfg.Pool, LoopBlocks: cfg.Pool})
	}
	return lang.Compile(path, src, cfg.Config)
}

// errorAt renders a message at a position like a compiler error: the position, the
// source line and a caret.
func (l *loaded) errorAt(pos ir.Pos, msg string) error {
	file, line := l.fileOf(pos), ""
	if lines := strings.Split(string(l.files[file]), "\n"); pos.Line >= 1 && pos.Line <= len(lines) {
		line = strings.TrimRight(lines[pos.Line-1], "\r")
	}
	return &lang.Error{Pos: syntax.Position{Filename: file, Line: pos.Line, Col: pos.Col}, Msg: msg, Source: line}
}

// unsupported marks an input error that says the chosen engine cannot handle a
// construct: another engine may.
type unsupported struct{ error }

func (u unsupported) Unwrap() error { return u.error }

// inputError renders an engine's refusal of a construct like a compiler error.
func (l *loaded) inputError(err error) error {
	var ue *verify.UnsupportedError
	if errors.As(err, &ue) {
		return &exitError{exitInput, unsupported{l.errorAt(ue.Pos, ue.Engine+": "+ue.Msg)}}
	}
	return &exitError{exitInternal, fmt.Errorf("internal error: %w", err)}
}

// forProgram settles the default algorithm (no --algo) for program p, which
// depends on whether p has processes (explicit.DefaultFor), and the default
// depth: a Go program's steps are finer (every memory access is one), so it
// gets gofront.DefaultDepth.
func (ec engineConfig) forProgram(p *ir.Program) engineConfig {
	if ec.DefaultDepth && p.Entry != nil {
		ec.Bounds.Depth = gofront.DefaultDepth
	}
	if ec.DefaultAlgo && ec.Engine == "explicit" {
		var set func(*explicit.Options)
		ec.Algo, set = explicit.DefaultFor(p, ec.Explicit)
		set(&ec.Explicit)
	}
	return ec
}
