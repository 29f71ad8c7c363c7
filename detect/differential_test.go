package detect_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"kbmc/detect"
	"kbmc/internal/compgen"
)

var (
	diffN      = flag.Int("detect.n", 2000, "random computations in TestDifferential")
	diffSeed   = flag.Uint64("detect.seed", 1, "first seed of TestDifferential")
	diffBudget = flag.Float64("detect.budget", 2e4, "bound on the product of (events+1) of a random computation")
)

var searches = []detect.Options{
	{Algorithm: detect.Lattice},
	{Algorithm: detect.Lattice, Sleep: true},
	{Algorithm: detect.Persistent},
	{Algorithm: detect.Persistent, Sleep: true},
}

func searchName(o detect.Options) string {
	if o.Sleep {
		return string(o.Algorithm) + "+sleep"
	}
	return string(o.Algorithm)
}

// TestDifferential checks every search against the lattice, the reference, on
// random computations (2 to 6 processes, up to 40 events each, random messages)
// and random predicates, for both modalities: the verdicts must agree, every
// witness must check, and the counts must relate as the theory says. For
// computations small enough, the lattice itself is checked against brute force.
// -detect.n sets how many computations; -detect.seed where the seeds start.
func TestDifferential(t *testing.T) {
	runs, disagreements, brute := 0, 0, 0
	for k := range *diffN {
		seed := *diffSeed + uint64(k)
		rng := rand.New(rand.NewPCG(seed, 0x6b626d63))
		cfg := compgen.Random{Procs: 2 + k%5, MaxEvents: 40, Budget: *diffBudget, Send: 0.3, Recv: 0.4, Change: 0.3}
		c := cfg.Generate(rng, fmt.Sprintf("seed %d", seed))
		preds := []string{compgen.LocalPredicate(rng, cfg.Procs), compgen.Predicate(rng, cfg.Procs)}
		r, d, b := compare(t, c, fmt.Sprintf("seed %d", seed), preds)
		runs, disagreements, brute = runs+r, disagreements+d, brute+b
	}
	t.Logf("%d computations, %d searches (4 searches × 2 modalities × 2 predicates each), %d disagreements; %d predicate checks against brute force",
		*diffN, runs, disagreements, brute)
}

// compare decides every predicate of preds on c in both modalities with every
// search and checks them against the lattice (and the lattice against brute
// force when c is small): verdicts, witnesses and counts. what names c in
// messages. It returns the searches run, the disagreements, and the predicates
// checked against brute force.
func compare(t *testing.T, c *detect.Computation, what string, preds []string) (runs, disagreements, brute int) {
	t.Helper()
	ctx := context.Background()
	for _, src := range preds {
		phi, err := detect.CompilePredicate("predicate", src, c, nil)
		if err != nil {
			t.Fatalf("%s: %s: %v", what, src, err)
		}
		var oracle *bruteForce
		if states(c) <= 5000 {
			oracle = newBruteForce(t, c, phi)
			brute++
		}
		for _, m := range []detect.Modality{detect.Possibly, detect.Definitely} {
			var ref *detect.Result
			for _, opts := range searches {
				res, err := detect.Detect(ctx, c, phi, m, opts)
				runs++
				if err != nil {
					t.Fatalf("%s, %s %q, %s: %v", what, m, src, searchName(opts), err)
				}
				if ref == nil {
					ref = res
					if oracle != nil && oracle.verdict(m) != res.Verdict {
						t.Errorf("%s, %s %q: lattice says %s, brute force %s", what, m, src, res.Verdict, oracle.verdict(m))
					}
					if oracle != nil && m == detect.Possibly && res.Verdict == detect.No && res.Stats.States != int64(oracle.cgs) {
						t.Errorf("%s: lattice visited %d states, the computation has %d consistent ones", what, res.Stats.States, oracle.cgs)
					}
				}
				if res.Verdict != ref.Verdict {
					disagreements++
					t.Errorf("%s, %s %q: %s says %s, lattice %s", what, m, src, searchName(opts), res.Verdict, ref.Verdict)
					continue
				}
				wantWitness := m == detect.Possibly && res.Verdict == detect.Yes || m == detect.Definitely && res.Verdict == detect.No
				if (res.Witness != nil) != wantWitness {
					t.Errorf("%s, %s %q, %s: verdict %s with witness %v", what, m, src, searchName(opts), res.Verdict, res.Witness)
				}
				if res.Witness != nil {
					if err := detect.CheckWitness(c, phi, m, res.Witness); err != nil {
						t.Errorf("%s, %s %q, %s: witness: %v", what, m, src, searchName(opts), err)
					}
				}
				checkCounts(t, fmt.Sprintf("%s, %s %q, %s", what, m, src, searchName(opts)), m, opts, res, ref)
			}
		}
	}
	return runs, disagreements, brute
}

// checkCounts checks what the theory says about N_S and N_T when Poss Φ fails,
// so that every search ran to the end: the selective searches visit no state and
// take no transition the lattice does not, and with sleep sets, since in the
// Poss system all transitions of different processes are independent, no state
// is reached twice (N_T = N_S - 1, as in Stoller's table) and sleep sets alone
// lose no state.
func checkCounts(t *testing.T, what string, m detect.Modality, opts detect.Options, res, ref *detect.Result) {
	t.Helper()
	if m != detect.Possibly || res.Verdict != detect.No {
		return
	}
	if res.Stats.States > ref.Stats.States || res.Stats.Transitions > ref.Stats.Transitions {
		t.Errorf("%s: N_S %d, N_T %d exceed the lattice's %d, %d", what, res.Stats.States, res.Stats.Transitions, ref.Stats.States, ref.Stats.Transitions)
	}
	if opts.Sleep && res.Stats.Transitions != res.Stats.States-1 {
		t.Errorf("%s: N_T %d, N_S %d: with sleep sets no state should be reached twice", what, res.Stats.Transitions, res.Stats.States)
	}
	if opts.Sleep && opts.Algorithm == detect.Lattice && res.Stats.States != ref.Stats.States {
		t.Errorf("%s: N_S %d, but the lattice has %d states", what, res.Stats.States, ref.Stats.States)
	}
}

func states(c *detect.Computation) float64 {
	p := 1.0
	for _, pr := range c.Procs {
		p *= float64(len(pr.Events) + 1)
	}
	return p
}

// bruteForce decides Poss and Def by enumerating every global state, with
// nothing shared with the searches but Consistent and Holds.
type bruteForce struct {
	poss, def bool
	cgs       int
}

func newBruteForce(t *testing.T, c *detect.Computation, phi *detect.Predicate) *bruteForce {
	n := c.N()
	radix := make([]int, n)
	total := 1
	for i, p := range c.Procs {
		radix[i] = len(p.Events) + 1
		total *= radix[i]
	}
	decode := func(x int) []int {
		cut := make([]int, n)
		for i := range n {
			cut[i] = x % radix[i]
			x /= radix[i]
		}
		return cut
	}
	b := &bruteForce{}
	// avoid[x]: a history from the initial state reaches x through states where
	// Φ does not hold. Index order visits every predecessor first.
	avoid := make([]bool, total)
	for x := range total {
		cut := decode(x)
		if !c.Consistent(cut) {
			continue
		}
		b.cgs++
		ok, err := phi.Holds(cut)
		if err != nil {
			t.Fatal(err)
		}
		b.poss = b.poss || ok
		if ok {
			continue
		}
		if x == 0 {
			avoid[x] = true
			continue
		}
		stride := 1
		for i := range n {
			if cut[i] > 0 && avoid[x-stride] {
				avoid[x] = true
			}
			stride *= radix[i]
		}
	}
	b.def = !avoid[total-1]
	return b
}

func (b *bruteForce) verdict(m detect.Modality) detect.Verdict {
	v := b.poss
	if m == detect.Definitely {
		v = b.def
	}
	if v {
		return detect.Yes
	}
	return detect.No
}
