package ir

// Dependency (DESIGN.md §3). Two events of different threads are dependent when
// they access a common location and at least one of them writes it. Locations
// make every case of the definition one rule: a successful cas writes its cell, a
// failed one reads it; lock and unlock both write the lock; a thread's last step
// writes its termination status, which join reads. Program order, which orders a
// thread's own events, is not dependency: callers compare events of different
// threads.
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
	for i := range a {
		for j := range b {
			if a[i].Loc == b[j].Loc && Conflicts(a[i].Kind, b[j].Kind) {
				return true
			}
		}
	}
	return false
}
