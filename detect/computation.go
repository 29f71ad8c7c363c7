package detect

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind says what an event did, as far as the input tells: it may have sent a
// message, received one (and merged the sender's clock into its own), both, or
// neither.
type Kind uint8

const (
	Local Kind = 0
	Send  Kind = 1 << 0
	Recv  Kind = 1 << 1
)

func (k Kind) String() string {
	switch k {
	case Local:
		return "local"
	case Send:
		return "send"
	case Recv:
		return "recv"
	case Send | Recv:
		return "recv+send"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Pos is where an event was read: an index into Computation.Files and a line (0
// when unknown, as for generated computations).
type Pos struct {
	File int32
	Line int32
}

// An Event is one step of one process. Event k (from 1) of a process leads from its
// local state k-1 to its local state k; state 0 is the initial state.
type Event struct {
	Text string
	Pos  Pos
	Kind Kind
}

// A ValueKind is the kind of a variable's values.
type ValueKind uint8

const (
	IntValue  ValueKind = iota // 64-bit integers
	BoolValue                  // true and false
	WordValue                  // words, which compare only with == and !=
)

func (k ValueKind) String() string {
	switch k {
	case IntValue:
		return "int"
	case BoolValue:
		return "bool"
	case WordValue:
		return "word"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// A Value is the value of a variable in a local state.
type Value struct {
	Kind ValueKind
	Int  int64  // IntValue; BoolValue as 0 or 1
	Word string // WordValue
}

// IntVal, BoolVal and WordVal make Values.
func IntVal(n int64) Value { return Value{Kind: IntValue, Int: n} }
func BoolVal(b bool) Value {
	if b {
		return Value{Kind: BoolValue, Int: 1}
	}
	return Value{Kind: BoolValue}
}
func WordVal(w string) Value { return Value{Kind: WordValue, Word: w} }

func (v Value) String() string {
	switch v.Kind {
	case BoolValue:
		return strconv.FormatBool(v.Int != 0)
	case WordValue:
		if isWordLiteral(v.Word) {
			return v.Word
		}
		return strconv.Quote(v.Word)
	}
	return strconv.FormatInt(v.Int, 10)
}

// isWordLiteral reports whether w can be written bare in a predicate (an
// identifier); other words print quoted.
func isWordLiteral(w string) bool {
	if w == "" || w == "true" || w == "false" {
		return false
	}
	for i, r := range w {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// A Var is one variable of one process: its value in every local state, stored as
// the states where it is set. Before it is first set it has the zero value of its
// kind (0, false, or the empty word), as variables do in .kb programs.
type Var struct {
	Name  string
	Kind  ValueKind
	Mixed bool   // values of different kinds: an error if a predicate uses it
	mixed [2]Pos // where the first two kinds were set

	at  []int32 // ascending local-state indices where it is set
	val []int64 // its value from there on: Int, 0/1, or a word number
}

// A Process is one process's local history.
type Process struct {
	Name   string
	Events []Event
	Vars   []*Var // sorted by name

	vars map[string]*Var
	// know[k] is the number of the knowledge vector of local state k in
	// Computation.know: for each other process j, how many of j's events
	// happened before state k. Consecutive states share a vector until a receive
	// changes it, so a computation of a million events with few receives stays
	// small.
	know []int32
}

// Var returns the variable called name, or nil.
func (p *Process) Var(name string) *Var { return p.vars[name] }

// A Computation is the local history of each process together with the
// happened-before order given by vector timestamps (Stoller §2).
type Computation struct {
	Name  string   // what it was read from, for messages
	Files []string // Pos.File indexes this
	Procs []*Process

	words  []string // word number → word; number 0 is the empty word
	wordID map[string]int64
	know   []int32 // knowledge vectors, N entries each, own entry 0; vector 0 is all zeros
	events int
}

// N is the number of processes.
func (c *Computation) N() int { return len(c.Procs) }

// Events is the number of events of all processes together.
func (c *Computation) Events() int { return c.events }

// Process returns the number of the process called name.
func (c *Computation) Process(name string) (int, bool) {
	for i, p := range c.Procs {
		if p.Name == name {
			return i, true
		}
	}
	return 0, false
}

// Where renders an event position as "file:line", or "" if unknown.
func (c *Computation) Where(pos Pos) string {
	if int(pos.File) >= len(c.Files) || pos.File < 0 || c.Files[pos.File] == "" {
		return ""
	}
	if pos.Line <= 0 {
		return c.Files[pos.File]
	}
	return fmt.Sprintf("%s:%d", c.Files[pos.File], pos.Line)
}

// req is the knowledge vector of local state k of process p: state k can only
// exist in a global state where every process j has done at least req[j]
// events. Its own entry is 0.
func (c *Computation) req(p int, k int32) []int32 {
	n := int32(len(c.Procs))
	v := c.Procs[p].know[k]
	return c.know[v*n : v*n+n]
}

// Clock returns the vector timestamp of local state k of process p (k events
// done): entry j is how many of j's events happened before it, and entry p is k.
func (c *Computation) Clock(p, k int) []int {
	r := c.req(p, int32(k))
	out := make([]int, len(r))
	for j, v := range r {
		out[j] = int(v)
	}
	out[p] = k
	return out
}

// Consistent reports whether cut, the number of events done by each process, is
// a consistent global state: no local state in it happened before another
// (Stoller §2, after Fromentin and Raynal: ∀i,j: s[i](vt)[i] ≥ s[j](vt)[i]).
// This full test takes O(N²); the searches test each new state in O(N), since
// a state that extends a consistent one by one event of process i is
// consistent iff i's new local state is (Stoller §4, the guard of (1)).
func (c *Computation) Consistent(cut []int) bool {
	if len(cut) != len(c.Procs) {
		return false
	}
	for i, k := range cut {
		if k < 0 || k > len(c.Procs[i].Events) {
			return false
		}
	}
	for i, k := range cut {
		for j, v := range c.req(i, int32(k)) {
			if j != i && int(v) > cut[j] {
				return false
			}
		}
	}
	return true
}

// ValueAt returns the value of variable name of process p in its local state k.
func (c *Computation) ValueAt(p, k int, name string) (Value, bool) {
	v := c.Procs[p].vars[name]
	if v == nil {
		return Value{}, false
	}
	return c.value(v, v.valueAt(int32(k))), true
}

// valueAt returns the stored value of v in state k.
func (v *Var) valueAt(k int32) int64 {
	i := sort.Search(len(v.at), func(i int) bool { return v.at[i] > k })
	if i == 0 {
		return 0
	}
	return v.val[i-1]
}

func (c *Computation) value(v *Var, n int64) Value {
	switch v.Kind {
	case BoolValue:
		return Value{Kind: BoolValue, Int: n}
	case WordValue:
		return Value{Kind: WordValue, Word: c.words[n]}
	}
	return Value{Kind: IntValue, Int: n}
}

// A Binding is a variable and its value.
type Binding struct {
	Name  string
	Value Value
}

// State returns the local state k of process p: every variable that has been set
// by then, in name order.
func (c *Computation) State(p, k int) []Binding {
	var out []Binding
	for _, v := range c.Procs[p].Vars {
		if len(v.at) == 0 || int(v.at[0]) > k {
			continue
		}
		out = append(out, Binding{v.Name, c.value(v, v.valueAt(int32(k)))})
	}
	return out
}

// FormatState renders a local state as "x=1 y=true".
func FormatState(state []Binding) string {
	var b strings.Builder
	for i, s := range state {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.Name)
		b.WriteByte('=')
		b.WriteString(s.Value.String())
	}
	return b.String()
}

// word returns the number of word w, adding it if it is new.
func (c *Computation) word(w string) int64 {
	if id, ok := c.wordID[w]; ok {
		return id
	}
	id := int64(len(c.words))
	c.words = append(c.words, w)
	c.wordID[w] = id
	return id
}

// A Builder makes a Computation event by event and checks its clocks. Readers use
// it, and so can programs that generate computations.
type Builder struct {
	c      *Computation
	infer  bool
	errs   ErrorList
	ownErr []bool // a process whose own clock entry went wrong: its later events would only repeat it
}

// NewBuilder starts a computation of the named processes. files are the inputs
// that Pos.File refers to.
func NewBuilder(name string, files []string, procs []string) *Builder {
	c := &Computation{Name: name, Files: files, wordID: map[string]int64{"": 0}, words: []string{""}}
	c.know = make([]int32, len(procs)) // vector 0: nothing known
	for _, n := range procs {
		c.Procs = append(c.Procs, &Process{Name: n, vars: map[string]*Var{}, know: []int32{0}})
	}
	return &Builder{c: c, ownErr: make([]bool, len(procs))}
}

// InferKinds makes Build work out each event's kind from the clocks (an event
// whose clock merges another process's knowledge received a message; an event
// that others learn of directly sent one) instead of checking the kinds given.
// Logs whose lines do not say what an event was need it.
func (b *Builder) InferKinds() { b.infer = true }

func (b *Builder) errorf(pos Pos, format string, args ...any) {
	file := b.c.Name
	if int(pos.File) < len(b.c.Files) && pos.File >= 0 {
		file = b.c.Files[pos.File]
	}
	b.errs.add(file, int(pos.Line), format, args...)
}

// Set sets variable name of process p in its current local state: the initial
// state before p's first event, afterwards the state after its last event.
func (b *Builder) Set(p int, name string, v Value, pos Pos) {
	pr := b.c.Procs[p]
	x := pr.vars[name]
	if x == nil {
		x = &Var{Name: name, Kind: v.Kind}
		pr.vars[name] = x
		pr.Vars = append(pr.Vars, x)
	} else if x.Kind != v.Kind && !x.Mixed {
		x.Mixed = true
		x.mixed = [2]Pos{b.lastSet(pr, x), pos}
	}
	n := v.Int
	if v.Kind == WordValue {
		n = b.c.word(v.Word)
	} else if v.Kind == BoolValue && n != 0 {
		n = 1
	}
	k := int32(len(pr.Events))
	if l := len(x.at); l > 0 && x.at[l-1] == k {
		x.val[l-1] = n
		return
	}
	x.at = append(x.at, k)
	x.val = append(x.val, n)
}

// lastSet is the position of the event that last set x (for the mixed-kinds error).
func (b *Builder) lastSet(pr *Process, x *Var) Pos {
	if l := len(x.at); l > 0 && x.at[l-1] > 0 {
		return pr.Events[x.at[l-1]-1].Pos
	}
	return Pos{}
}

// Event appends an event to process p's history. clock is the vector timestamp
// after the event, one entry per process: its own entry must be the number of
// the event (1, 2, …) and no entry may go down.
func (b *Builder) Event(p int, kind Kind, text string, pos Pos, clock []int64) {
	c := b.c
	pr := c.Procs[p]
	pr.Events = append(pr.Events, Event{Text: text, Pos: pos, Kind: kind})
	c.events++
	k := len(pr.Events)
	n := len(c.Procs)
	if len(clock) != n {
		b.errorf(pos, "the clock has %d entries, want one per process (%d)", len(clock), n)
		pr.know = append(pr.know, pr.know[k-1])
		return
	}
	if own := clock[p]; own != int64(k) && !b.ownErr[p] {
		b.ownErr[p] = true
		switch {
		case k == 1:
			b.errorf(pos, "the clock of %s starts at %d, want 1: a process's clock rises by exactly 1 with each of its events", pr.Name, own)
		default:
			b.errorf(pos, "the clock of %s goes from %d to %d: a process's clock rises by exactly 1 with each of its events", pr.Name, k-1, own)
		}
	}
	prev := c.req(p, int32(k-1))
	// entry is clock[j] as stored: a bad entry, once reported, keeps the
	// previous value, so that one mistake is not reported again downstream.
	entry := func(j int) int32 {
		if v := clock[j]; j != p && v >= int64(prev[j]) && v <= maxEvents {
			return int32(v)
		}
		return prev[j]
	}
	changed := false
	for j, v := range clock {
		switch {
		case j == p:
		case v < 0 || v > maxEvents:
			b.errorf(pos, "clock entry %d for %s is out of range", v, c.Procs[j].Name)
		case v < int64(prev[j]):
			b.errorf(pos, "the clock entry for %s goes back from %d to %d", c.Procs[j].Name, prev[j], v)
		case v > int64(prev[j]):
			changed = true
		}
	}
	if !changed {
		pr.know = append(pr.know, pr.know[k-1])
		return
	}
	id := int32(len(c.know) / n)
	for j := range clock {
		c.know = append(c.know, entry(j))
	}
	pr.know = append(pr.know, id)
}

// maxEvents bounds the events of one process, so that event numbers fit in int32.
const maxEvents = 1<<31 - 2

// Build checks the happened-before order the clocks describe and returns the
// computation, or every error found; it is called once, after the last event. The order is well formed when each event's
// clock covers the clocks of the events it knows of and no event knows of itself
// (no cycle); that is checked only where a clock entry rises, in O(N) each, since
// unchanged entries were checked at an earlier event of the same process.
func (b *Builder) Build() (*Computation, error) {
	c := b.c
	n := len(c.Procs)
	var isSend [][]bool
	if b.errs == nil {
		isSend = make([][]bool, n)
		for j, pr := range c.Procs {
			isSend[j] = make([]bool, len(pr.Events)+1)
		}
		for i, pr := range c.Procs {
			for k := 1; k <= len(pr.Events); k++ {
				// A receive that teaches nothing new is fine: the receiver
				// already knew everything the sender knew.
				if pr.know[k] == pr.know[k-1] {
					continue
				}
				b.checkRise(i, int32(k), isSend)
			}
		}
	}
	if b.errs == nil {
		for j, pr := range c.Procs {
			for k := 1; k <= len(pr.Events); k++ {
				ev := &pr.Events[k-1]
				recv := pr.know[k] != pr.know[k-1]
				if b.infer {
					ev.Kind = Local
					if recv {
						ev.Kind |= Recv
					}
					if isSend[j][k] {
						ev.Kind |= Send
					}
					continue
				}
				if recv && ev.Kind&Recv == 0 {
					b.errorf(ev.Pos, "event %d of %s is a %s event, but its clock merges another process's knowledge, as only a receive does", k, pr.Name, ev.Kind)
				}
				if isSend[j][k] && ev.Kind&Send == 0 {
					b.errorf(ev.Pos, "event %d of %s is a %s event, but another process learns of it directly, as only a send allows", k, pr.Name, ev.Kind)
				}
			}
		}
	}
	for _, pr := range c.Procs {
		slices.SortFunc(pr.Vars, func(a, b *Var) int { return strings.Compare(a.Name, b.Name) })
	}
	if err := b.errs.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkRise checks local state k of process i, whose knowledge rose at its
// k-th event: every event it newly knows of must exist, must be known with
// everything that event knew, and must not know of event k of i or later.
func (b *Builder) checkRise(i int, k int32, isSend [][]bool) {
	c := b.c
	pr := c.Procs[i]
	pos := pr.Events[k-1].Pos
	v, prev := c.req(i, k), c.req(i, k-1)
	for j, m := range v {
		if j == i || m == prev[j] {
			continue
		}
		other := c.Procs[j]
		if int(m) > len(other.Events) {
			b.errorf(pos, "the clock says %d events of %s happened before, but %s has only %d", m, other.Name, other.Name, len(other.Events))
			continue
		}
		isSend[j][m] = true
		w := c.req(j, m)
		if w[i] >= k {
			b.errorf(pos, "happened-before cycle: event %d of %s knows of event %d of %s, which knows of event %d of %s",
				k, pr.Name, m, other.Name, w[i], pr.Name)
			continue
		}
		for l, x := range w {
			if l != i && l != j && x > v[l] {
				b.errorf(pos, "event %d of %s knows of event %d of %s, but not of event %d of %s, which that event knew of",
					k, pr.Name, m, other.Name, x, c.Procs[l].Name)
				break
			}
		}
	}
}

// Sets returns the variables that event k (from 1) of process p sets, with the
// values it gives them, in name order.
func (c *Computation) Sets(p, k int) []Binding {
	var out []Binding
	for _, v := range c.Procs[p].Vars {
		i := sort.Search(len(v.at), func(i int) bool { return v.at[i] >= int32(k) })
		if i < len(v.at) && v.at[i] == int32(k) {
			out = append(out, Binding{v.Name, c.value(v, v.val[i])})
		}
	}
	return out
}
