package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// kbmc's computation format (docs/detect.md has the full description):
//
//	{"format": "kbmc-computation", "version": 1, "program": "ring.kb",
//	 "processes": [
//	   {"name": "node[0]", "initial": {"leader": -1},
//	    "events": [
//	      {"kind": "send", "text": "send(to[1], 0)", "clock": [1, 0], "state": {"leader": -1}},
//	      {"kind": "recv", "text": "recv(to[0], id)", "clock": [2, 1], "state": {"leader": 1}}]},
//	   …]}
//
// One entry per process, in a fixed order; clock has one entry per process in
// that order (the vector timestamp after the event: its own entry counts the
// process's events, the others are merged on receive). state is the process's
// memory after the event; a variable it does not list keeps its value, so a
// writer may list all of memory or only what changed. Values are integers,
// true/false, strings (words) or arrays of integers or booleans, whose elements
// are the variables name[0], name[1], ….

// jsonFormat is the value of the "format" key.
const jsonFormat = "kbmc-computation"

type jsonProcess struct {
	name    string
	line    int // of its name, or of its start if it has none
	initial map[string]any
	events  []RecordedEvent
	lines   []int
}

// jsonReader walks a computation token by token, so that every event knows its
// line for error messages.
type jsonReader struct {
	f     File
	dec   *json.Decoder
	lines lineIndex
}

// ReadJSON reads kbmc's computation format.
func ReadJSON(f File) (*Computation, error) {
	r := &jsonReader{f: f, dec: json.NewDecoder(bytes.NewReader(f.Data)), lines: newLineIndex(f.Data)}
	r.dec.UseNumber()
	r.dec.DisallowUnknownFields()
	procs, err := r.computation()
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, ErrorList{e}
		}
		return nil, ErrorList{{File: f.Name, Msg: err.Error()}}
	}
	return r.build(procs)
}

// fail makes an error at byte offset off.
func (r *jsonReader) fail(off int, format string, args ...any) error {
	return &Error{File: r.f.Name, Line: r.lines.line(off), Msg: fmt.Sprintf(format, args...)}
}

// decodeErr turns an encoding/json error into one with a line. start is where
// the value being decoded starts: encoding/json counts a syntax error's offset
// from the start of the input but a type error's from the start of the value,
// and gives other errors (an unknown field) no offset at all.
func (r *jsonReader) decodeErr(err error, start int) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return r.fail(int(se.Offset), "bad JSON: %v", se)
	case errors.As(err, &te):
		what := "value"
		if te.Field != "" {
			what = strconv.Quote(te.Field)
		}
		return r.fail(start+int(te.Offset), "bad JSON: %s must be %s, not %s", what, jsonTypeName(te.Type.String()), te.Value)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return r.fail(len(r.f.Data), "bad JSON: unexpected end of input")
	}
	return r.fail(start, "bad JSON: %v", err)
}

func jsonTypeName(t string) string {
	switch t {
	case "string":
		return "a string"
	case "[]int64":
		return "an array of integers"
	case "int64":
		return "an integer"
	case "map[string]interface {}":
		return "an object"
	}
	return t
}

// offset is where the next value starts.
func (r *jsonReader) offset() int {
	off := int(r.dec.InputOffset())
	for off < len(r.f.Data) {
		switch r.f.Data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (r *jsonReader) delim(want json.Delim, what string) error {
	off := r.offset()
	tok, err := r.dec.Token()
	if err != nil {
		return r.decodeErr(err, off)
	}
	if tok != want {
		return r.fail(off, "bad JSON: want %s", what)
	}
	return nil
}

func (r *jsonReader) key() (string, int, error) {
	off := r.offset()
	tok, err := r.dec.Token()
	if err != nil {
		return "", off, r.decodeErr(err, off)
	}
	return tok.(string), off, nil // inside an object, tokens alternate key, value
}

func (r *jsonReader) value(v any) error {
	off := r.offset()
	if err := r.dec.Decode(v); err != nil {
		return r.decodeErr(err, off)
	}
	return nil
}

func (r *jsonReader) computation() ([]*jsonProcess, error) {
	if err := r.delim('{', `an object {"format": "kbmc-computation", …}`); err != nil {
		return nil, err
	}
	var procs []*jsonProcess
	format, version, sawProcs := "", int64(0), false
	for r.dec.More() {
		key, off, err := r.key()
		if err != nil {
			return nil, err
		}
		switch key {
		case "format":
			if err := r.value(&format); err != nil {
				return nil, err
			}
			if format != jsonFormat {
				return nil, r.fail(off, "format %q: want %q", format, jsonFormat)
			}
		case "version":
			if err := r.value(&version); err != nil {
				return nil, err
			}
			if version != 1 {
				return nil, r.fail(off, "version %d: this kbmc reads version 1", version)
			}
		case "program":
			var s string
			if err := r.value(&s); err != nil {
				return nil, err
			}
		case "processes":
			sawProcs = true
			if procs, err = r.processes(); err != nil {
				return nil, err
			}
		default:
			return nil, r.fail(off, "unknown key %q (keys: format, version, program, processes)", key)
		}
	}
	if err := r.delim('}', "the end of the object"); err != nil {
		return nil, err
	}
	if off := r.offset(); off < len(r.f.Data) {
		return nil, r.fail(off, "text after the computation")
	}
	switch {
	case format == "":
		return nil, r.fail(0, `the "format": %q key is missing`, jsonFormat)
	case version == 0:
		return nil, r.fail(0, `the "version": 1 key is missing`)
	case !sawProcs:
		return nil, r.fail(0, `the "processes" key is missing`)
	}
	return procs, nil
}

func (r *jsonReader) processes() ([]*jsonProcess, error) {
	if err := r.delim('[', "an array of processes"); err != nil {
		return nil, err
	}
	var procs []*jsonProcess
	for r.dec.More() {
		p := &jsonProcess{line: r.lines.line(r.offset())}
		if err := r.delim('{', `a process {"name": …, "events": […]}`); err != nil {
			return nil, err
		}
		for r.dec.More() {
			key, off, err := r.key()
			if err != nil {
				return nil, err
			}
			switch key {
			case "name":
				p.line = r.lines.line(r.offset())
				if err := r.value(&p.name); err != nil {
					return nil, err
				}
			case "initial":
				if err := r.value(&p.initial); err != nil {
					return nil, err
				}
			case "events":
				if err := r.delim('[', "an array of events"); err != nil {
					return nil, err
				}
				for r.dec.More() {
					line := r.lines.line(r.offset())
					var ev RecordedEvent
					if err := r.value(&ev); err != nil {
						return nil, err
					}
					p.events = append(p.events, ev)
					p.lines = append(p.lines, line)
				}
				if err := r.delim(']', "the end of the events"); err != nil {
					return nil, err
				}
			default:
				return nil, r.fail(off, "unknown key %q in a process (keys: name, initial, events)", key)
			}
		}
		if err := r.delim('}', "the end of the process"); err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}
	if err := r.delim(']', "the end of the processes"); err != nil {
		return nil, err
	}
	return procs, nil
}

// build checks what the JSON says and hands it to a Builder.
func (r *jsonReader) build(procs []*jsonProcess) (*Computation, error) {
	var errs ErrorList
	names := make([]string, len(procs))
	seen := map[string]int{}
	for i, p := range procs {
		names[i] = p.name
		switch prev, dup := seen[p.name]; {
		case p.name == "":
			errs.add(r.f.Name, p.line, "a process without a name")
		case dup:
			errs.add(r.f.Name, p.line, "two processes are called %q (the other at line %d)", p.name, procs[prev].line)
		}
		seen[p.name] = i
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	b := NewBuilder(r.f.Name, []string{r.f.Name}, names)
	set := func(p int, state map[string]any, line int) {
		keys := make([]string, 0, len(state))
		for k := range state {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "" {
				errs.add(r.f.Name, line, "a variable without a name")
				continue
			}
			vals, err := jsonValues(k, state[k])
			if err != nil {
				errs.add(r.f.Name, line, "%v", err)
				continue
			}
			for _, v := range vals {
				b.Set(p, v.Name, v.Value, Pos{Line: int32(line)})
			}
		}
	}
	for i, p := range procs {
		set(i, p.initial, p.line)
		for k, ev := range p.events {
			line := p.lines[k]
			kind, ok := parseKind(ev.Kind)
			if !ok {
				errs.add(r.f.Name, line, "kind %q: want send, recv or local", ev.Kind)
			}
			if ev.Clock == nil {
				errs.add(r.f.Name, line, `the event has no "clock"`)
				ev.Clock = make([]int64, len(procs))
				ev.Clock[i] = int64(k + 1)
			}
			b.Event(i, kind, ev.Text, Pos{Line: int32(line)}, ev.Clock)
			set(i, ev.State, line)
		}
	}
	c, err := b.Build()
	if err != nil {
		if l, ok := err.(ErrorList); ok {
			errs = append(errs, l...)
		} else {
			return nil, err
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	return c, nil
}

func parseKind(s string) (Kind, bool) {
	switch s {
	case "", "local":
		return Local, true
	case "send":
		return Send, true
	case "recv":
		return Recv, true
	case "recv+send":
		return Send | Recv, true
	}
	return Local, false
}

// jsonValues converts a JSON value of variable name into variables: one, or one
// per element of an array.
func jsonValues(name string, x any) ([]Binding, error) {
	switch x := x.(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("variable %q: %s is not a 64-bit integer", name, x)
		}
		return []Binding{{name, IntVal(n)}}, nil
	case bool:
		return []Binding{{name, BoolVal(x)}}, nil
	case string:
		return []Binding{{name, WordVal(x)}}, nil
	case []any:
		out := make([]Binding, 0, len(x))
		for i, e := range x {
			el := fmt.Sprintf("%s[%d]", name, i)
			switch e.(type) {
			case json.Number, bool:
			default:
				return nil, fmt.Errorf("variable %q: array elements must be integers or booleans", name)
			}
			v, err := jsonValues(el, e)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("variable %q: want an integer, a boolean, a string or an array, not %s", name, jsonKindName(x))
}

func jsonKindName(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}
