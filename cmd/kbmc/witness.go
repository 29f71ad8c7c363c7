package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"kbmc/cfront"
	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
	"kbmc/witness"
)

// witnessRequest is where --witness writes and in which format.
type witnessRequest struct {
	path   string
	format witness.Format
}

// readWitnessFlags reads check's --witness and --witness-format.
func readWitnessFlags(path, format string) (*witnessRequest, error) {
	if path == "" {
		if format != "" {
			return nil, usageErr("--witness-format applies with --witness FILE")
		}
		return nil, nil
	}
	req := &witnessRequest{path: path}
	switch format {
	case "":
		f, ok := witness.FormatOf(path)
		if !ok {
			return nil, usageErr("--witness %s: name the format by the extension (.graphml, .yml or .yaml) or with --witness-format graphml|yaml", path)
		}
		req.format = f
	case "graphml", "yaml":
		req.format = witness.Format(format)
	default:
		return nil, usageErr("--witness-format %s: want graphml or yaml", format)
	}
	return req, nil
}

// witnessConfig is the configuration a witness records: the flags that decide
// how kbmc lowers the program, which its replay needs to give the same threads
// and steps. --phantoms (no flag of kbmc's: svcomp's bug hunt lowers so)
// marks a counterexample of a program lowered with phantom threads, with
// --phantom-delays the pools' delays its first step drew (witness.Witness.Delays), and
// --sampled-races one whose races were looked for as the hunt does
// (ir.Program.SampleRaces), which its replay must do too: with every
// combination of values, a state on the way may hold a step whose values the
// data-race check cannot enumerate.
func witnessConfig(cfg sourceConfig, phantoms bool, delays []int64, sampledRaces bool) string {
	parts := []string{"--data-model " + strings.ToUpper(cfg.DataModel), fmt.Sprintf("--pool %d", cfg.Pool)}
	if cfg.NoFold {
		parts = append(parts, "--no-fold")
	}
	names := make([]string, 0, len(cfg.Defines))
	for n := range cfg.Defines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("-D %s=%d", n, cfg.Defines[n]))
	}
	if phantoms {
		parts = append(parts, "--phantoms")
		if slices.ContainsFunc(delays, func(d int64) bool { return d != 0 }) {
			ds := make([]string, len(delays))
			for i, d := range delays {
				ds[i] = strconv.FormatInt(d, 10)
			}
			parts = append(parts, "--phantom-delays "+strings.Join(ds, ","))
		}
	}
	if sampledRaces {
		parts = append(parts, "--sampled-races")
	}
	return strings.Join(parts, " ")
}

// witnessModes are the configuration's flags that are no flags of kbmc's:
// how svcomp's bug hunt lowered and checked the program (witnessConfig).
type witnessModes struct {
	phantoms, sampledRaces bool
	delays                 []int64
}

// parseWitnessConfig reads a configuration witnessConfig wrote.
func parseWitnessConfig(s string) (sourceConfig, witnessModes, error) {
	fs := flag.NewFlagSet("configuration", flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	dataModel := fs.String("data-model", "ILP32", "")
	pool := fs.Int("pool", cfront.DefaultLoopThreads, "")
	noFold := fs.Bool("no-fold", false, "")
	phantoms := fs.Bool("phantoms", false, "")
	sampled := fs.Bool("sampled-races", false, "")
	var delays []int64
	fs.Func("phantom-delays", "", func(v string) error {
		for _, f := range strings.Split(v, ",") {
			d, err := strconv.ParseInt(f, 10, 64)
			if err != nil || d < 0 || d > ir.MaxPhantomDelay {
				return fmt.Errorf("a delay of %q", f)
			}
			delays = append(delays, d)
		}
		return nil
	})
	var defs []string
	fs.Func("D", "", func(v string) error { defs = append(defs, v); return nil })
	if err := fs.Parse(strings.Fields(s)); err != nil {
		return sourceConfig{}, witnessModes{}, fmt.Errorf("configuration %q: %v", s, err)
	}
	if fs.NArg() > 0 {
		return sourceConfig{}, witnessModes{}, fmt.Errorf("configuration %q: unexpected %q", s, fs.Arg(0))
	}
	d, err := parseDefines(defs)
	if err != nil {
		return sourceConfig{}, witnessModes{}, fmt.Errorf("configuration %q: %w", s, err)
	}
	cfg := sourceConfig{Config: lang.Config{Width: 64, NoFold: *noFold, Defines: d}, DataModel: *dataModel, Pool: *pool}
	return cfg, witnessModes{phantoms: *phantoms, sampledRaces: *sampled, delays: delays}, nil
}

// buildWitness describes a counterexample of l's program as a violation
// witness. Only C programs and violations SV-COMP has a specification for
// have one (docs/decisions.md, "Violation witnesses").
func buildWitness(l *loaded, cfg sourceConfig, phantoms bool, res *verify.Result, spec string) (*witness.Witness, error) {
	if !cfront.IsC(l.path) {
		return nil, fmt.Errorf("%s is no C program: violation witnesses describe C programs (SV-COMP's formats); --trail writes kbmc's own counterexample", l.path)
	}
	v := res.Violation
	if spec == "" {
		var ok bool
		if spec, ok = witness.Specification(v.Kind); !ok {
			return nil, fmt.Errorf("a %s violation has no SV-COMP specification, so no violation witness; --trail writes kbmc's own counterexample", v.Kind)
		}
	}
	path, err := witness.Build(l.prog, res.Trace)
	if err != nil {
		return nil, err
	}
	if got := path.Violation; got.Kind != v.Kind {
		return nil, fmt.Errorf("%w: the counterexample ends with %s, not %s", verify.ErrReplay, got.Kind, v.Kind)
	}
	w := &witness.Witness{
		ProgramFile: l.path, ProgramHash: witness.Hash(l.src), Specification: spec,
		DataModel: strings.ToUpper(cfg.DataModel), Producer: "kbmc " + version,
		Configuration: witnessConfig(cfg, phantoms, path.Delays, l.prog.SamplesRaces()), Created: time.Now(), UUID: witness.NewUUID(),
		Steps: path.Steps, Targets: path.Targets, Delays: path.Delays,
	}
	return w, nil
}

// saveWitness writes w, the witness of counterexample moves of program p, to
// path in format f, then reads the file back: its configuration must give the
// program's flags again and its schedule must be moves, which the engine's
// result was validated with (ir.Program.Confirm). So a witness kbmc writes is
// one kbmc run --replay confirms; the tests replay every one in full.
func saveWitness(path string, f witness.Format, w *witness.Witness, p *ir.Program, moves []ir.Move) error {
	var buf bytes.Buffer
	if err := witness.Write(&buf, f, w); err != nil {
		return err
	}
	back, err := witness.Read(buf.Bytes())
	if err != nil {
		return fmt.Errorf("kbmc cannot read the witness it wrote: %w", err)
	}
	if back.Configuration != w.Configuration {
		return fmt.Errorf("the witness's configuration reads back as %q, not %q", back.Configuration, w.Configuration)
	}
	_, modes, err := parseWitnessConfig(back.Configuration)
	if err != nil {
		return err
	}
	back.Delays = modes.delays
	sched, err := back.Schedule(p)
	if err != nil {
		return err
	}
	if !slices.EqualFunc(sched, moves, func(a, b ir.Move) bool { return a.Thread == b.Thread && slices.Equal(a.Choices, b.Choices) }) {
		return errors.New("the witness's schedule reads back as another one")
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// confirmMoves replays a witness's schedule: it must end in a violation of
// the witness's specification.
func confirmMoves(p *ir.Program, moves []ir.Move, spec string) (*ir.Run, *ir.Violation, error) {
	run, err := p.Replay(moves)
	if err != nil {
		return run, nil, err
	}
	v := run.Violation()
	if v == nil {
		return run, nil, errors.New("the schedule ends without a violation")
	}
	if !witness.Violates(spec, v.Kind) {
		return run, nil, fmt.Errorf("the schedule ends with %s, which does not violate the witness's specification %q", v.Kind, spec)
	}
	return run, v, nil
}

// loadWitness reads a witness file and loads the program it was written for:
// programPath, or else the witness's programfile (relative to the current
// directory, then to the witness's own). The program must be the one the
// witness names by its hash.
func loadWitness(path string, data []byte, programPath string) (*loaded, *witness.Witness, []ir.Move, error) {
	w, err := witness.Read(data)
	if err != nil {
		return nil, nil, nil, &exitError{exitInput, fmt.Errorf("--replay %s: %w", path, err)}
	}
	cfg, modes, err := parseWitnessConfig(w.Configuration)
	if err != nil {
		return nil, nil, nil, &exitError{exitInput, fmt.Errorf("--replay %s: %w", path, err)}
	}
	if w.DataModel != "" {
		cfg.DataModel = strings.ToUpper(w.DataModel)
	}
	if programPath == "" {
		programPath = w.ProgramFile
		if _, err := os.Stat(programPath); err != nil && !filepath.IsAbs(programPath) {
			programPath = filepath.Join(filepath.Dir(path), w.ProgramFile)
		}
	}
	src, err := os.ReadFile(programPath)
	if err != nil {
		return nil, nil, nil, &exitError{exitInput, fmt.Errorf("--replay %s: the program: %w", path, err)}
	}
	if got := witness.Hash(src); w.ProgramHash != "" && !strings.EqualFold(got, w.ProgramHash) {
		return nil, nil, nil, &exitError{exitInput, fmt.Errorf("--replay %s: %s is not the program the witness was written for (SHA-256 %.12s…, the witness's %.12s…)",
			path, programPath, got, w.ProgramHash)}
	}
	if !cfront.IsC(programPath) {
		return nil, nil, nil, &exitError{exitInput, fmt.Errorf("--replay %s: %s is no C program", path, programPath)}
	}
	p, err := cfront.Compile(programPath, src, cfront.Config{NoFold: cfg.NoFold, Defines: cfg.Defines,
		DataModel: cfg.DataModel, LoopThreads: cfg.Pool, LoopBlocks: cfg.Pool, Phantoms: modes.phantoms})
	if err != nil {
		return nil, nil, nil, &exitError{exitInput, err}
	}
	// A race or an overflow is a violation only where a run looks for it,
	// and then an assertion stops its thread: replay as the search ran.
	p.SelectProperty(witness.Property(w.Specification))
	if modes.sampledRaces && p.ChecksRaces() {
		p.SampleRaces()
	}
	w.Delays = modes.delays
	moves, err := w.Schedule(p)
	if err != nil {
		return nil, nil, nil, &exitError{exitInput, fmt.Errorf("--replay %s: %w", path, err)}
	}
	return singleFile(programPath, src, p), w, moves, nil
}

// writeWitness writes check's --witness.
func writeWitness(req *witnessRequest, l *loaded, cfg sourceConfig, res *verify.Result) error {
	w, err := buildWitness(l, cfg, false, res, "")
	if err != nil {
		return err
	}
	return saveWitness(req.path, req.format, w, l.prog, res.Trace)
}

// witnessReplay is a witness kbmc run --replay re-executes: the program it
// was written for and its schedule.
type witnessReplay struct {
	l     *loaded
	moves []ir.Move
	spec  string
}

// readWitnessReplay reads run --replay's witness; programPath, when given,
// is the program to replay it on instead of the one it names.
func readWitnessReplay(path, programPath string) (*witnessReplay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &exitError{exitInput, fmt.Errorf("--replay: %w", err)}
	}
	l, w, moves, err := loadWitness(path, data, programPath)
	if err != nil {
		return nil, err
	}
	return &witnessReplay{l: l, moves: moves, spec: w.Specification}, nil
}
