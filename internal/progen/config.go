package progen

import "strings"

// A Feature is a language construct the generator may use. Config.Features is a set
// of them.
type Feature uint32

const (
	Arrays        Feature = 1 << iota // shared arrays with computed indices
	Mutexes                           // mutexes and mutex arrays, lock and unlock, nested sections
	Cas                               // cas as a statement and as an expression
	Await                             // await(c)
	Assume                            // assume(c)
	Nondet                            // nondet(lo, hi) over small ranges
	Loops                             // for and while loops of at most two iterations, break, continue
	Branches                          // if/else on shared and local data, early return
	Atomic                            // atomic blocks, with and without an await or assume guard
	Templates                         // thread templates with an instance count, and tid
	Join                              // join of a template or of one instance
	Yield                             // yield
	Funcs                             // expression functions and statement functions
	Asserts                           // assertions over shared and local state
	Consts                            // const declarations used as sizes, counts and values
	Faults                            // deliberate errors: lock misuse, lock-order inversion, bad index or divisor
	SpinLoops                         // spinning: while (flag == 0) { yield; }; executions may not end
	SharedIndices                     // blocking operations whose mutex, thread or guarded cell is chosen by shared data
	Processes                         // process templates with instance counts and pid; memory, mutexes and functions inside them
	Channels                          // FIFO channels and channel arrays, send, recv and len, planned flows between threads

	// AllFeatures is every feature but the ones after it, which not every
	// engine supports.
	AllFeatures = Channels<<1 - 1

	// ChannelKinds: select over two channel operations, now and then with a
	// default, outside the planned flows (with Channels and Branches), and
	// lossy and unordered channels. Not in AllFeatures: the symbolic engine
	// encodes none of them.
	ChannelKinds Feature = Channels << 1
	// Rendezvous: now and then a channel of capacity 0, whose send and
	// receive are one step (with Channels). Not in AllFeatures: the symbolic
	// engine's partial-order encoding does not encode it.
	Rendezvous Feature = ChannelKinds << 1
	// Close: Go's channel constructs (with Channels): now and then a close
	// of a channel outside the planned flows (a later send on it panics),
	// receives with ok(…), and, with ChannelKinds, select cases guarded by
	// when (…). Not in AllFeatures: the symbolic engine encodes none of them.
	Close Feature = Rendezvous << 1
)

var featureNames = []string{
	"arrays", "mutexes", "cas", "await", "assume", "nondet", "loops", "branches",
	"atomic", "templates", "join", "yield", "funcs", "asserts", "consts", "faults",
	"spin-loops", "shared-indices", "processes", "channels", "channel-kinds", "rendezvous", "close",
}

// FeatureList returns every single feature, in the order of their declaration.
func FeatureList() []Feature {
	fs := make([]Feature, len(featureNames))
	for i := range fs {
		fs[i] = 1 << i
	}
	return fs
}

// String names the features in f, separated by "|".
func (f Feature) String() string {
	var names []string
	for i, n := range featureNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// Config shapes the generated programs. The zero value of a field means its default
// (see DefaultConfig), except Features, NoFold and StartSteps, which are used as
// given.
type Config struct {
	// MinThreads and MaxThreads bound the number of threads (template instances
	// included).
	MinThreads, MaxThreads int

	// MaxOps bounds the transitions one thread executes on its longest path (visible
	// operations, loop-head evaluations, and a leading local transition), roughly:
	// planted scenarios (a lock-order inversion, a spin loop) and the main thread's
	// joins may exceed it.
	MaxOps int

	// MaxInterleavings bounds the estimated number of interleavings: the multinomial
	// coefficient of the threads' transition counts times the number of nondet
	// combinations. Blocking makes the real number smaller. Budgets shrink, and
	// planted scenarios are dropped, until the estimate fits.
	MaxInterleavings int

	// Width is the integer width the program is meant to be compiled with; at widths
	// below 16 arithmetic sometimes wraps on purpose. Literals always fit 8 bits.
	Width int

	// Features are the constructs used.
	Features Feature

	// FaultRate is the probability of a deliberate fault at each opportunity, when
	// Features has Faults (remove Faults to have none).
	FaultRate float64

	// NoFold says that the program will be lowered with one transition per statement
	// (lang.Config.NoFold); the size estimate then counts local statements too.
	NoFold bool

	// StartSteps is how many transitions each thread takes besides its own, which
	// the size estimate counts: in the C form of a program (internal/kb2c) every
	// thread starts with a step of its own, which a search interleaves with every
	// other thread's.
	StartSteps int

	// GoForm restricts distributed programs to what the Go translation
	// (internal/kb2go) keeps: one thread per process instance (its memory
	// is then a goroutine's own), no lossy or unordered channels, messages
	// of at most 64 bits, and select guards that read no channel. Off, the
	// generator draws exactly as before.
	GoForm bool

	// Invariants is how many global invariants (invariant NAME: …;) to
	// append, over the shared ints of every space. They are drawn from a
	// stream of their own: the rest of the program is the one the seed makes
	// without them.
	Invariants int
}

// DefaultConfig is the configuration the differential tests use: 2 to 4 threads of at
// most 4 operations, at most about 20,000 interleavings, every feature but SpinLoops,
// Processes and Channels (classic shared-memory programs, which every engine
// accepts), 32-bit integers, rare faults.
func DefaultConfig() Config {
	return Config{
		MinThreads:       2,
		MaxThreads:       4,
		MaxOps:           4,
		MaxInterleavings: 20000,
		Width:            32,
		Features:         AllFeatures &^ (SpinLoops | Processes | Channels),
		FaultRate:        0.08,
	}
}

// DistributedConfig is DefaultConfig for distributed programs: processes that
// share no memory and talk through channels, with every other feature but
// SpinLoops inside the processes. The thread bounds count process instances.
func DistributedConfig() Config {
	c := DefaultConfig()
	c.Features = AllFeatures &^ SpinLoops
	c.MaxInterleavings = 100000
	return c
}

// DualFormConfig is DefaultConfig without Await: classic programs that the
// C translation (package kb2c) keeps verdict for verdict. An await that stays
// false is a deadlock, and C has no wait with that meaning (an assume that
// stays false cuts the execution instead). The size estimate counts the C
// form's start step of each thread (StartSteps), and there are at most three
// threads besides planted scenarios (with four, the start steps, which a
// stateless search interleaves with every other step, made the C forms of
// the programs that cannot shrink further take seconds where their .kb forms
// take milliseconds), so that the C forms stay about as small for a search
// as DefaultConfig's programs are. The same seed gives another program than
// DefaultConfig's.
func DualFormConfig() Config {
	c := DefaultConfig()
	c.Features &^= Await
	c.MaxThreads = 3
	c.StartSteps = 1
	return c
}

// GoFormConfig is DistributedConfig for the Go translation (package
// kb2go): processes of one thread each talking through channels, with
// Go's channel constructs (select with and without default, rendezvous,
// close and ok receives, when guards) and without what has no faithful Go
// form: mutexes (Go's relock blocks where .kb reports it), cas, assume and
// await (no Go statement waits for a condition), functions and joins; at
// most three process instances, each counted with the two steps a goroutine
// takes to start (StartSteps). The same seed gives another program than
// DistributedConfig's.
func GoFormConfig() Config {
	c := DistributedConfig()
	c.Features |= ChannelKinds | Rendezvous | Close
	c.Features &^= Mutexes | Cas | Assume | Await | Funcs | Join | SharedIndices
	c.GoForm = true
	// main's go statement and the goroutine's start are two steps of each
	// thread more, which a search interleaves with every other step; with
	// four threads, the programs that cannot shrink further stay above the
	// size bound (as DualFormConfig's C forms did).
	c.StartSteps = 2
	c.MaxThreads = 3
	return c
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.MinThreads <= 0 {
		c.MinThreads = d.MinThreads
	}
	if c.MaxThreads <= 0 {
		c.MaxThreads = max(d.MaxThreads, c.MinThreads)
	}
	if c.MaxThreads < c.MinThreads {
		c.MaxThreads = c.MinThreads
	}
	if c.MaxOps <= 0 {
		c.MaxOps = d.MaxOps
	}
	if c.MaxInterleavings <= 0 {
		c.MaxInterleavings = d.MaxInterleavings
	}
	if c.Width <= 0 {
		c.Width = d.Width
	}
	if c.FaultRate <= 0 {
		c.FaultRate = d.FaultRate
	}
	return c
}
