package ir

// Dependency (docs/architecture.md, "The program model"). Two events of different
// threads are dependent when they access a common location and at least one of them
// writes it. Locations make every case of the definition one rule: a successful cas
// writes its cell, a failed one reads it; lock and unlock both write the lock; a
// thread's last step writes its termination status, which join reads. Program
// order, which orders a thread's own events, is not dependency: callers compare
// events of different threads.
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

// mayConflict is false when a and b cannot conflict: the locations each
// list writes, folded onto 64 bits (location mod 64), meet no location of the
// other. Two accesses of one location with a write set a common bit, so a
// false answer is exact; a true one leaves Conflict to compare the pairs.
func mayConflict(a, b []Access) bool {
	var aw, aa, bw, ba uint64
	for i := range a {
		bit := uint64(1) << (uint(a[i].Loc) % 64)
		aa |= bit
		if a[i].Kind == Write {
			aw |= bit
		}
	}
	for i := range b {
		bit := uint64(1) << (uint(b[i].Loc) % 64)
		ba |= bit
		if b[i].Kind == Write {
			bw |= bit
		}
	}
	return aw&ba|bw&aa != 0
}

// OnlyEnables reports whether every conflict between a step's accesses and a
// transition's footprint fp is on a cell that one step sets for good and that
// no program expression reads: a thread's end (written by its last step, read
// by OpJoin), a created thread's start cells (flag and argument, written by
// OpSpawn and read by OpStart; its result, written by its end and read by
// OpJoin). If the transition waits before such a step, it still waits once
// every step independent of it has run: it reads the same cells with the same
// values. So the step can enable the transition but never be reordered after
// it (DPOR's race reversal, explicit/dpor.go).
func (p *Program) OnlyEnables(step, fp []Access) bool {
	if len(step)*len(fp) > conflictPairs && !mayConflict(step, fp) {
		return true
	}
	for i := range step {
		for j := range fp {
			if step[i].Loc == fp[j].Loc && Conflicts(step[i].Kind, fp[j].Kind) && !p.isSetOnce(step[i].Loc) {
				return false
			}
		}
	}
	return true
}

// isSetOnce reports whether location l is a thread's end or a cell of a
// created thread's Start variable.
func (p *Program) isSetOnce(l int) bool {
	if l >= p.ThreadLocation(0) && l < p.NumLocations() {
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
