package symbolic

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kbmc/lang"
	"kbmc/verify"
)

var (
	probeFile     = flag.String("symbolic.probe", "", "TestProbe: a .kb program to check, logging every solver call")
	probeEncoding = flag.String("symbolic.encoding", "", "TestProbe: the encoding (empty: the default)")
	probeTimeout  = flag.Duration("symbolic.timeout", time.Minute, "TestProbe: the time limit")
	probeDepth    = flag.Int("symbolic.depth", 0, "TestProbe: the depth (0: the default)")
)

// TestProbe checks one program with the symbolic engine and logs every solver
// call (the bounds, the answer, its time, the formula's size), for measuring
// where a run's time goes: go test ./symbolic -run Probe -v
// -symbolic.probe prog.kb [-symbolic.encoding step] [-cpuprofile cpu.out].
// Without -symbolic.probe it is skipped.
func TestProbe(t *testing.T) {
	if *probeFile == "" {
		t.Skip("no -symbolic.probe program")
	}
	src, err := os.ReadFile(*probeFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := lang.Compile(filepath.Base(*probeFile), src, lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *probeTimeout)
	defer cancel()
	start := time.Now()
	e := Engine{Options: verify.Options{Depth: *probeDepth}, Encoding: *probeEncoding}
	e.trace = func(call string) { t.Logf("%8v %s", time.Since(start).Round(time.Millisecond), call) }
	res, err := e.Check(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict %s, note %q, stats %+v", res.Verdict, res.Note, res.Stats)
}
