package ir

// Dependency (docs/architecture.md, "The program model"). Two events of different
// threads are dependent when they access a common location and at least one of them
// writes it. Locations make every case of the definition one rule: a successful cas
// writes its cell, a failed one reads it; lock and unlock both write the lock; a
// thread's last step writes its termination status, which join reads; a send
// writes its channel's sending end and the slot its message goes into, a recv the
// receiving end and the slot it takes from, len reads both ends (location.go), so
// that a send and a recv that both can go commute. Program order, which orders a
// thread's own events, is not dependency: callers compare events of different
// threads.
//
// Some conflicts order events without being races: no run puts the two events the
// other way round. A conflict on a message slot (OrderedLocation) is one: it
// links the k-th send to the k-th receive, whose message it is, and the k-th
// receive to the (k+Cap)-th send, which waits for the slot. Happens-before keeps
// them (Conflict); a race reversal skips them (OrderedOnly, OnlyEnables).
//
// Every engine decides dependency here: the explicit algorithms on concrete
// accesses (Conflict), static footprints and the symbolic encoding on the kinds of
// two accesses of one location (Conflicts).

// Conflicts reports whether two accesses of one location, of kinds a and b, are
// dependent: at least one writes.
func Conflicts(a, b AccessKind) bool { return a == Write || b == Write }

// Conflict reports whether two access lists touch a common location with at least
// one write: whether the events that made them are dependent.
func Conflict(a, b []Access) bool {
	if len(a)*len(b) > conflictPairs && !mayConflict(a, b) {
		return false
	}
	for i := range a {
		for j := range b {
			if a[i].Loc == b[j].Loc && Conflicts(a[i].Kind, b[j].Kind) {
				return true
			}
		}
	}
	return false
}

// conflictPairs is the number of pairs above which Conflict first compares
// summaries of the two lists. Most steps access one or two locations, and their
// pairs are fewer than the summaries' cost; a C program's step that creates
// every thread (cfront/spawns.go) writes two cells per thread, and a join of
// them all reads every thread's end, and those meet every other step in a
// search's comparisons.
const conflictPairs = 32

// mayConflict is false when a and b cannot conflict (AccessSummary).
func mayConflict(a, b []Access) bool {
	return Summarize(a).MayConflict(Summarize(b))
}

// An AccessSummary folds an access list onto 64 bits (location mod 64): the
// locations it touches and those it writes. Two lists whose summaries do not
// MayConflict do not Conflict; a search that compares one step with many
// (dpor's happens-before, explicit/clock.go) keeps each step's summary and
// compares the lists only when the summaries meet.
type AccessSummary struct{ touched, written uint64 }

// Summarize returns acc's summary.
func Summarize(acc []Access) AccessSummary {
	var s AccessSummary
	for i := range acc {
		bit := uint64(1) << (uint(acc[i].Loc) % 64)
		s.touched |= bit
		if acc[i].Kind == Write {
			s.written |= bit
		}
	}
	return s
}

// MayConflict is false when the lists s and o summarise cannot conflict: the
// locations each writes meet no location of the other, even folded. Two
// accesses of one location, one a write, set a common bit, so false is exact;
// true leaves Conflict to compare the lists.
func (s AccessSummary) MayConflict(o AccessSummary) bool {
	return s.written&o.touched|o.written&s.touched != 0
}

// OrderedOnly reports whether every conflict between the access lists a and b
// is on an ordered location (OrderedLocation), so that the events that made
// them happen in the same order in every run in which both happen: they are
// ordered, but never a race to reverse.
func (p *Program) OrderedOnly(a, b []Access) bool {
	if p.NumChannels == 0 {
		return !Conflict(a, b)
	}
	for i := range a {
		if p.OrderedLocation(a[i].Loc) {
			continue
		}
		for j := range b {
			if a[i].Loc == b[j].Loc && Conflicts(a[i].Kind, b[j].Kind) {
				return false
			}
		}
	}
	return true
}

// OnlyEnables reports whether every conflict between a step's accesses and a
// transition's footprint fp is on an ordered location (OrderedOnly) or on a
// cell that one step sets for good and that no program expression reads: a
// thread's end (written by its last step, read by OpJoin), a created thread's
// start cells (flag and argument, written by OpSpawn and read by OpStart; its
// result, written by its end and read by OpJoin), or a rendezvous port
// (isPort). If the transition waits
// before such a step, it still waits once every step independent of it has run:
// it reads the same cells with the same values. So the step can enable the
// transition but never be reordered after it (DPOR's race reversal,
// explicit/dpor.go).
func (p *Program) OnlyEnables(step, fp []Access) bool {
	// fp's summary rules out most of step's accesses at once, and whether a
	// location is set once is asked once per access, not once per pair: a C
	// program's creation and join steps meet long footprints (cfront/spawns.go).
	f := Summarize(fp)
	for i := range step {
		a := step[i]
		bit := uint64(1) << (uint(a.Loc) % 64)
		if a.Kind == Write && f.touched&bit == 0 || a.Kind != Write && f.written&bit == 0 {
			continue
		}
		if p.isSetOnce(a.Loc) || p.OrderedLocation(a.Loc) || p.isPort(a.Loc) {
			continue
		}
		for j := range fp {
			if a.Loc == fp[j].Loc && Conflicts(a.Kind, fp[j].Kind) {
				return false
			}
		}
	}
	return true
}

// SetOnceOnly reports whether every access of fp is on a cell one step sets
// for good: a thread's end or a created thread's start cells (isSetOnce).
// OnlyEnables then holds for fp and every step.
func (p *Program) SetOnceOnly(fp []Access) bool {
	for _, a := range fp {
		if !p.isSetOnce(a.Loc) {
			return false
		}
	}
	return true
}

// isPort reports whether location l is a thread's rendezvous port
// (PortLocation). Only a handoff into the thread writes it, and a thread that
// waits before the handoff waits to receive: none of its steps can run before
// the handoff that moves it, so the handoff only enables them.
func (p *Program) isPort(l int) bool {
	return l >= p.PortLocation(0) && l < p.PortLocation(len(p.Threads))
}

// isSetOnce reports whether location l is a thread's end or a cell of a
// created thread's Start variable.
func (p *Program) isSetOnce(l int) bool {
	if l >= p.ThreadLocation(0) && l < p.ThreadLocation(len(p.Threads)) {
		return true
	}
	if l >= p.SharedSize {
		return false
	}
	for _, th := range p.Threads {
		if st := th.Template.Start; st != nil && l >= st.Offset && l < st.Offset+StartCells {
			return true
		}
	}
	return false
}
