package detect

import (
	"bytes"
	"fmt"
	"sort"
)

// A File is one input: its name, for messages, and its contents.
type File struct {
	Name string
	Data []byte
}

// A Format is one of the inputs kbmc detect reads.
type Format string

const (
	FormatKBMC     Format = "kbmc"     // kbmc's computation JSON (ReadJSON)
	FormatGoVector Format = "govector" // GoVector logs, one file per process (ReadGoVector)
	FormatShiViz   Format = "shiviz"   // ShiViz files (ReadShiViz)
)

// Formats lists the formats by name.
func Formats() []Format { return []Format{FormatKBMC, FormatGoVector, FormatShiViz} }

// DetectFormat guesses the format of an input from its start: JSON starts with
// "{", a GoVector log with a line "HOST {CLOCK}" (or, when it holds several runs,
// a blank line and "=== Execution #"), and anything else is taken for a ShiViz
// file, whose first line is a regular expression.
func DetectFormat(f File) Format {
	data := bytes.TrimPrefix(f.Data, []byte("\uFEFF"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return FormatKBMC
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if _, _, ok := parseGoVectorHeader(bytes.TrimSuffix(first, []byte("\r"))); ok {
		return FormatGoVector
	}
	if len(bytes.TrimSpace(first)) == 0 && bytes.HasPrefix(rest, []byte(executionMarker)) {
		return FormatGoVector
	}
	return FormatShiViz
}

// Read reads the computations in files. FormatKBMC and FormatShiViz read each
// file on its own (a ShiViz file may hold several executions); FormatGoVector
// reads all files together, one per process. An empty format is detected from
// the files, which must then agree.
func Read(format Format, files []File) ([]*Computation, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no input files")
	}
	if format == "" {
		format = DetectFormat(files[0])
		for _, f := range files[1:] {
			if g := DetectFormat(f); g != format {
				return nil, fmt.Errorf("%s looks like %s input but %s looks like %s input; say which with --format",
					files[0].Name, format, f.Name, g)
			}
		}
	}
	switch format {
	case FormatGoVector:
		return ReadGoVector(files...)
	case FormatKBMC, FormatShiViz:
		var out []*Computation
		var errs ErrorList
		for _, f := range files {
			var cs []*Computation
			var err error
			if format == FormatKBMC {
				var c *Computation
				if c, err = ReadJSON(f); c != nil {
					cs = []*Computation{c}
				}
			} else {
				cs, err = ReadShiViz(f)
			}
			if err != nil {
				if l, ok := err.(ErrorList); ok {
					errs = append(errs, l...)
					continue
				}
				return nil, err
			}
			out = append(out, cs...)
		}
		if len(errs) > 0 {
			return nil, errs
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown format %q (formats: kbmc, govector, shiviz)", format)
}

// lineIndex maps byte offsets to lines.
type lineIndex []int // offset of the start of each line

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the line (from 1) holding offset off.
func (l lineIndex) line(off int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}
