package bench

import (
	"bytes"
	"testing"
)

// TestSuites checks that every suite names existing families, and that each family
// compiles with N set from outside and says in its header what it is expected to
// answer.
func TestSuites(t *testing.T) {
	for _, suite := range Suites() {
		fams, err := Families(suite)
		if err != nil {
			t.Fatalf("suite %s: %v", suite, err)
		}
		if len(fams) == 0 {
			t.Errorf("suite %s is empty", suite)
		}
		for _, f := range fams {
			src, err := f.Source()
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if !bytes.Contains(src, []byte("// Verdict")) {
				t.Errorf("%s: the header does not give the expected verdict", f.Name)
			}
			for _, n := range []int64{2, 3} {
				if _, err := f.compile(src, 32, false, int(n)); err != nil {
					t.Errorf("%s with N = %d: %v", f.Name, n, err)
				}
			}
		}
	}
	if _, err := Families("no-such-suite"); err == nil {
		t.Error("an unknown suite is accepted")
	}
}
