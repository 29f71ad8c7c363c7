package explicit

import (
	"path/filepath"
	"strings"
	"testing"

	"kbmc/lang"
	"kbmc/verify"
)

// TestRedirectedWaits runs every algorithm variant of the differential tests on the
// testdata programs whose blocking operation waits for a target chosen by shared
// data — lock(ms[x]), join(w[x]), await(a[x] == 0), assume(a[x] > 0), an atomic
// block's guard, the index read directly or through a function — while another
// thread writes x. Each is unsafe; persistent once said safe on two of them,
// because it took the waiting thread's target as fixed when it chose which threads
// can enable it.
func TestRedirectedWaits(t *testing.T) {
	var n int
	for _, td := range readTestdata(t) {
		if !strings.HasPrefix(filepath.Base(td.path), "blocked-target-") {
			continue
		}
		n++
		p, err := lang.Compile(td.path, td.src, td.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, algo := range Algorithms() {
			vs := variantsOf(algo)
			if algo == "dfs" { // its variants are the stateful one only
				vs = append(vs, variant{name: "stateless", algo: algo, set: func(*Options) {}})
			}
			for _, v := range vs {
				if v.class != traceComplete {
					continue // a reduction bound of its own may cut the violation
				}
				if v.available != nil && v.available() != nil {
					continue
				}
				t.Run(filepath.Base(td.path)+"/"+algo+"/"+v.name, func(t *testing.T) {
					o := td.opts
					v.set(&o)
					eng, err := New(algo, o)
					if err != nil {
						t.Fatal(err)
					}
					r, err := untilHang(t, algo, eng, p)
					if err != nil {
						t.Fatal(err)
					}
					if r.Verdict != verify.Unsafe {
						t.Fatalf("verdict %s (%s), want unsafe", r.Verdict, r.Note)
					}
					if _, _, err := p.Confirm(r.Trace, r.Violation.Kind); err != nil {
						t.Fatalf("the counterexample does not replay: %v", err)
					}
				})
			}
		}
	}
	if n < 10 {
		t.Fatalf("found %d blocked-target-*.kb programs in testdata, want at least 10", n)
	}
}
