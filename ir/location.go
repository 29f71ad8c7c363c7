package ir

import "fmt"

// Locations. Every access an event reports, every footprint and every dependency
// names a location in one space, laid out here and nowhere else:
//
//	[0, SharedSize)                        shared cells (scalars and array elements)
//	[SharedSize, SharedSize+NumLocks)      locks (a lock's owner)
//	then 2+Cap per channel                 its sending end, its receiving end, its Cap message slots (none for a rendezvous)
//	then one per thread                    the thread's termination status
//	then one per thread                    its port: a rendezvous send that moves it (PortLocation)
//	then, with invariants, one             "the invariants" (InvariantLocation)
//
// Engines ask Locate what a location is instead of doing this arithmetic.
//
// A channel has several locations so that a send and a receive on it are
// independent when neither blocks (docs/explicit.md, "Channels"): a send
// writes the sending end and the slot its message goes into, a receive the
// receiving end and the slot it takes its message from, len reads both ends.
// Slots are numbered round the ring from the channel's head (State's last
// cells, ChannelHead), so that the k-th send and the k-th receive of a run
// use the same slot, and the k-th send and the (k-Cap)-th receive too: those
// are the pairs where one enables the other, and no run orders them the other
// way (OrderedLocation).

// LocKind is what a location stands for.
type LocKind uint8

const (
	LocCell      LocKind = iota // a shared cell: read and written by expressions and assignments
	LocLock                     // a lock: written by lock and unlock (its owner)
	LocThread                   // a thread's termination status: written by its last step, read by join
	LocChannel                  // a channel's end or message slot: written by send and recv, read by len
	LocInvariant                // the invariants: written by every step that writes a location an invariant reads (invariant.go)
	LocPort                     // a thread's port: written by a rendezvous send that moves it, read by its steps (rendezvous.go)
)

var locKindNames = [...]string{LocCell: "cell", LocLock: "lock", LocThread: "thread", LocChannel: "channel", LocInvariant: "invariant", LocPort: "port"}

func (k LocKind) String() string {
	if int(k) < len(locKindNames) {
		return locKindNames[k]
	}
	return fmt.Sprintf("LocKind(%d)", k)
}

// Locate returns the kind of location l and its number within that kind: the cell
// (its State index), the lock number, the channel number, or the thread.
func (p *Program) Locate(l int) (LocKind, int) {
	switch {
	case l < p.SharedSize:
		return LocCell, l
	case l < p.SharedSize+p.NumLocks:
		return LocLock, l - p.SharedSize
	case l < p.SharedSize+p.NumLocks+len(p.chanOfLoc):
		return LocChannel, int(p.chanOfLoc[l-p.SharedSize-p.NumLocks])
	case l >= p.PortLocation(len(p.Threads)):
		return LocInvariant, 0
	case l >= p.PortLocation(0):
		return LocPort, l - p.PortLocation(0)
	}
	return LocThread, l - p.SharedSize - p.NumLocks - len(p.chanOfLoc)
}

// CellLocation is the location of shared cell c (State index c).
func (p *Program) CellLocation(c int) int { return c }

// LockLocation is the location of lock number i.
func (p *Program) LockLocation(i int) int { return p.SharedSize + i }

// ChannelLocation is the first location of channel number c, its sending end,
// which also names the channel as a whole: an analysis that does not tell a
// channel's locations apart (the symbolic encoding) uses it for all of them.
func (p *Program) ChannelLocation(c int) int { return p.SharedSize + p.NumLocks + p.chanLoc[c] }

// ChannelEnds returns the locations of channel number c's sending end (written
// by every send) and receiving end (written by every recv); len reads both.
func (p *Program) ChannelEnds(c int) (send, recv int) {
	l := p.ChannelLocation(c)
	return l, l + 1
}

// ChannelSlot returns the location of channel number c's message slot i
// (0 <= i < Cap), counted round the ring.
func (p *Program) ChannelSlot(c, i int) int { return p.ChannelLocation(c) + 2 + i }

// ChannelLocations returns the locations of channel number c: its ends, then
// its slots.
func (p *Program) ChannelLocations(c int) (first, n int) {
	return p.ChannelLocation(c), 2 + p.chanDecl[c].Cap
}

// ChannelHead returns the slot number of channel c's oldest message in s (of
// the slot the next message goes into, when it is empty).
func (p *Program) ChannelHead(s State, c int) int { return int(s[p.HeadBase+c]) }

// OrderedLocation reports whether every two accesses of location l that
// conflict are in the same order in every run in which both happen, so that
// their conflict orders events but is never a race to reverse: a message slot
// of a channel. Its accesses in a run are, in this order, the k-th send, the
// k-th receive, the (k+Cap)-th send, ..., for one k: a receive cannot take a
// message before it is sent, nor a send put one into a slot not yet freed.
func (p *Program) OrderedLocation(l int) bool {
	k, c := p.Locate(l)
	return k == LocChannel && l >= p.ChannelLocation(c)+2
}

// ThreadLocation is the location of thread t's termination status.
func (p *Program) ThreadLocation(t int) int {
	return p.SharedSize + p.NumLocks + len(p.chanOfLoc) + t
}

// NumLocations is the size of the location space.
func (p *Program) NumLocations() int {
	n := p.PortLocation(len(p.Threads))
	if p.invariantLoc {
		n++
	}
	return n
}

// LockOwner returns the thread that holds lock i in s, or -1 when it is free.
func (p *Program) LockOwner(s State, i int) int { return int(s[p.MutexBase+i]) - 1 }

// LocationName renders a location as the user wrote it: "x", "table[17]", "fork[2]",
// "reader[1]" (a thread's termination).
func (p *Program) LocationName(l int) string {
	if l >= 0 && l < p.NumLocations() {
		switch k, i := p.Locate(l); k {
		case LocCell:
			for _, v := range p.Shared {
				if i >= v.Offset && i < v.Offset+v.Cells() {
					return v.cellName(i - v.Offset)
				}
			}
		case LocLock:
			for _, m := range p.Mutexes {
				if i >= m.Offset && i < m.Offset+m.Count() {
					if m.Len == 0 {
						return m.Name
					}
					return fmt.Sprintf("%s[%d]", m.Name, i-m.Offset)
				}
			}
		case LocChannel:
			c := p.chanDecl[i]
			name := c.Name
			if c.Len > 0 {
				name = fmt.Sprintf("%s[%d]", c.Name, i-c.Offset)
			}
			switch first := p.ChannelLocation(i); {
			case l == first+1:
				return name + " (receiving end)"
			case l > first+1:
				return fmt.Sprintf("%s (slot %d)", name, l-first-2)
			}
			return name
		case LocThread:
			return p.Threads[i].Name
		case LocPort:
			return p.Threads[i].Name + " (rendezvous port)"
		case LocInvariant:
			return "the invariants"
		}
	}
	return fmt.Sprintf("location(%d)", l)
}

// ChannelQueue returns the part of s that holds channel number c's queue: its
// length, then Cap message slots of its fields, the oldest first (then, for a
// closable channel, its closed flag: ChannelClosed).
func (p *Program) ChannelQueue(s State, c int) State {
	return s[p.chanBase[c] : p.chanBase[c]+p.chanDecl[c].Stride()]
}

// closedCell is the state cell of closable channel number c's closed flag: the
// last cell of its queue (Channel.Stride). It is an identity cell, so a
// stateful search tells an open channel from a closed one. The flag has no
// location of its own: a close writes both of the channel's ends, which
// every send and recv on it accesses (select.go), so every step whose effect
// depends on it conflicts with the close.
func (p *Program) closedCell(c int) int { return p.chanBase[c] + p.chanDecl[c].Stride() - 1 }

// ChannelClosed reports whether channel number c is closed in s.
func (p *Program) ChannelClosed(s State, c int) bool {
	return p.chanDecl[c].Closable && s[p.closedCell(c)] != 0
}

// ChannelOf returns the declaration channel number c belongs to.
func (p *Program) ChannelOf(c int) *Channel { return p.chanDecl[c] }

// NumProcesses is the number of processes: the program's process instances, or one
// for a program without processes, whose threads all form one process.
func (p *Program) NumProcesses() int { return max(len(p.Processes), 1) }

// ProcessOf is the process thread t belongs to: its instance's Index, or 0 in a
// program without processes.
func (p *Program) ProcessOf(t int) int {
	if pr := p.Threads[t].Template.Process; pr != nil {
		return pr.Index
	}
	return 0
}

// ProcessName names process i as traces do: "node[1]", or "the program" when the
// program declares no process.
func (p *Program) ProcessName(i int) string {
	if len(p.Processes) == 0 {
		return "the program"
	}
	return p.Processes[i].Name
}

// ChannelValueName names a Go channel value (Var.ChanCells): "nil", or the
// name of the channel numbered v-1.
func (p *Program) ChannelValueName(v int64) string {
	if v == 0 {
		return "nil"
	}
	if v < 1 || v > int64(p.NumChannels) {
		return fmt.Sprint(v)
	}
	return p.LocationName(p.ChannelLocation(int(v - 1)))
}

// ChanCell reports whether cell i of v holds a Go channel value.
func (v *Var) ChanCell(i int) bool { return i >= 0 && i < len(v.ChanCells) && v.ChanCells[i] }
