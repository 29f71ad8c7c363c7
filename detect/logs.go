package detect

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A logEvent is one event as a log states it, before the log is checked: GoVector
// and ShiViz inputs both come down to these.
type logEvent struct {
	host   string
	clock  []clockEntry
	text   string
	fields []field // ShiViz's other named groups
	pos    Pos
}

type clockEntry struct {
	host string
	n    uint64
}

type field struct{ name, value string }

// parseClock reads a vector clock as GoVector writes it and ShiViz reads it: a
// JSON object from host names to non-negative integers, such as
// {"alice":2, "bob":1}. Entries of 0 say nothing and are dropped, as ShiViz does.
func parseClock(s string) ([]clockEntry, error) {
	out, err := parseClockJSON(s)
	if err != nil && strings.Contains(s, `\"`) {
		// ShiViz also reads clocks whose quotes are escaped, as TLA+ writes
		// them: {\"w1\":1,\"w2\":1}.
		if out2, err2 := parseClockJSON(strings.ReplaceAll(s, `\"`, `"`)); err2 == nil {
			return out2, nil
		}
	}
	return out, err
}

func parseClockJSON(s string) ([]clockEntry, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("bad clock %s: want a JSON object like {\"alice\":2, \"bob\":1}", quoteShort(s))
	}
	var out []clockEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("bad clock %s: %v", quoteShort(s), err)
		}
		host := tok.(string) // object keys are strings
		tok, err = dec.Token()
		if err != nil {
			return nil, fmt.Errorf("bad clock %s: %v", quoteShort(s), err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, fmt.Errorf("bad clock %s: the entry for %q is not a number", quoteShort(s), host)
		}
		n, err := strconv.ParseUint(string(num), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad clock %s: the entry for %q is not a non-negative integer", quoteShort(s), host)
		}
		for _, e := range out {
			if e.host == host {
				return nil, fmt.Errorf("bad clock %s: two entries for %q", quoteShort(s), host)
			}
		}
		if n > 0 {
			out = append(out, clockEntry{host, n})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("bad clock %s: %v", quoteShort(s), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("bad clock %s: text after the closing brace", quoteShort(s))
	}
	return out, nil
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strconv.Quote(s)
}

// buildLog checks the events of one execution of a log and builds its
// computation. Hosts are numbered in order of their first event. As in ShiViz,
// each host's events are ordered by its own clock entry, which must run 1, 2, 3,
// …; every host a clock names must have events of its own; and kinds are worked
// out from the clocks, since logs do not state them.
func buildLog(name string, files []string, events []logEvent) (*Computation, error) {
	var errs ErrorList
	file := func(p Pos) string { return files[p.File] }
	index := map[string]int{}
	var hosts []string
	byHost := [][]int{} // event numbers per host, in input order
	own := make([]uint64, len(events))
	for e, ev := range events {
		if ev.host == "" {
			errs.add(file(ev.pos), int(ev.pos.Line), "empty host name")
			continue
		}
		found := false
		for _, c := range ev.clock {
			if c.host == ev.host {
				own[e], found = c.n, true
			}
		}
		if !found {
			errs.add(file(ev.pos), int(ev.pos.Line), "host %q is missing from its own clock", ev.host)
			continue
		}
		h, ok := index[ev.host]
		if !ok {
			h = len(hosts)
			index[ev.host] = h
			hosts = append(hosts, ev.host)
			byHost = append(byHost, nil)
		}
		byHost[h] = append(byHost[h], e)
	}
	for h, list := range byHost {
		slices.SortStableFunc(list, func(a, b int) int {
			if own[a] < own[b] {
				return -1
			}
			if own[a] > own[b] {
				return 1
			}
			return 0
		})
		for i, e := range list {
			ev := events[e]
			switch want := uint64(i + 1); {
			case own[e] == want:
			case i == 0:
				errs.add(file(ev.pos), int(ev.pos.Line), "the clock of %s starts at %d, want 1: a host's clock rises by exactly 1 with each of its events", hosts[h], own[e])
			case own[e] == own[list[i-1]]:
				prev := events[list[i-1]].pos
				errs.add(file(ev.pos), int(ev.pos.Line), "two events of %s have clock %d (the other is at %s:%d)", hosts[h], own[e], file(prev), prev.Line)
			default:
				errs.add(file(ev.pos), int(ev.pos.Line), "the clock of %s goes from %d to %d: a host's clock rises by exactly 1 with each of its events", hosts[h], own[list[i-1]], own[e])
			}
			if own[e] != uint64(i+1) {
				break // later events would only repeat this error
			}
		}
	}
	for _, ev := range events {
		for _, c := range ev.clock {
			if _, ok := index[c.host]; !ok {
				errs.add(file(ev.pos), int(ev.pos.Line), "unknown host %q in the clock: the log has no event of it", c.host)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	b := NewBuilder(name, files, hosts)
	b.InferKinds()
	clock := make([]int64, len(hosts))
	for h, list := range byHost {
		for _, e := range list {
			ev := events[e]
			clear(clock)
			for _, c := range ev.clock {
				if c.n > maxEvents {
					c.n = maxEvents + 1 // out of range; the Builder says so
				}
				clock[index[c.host]] = int64(c.n)
			}
			b.Event(h, Local, ev.text, ev.pos, clock)
			for _, f := range ev.fields {
				b.Set(h, f.name, ParseValue(f.value), ev.pos)
			}
			textAssignments(ev.text, func(key string, v Value) { b.Set(h, key, v, ev.pos) })
		}
	}
	return b.Build()
}
