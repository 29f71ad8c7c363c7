package detect

import (
	"bytes"
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
func parseGoVectorHeader(line []byte) (host, clock []byte, ok bool) {
	brace := bytes.IndexByte(line, '{')
	if brace < 1 || line[brace-1] != ' ' {
		return nil, nil, false
	}
	clock = bytes.TrimRight(line[brace:], " \t")
	if len(clock) == 0 || clock[len(clock)-1] != '}' {
		return nil, nil, false
	}
	switch f := bytes.Fields(line[:brace]); len(f) {
	case 1:
		return f[0], clock, true
	case 2:
		for _, c := range f[0] {
			if !isDigit(c) {
				return nil, nil, false
			}
		}
		return f[1], clock, true
	}
	return nil, nil, false
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
	var runs []*logSet // the events of every run, from all files
	var labels []string
	counts := make([]int, len(files))
	for fi, f := range files {
		counts[fi] = readGoVectorFile(int32(fi), f, &runs, &labels, &errs)
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	for fi := range files[1:] {
		if counts[fi+1] != counts[0] {
			errs.add(files[fi+1].Name, 0, "holds %d runs, but %s holds %d: logs written with AppendLog must come from the same runs",
				counts[fi+1], files[0].Name, counts[0])
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
	for r, run := range runs {
		cname := name
		if len(runs) > 1 {
			cname = fmt.Sprintf("%s, run %d", name, r+1)
			if labels[r] != "" {
				cname += " (" + labels[r] + ")"
			}
		}
		c, err := run.build(cname, names)
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

// readGoVectorFile adds the events of one log to runs, the i-th run of the file
// to runs[i], and returns how many runs the file holds.
func readGoVectorFile(fi int32, f File, runs *[]*logSet, labels *[]string, errs *ErrorList) int {
	data := bytes.TrimPrefix(f.Data, []byte("\uFEFF"))
	run, events := 0, 0
	started := false // a run header has been seen, or an event
	at := func(r int) *logSet {
		for len(*runs) <= r {
			*runs = append(*runs, newLogSet())
			*labels = append(*labels, "")
		}
		return (*runs)[r]
	}
	next := func() ([]byte, bool) {
		if len(data) == 0 {
			return nil, false
		}
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		return bytes.TrimSuffix(line, []byte("\r")), true
	}
	for line := 1; ; line += 2 {
		head, ok := next()
		if !ok {
			break
		}
		event, ok := next()
		if !ok {
			errs.add(f.Name, line, "a header line without the event line that must follow it")
			break
		}
		if isRunHeader(head) && bytes.HasPrefix(event, []byte(executionMarker)) {
			if started {
				run++
			}
			started = true
			at(run)
			(*labels)[run] = strings.TrimSpace(strings.Trim(strings.TrimPrefix(string(event), executionMarker), "= "))
			continue
		}
		started = true
		host, clock, ok := parseGoVectorHeader(head)
		if !ok {
			errs.add(f.Name, line, "expected a GoVector header line `[TIMESTAMP ]HOST {CLOCK}`, found %s", quoteShort(string(head)))
			continue
		}
		if err := at(run).add(host, clock, string(event), nil, Pos{File: fi, Line: int32(line)}); err != nil {
			errs.add(f.Name, line, "%v", err)
			continue
		}
		events++
	}
	if events == 0 && len(*errs) == 0 {
		errs.add(f.Name, 0, "no events: a GoVector log has a header line `HOST {CLOCK}` and an event line for each event")
	}
	return run + 1
}

// isRunHeader reports whether a header line is empty or holds only a timestamp:
// the line GoVector writes before the "=== Execution #" line of a new run.
func isRunHeader(line []byte) bool {
	for _, c := range bytes.TrimSpace(line) {
		if !isDigit(c) {
			return false
		}
	}
	return true
}
