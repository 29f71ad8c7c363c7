package detect

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Modality is Poss or Def (Stoller §2, after Cooper and Marzullo).
type Modality uint8

const (
	// Possibly: some consistent global state satisfies Φ.
	Possibly Modality = iota
	// Definitely: every history consistent with the computation passes
	// through a global state satisfying Φ.
	Definitely
)

func (m Modality) String() string {
	if m == Definitely {
		return "definitely"
	}
	return "possibly"
}

// An Algorithm is a search strategy.
type Algorithm string

const (
	// Lattice visits every consistent global state reachable without
	// deciding, level by level (Cooper and Marzullo). It is the reference.
	Lattice Algorithm = "lattice"
	// Persistent is persistent-set selective search: PS_Poss (Stoller §4,
	// Fig. 2) for Poss Φ, PS_Def (§5, Fig. 3, corrected; see psDef) for Def Φ
	// when Φ is a conjunction of 1-local predicates. Other Def Φ fall back to
	// Lattice.
	Persistent Algorithm = "persistent"
)

// Algorithms lists the algorithms by name.
func Algorithms() []Algorithm { return []Algorithm{Lattice, Persistent} }

// Options configure a search.
type Options struct {
	Algorithm Algorithm // "" means Persistent
	// Sleep adds sleep sets (Godefroid; Stoller §6) to the depth-first search.
	// With Lattice it makes the search depth-first over all enabled
	// transitions, Stoller's "sleep sets only" level.
	Sleep bool
	// Progress, if set, is called about every ProgressInterval (default 1 s)
	// during a search.
	Progress         func(Stats)
	ProgressInterval time.Duration
}

// A Verdict is the answer of a search.
type Verdict uint8

const (
	No      Verdict = iota // Poss Φ or Def Φ does not hold
	Yes                    // it holds
	Unknown                // the context ended the search first
)

func (v Verdict) String() string {
	return [...]string{"no", "yes", "unknown"}[v]
}

// Stats are Stoller's measures: N_S, the states visited, and N_T, the
// transitions executed. States are distinct, except in the persistent search
// for a conjunction of 1-local predicates, which keeps only the states where it
// branches (see dfsRun): a state it reaches again below a branch counts again.
type Stats struct {
	States      int64
	Transitions int64
	Time        time.Duration
}

// A Witness is a history: the events in the order they happen, as process
// numbers, from the initial global state to Cut (events done per process).
// For Poss Φ, Φ holds at Cut; for a failed Def Φ, Cut is the final state and
// Φ holds at no global state of the history.
type Witness struct {
	Cut     []int
	History []int
}

// A Result is the outcome of Detect.
type Result struct {
	Modality Modality
	Verdict  Verdict
	// Witness is set when the verdict has one: Poss Φ holds, or Def Φ fails.
	// It has been checked with CheckWitness.
	Witness *Witness
	Stats   Stats
	// Search names what ran: "lattice", "lattice+sleep", "persistent" or
	// "persistent+sleep".
	Search string
	// Note says why the search differs from the one asked for, or why it
	// stopped.
	Note string
}

// ErrInternal marks a failure of kbmc itself: a witness that does not check.
var ErrInternal = errors.New("internal error")

// Detect decides Poss Φ or Def Φ for computation c. The predicate must have been
// compiled for c. A context that ends stops the search with verdict Unknown; a
// predicate that has no value in a global state the search visits is an
// *EvalError.
func Detect(ctx context.Context, c *Computation, phi *Predicate, m Modality, opts Options) (*Result, error) {
	if phi.c != c {
		return nil, fmt.Errorf("the predicate was compiled for %s, not %s", phi.c.Name, c.Name)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = time.Second
	}
	algo := opts.Algorithm
	if algo == "" {
		algo = Persistent
	}
	res := &Result{Modality: m}
	switch algo {
	case Lattice:
	case Persistent:
		if m == Definitely && !phi.OneLocal() {
			algo = Lattice
			res.Note = "Def Φ: Φ is not a conjunction of 1-local predicates, so PS_Def does not apply; searched the lattice instead"
		}
	default:
		return nil, fmt.Errorf("unknown algorithm %q (algorithms: lattice, persistent)", algo)
	}
	res.Search = string(algo)
	if opts.Sleep {
		res.Search += "+sleep"
	}
	s, err := newSearch(ctx, c, phi, m, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case algo == Lattice && !opts.Sleep:
		err = s.lattice(res)
	default:
		err = s.dfs(res, algo == Persistent)
	}
	res.Stats = s.stats
	res.Stats.Time = time.Since(s.start)
	stopped := errors.Is(err, errStopped)
	if err != nil && !stopped {
		return nil, err
	}
	res.Verdict = verdict(m, res.Witness, stopped)
	if stopped {
		res.Note = s.stopNote()
	}
	if res.Witness != nil {
		if err := CheckWitness(c, phi, m, res.Witness); err != nil {
			return nil, fmt.Errorf("%w: the %s search's witness does not check: %v", ErrInternal, res.Search, err)
		}
	}
	return res, nil
}

// search is what the lattice and depth-first searches share: the computation,
// the current global state and its predicate, the counters.
type search struct {
	ctx  context.Context
	c    *Computation
	phi  *Predicate
	f    formula
	m    Modality
	opts Options
	n    int
	lens []int32 // events per process
	cut  []int32 // the current global state
	hint []int32 // wait-for graph: a process each process was last found waiting for
	h    uint64  // hash of cut, kept up to date by advance and retreat
	// A process found enabled stays enabled while it does not move and no
	// other process moves back (guards only ask others to have done enough):
	// enPos[i] is the local state at which i was last found enabled, in epoch
	// enEpoch[i], and epoch counts the moves back.
	enPos   []int32
	enEpoch []uint32
	epoch   uint32
	stats   Stats
	start   time.Time
	tick    int
	next    time.Time // next progress report
}

func newSearch(ctx context.Context, c *Computation, phi *Predicate, m Modality, opts Options) (*search, error) {
	n := c.N()
	s := &search{ctx: ctx, c: c, phi: phi, m: m, opts: opts, n: n,
		lens: make([]int32, n), cut: make([]int32, n), hint: make([]int32, n), start: time.Now(),
		enPos: make([]int32, n), enEpoch: make([]uint32, n), epoch: 1}
	for i, p := range c.Procs {
		s.lens[i] = int32(len(p.Events))
	}
	s.next = s.start.Add(opts.ProgressInterval)
	for i := range s.cut {
		s.h ^= mix(i, 0)
	}
	if err := s.f.init(phi, s.lens); err != nil {
		return nil, err
	}
	return s, nil
}

// poll checks the context and reports progress, every few thousand steps.
func (s *search) poll() error {
	s.tick++
	if s.tick&1023 != 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return errStopped
	}
	if s.opts.Progress != nil {
		if now := time.Now(); now.After(s.next) {
			st := s.stats
			st.Time = now.Sub(s.start)
			s.opts.Progress(st)
			s.next = now.Add(s.opts.ProgressInterval)
		}
	}
	return nil
}

// errStopped is how a search unwinds when its context ends.
var errStopped = errors.New("stopped")

// verdict is the one place a search's answer is decided, from what it found.
// The lattice and depth-first searches only look for a witness: a global state
// where Φ holds (Poss Φ holds) or a history from the initial to the final
// state that never passes through Φ (Def Φ fails). They stop at the first, so
// a search that ends without one has shown there is none: Poss Φ fails, Def Φ
// holds. A search the context stopped first shows nothing.
func verdict(m Modality, w *Witness, stopped bool) Verdict {
	switch {
	case w != nil && m == Possibly:
		return Yes
	case w != nil:
		return No
	case stopped:
		return Unknown
	case m == Possibly:
		return No
	}
	return Yes
}

// stopNote says why the context stopped the search.
func (s *search) stopNote() string {
	cause := context.Cause(s.ctx)
	if cause == nil {
		cause = s.ctx.Err()
	}
	return fmt.Sprintf("stopped: %v", cause)
}

// blocker returns a process whose next event must happen before the next event
// of process i can, or -1 when i's next event is enabled: an out-edge of i in
// the wait-for graph WF(s) (Stoller §4). i must have a next event.
func (s *search) blocker(i int) int {
	req := s.c.req(i, s.cut[i]+1)
	if h := s.hint[i]; s.cut[h] < req[h] {
		return int(h)
	}
	for j, r := range req {
		if s.cut[j] < r {
			s.hint[i] = int32(j)
			return j
		}
	}
	return -1
}

// waitsFor is blocker with the enabledness cache: -1 when i's next event is
// enabled.
func (s *search) waitsFor(i int) int {
	k := s.cut[i]
	if s.enPos[i] == k && s.enEpoch[i] == s.epoch {
		return -1
	}
	j := s.blocker(i)
	if j < 0 {
		s.enPos[i], s.enEpoch[i] = k, s.epoch
	}
	return j
}

// sink follows the wait-for graph from process i to a process with no out-edge,
// whose next event is then enabled. The graph is acyclic because happened-before
// is (Builder checks it), so this takes at most N steps.
func (s *search) sink(i int) (int, error) {
	for range s.n + 1 {
		j := s.waitsFor(i)
		if j < 0 {
			return i, nil
		}
		i = j
	}
	return 0, fmt.Errorf("%w: the wait-for graph has a cycle", ErrInternal)
}

// enabled reports whether the next event of process i can happen in the current
// state, as far as consistency goes.
func (s *search) enabled(i int) bool { return s.cut[i] < s.lens[i] && s.waitsFor(i) < 0 }

func (s *search) advance(i int) { s.probe(i, 1) }

// retreat undoes advance(i). It invalidates the enabledness cache; probe does
// not, as it restores the state before anyone asks.
func (s *search) retreat(i int) {
	s.epoch++
	s.probe(i, -1)
}

// probe moves process i by d events without touching the enabledness cache.
func (s *search) probe(i int, d int32) {
	k := s.cut[i]
	s.f.moved(i, k, k+d)
	s.h ^= mix(i, k) ^ mix(i, k+d)
	s.cut[i] = k + d
}

// load makes st the current state.
func (s *search) load(st []int32) {
	s.epoch++
	for i, k := range st {
		if s.cut[i] != k {
			s.f.moved(i, s.cut[i], k)
			s.h ^= mix(i, s.cut[i]) ^ mix(i, k)
			s.cut[i] = k
		}
	}
}

// holds evaluates Φ in the current state.
func (s *search) holds() (bool, error) {
	ok := s.f.holds(s.cut)
	return ok, s.phi.failure(s.cut)
}

// holdsAfter evaluates Φ in the current state with process i one event further.
func (s *search) holdsAfter(i int) (bool, error) {
	s.probe(i, 1)
	ok, err := s.holds()
	s.probe(i, -1)
	return ok, err
}

// holdsAfter2 evaluates Φ with processes i and j one event further each.
func (s *search) holdsAfter2(i, j int) (bool, error) {
	s.probe(i, 1)
	s.probe(j, 1)
	ok, err := s.holds()
	s.probe(j, -1)
	s.probe(i, -1)
	return ok, err
}

// isFinal reports whether every process has done all its events.
func (s *search) isFinal() bool {
	for i, k := range s.cut {
		if k != s.lens[i] {
			return false
		}
	}
	return true
}

func (s *search) cutCopy() []int {
	out := make([]int, s.n)
	for i, k := range s.cut {
		out[i] = int(k)
	}
	return out
}
