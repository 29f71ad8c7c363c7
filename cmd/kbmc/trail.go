package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"kbmc/cfront"
	"kbmc/gofront"
	"os"
	"sort"

	"github.com/urfave/cli/v2"

	"kbmc/ir"
	"kbmc/lang"
	"kbmc/verify"
)

// jsonError is one input error under --json (docs/output.md).
type jsonError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
}

// jsonInputError prints an input error (exit code 2) as a JSON object when
// --json is given: {"file", "verdict": "error", "errors": [{file, line, col,
// message}]}. Other errors, and every error without --json, pass through.
func jsonInputError(c *cli.Context, asJSON bool, path string, err error) error {
	var ee *exitError
	if !asJSON || !errors.As(err, &ee) || ee.code != exitInput {
		return err
	}
	var list []jsonError
	var el lang.ErrorList
	var e1 *lang.Error
	switch {
	case errors.As(err, &el):
		for _, e := range el {
			list = append(list, jsonError{e.Pos.Filename, e.Pos.Line, e.Pos.Col, e.Msg})
		}
	case errors.As(err, &e1):
		list = append(list, jsonError{e1.Pos.Filename, e1.Pos.Line, e1.Pos.Col, e1.Msg})
	default:
		list = append(list, jsonError{File: path, Message: ee.err.Error()})
	}
	out := struct {
		File    string      `json:"file"`
		Verdict string      `json:"verdict"`
		Errors  []jsonError `json:"errors"`
	}{path, "error", list}
	if werr := writeJSONValue(c.App.Writer, out); werr != nil {
		return &exitError{exitInternal, werr}
	}
	return &exitError{exitInput, nil}
}

// trail is a counterexample written by check --trail and replayed by run
// --replay (docs/output.md, "Trails").
type trail struct {
	Format      string         `json:"format"` // "kbmc-trail/1"
	Version     string         `json:"kbmc_version"`
	File        string         `json:"file"`
	SHA256      string         `json:"program_sha256"`
	Flags       trailFlags     `json:"flags"`
	Engine      string         `json:"engine"`
	Violation   *jsonViolation `json:"violation"`
	Steps       []trailStep    `json:"steps"`
	programPath string
}

// trailFlags are the flags that decide the program and the question.
type trailFlags struct {
	Width   int              `json:"width"`
	Defines map[string]int64 `json:"defines,omitempty"`
	NoFold  bool             `json:"no_fold,omitempty"`
	// KeepPrivate: the run was recorded (--record), its steps lowered with
	// lang.Config.KeepPrivate.
	KeepPrivate bool   `json:"keep_private,omitempty"`
	DataModel   string `json:"data_model,omitempty"` // C programs
	Pool        int    `json:"pool,omitempty"`       // C and Go programs
	Entry       string `json:"entry,omitempty"`      // Go programs
	Depth       int    `json:"depth"`
	NoDeadlock  bool   `json:"no_deadlock,omitempty"`
}

// trailStep is one step: the thread that moves, by name as traces print it, and
// the nondeterministic values the step draws.
type trailStep struct {
	Thread string  `json:"thread"`
	Nondet []int64 `json:"nondet,omitempty"`
}

const trailFormat = "kbmc-trail/1"

func sha256Hex(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

func writeTrail(path string, l *loaded, cfg sourceConfig, ec engineConfig, res *verify.Result) error {
	t := trail{Format: trailFormat, Version: version, File: l.path, SHA256: sha256Hex(l.src),
		Flags:  trailFlags{Width: cfg.Width, NoFold: cfg.NoFold, KeepPrivate: cfg.KeepPrivate, Depth: ec.Bounds.Depth, NoDeadlock: ec.Bounds.NoDeadlock},
		Engine: ec.Name(), Violation: violationJSON(l, res.Violation), Steps: []trailStep{}}
	if len(cfg.Defines) > 0 {
		t.Flags.Defines = cfg.Defines
	}
	if gofront.IsGo(l.path) {
		t.Flags.Pool, t.Flags.Entry = cfg.Pool, cfg.Entry
	}
	if cfront.IsC(l.path) {
		t.Flags.DataModel, t.Flags.Pool = cfg.DataModel, cfg.Pool
	}
	for _, mv := range res.Trace {
		t.Steps = append(t.Steps, trailStep{Thread: l.prog.Threads[mv.Thread].Name, Nondet: mv.Choices})
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("--trail: %w", err)
	}
	return nil
}

func readTrail(path string) (*trail, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &exitError{exitInput, fmt.Errorf("--replay: %w", err)}
	}
	var t trail
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, &exitError{exitInput, fmt.Errorf("--replay %s: not a trail: %v", path, err)}
	}
	if t.Format != trailFormat {
		return nil, &exitError{exitInput, fmt.Errorf("--replay %s: format %q, want %q", path, t.Format, trailFormat)}
	}
	return &t, nil
}

// config is the compilation the trail was written for.
func (t *trail) config() sourceConfig {
	cfg := sourceConfig{Config: lang.Config{Width: t.Flags.Width, Defines: t.Flags.Defines, NoFold: t.Flags.NoFold, KeepPrivate: t.Flags.KeepPrivate},
		DataModel: t.Flags.DataModel, Pool: t.Flags.Pool, Entry: t.Flags.Entry}
	if cfg.Pool == 0 {
		cfg.Pool = cfront.DefaultLoopThreads
	}
	return cfg
}

// moves turns the trail's steps into a schedule of l's program: thread names
// must name threads of it.
func (t *trail) moves(l *loaded) ([]ir.Move, error) {
	byName := map[string]int{}
	var names []string
	for _, th := range l.prog.Threads {
		byName[th.Name] = th.ID
		names = append(names, th.Name)
	}
	sort.Strings(names)
	var moves []ir.Move
	for i, st := range t.Steps {
		id, ok := byName[st.Thread]
		if !ok {
			return nil, &exitError{exitInput, fmt.Errorf("--replay: step %d: %s has no thread %q (threads: %v)", i+1, l.path, st.Thread, names)}
		}
		moves = append(moves, ir.Move{Thread: id, Choices: st.Nondet})
	}
	return moves, nil
}
