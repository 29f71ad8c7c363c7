package detect

import (
	"fmt"
	"strings"
)

// GoVector (github.com/DistributedClocks/GoVector) writes one log per process,
// NAME-Log.txt, two lines per event:
//
//	[UNIXNANO ]PROCESS {"PROCESS":3, "other":1}
//	EVENT TEXT
//
// The first line is the process id and its vector clock after the event (keys
// sorted, ", " between entries), preceded by a UnixNano timestamp when the
// logger was configured with UseTimestamps. The second line is the message,
// which GoVector prefixes with its priority ("INFO Sending Message"); the first
// event of a fresh log is "Initialization Complete" at clock 1. A logger with
// AppendLog writes, before each run, a line with an empty process id and clock
// and then "=== Execution #DATE  ===".

// executionMarker starts the event line of GoVector's AppendLog run header.
const executionMarker = "=== Execution #"

// parseGoVectorHeader splits a line "[TIMESTAMP ]HOST {CLOCK}".
func parseGoVectorHeader(line string) (host, clock, stamp string, ok bool) {
	brace := strings.IndexByte(line, '{')
	if brace < 1 || line[brace-1] != ' ' {
		return "", "", "", false
	}
	clock = strings.TrimRight(line[brace:], " \t")
	if !strings.HasSuffix(clock, "}") {
		return "", "", "", false
	}
	switch f := strings.Fields(line[:brace]); len(f) {
	case 1:
		return f[0], clock, "", true
	case 2:
		for _, c := range f[0] {
			if c < '0' || c > '9' {
				return "", "", "", false
			}
		}
		return f[1], clock, f[0], true
	}
	return "", "", "", false
}

// ReadGoVector reads the GoVector logs of one system, one file per process, as one
// computation. Logs written with AppendLog hold several runs; then the i-th run of
// every file makes the i-th computation, and every file must hold the same number
// of runs.
func ReadGoVector(files ...File) ([]*Computation, error) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	var errs ErrorList
	var runs [][][]logEvent // per file, per run
	var labels []string
	for fi, f := range files {
		fr, lb := readGoVectorFile(int32(fi), f, &errs)
		runs = append(runs, fr)
		if fi == 0 || len(lb) > len(labels) {
			labels = lb
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	for fi := range files[1:] {
		if len(runs[fi+1]) != len(runs[0]) {
			errs.add(files[fi+1].Name, 0, "holds %d runs, but %s holds %d: logs written with AppendLog must come from the same runs",
				len(runs[fi+1]), files[0].Name, len(runs[0]))
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	name := strings.Join(names, " ")
	if len(names) > 3 {
		name = fmt.Sprintf("%s … %s (%d logs)", names[0], names[len(names)-1], len(names))
	}
	var out []*Computation
	for r := range runs[0] {
		var events []logEvent
		for fi := range files {
			events = append(events, runs[fi][r]...)
		}
		cname := name
		if len(runs[0]) > 1 {
			cname = fmt.Sprintf("%s, run %d", name, r+1)
			if labels[r] != "" {
				cname += " (" + labels[r] + ")"
			}
		}
		c, err := buildLog(cname, names, events)
		if err != nil {
			if l, ok := err.(ErrorList); ok {
				errs = append(errs, l...)
				continue
			}
			return nil, err
		}
		out = append(out, c)
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	return out, nil
}

// readGoVectorFile splits one log into runs of events.
func readGoVectorFile(fi int32, f File, errs *ErrorList) (runs [][]logEvent, labels []string) {
	text := strings.ReplaceAll(string(f.Data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\uFEFF")
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the line break that ends the last line
	}
	runs = [][]logEvent{nil}
	labels = []string{""}
	for i := 0; i < len(lines); i += 2 {
		line := i + 1
		if i+1 == len(lines) {
			errs.add(f.Name, line, "a header line without the event line that must follow it")
			break
		}
		head, event := lines[i], lines[i+1]
		if strings.TrimSpace(head) == "" || isStampOnly(head) {
			if strings.HasPrefix(event, executionMarker) {
				if len(runs[len(runs)-1]) > 0 || len(runs) > 1 || labels[0] != "" {
					runs = append(runs, nil)
					labels = append(labels, "")
				}
				labels[len(labels)-1] = strings.TrimSpace(strings.Trim(strings.TrimPrefix(event, executionMarker), "= "))
				continue
			}
		}
		host, clockText, _, ok := parseGoVectorHeader(head)
		if !ok {
			errs.add(f.Name, line, "expected a GoVector header line `[TIMESTAMP ]HOST {CLOCK}`, found %s", quoteShort(head))
			continue
		}
		clock, err := parseClock(clockText)
		if err != nil {
			errs.add(f.Name, line, "%v", err)
			continue
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], logEvent{host: host, clock: clock, text: event, pos: Pos{File: fi, Line: int32(line)}})
	}
	if len(runs) == 1 && len(runs[0]) == 0 && len(*errs) == 0 {
		errs.add(f.Name, 0, "no events: a GoVector log has a header line `HOST {CLOCK}` and an event line for each event")
	}
	return runs, labels
}

// isStampOnly reports whether a header line holds only a timestamp: the run
// header of a logger with UseTimestamps.
func isStampOnly(line string) bool {
	t := strings.TrimSpace(line)
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return t != ""
}
