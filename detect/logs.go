package detect

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// A logSet collects the events of one execution as a log states them, before
// the log is checked: GoVector and ShiViz inputs both come down to these. Host
// names are interned and clocks kept in one flat array, since a log of a million
// events should not cost a string and a slice per clock entry.
type logSet struct {
	hosts   []string
	ids     map[string]int32
	entries []clockEntry
	events  []logEvent
	seen    []int // per host: the last clock that named it, to find repeated keys
	clocks  int   // clocks parsed so far
}

type logEvent struct {
	host   int32
	lo, hi int32 // its clock: entries[lo:hi]
	text   string
	fields []field // ShiViz's other named groups
	pos    Pos
}

type clockEntry struct{ host, n int32 }

type field struct{ name, value string }

func newLogSet() *logSet { return &logSet{ids: map[string]int32{}} }

// host returns the number of the host called name.
func (l *logSet) host(name []byte) int32 {
	if id, ok := l.ids[string(name)]; ok {
		return id
	}
	id := int32(len(l.hosts))
	s := string(name)
	l.hosts = append(l.hosts, s)
	l.ids[s] = id
	l.seen = append(l.seen, 0)
	return id
}

// add parses the clock and appends an event.
func (l *logSet) add(host, clock []byte, text string, fields []field, pos Pos) error {
	lo := int32(len(l.entries))
	if err := l.clock(clock); err != nil {
		l.entries = l.entries[:lo]
		if bytes.Contains(clock, []byte(`\"`)) {
			// ShiViz also reads clocks whose quotes are escaped, as TLA+ writes
			// them: {\"w1\":1,\"w2\":1}.
			if l.clock(bytes.ReplaceAll(clock, []byte(`\"`), []byte(`"`))) == nil {
				err = nil
			}
		}
		if err != nil {
			l.entries = l.entries[:lo]
			return err
		}
	}
	l.events = append(l.events, logEvent{host: l.host(host), lo: lo, hi: int32(len(l.entries)), text: text, fields: fields, pos: pos})
	return nil
}

// clock reads a vector clock as GoVector writes it and ShiViz reads it, a JSON
// object from host names to non-negative integers such as {"alice":2, "bob":1},
// and appends its entries. Entries of 0 say nothing and are dropped, as ShiViz
// does.
func (l *logSet) clock(s []byte) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("bad clock %s: %s", quoteShort(string(s)), fmt.Sprintf(format, args...))
	}
	l.clocks++
	stamp := l.clocks
	i := skipSpace(s, 0)
	if i == len(s) || s[i] != '{' {
		return bad(`want a JSON object like {"alice":2, "bob":1}`)
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			if i == len(s) || s[i] != '"' {
				return bad("want a quoted host name at column %d", i+1)
			}
			j, esc := i+1, false
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					esc = true
					j++
				}
				j++
			}
			if j >= len(s) {
				return bad("unterminated host name")
			}
			name := s[i+1 : j]
			if esc {
				u, err := strconv.Unquote(string(s[i : j+1]))
				if err != nil {
					return bad("bad host name %s", s[i:j+1])
				}
				name = []byte(u)
			}
			i = skipSpace(s, j+1)
			if i == len(s) || s[i] != ':' {
				return bad("want ':' after %q", name)
			}
			i = skipSpace(s, i+1)
			d := i
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			if d == i || i < len(s) && (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
				return bad("the entry for %q is not a non-negative integer", name)
			}
			n, err := strconv.ParseUint(string(s[d:i]), 10, 64)
			if err != nil || n > maxEvents {
				return bad("the entry for %q is out of range", name)
			}
			h := l.host(name)
			if l.seen[h] == stamp {
				return bad("two entries for %q", name)
			}
			l.seen[h] = stamp
			if n > 0 {
				l.entries = append(l.entries, clockEntry{h, int32(n)})
			}
			i = skipSpace(s, i)
			if i < len(s) && s[i] == ',' {
				i = skipSpace(s, i+1)
				continue
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			return bad("want ',' or '}' at column %d", i+1)
		}
	}
	if skipSpace(s, i) != len(s) {
		return bad("text after the closing brace")
	}
	return nil
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strconv.Quote(s)
}

// build checks the events of one execution and builds its computation. Hosts
// are numbered in order of their first event. As in ShiViz, each host's events
// are ordered by its own clock entry, which must run 1, 2, 3, …; every host a
// clock names must have events of its own; and kinds are worked out from the
// clocks, since logs do not state them.
func (l *logSet) build(name string, files []string) (*Computation, error) {
	var errs ErrorList
	file := func(p Pos) string { return files[p.File] }
	proc := make([]int32, len(l.hosts)) // host → process number, -1: no events
	for i := range proc {
		proc[i] = -1
	}
	var names []string
	var byProc [][]int32 // event numbers per process, in input order
	own := make([]int32, len(l.events))
	for e, ev := range l.events {
		hname := l.hosts[ev.host]
		if hname == "" {
			errs.add(file(ev.pos), int(ev.pos.Line), "empty host name")
			continue
		}
		found := false
		for _, c := range l.entries[ev.lo:ev.hi] {
			if c.host == ev.host {
				own[e], found = c.n, true
			}
		}
		if !found {
			errs.add(file(ev.pos), int(ev.pos.Line), "host %q is missing from its own clock", hname)
			continue
		}
		if proc[ev.host] < 0 {
			proc[ev.host] = int32(len(names))
			names = append(names, hname)
			byProc = append(byProc, nil)
		}
		p := proc[ev.host]
		byProc[p] = append(byProc[p], int32(e))
	}
	for p, list := range byProc {
		slices.SortStableFunc(list, func(a, b int32) int { return int(own[a]) - int(own[b]) })
		for i, e := range list {
			pos := l.events[e].pos
			switch want := int32(i + 1); {
			case own[e] == want:
				continue
			case i == 0:
				errs.add(file(pos), int(pos.Line), "the clock of %s starts at %d, want 1: a host's clock rises by exactly 1 with each of its events", names[p], own[e])
			case own[e] == own[list[i-1]]:
				prev := l.events[list[i-1]].pos
				errs.add(file(pos), int(pos.Line), "two events of %s have clock %d (the other is at %s:%d)", names[p], own[e], file(prev), prev.Line)
			default:
				errs.add(file(pos), int(pos.Line), "the clock of %s goes from %d to %d: a host's clock rises by exactly 1 with each of its events", names[p], own[list[i-1]], own[e])
			}
			break // later events would only repeat this error
		}
	}
	for _, ev := range l.events {
		for _, c := range l.entries[ev.lo:ev.hi] {
			if proc[c.host] < 0 {
				errs.add(file(ev.pos), int(ev.pos.Line), "unknown host %q in the clock: the log has no event of it", l.hosts[c.host])
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	b := NewBuilder(name, files, names)
	b.InferKinds()
	clock := make([]int64, len(names))
	for p, list := range byProc {
		for _, e := range list {
			ev := l.events[e]
			clear(clock)
			for _, c := range l.entries[ev.lo:ev.hi] {
				clock[proc[c.host]] = int64(c.n)
			}
			b.Event(p, Local, ev.text, ev.pos, clock)
			for _, f := range ev.fields {
				b.Set(p, f.name, ParseValue(f.value), ev.pos)
			}
			textAssignments(ev.text, func(key string, v Value) { b.Set(p, key, v, ev.pos) })
		}
	}
	return b.Build()
}
