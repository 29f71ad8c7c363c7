package ir

// A StoreKey names one value of a symbolic encoding's store (package encode):
// the shared cells and lock owners a step reads and writes, value by value.
// They come first, numbered as their locations (location.go); the keys from
// FirstFreeKey on are the encoding's own (channel queues, thread frames).
type StoreKey int

// CellKey is the store key of shared cell c (State index c).
func (p *Program) CellKey(c int) StoreKey { return StoreKey(c) }

// LockKey is the store key of lock i's owner.
func (p *Program) LockKey(i int) StoreKey { return StoreKey(p.SharedSize + i) }

// FirstFreeKey is the first store key after the shared cells and the locks.
func (p *Program) FirstFreeKey() StoreKey { return StoreKey(p.SharedSize + p.NumLocks) }

// LocateKey returns what a store key below FirstFreeKey stands for: LocCell
// and the cell (its State index), or LocLock and the lock number.
func (p *Program) LocateKey(k StoreKey) (LocKind, int) { return p.Locate(p.KeyLocation(k)) }

// KeyLocation is the location of a store key below FirstFreeKey.
func (p *Program) KeyLocation(k StoreKey) int { return int(k) }
