package detect

import (
	"fmt"
	"regexp"
	"strings"
)

// A ShiViz file (github.com/DistributedClocks/shiviz) is a log with its own
// parsing instructions:
//
//	line 1: the parsing regular expression, with named groups host, clock and
//	        event; empty means ShiViz's default (?<event>.*)\n(?<host>\S*) (?<clock>{.*})
//	line 2: the execution delimiter, a regular expression; empty when the log holds
//	        one execution. A named group trace labels the execution that follows.
//	rest:   the log.
//
// ShiViz anchors both expressions with ^ and $ and applies them in multi-line
// mode; every match of the parsing expression is one event, and text between
// matches is skipped. Other named groups are fields of the event; kbmc makes them
// variables of the host's local state, as it does key=value pairs in the event
// text. The expressions are read with Go's regexp package, which accepts
// JavaScript's (?<name>…) groups but not look-around or back-references.

// defaultShiVizRegexp is the expression ShiViz uses when the first line is empty.
const defaultShiVizRegexp = `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`

// ReadShiViz reads a ShiViz file. Each execution in it is one computation.
func ReadShiViz(f File) ([]*Computation, error) {
	var errs ErrorList
	data := strings.ReplaceAll(strings.TrimPrefix(string(f.Data), "\uFEFF"), "\r\n", "\n")
	first, rest, ok1 := strings.Cut(data, "\n")
	second, log, ok2 := strings.Cut(rest, "\n")
	if !ok1 || !ok2 {
		errs.add(f.Name, 0, "a ShiViz file starts with a line holding the parsing regular expression and a line holding the execution delimiter (empty for one execution)")
		return nil, errs.err()
	}
	logStart := len(first) + len(second) + 2
	lines := newLineIndex([]byte(data))

	expr := first
	if strings.TrimSpace(expr) == "" {
		expr = defaultShiVizRegexp
	}
	re, err := regexp.Compile("(?m)^" + expr + "$")
	if err != nil {
		errs.add(f.Name, 1, "bad parsing regular expression: %v", regexpReason(err))
		return nil, errs.err()
	}
	groups := map[string]int{}
	for i, n := range re.SubexpNames() {
		if n == "" {
			continue
		}
		if _, dup := groups[n]; dup {
			errs.add(f.Name, 1, "bad parsing regular expression: two groups are named %q", n)
		}
		groups[n] = i
	}
	var missing []string
	for _, n := range []string{"host", "clock", "event"} {
		if _, ok := groups[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		errs.add(f.Name, 1, "the parsing regular expression lacks the named group(s) %s: kbmc needs (?<host>…), (?<clock>…) and (?<event>…)", strings.Join(missing, ", "))
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}

	// Split the log into executions. ShiViz trims the log first.
	lo := logStart + (len(log) - len(strings.TrimLeft(log, " \t\n")))
	hi := logStart + len(strings.TrimRight(log, " \t\n"))
	if hi < lo {
		hi = lo
	}
	type execution struct {
		label  string
		lo, hi int
	}
	execs := []execution{{"", lo, hi}}
	if delim := strings.TrimSpace(second); delim != "" {
		dre, err := regexp.Compile("(?m)^" + delim + "$")
		if err != nil {
			errs.add(f.Name, 2, "bad execution delimiter: %v", regexpReason(err))
			return nil, errs.err()
		}
		trace := dre.SubexpIndex("trace")
		execs = execs[:0]
		at, label := lo, ""
		for n, m := range dre.FindAllStringSubmatchIndex(data[lo:hi], -1) {
			execs = append(execs, execution{label, at, lo + m[0]})
			at = lo + m[1]
			label = fmt.Sprintf("#%d", n+2)
			if trace >= 0 && m[2*trace] >= 0 {
				label = data[lo+m[2*trace] : lo+m[2*trace+1]]
			}
		}
		execs = append(execs, execution{label, at, hi})
	}
	var out []*Computation
	seen := map[string]bool{}
	for _, ex := range execs {
		text := data[ex.lo:ex.hi]
		if strings.TrimSpace(text) == "" {
			continue
		}
		if seen[ex.label] {
			errs.add(f.Name, lines.line(ex.lo), "two executions are labelled %q", ex.label)
			continue
		}
		seen[ex.label] = true
		set, before := newLogSet(), len(errs)
		matches := re.FindAllStringSubmatchIndex(text, -1)
		for _, m := range matches {
			line := lines.line(ex.lo + m[0])
			group := func(i int) string {
				if m[2*i] < 0 {
					return ""
				}
				return text[m[2*i]:m[2*i+1]]
			}
			var fields []field
			for name, i := range groups {
				if name != "host" && name != "clock" && name != "event" {
					fields = append(fields, field{name, group(i)})
				}
			}
			sortFields(fields)
			err := set.add([]byte(group(groups["host"])), []byte(group(groups["clock"])), group(groups["event"]), fields, Pos{Line: int32(line)})
			if err != nil {
				errs.add(f.Name, line, "%v", err)
			}
		}
		if len(matches) == 0 {
			errs.add(f.Name, lines.line(ex.lo), "the parsing regular expression matches no event in %s", executionName(ex.label))
			continue
		}
		name := f.Name
		if len(execs) > 1 {
			name += ", " + executionName(ex.label)
		}
		if len(errs) > before {
			continue
		}
		c, err := set.build(name, []string{f.Name})
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
	if len(out) == 0 {
		errs.add(f.Name, 0, "the log holds no events")
		return nil, errs.err()
	}
	return out, nil
}

func executionName(label string) string {
	if label == "" {
		return "the first execution"
	}
	return fmt.Sprintf("execution %q", label)
}

func sortFields(fs []field) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].name < fs[j-1].name; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// regexpReason is the message of a regexp error without Go's "error parsing
// regexp:" prefix, which would read oddly after ours.
func regexpReason(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
