package witness

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"kbmc/ir"
)

// A Witness is a violation witness: the task it answers and the execution that
// violates the task's specification.
type Witness struct {
	ProgramFile   string // the program's path, as given to kbmc
	ProgramHash   string // SHA-256 of the program file, hex
	Specification string // SV-COMP's property text: CHECK( init(main()), LTL(G ! call(reach_error())) )
	DataModel     string // ILP32 or LP64
	Producer      string // "kbmc 0.2.0"
	// Configuration is how kbmc lowered the program (its flags, such as
	// "--pool 3"): replaying needs the same threads and steps.
	Configuration string
	Created       time.Time
	UUID          string // the YAML entry's identifier (RFC 4122)
	Steps         []Step
	// Targets is where the violation occurs, and in which thread: one
	// target, or for a data race the two racing accesses (Build).
	Targets []Target
	// Delays are the pools' delays of a program lowered for a bug hunt
	// (ir.Choice.Delay), which its first step draws. Neither format has a
	// place for them: the writer of the witness keeps them in the
	// Configuration, and sets them again before Schedule.
	Delays []int64
}

// A Target is a place the violation occurs at and the thread that is there.
type Target struct {
	At     Location
	Thread int
}

// A Location is a place in the program file; Function is empty when unknown
// (kbmc inlines calls, so a statement's function is known only for a thread's
// start routine).
type Location struct {
	Line, Column int
	Function     string
}

// A Step is one step of kbmc's schedule: thread Thread moves, starting at At.
type Step struct {
	Thread int
	At     Location
	// Enter is the start routine a created thread enters with this, its first
	// step ("main" is never entered: it runs from the start).
	Enter string
	Marks []Mark // what the step does that a witness records, in execution order
}

// A Mark is a nondeterministic value a step draws, or a thread it creates.
type Mark struct {
	At Location
	// Create is the thread a pthread_create starts (when Draw is false).
	Create int
	// Draw: the step draws Value, the return value of Function (a
	// __VERIFIER_nondet_* call at At), or, when Variable is set, the value of
	// an uninitialized local declared at At, which holds from Next on (the
	// statement after the declaration).
	Draw     bool
	Function string
	Variable string
	Next     Location
	Value    int64
}

// ErrInexpressible is returned by Build for a counterexample the witness
// formats cannot describe.
var ErrInexpressible = errors.New("not expressible in a violation witness")

// Specification is SV-COMP's specification text for a violation kind, and
// whether SV-COMP has one: only those kinds can have a witness.
func Specification(kind ir.ViolationKind) (string, bool) {
	switch kind {
	case ir.ReachError:
		return "CHECK( init(main()), LTL(G ! call(reach_error())) )", true
	case ir.InvalidDeref:
		return "CHECK( init(main()), LTL(G valid-deref) )", true
	case ir.InvalidFree:
		return "CHECK( init(main()), LTL(G valid-free) )", true
	case ir.DataRace:
		return "CHECK( init(main()), LTL(G ! data-race) )", true
	case ir.Overflow:
		return "CHECK( init(main()), LTL(G ! overflow) )", true
	}
	return "", false
}

// Property is the violation kind a run must look for to replay a witness of
// spec (ir.Program.SelectProperty): a data race or a signed overflow, which
// a program reports only when its run selects them, or memory safety, under
// which a failing assertion aborts; otherwise ir.ReachError, which stands for
// every kind a run always reports.
func Property(spec string) ir.ViolationKind {
	for _, k := range []ir.ViolationKind{ir.DataRace, ir.Overflow, ir.InvalidDeref, ir.InvalidFree} {
		if Violates(spec, k) {
			return k
		}
	}
	return ir.ReachError
}

// Violates says whether a violation of kind k violates spec, an SV-COMP
// specification (several, one a line, for valid-memsafety).
func Violates(spec string, k ir.ViolationKind) bool {
	want, ok := Specification(k)
	if !ok {
		return false
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, line := range strings.Split(spec, "\n") {
		if norm(line) == norm(want) {
			return true
		}
	}
	return false
}

// Architecture is GraphML's name for a data model: 32bit or 64bit.
func Architecture(dataModel string) string {
	if strings.EqualFold(dataModel, "LP64") {
		return "64bit"
	}
	return "32bit"
}

// Hash is the program hash both formats carry: SHA-256, hex.
func Hash(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// NewUUID is a random (version 4) UUID.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// nondetCall is the name of a verifier's nondet function in a call's text.
var nondetCall = regexp.MustCompile(`^__VERIFIER_nondet_[A-Za-z0-9_]+`)

// A Path is a counterexample as the witness formats describe it.
type Path struct {
	Steps     []Step
	Violation *ir.Violation // the violation the last step ends in
	Targets   []Target      // where it occurs: for a data race, both accesses
	Delays    []int64       // the pools' delays the first step draws (Witness.Delays)
}

// Build describes a counterexample of p, the schedule moves, which must end
// in a violation: one Step per move. It replays the schedule itself, without
// keeping its states (a bug hunt's counterexamples have thousands of steps),
// and returns the violation it ends in and where: the violation's statement,
// or for a data race the two racing accesses, as the state the schedule
// reaches has them (ir.Program.FindRace). It fails with ErrInexpressible when
// a step draws a value that neither a __VERIFIER_nondet_* call returns nor
// an uninitialized local holds, which neither format can state.
func Build(p *ir.Program, moves []ir.Move) (*Path, error) {
	path, s, err := build(p, moves)
	if err != nil {
		return nil, err
	}
	v := path.Violation
	path.Targets = []Target{{At: Location{Line: v.Pos.Line, Column: v.Pos.Col}, Thread: moves[len(moves)-1].Thread}}
	if v.Kind == ir.DataRace {
		r, _ := p.FindRace(s)
		if r == nil {
			return nil, fmt.Errorf("the state the counterexample reaches has no race")
		}
		path.Targets = nil
		for _, a := range []ir.RaceAccess{r.A, r.B} {
			path.Targets = append(path.Targets, Target{At: Location{Line: a.Node.Pos.Line, Column: a.Node.Pos.Col}, Thread: p.Threads[a.Thread].ID})
		}
	}
	return path, nil
}

// build replays moves as Build describes them (but for Targets), returning
// the state they reach.
func build(p *ir.Program, moves []ir.Move) (*Path, ir.State, error) {
	if len(moves) == 0 {
		return nil, nil, fmt.Errorf("%w: the counterexample has no steps", ErrInexpressible)
	}
	path := &Path{}
	s := p.Initial()
	var flags []int // the cells saying whether a created thread has started
	var slots []*ir.Template
	var pools []*ir.Pool // of each slot
	for _, pool := range p.Pools {
		for _, slot := range pool.Slots {
			flags = append(flags, slot.Start.Offset+ir.StartFlag)
			slots = append(slots, slot)
			pools = append(pools, pool)
		}
	}
	was := make([]int64, len(flags))
	var v *ir.Violation
	for i, mv := range moves {
		if v != nil {
			return nil, nil, fmt.Errorf("step %d follows the failed step %d", i+1, i)
		}
		if mv.Thread < 0 || mv.Thread >= len(p.Threads) || p.Status(s, mv.Thread) != ir.Enabled {
			return nil, nil, fmt.Errorf("step %d: thread %d cannot move", i+1, mv.Thread)
		}
		for k, f := range flags {
			was[k] = s[f]
		}
		ch := ir.Choices{Fixed: mv.Choices}
		ev := ir.Event{TraceLocals: true}
		p.Step(s, mv.Thread, &ch, &ev)
		if len(ev.Choices) != len(mv.Choices) {
			return nil, nil, fmt.Errorf("step %d draws %d values, the schedule has %d", i+1, len(ev.Choices), len(mv.Choices))
		}
		v = ev.Violation
		for len(ev.Choices) > 0 && ev.Choices[0].Delay {
			path.Delays = append(path.Delays, ev.Choices[0].Value)
			ev.Choices = ev.Choices[1:]
		}
		created := map[*ir.Pool][]int{}
		for k, f := range flags {
			if was[k] == 0 && s[f] != 0 {
				created[pools[k]] = append(created[pools[k]], slots[k].First)
			}
		}
		st, err := step(p, &ev, created)
		if err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		path.Steps = append(path.Steps, st)
	}
	if v == nil {
		return nil, nil, fmt.Errorf("%w: the counterexample ends without a violation", ErrInexpressible)
	}
	path.Violation = v
	return path, s, nil
}

// step describes one executed step: where it starts, what it draws, which
// threads it creates (created: per pool, the threads whose slots it started,
// in slot order; spawns take the first free slot, so the step's k-th spawn of
// a pool started the k-th of them, and a phantom spawn starts none).
func step(p *ir.Program, ev *ir.Event, created map[*ir.Pool][]int) (Step, error) {
	th := p.Threads[ev.Thread]
	t := th.Template
	st := Step{Thread: th.ID}
	if len(ev.Visits) > 0 {
		n := t.Nodes[ev.Visits[0].Node]
		st.At = Location{Line: n.Pos.Line, Column: n.Pos.Col}
		if n.Op == ir.OpStart {
			st.Enter = poolOf(p, t).Name
			st.At.Function = st.Enter
		}
	}
	draws := 0
	for _, vis := range ev.Visits {
		n := t.Nodes[vis.Node]
		for e := range n.Exprs() {
			var err error
			ir.Inspect(e, func(x *ir.Expr) bool {
				if err != nil || draws >= len(ev.Choices) {
					return false
				}
				if x.Op != ir.ENondet {
					return true
				}
				m := Mark{Draw: true, Value: ev.Choices[draws].Value}
				if m.Function = nondetCall.FindString(x.Text); m.Function != "" {
					m.At = callEnd(x)
				} else if v := uninitialized(n, x); v != "" {
					m.Variable = v
					m.At = Location{Line: n.Pos.Line, Column: n.Pos.Col}
					m.Next = m.At
					if n.Next >= 0 && n.Next < len(t.Nodes) {
						m.Next = Location{Line: t.Nodes[n.Next].Pos.Line, Column: t.Nodes[n.Next].Pos.Col}
					}
				} else {
					err = fmt.Errorf("%w: line %d draws a value neither a __VERIFIER_nondet_* call returns nor a local holds (%s)", ErrInexpressible, x.Pos.Line, x.Text)
					return false
				}
				st.Marks = append(st.Marks, m)
				draws++
				return true
			})
			if err != nil {
				return st, err
			}
		}
		if n.Op == ir.OpSpawn {
			if ids := created[n.Pool]; len(ids) > 0 {
				st.Marks = append(st.Marks, Mark{At: Location{Line: n.Pos.Line, Column: n.Pos.Col}, Create: ids[0]})
				created[n.Pool] = ids[1:]
			}
		}
	}
	if draws != len(ev.Choices) {
		return st, fmt.Errorf("%w: the step draws %d values, %d of them from __VERIFIER_nondet_* calls kbmc can place", ErrInexpressible, len(ev.Choices), draws)
	}
	return st, nil
}

// uninitialized is the name of the local whose indeterminate initial value
// node n draws with x (cfront gives an uninitialized local any value of its
// type at its declaration), or "".
func uninitialized(n *ir.Node, x *ir.Expr) string {
	if n.Op != ir.OpAssign || n.X != x || n.LHS == nil || n.LHS.Var == nil || n.LHS.Index != nil {
		return ""
	}
	name, _, _ := strings.Cut(n.LHS.Var.Name, "#") // i#2: the second local i
	if !cIdentifier.MatchString(name) {
		return ""
	}
	return name
}

var cIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// poolOf is the pool a created thread's template is a slot of.
func poolOf(p *ir.Program, t *ir.Template) *ir.Pool {
	for _, pool := range p.Pools {
		for _, slot := range pool.Slots {
			if slot == t {
				return pool
			}
		}
	}
	return &ir.Pool{Name: t.Name}
}

// callEnd is where a nondet call's value is returned: its closing parenthesis,
// where the YAML format places a function_return waypoint.
func callEnd(x *ir.Expr) Location {
	l := Location{Line: x.Pos.Line, Column: x.Pos.Col}
	if strings.HasSuffix(x.Text, ")") && !strings.Contains(x.Text, "\n") {
		l.Column += len(x.Text) - 1
	}
	return l
}

// Schedule is the witness's schedule for p: one move per step, with the values
// its draws return, and on a program lowered for a bug hunt the pools'
// delays (Delays, 0 where it has none) first. It checks that every thread the witness names is one of
// p's.
func (w *Witness) Schedule(p *ir.Program) ([]ir.Move, error) {
	moves := make([]ir.Move, 0, len(w.Steps))
	for i, st := range w.Steps {
		if st.Thread < 0 || st.Thread >= len(p.Threads) {
			return nil, fmt.Errorf("step %d: thread %d: the program has threads 0 to %d", i+1, st.Thread, len(p.Threads)-1)
		}
		mv := ir.Move{Thread: st.Thread}
		if n := p.DelayDraws(); i == 0 && n > 0 {
			mv.Choices = make([]int64, n)
			copy(mv.Choices, w.Delays)
		}
		for _, m := range st.Marks {
			if m.Draw {
				mv.Choices = append(mv.Choices, m.Value)
			}
		}
		moves = append(moves, mv)
	}
	return moves, nil
}
