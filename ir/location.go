package ir

import "fmt"

// Locations. Every access an event reports, every footprint and every dependency
// names a location in one space, laid out here and nowhere else:
//
//	[0, SharedSize)                        shared cells (scalars and array elements)
//	[SharedSize, SharedSize+NumLocks)      locks (a lock's owner)
//	then one per channel                   the channel's queue
//	then one per thread                    the thread's termination status
//
// Engines ask Locate what a location is instead of doing this arithmetic.

// LocKind is what a location stands for.
type LocKind uint8

const (
	LocCell    LocKind = iota // a shared cell: read and written by expressions and assignments
	LocLock                   // a lock: written by lock and unlock (its owner)
	LocThread                 // a thread's termination status: written by its last step, read by join
	LocChannel                // a channel's queue: written by send and recv, read by len
)

var locKindNames = [...]string{LocCell: "cell", LocLock: "lock", LocThread: "thread", LocChannel: "channel"}

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
	case l < p.SharedSize+p.NumLocks+p.NumChannels:
		return LocChannel, l - p.SharedSize - p.NumLocks
	}
	return LocThread, l - p.SharedSize - p.NumLocks - p.NumChannels
}

// CellLocation is the location of shared cell c (State index c).
func (p *Program) CellLocation(c int) int { return c }

// LockLocation is the location of lock number i.
func (p *Program) LockLocation(i int) int { return p.SharedSize + i }

// ChannelLocation is the location of channel number c.
func (p *Program) ChannelLocation(c int) int { return p.SharedSize + p.NumLocks + c }

// ThreadLocation is the location of thread t's termination status.
func (p *Program) ThreadLocation(t int) int { return p.SharedSize + p.NumLocks + p.NumChannels + t }

// NumLocations is the size of the location space.
func (p *Program) NumLocations() int {
	return p.SharedSize + p.NumLocks + p.NumChannels + len(p.Threads)
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
			if c.Len == 0 {
				return c.Name
			}
			return fmt.Sprintf("%s[%d]", c.Name, i-c.Offset)
		case LocThread:
			return p.Threads[i].Name
		}
	}
	return fmt.Sprintf("location(%d)", l)
}

// ChannelQueue returns the part of s that holds channel number c's queue: its
// length, then Cap message slots of its fields, the oldest first.
func (p *Program) ChannelQueue(s State, c int) State {
	return s[p.chanBase[c] : p.chanBase[c]+p.chanDecl[c].Stride()]
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
