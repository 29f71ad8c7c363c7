package detect_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kbmc/detect"
	"kbmc/internal/compgen"
)

// TestGoVectorRoundTrip writes random computations as GoVector logs and reads
// them back: the clocks of every local state and the variables every event sets
// must survive.
func TestGoVectorRoundTrip(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		c := compgen.Random{Procs: 2 + int(seed%5), MaxEvents: 30, Send: 0.3, Recv: 0.4, Change: 0.5}.Generate(rng, "random")
		dir := t.TempDir()
		if err := compgen.WriteGoVector(c, dir); err != nil {
			t.Fatal(err)
		}
		var files []detect.File
		for _, p := range c.Procs {
			path := filepath.Join(dir, p.Name+"-Log.txt")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, detect.File{Name: path, Data: data})
		}
		got, err := detect.ReadGoVector(files...)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		r := got[0]
		for p, pr := range c.Procs {
			q, ok := r.Process(pr.Name)
			if !ok || len(r.Procs[q].Events) != len(pr.Events) {
				t.Fatalf("seed %d: %s lost or changed", seed, pr.Name)
			}
			for k := 0; k <= len(pr.Events); k++ {
				want, have := c.Clock(p, k), r.Clock(q, k)
				for j, other := range c.Procs {
					oj, _ := r.Process(other.Name)
					if want[j] != have[oj] {
						t.Fatalf("seed %d: %s state %d: clock %v, read %v", seed, pr.Name, k, want, have)
					}
				}
				if k > 0 && !slices.Equal(c.Sets(p, k), r.Sets(q, k)) {
					t.Fatalf("seed %d: %s event %d sets %v, read %v", seed, pr.Name, k, c.Sets(p, k), r.Sets(q, k))
				}
			}
		}
	}
}
