package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"kbmc/detect"
)

func detectCommand() *cli.Command {
	return &cli.Command{
		Name:  "detect",
		Usage: "Poss Φ / Def Φ on recorded computations (kbmc JSON, GoVector logs, ShiViz files)",
		Description: "Decides whether a recorded distributed computation possibly (some consistent global\n" +
			"state satisfies Φ) or definitely (every history consistent with it passes through one)\n" +
			"satisfied a predicate Φ over P.x, the variable x of process P. Exit 10 when a witness\n" +
			"history was found (Poss Φ holds, or Def Φ fails), 0 when not, 5 on the time limit.",
		ArgsUsage: "FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "possibly", Usage: "decide Poss `EXPR`"},
			&cli.StringFlag{Name: "definitely", Usage: "decide Def `EXPR`"},
			&cli.StringFlag{Name: "algo", Value: string(detect.Persistent), Usage: "search: lattice or persistent"},
			&cli.BoolFlag{Name: "sleep", Usage: "add sleep sets to the search"},
			&cli.StringFlag{Name: "format", Value: "auto", Usage: "input format: auto, kbmc, govector or shiviz"},
			&cli.StringSliceFlag{Name: "D", Usage: "define a constant for the predicate: -D NAME=VALUE (repeatable)"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up after this long (verdict unknown), e.g. 30s"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the verdict lines"},
		},
		Action: detectAction,
	}
}

// historyShown bounds the history lines of the text output: a longer history
// shows its first and last historyShown/2 events (--json lists them all).
const historyShown = 200

func detectAction(c *cli.Context) error {
	if c.Args().Len() == 0 {
		return usageErr("detect takes one or more FILEs")
	}
	poss, def := c.String("possibly"), c.String("definitely")
	if (poss == "") == (def == "") {
		return usageErr("detect needs exactly one of --possibly EXPR and --definitely EXPR")
	}
	m, src := detect.Possibly, poss
	if def != "" {
		m, src = detect.Definitely, def
	}
	algo := detect.Algorithm(c.String("algo"))
	if algo != detect.Lattice && algo != detect.Persistent {
		return usageErr("--algo %s: want lattice or persistent", algo)
	}
	format := detect.Format(c.String("format"))
	switch format {
	case "auto":
		format = ""
	case detect.FormatKBMC, detect.FormatGoVector, detect.FormatShiViz:
	default:
		return usageErr("--format %s: want auto, kbmc, govector or shiviz", format)
	}
	defs, err := parseDefines(c.StringSlice("D"))
	if err != nil {
		return err
	}

	var files []detect.File
	for _, path := range c.Args().Slice() {
		data, err := os.ReadFile(path)
		if err != nil {
			return &exitError{exitInput, err}
		}
		files = append(files, detect.File{Name: path, Data: data})
	}
	comps, err := detect.Read(format, files)
	if err != nil {
		return &exitError{exitInput, err}
	}
	if format == "" {
		format = detect.DetectFormat(files[0])
	}
	for i := range files {
		files[i].Data = nil // read: a million-event log need not stay in memory twice
	}
	preds := make([]*detect.Predicate, len(comps))
	for i, comp := range comps {
		if preds[i], err = detect.CompilePredicate("predicate", src, comp, defs); err != nil {
			if len(comps) > 1 {
				err = fmt.Errorf("in %s:\n%w", comp.Name, err)
			}
			return &exitError{exitInput, err}
		}
	}

	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if d := c.Duration("timeout"); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, fmt.Errorf("time limit %v", d))
		defer cancel()
	}
	asJSON, quiet := c.Bool("json"), c.Bool("quiet")
	opts := detect.Options{Algorithm: algo, Sleep: c.Bool("sleep")}
	stderr := c.App.ErrWriter
	if !asJSON && !quiet && isTerminal(stderr) {
		opts.Progress = func(s detect.Stats) {
			secs := s.Time.Seconds()
			fmt.Fprintf(stderr, "\r\033[K%d states, %d transitions, %.0f states/s, %s elapsed",
				s.States, s.Transitions, float64(s.States)/secs, s.Time.Round(100*time.Millisecond))
		}
	}
	results := make([]*detect.Result, len(comps))
	for i, comp := range comps {
		res, err := detect.Detect(ctx, comp, preds[i], m, opts)
		if opts.Progress != nil {
			fmt.Fprint(stderr, "\r\033[K")
		}
		var ee *detect.EvalError
		switch {
		case errors.As(err, &ee):
			return &exitError{exitInput, err}
		case err != nil:
			return &exitError{exitInternal, err}
		}
		results[i] = res
	}

	out := c.App.Writer
	if asJSON {
		err = writeDetectJSON(out, files, format, m, src, opts, comps, results)
	} else {
		err = writeDetectText(out, m, comps, results, quiet)
	}
	if err != nil {
		return &exitError{exitInternal, err}
	}
	code := exitOK
	for _, res := range results {
		switch {
		case res.Witness != nil:
			code = exitUnsafe
		case res.Verdict == detect.Unknown && code == exitOK:
			code = exitUnknown
		}
	}
	if code != exitOK {
		return &exitError{code, nil}
	}
	return nil
}

func writeDetectText(w io.Writer, m detect.Modality, comps []*detect.Computation, results []*detect.Result, quiet bool) error {
	for i, comp := range comps {
		res := results[i]
		line := fmt.Sprintf("%s: %s: %s", comp.Name, m, res.Verdict)
		if res.Verdict == detect.Unknown {
			line += " (" + res.Note + ")"
		}
		fmt.Fprintln(w, line)
		if quiet {
			continue
		}
		if res.Note != "" && res.Verdict != detect.Unknown {
			fmt.Fprintln(w, "note: "+res.Note)
		}
		if wit := res.Witness; wit != nil {
			if m == detect.Possibly {
				fmt.Fprintln(w, "Φ holds in this consistent global state:")
				writeCut(w, comp, wit.Cut)
				fmt.Fprintf(w, "a history that reaches it (%d events):\n", len(wit.History))
			} else {
				fmt.Fprintf(w, "a history that avoids Φ from the initial to the final global state (%d events):\n", len(wit.History))
			}
			writeHistory(w, comp, wit.History)
		}
		fmt.Fprintf(w, "stats: %s, states %d, transitions %d, time %.3g ms\n",
			res.Search, res.Stats.States, res.Stats.Transitions, ms(res.Stats.Time))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// table aligns columns like tabwriter and drops the spaces it leaves at the end
// of lines whose last columns are empty.
type table struct {
	w   io.Writer
	buf bytes.Buffer
	tw  *tabwriter.Writer
}

func newTable(w io.Writer) *table {
	t := &table{w: w}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 8, 2, ' ', 0)
	return t
}

func (t *table) row(format string, args ...any) { fmt.Fprintf(t.tw, format, args...) }

func (t *table) flush() {
	t.tw.Flush()
	for _, line := range strings.SplitAfter(t.buf.String(), "\n") {
		if line != "" {
			fmt.Fprintln(t.w, strings.TrimRight(line, " \n"))
		}
	}
	t.buf.Reset()
}

func writeCut(w io.Writer, comp *detect.Computation, cut []int) {
	tw := newTable(w)
	for i, k := range cut {
		tw.row("  %s\tafter %d of %d events\t%s\n", comp.Procs[i].Name, k, len(comp.Procs[i].Events),
			detect.FormatState(comp.State(i, k)))
	}
	tw.flush()
}

func writeHistory(w io.Writer, comp *detect.Computation, history []int) {
	tw := newTable(w)
	done := make([]int, comp.N())
	for step, p := range history {
		done[p]++
		if len(history) > historyShown && step == historyShown/2 {
			tw.flush()
			fmt.Fprintf(w, "  … %d events (--json lists them all) …\n", len(history)-historyShown)
		}
		if len(history) > historyShown && step >= historyShown/2 && step < len(history)-historyShown/2 {
			continue
		}
		ev := comp.Procs[p].Events[done[p]-1]
		tw.row("  %d\t%s\t#%d\t%s\t%s\t%s\t%s\n", step+1, comp.Procs[p].Name, done[p], ev.Kind,
			comp.Where(ev.Pos), oneLine(ev.Text), detect.FormatState(comp.Sets(p, done[p])))
	}
	tw.flush()
}

// oneLine keeps an event's text on its line of the table.
func oneLine(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
}

type detectJSON struct {
	Files        []string          `json:"files"`
	Format       string            `json:"format"`
	Modality     string            `json:"modality"`
	Predicate    string            `json:"predicate"`
	Algo         string            `json:"algo"`
	Sleep        bool              `json:"sleep"`
	Computations []computationJSON `json:"computations"`
}

type computationJSON struct {
	Name      string        `json:"name"`
	Processes []string      `json:"processes"`
	Events    int           `json:"events"`
	Verdict   string        `json:"verdict"`
	Search    string        `json:"search"`
	Note      string        `json:"note,omitempty"`
	Cut       []cutJSON     `json:"cut,omitempty"`
	History   []historyJSON `json:"history,omitempty"`
	Stats     struct {
		States      int64   `json:"states"`
		Transitions int64   `json:"transitions"`
		TimeMS      float64 `json:"time_ms"`
	} `json:"stats"`
}

type cutJSON struct {
	Process string         `json:"process"`
	Events  int            `json:"events"`
	State   map[string]any `json:"state"`
}

type historyJSON struct {
	Step    int            `json:"step"`
	Process string         `json:"process"`
	Event   int            `json:"event"`
	Kind    string         `json:"kind"`
	Pos     string         `json:"pos,omitempty"`
	Text    string         `json:"text"`
	Sets    map[string]any `json:"sets,omitempty"`
}

func jsonState(bs []detect.Binding) map[string]any {
	out := make(map[string]any, len(bs))
	for _, b := range bs {
		switch b.Value.Kind {
		case detect.BoolValue:
			out[b.Name] = b.Value.Int != 0
		case detect.WordValue:
			out[b.Name] = b.Value.Word
		default:
			out[b.Name] = b.Value.Int
		}
	}
	return out
}

func writeDetectJSON(w io.Writer, files []detect.File, format detect.Format, m detect.Modality, src string,
	opts detect.Options, comps []*detect.Computation, results []*detect.Result) error {
	out := detectJSON{Format: string(format), Modality: m.String(), Predicate: src, Algo: string(opts.Algorithm), Sleep: opts.Sleep}
	for _, f := range files {
		out.Files = append(out.Files, f.Name)
	}
	for i, comp := range comps {
		res := results[i]
		cj := computationJSON{Name: comp.Name, Events: comp.Events(), Verdict: res.Verdict.String(), Search: res.Search, Note: res.Note}
		for _, p := range comp.Procs {
			cj.Processes = append(cj.Processes, p.Name)
		}
		if wit := res.Witness; wit != nil {
			for p, k := range wit.Cut {
				cj.Cut = append(cj.Cut, cutJSON{comp.Procs[p].Name, k, jsonState(comp.State(p, k))})
			}
			cj.History = []historyJSON{}
			done := make([]int, comp.N())
			for step, p := range wit.History {
				done[p]++
				ev := comp.Procs[p].Events[done[p]-1]
				h := historyJSON{Step: step + 1, Process: comp.Procs[p].Name, Event: done[p], Kind: ev.Kind.String(),
					Pos: comp.Where(ev.Pos), Text: ev.Text}
				if sets := comp.Sets(p, done[p]); len(sets) > 0 {
					h.Sets = jsonState(sets)
				}
				cj.History = append(cj.History, h)
			}
		}
		cj.Stats.States, cj.Stats.Transitions, cj.Stats.TimeMS = res.Stats.States, res.Stats.Transitions, ms(res.Stats.Time)
		out.Computations = append(out.Computations, cj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
