package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"kbmc/verify"
)

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the --json results of the parts of a sharded run (check --shard I/N) into one verdict",
		ArgsUsage: "FILE...",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object"}},
		Action:    mergeAction,
	}
}

// counterKeys are the statistics that add up over the parts.
var counterKeys = []string{"executions", "complete", "assume_blocked", "deadlocked", "cut", "failed",
	"transitions", "states", "local_states", "sleep_blocked", "tcs_built", "tcs_solved", "tcs_unsat"}

// mergeAction checks that the files are every part of one sharded run, exactly
// once, of one program with one set of verdict flags, and combines them: unsafe
// if a part is unsafe (with that part's replayed trace), unknown if a part is,
// bounded-safe if a part is, safe only if every part is.
func mergeAction(c *cli.Context) error {
	if c.Args().Len() == 0 {
		return usageErr("merge takes the --json results of the parts: kbmc merge part-*.json")
	}
	var parts []*jsonResult
	var names []string
	for _, f := range c.Args().Slice() {
		data, err := os.ReadFile(f)
		if err != nil {
			return &exitError{exitInput, err}
		}
		var j jsonResult
		if err := json.Unmarshal(data, &j); err != nil {
			return &exitError{exitInput, fmt.Errorf("%s: not a kbmc --json result: %v", f, err)}
		}
		if err := checkPart(&j); err != nil {
			return &exitError{exitInput, fmt.Errorf("%s: not a part kbmc check --shard wrote: %v", f, err)}
		}
		parts = append(parts, &j)
		names = append(names, f)
	}
	count, err := checkParts(parts, names)
	if err != nil {
		return &exitError{exitInput, err}
	}
	m, err := mergeParts(parts, count)
	if err != nil {
		return &exitError{exitInput, err}
	}
	out := c.App.Writer
	if c.Bool("json") {
		if err := writeJSONValue(out, m); err != nil {
			return &exitError{exitInternal, err}
		}
	} else {
		fmt.Fprintf(out, "%s: %s (%s merged)\n", m.File, m.Verdict, plural(count, "part"))
		if v := m.Violation; v != nil {
			who := "no thread can move"
			switch {
			case v.Thread != "":
				who = "thread " + v.Thread
			case v.Kind == "invariant":
				who = "in the initial state"
			}
			fmt.Fprintf(out, "%s: %s: %s (%s)\n", v.Pos, v.Kind, v.Message, who)
			fmt.Fprintf(out, "trace (%d steps):\n", len(m.Trace))
			printSteps(out, m.Trace, traceOptions{})
		}
		if m.Note != "" {
			fmt.Fprintf(out, "note: %s\n", m.Note)
		}
		keys := slices.Concat(counterKeys[:1], []string{"longest"}, counterKeys[1:], []string{"time_ms"})
		fmt.Fprintf(out, "stats: %s\n", formatStats(keys, m.Stats))
	}
	verdict, _ := verify.ParseVerdict(m.Verdict)
	if code := verdictExit(verdict); code != exitOK {
		return &exitError{code, nil}
	}
	return nil
}

// maxCounter is the largest counter a part may report: beyond 2^53 a JSON
// number no longer holds every integer exactly, and no run counts that far.
const maxCounter = 1 << 53

// checkPart refuses a part that kbmc check --shard cannot have written: a
// verdict merge does not know, an unsafe verdict without its violation and
// trace (or a violation under another verdict), a counter that is not a whole
// number in [0, 2^53], a time that is not a number of milliseconds, or a part
// without the program digest and settings that identify its run. A merge
// trusts each part's verdict, so a part it cannot read exactly is an input
// error, never a guess.
func checkPart(j *jsonResult) error {
	v, ok := verify.ParseVerdict(j.Verdict)
	switch {
	case j.Verdict == "":
		return fmt.Errorf("no \"verdict\"")
	case !ok:
		return fmt.Errorf("unknown verdict %q (a part says safe, bounded-safe, unsafe or unknown)", j.Verdict)
	case j.Engine != "explicit":
		return fmt.Errorf("engine %q: only the explicit engine runs in parts", j.Engine)
	case v == verify.Unsafe && (j.Violation == nil || j.Violation.Kind == "" || len(j.Trace) == 0):
		return fmt.Errorf("verdict unsafe without its violation and trace")
	case v != verify.Unsafe && j.Violation != nil:
		return fmt.Errorf("verdict %s with a violation", j.Verdict)
	case len(j.Program) != 64 || strings.Trim(j.Program, "0123456789abcdef") != "":
		return fmt.Errorf("no program digest (\"program_sha256\")")
	case len(j.Settings) == 0:
		return fmt.Errorf("no \"settings\"")
	}
	if _, ok := j.Stats["executions"]; !ok {
		return fmt.Errorf("no \"executions\" among its statistics")
	}
	for k, val := range j.Stats {
		f, isNumber := val.(float64)
		switch {
		case !isNumber:
			return fmt.Errorf("statistic %q is not a number: %v", k, val)
		case k == "time_ms" || strings.HasSuffix(k, "_ms"):
			if f < 0 || math.IsInf(f, 0) {
				return fmt.Errorf("statistic %q is not a duration: %v", k, f)
			}
		case f < 0 || f > maxCounter || f != math.Trunc(f):
			return fmt.Errorf("statistic %q is not a count kbmc can have made: %v", k, strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	if j.Workers < 0 || j.Subtrees < 0 {
		return fmt.Errorf("negative workers or subtrees")
	}
	return nil
}

// checkParts reports a missing, duplicated or foreign part: every file must be a
// part I/N of the same N, every I must occur once, and all must have checked the
// same program with the same verdict flags.
func checkParts(parts []*jsonResult, names []string) (int, error) {
	count := -1
	seen := map[int]string{}
	for i, j := range parts {
		idx, n, err := parseShardField(j.Shard)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", names[i], err)
		}
		if count < 0 {
			count = n
		} else if n != count {
			return 0, fmt.Errorf("%s is part %s, but %s is part of %d", names[i], j.Shard, names[0], count)
		}
		if prev, dup := seen[idx]; dup {
			return 0, fmt.Errorf("part %d/%d is given twice: %s and %s", idx, count, prev, names[i])
		}
		seen[idx] = names[i]
		if j.Program != parts[0].Program {
			return 0, fmt.Errorf("%s checked another program than %s (its source differs: sha256 %.12s… vs %.12s…)",
				names[i], names[0], j.Program, parts[0].Program)
		}
		if d := settingsDiff(parts[0].Settings, j.Settings); d != "" {
			return 0, fmt.Errorf("%s was run with other settings than %s: %s", names[i], names[0], d)
		}
	}
	var missing []string
	for i := range count {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("parts missing: %s (a verdict needs every part)", strings.Join(missing, ", "))
	}
	return count, nil
}

func parseShardField(s string) (index, count int, err error) {
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("not the result of a sharded run (no \"shard\"; run kbmc check --shard I/N --json)")
	}
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("bad shard %q", s)
	}
	return index, count, nil
}

// settingsDiff describes the first difference of two settings lists, or "".
func settingsDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("%q vs %q", x, y)
		}
	}
	return ""
}

// mergeParts combines checked parts into one result; a sum of counters beyond
// what a part may report is an error.
func mergeParts(parts []*jsonResult, count int) (*jsonResult, error) {
	rank := map[string]int{"safe": 0, "bounded-safe": 1, "unknown": 2, "unsafe": 3}
	sorted := slices.Clone(parts)
	slices.SortFunc(sorted, func(a, b *jsonResult) int {
		ia, _, _ := parseShardField(a.Shard)
		ib, _, _ := parseShardField(b.Shard)
		return ia - ib
	})
	m := *sorted[0]
	m.Shard = fmt.Sprintf("merged %d", count)
	m.Verdict, m.Violation, m.Trace, m.Note = "safe", nil, nil, ""
	m.Stats = map[string]any{}
	m.Subtrees = 0
	var notes []string
	var timeMS float64
	for _, j := range sorted {
		if rank[j.Verdict] > rank[m.Verdict] {
			m.Verdict = j.Verdict
			if j.Verdict == "unsafe" {
				m.Violation, m.Trace = j.Violation, j.Trace
			}
		}
		if j.Note != "" && !slices.Contains(notes, j.Note) {
			notes = append(notes, j.Note)
		}
		m.Subtrees += j.Subtrees
		for _, k := range counterKeys {
			if v, ok := j.Stats[k].(float64); ok {
				prev, _ := m.Stats[k].(float64)
				m.Stats[k] = prev + v
			}
		}
		if v, ok := j.Stats["longest"].(float64); ok {
			prev, _ := m.Stats["longest"].(float64)
			m.Stats["longest"] = max(prev, v)
		}
		if v, ok := j.Stats["time_ms"].(float64); ok {
			timeMS += v
		}
	}
	m.Stats["time_ms"] = timeMS
	for _, k := range counterKeys {
		if v, _ := m.Stats[k].(float64); v > maxCounter {
			return nil, fmt.Errorf("the parts' %q add up to more than 2^53: not the counts of one run", k)
		}
	}
	if m.Verdict != "safe" {
		m.Note = strings.Join(notes, "; ")
	}
	return &m, nil
}
