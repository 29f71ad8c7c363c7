package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestRowFields checks that each engine kind fills only the columns it has a
// counter for, that gini's missing conflict count is an empty cell, not -1, that
// states are empty for a stateless algorithm, and that every row carries the
// campaign's bound, time limit and version, and that a peak RSS the kernel did
// not give is an empty cell.
func TestRowFields(t *testing.T) {
	tests := []struct {
		row  Row
		want string
	}{
		{Row{Family: "f", N: 2, Engine: "explicit/dfs", Verdict: "safe", Executions: 4, Trans: 9, Time: 1500 * time.Microsecond},
			"f,2,explicit/dfs,safe,4,9,,,,,,,1.500,0.0,,,,,"},
		{Row{Family: "f", N: 2, Engine: "explicit/persistent", Verdict: "safe", Executions: 4, Trans: 9, States: 0, HasStates: true,
			Time: time.Millisecond, PeakHeap: 3 << 19, PeakRSS: 40 << 20, Bound: 100, Timeout: time.Minute, Version: "0.2.0"},
			"f,2,explicit/persistent,safe,4,9,0,,,,,,1.000,1.5,40.0,,100,60,0.2.0"},
		{Row{Family: "f", N: 1, Engine: "symbolic/z3/monotonic", Verdict: "safe", Depth: 7, Variables: 10, Clauses: 20, Conflicts: 3,
			SolveTime: 2 * time.Millisecond, Time: 3 * time.Millisecond},
			"f,1,symbolic/z3/monotonic,safe,,,,7,10,20,3,2.000,3.000,0.0,,,,,"},
		{Row{Family: "f", N: 1, Engine: "symbolic/gini/none", Verdict: "unknown", Depth: 5, Conflicts: -1, Note: "stopped"},
			"f,1,symbolic/gini/none,unknown,,,,5,0,0,,0.000,0.000,0.0,,stopped,,,"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, []Row{tc.row}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 || lines[1] != tc.want {
			t.Errorf("%s: CSV\n%s\nwant row %s", tc.row.Engine, buf.String(), tc.want)
		}
		if got, want := strings.Count(lines[0], ","), strings.Count(tc.want, ","); got != want {
			t.Errorf("%s: header has %d commas, row %d", tc.row.Engine, got, want)
		}
	}
}

// TestCSVRoundTrip checks that rows read back from CSV, two campaigns'
// files concatenated, write the same CSV again.
func TestCSVRoundTrip(t *testing.T) {
	rows := []Row{
		{Family: "f", N: 2, Engine: "explicit/persistent", Verdict: "safe", Executions: 4, Trans: 9, States: 7, HasStates: true,
			Time: 1500 * time.Microsecond, PeakHeap: 3 << 19, PeakRSS: 40 << 20, Bound: 100, Timeout: time.Minute, Version: "0.2.0"},
		{Family: "f", N: 3, Engine: "explicit/dpor", Verdict: "unknown", Executions: 4000, Trans: 9000,
			Time: time.Minute, PeakHeap: 1 << 20, Note: "time limit", Bound: 100, Timeout: time.Minute},
		{Family: "g", N: 1, Engine: "symbolic/gini/none", Verdict: "safe", Depth: 5, Variables: 3, Clauses: 8, Conflicts: -1,
			SolveTime: 2 * time.Millisecond, Time: 3 * time.Millisecond, Note: "a, \"quoted\" note"},
	}
	var first, second, want bytes.Buffer
	if err := WriteCSV(&first, rows[:2]); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&second, rows[2:]); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&want, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(strings.NewReader(first.String() + second.String()))
	if err != nil || len(got) != len(rows) {
		t.Fatalf("read %d rows, error %v", len(got), err)
	}
	var again bytes.Buffer
	if err := WriteCSV(&again, got); err != nil {
		t.Fatal(err)
	}
	if again.String() != want.String() {
		t.Errorf("round trip\n%s\nwant\n%s", again.String(), want.String())
	}
	if _, err := ReadCSV(strings.NewReader("f,2,explicit/dfs\n")); err == nil {
		t.Error("a CSV without a header is accepted")
	}
}
