package ir

import (
	"cmp"
	"fmt"
)

// Pos is a position in the program's source (1-based line and column). File
// is empty for a position in the program's own file (Program.File), and names
// the file otherwise: a Go package has several files, and a trace may pass
// through each.
type Pos struct {
	File      string
	Line, Col int
}

// String is line:col, or file:line:col for a position in another file than
// the program's own.
func (p Pos) String() string {
	if p.File != "" {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// Compare orders positions by file (the program's own first), line and
// column.
func (p Pos) Compare(q Pos) int {
	return cmp.Or(cmp.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
}

// A Var is a shared or thread-local variable, scalar (Len == 0) or array.
//
// Shared variables live at State[Offset:Offset+max(Len,1)]. A local variable lives
// in its thread's frame: State[thread.Base+1+Offset : …] (slot 0 of a frame is the
// thread's control location).
type Var struct {
	Name   string
	Type   Type
	Len    int // 0 for a scalar, else the array length
	Shared bool
	Offset int
	Init   []int64 // shared only: initial values, one per cell; nil means all zero
	Pos    Pos     // declaration
	// Process is the process instance whose memory a shared variable is, or nil
	// for a program without processes (and for locals).
	Process *Process
	// Private marks a shared variable that one thread alone ever reads or
	// writes (Program.PrivateVars decides which may be): it stays in the shared
	// part of the state, named and shown as shared, but accessing it is not a
	// visible step (Node.Visible), as a local's is not. No other thread can
	// observe the order of its accesses, so folding them into the thread's
	// neighbouring step removes interleavings that change nothing. Finish
	// refuses a variable marked Private that another thread could reach.
	Private bool

	// The rest describe C and Go memory (memory.go).
	//
	// CellTypes, for an object whose cells differ in type (a struct, an array of
	// structs), is the type of each cell; nil when every cell has Type.
	CellTypes []Type
	// CellNames names each cell of such an object for traces ("s.next",
	// "a[2].x"); nil names them as an array's.
	CellNames []string
	// AtomicCells marks the cells that are C11 atomic objects (an
	// atomic_int, say): every access to one is atomic, so two of them never
	// race (race.go). Nil when none is.
	AtomicCells []bool
	// Object is the number pointer values name the variable by (its index in
	// Program.Objects plus one), or 0 when no pointer may address it. Finish
	// numbers the variables marked Addressable.
	Object      int
	Addressable bool
	// Block, for a heap block, is the allocation site whose pool holds it, and
	// BlockIndex its index in the pool.
	Block      *Alloc
	BlockIndex int
	// ChanCells marks, per cell, one that holds a Go channel value (the
	// channel's number plus one, 0 for nil), which traces show by the
	// channel's name (Program.ChannelValueName); nil when no cell does.
	ChanCells []bool
	// Bookkeeping marks a variable of the lowering's own that the program
	// never names (how many channels a Go make site has made, which of its
	// channels are in use): traces and final states leave it out. It is state
	// like any other for the engines.
	Bookkeeping bool
}

// Cells is the number of State slots the variable occupies.
func (v *Var) Cells() int {
	if v.Len == 0 {
		return 1
	}
	return v.Len
}

// CellType is the type of the variable's cell c.
// ByteCell reports whether cell c of v holds one byte: C's char arithmetic
// (an EPtrAdd whose Val is 1) moves by cells only over such cells. Memory is
// made of cells, not bytes: (char *)p + 4 on a pointer into an int has no
// cell to land on, and runs report it as unsupported rather than guess. Past
// the last cell (a pointer one past the end) the last cell's type counts.
func (v *Var) ByteCell(c int) bool {
	if n := v.Cells(); c >= n {
		c = n - 1
	}
	if c < 0 {
		return true
	}
	switch v.CellType(c) {
	case I8, U8, Bool:
		return true
	}
	return false
}

func (v *Var) CellType(c int) Type {
	if v.CellTypes != nil {
		return v.CellTypes[c]
	}
	return v.Type
}

// A Mutex is a mutex or an array of mutexes (Len > 0). Mutex i of the array is lock
// number Offset+i; its owner lives at State[p.MutexBase+Offset+i] as thread+1 (0: free).
type Mutex struct {
	Name    string
	Len     int // 0 for a single mutex
	Offset  int
	Pos     Pos
	Process *Process // the process instance the mutex belongs to, or nil
}

// Count is the number of locks the declaration stands for.
func (m *Mutex) Count() int {
	if m.Len == 0 {
		return 1
	}
	return m.Len
}

// A Channel is a bounded FIFO channel, or an array of them (Len > 0), of messages
// with the given field types. Channel i of the array is channel number Offset+i.
// Its queue lives in the state as its length followed by Cap message slots, the
// oldest message first; free slots hold zeros, so that equal queues are equal
// states. A channel of capacity 0 is a rendezvous: it holds no message, and a
// send hands its message to a thread waiting to receive, in one step
// (ir/rendezvous.go).
type Channel struct {
	Name   string
	Len    int // 0 for a single channel
	Fields []Type
	Cap    int // K >= 1: most messages in flight; 0: a rendezvous
	Offset int
	Pos    Pos
	// Lossy: a send may lose its message (always when the channel is full),
	// so it never waits. Unordered: a recv takes any message in the channel,
	// not only the oldest. (ir/select.go)
	Lossy, Unordered bool
	// Closable: some OpClose names the channel (Finish sets it), so its
	// state has one more cell, after its message slots: 1 once it is
	// closed (Program.ChannelClosed).
	Closable bool
}

// Count is the number of channels the declaration stands for.
func (c *Channel) Count() int {
	if c.Len == 0 {
		return 1
	}
	return c.Len
}

// Rendezvous reports whether the channel has no buffer: a send and the
// receive it meets are one step (ir/rendezvous.go).
func (c *Channel) Rendezvous() bool { return c.Cap == 0 }

// Stride is the number of State cells one channel of the declaration occupies.
// A closable channel's last cell is its closed flag.
func (c *Channel) Stride() int {
	if c.Closable {
		return 2 + c.Cap*len(c.Fields)
	}
	return 1 + c.Cap*len(c.Fields)
}

// A Process is one instance of a process declaration. lang lowers a process
// template by instantiating it: each instance gets its own copies of the process's
// shared variables (named "node[1].leader"), mutexes and thread templates (named
// "node[1].listener"), with pid a constant, so that everything below the language
// sees ordinary variables, mutexes and threads that carry their Process.
type Process struct {
	Name     string // "node[1]", or "coordinator" for a declaration without a count
	Template string // "node"
	Pid      int
	Index    int // position in Program.Processes
	Pos      Pos
}

// ExprOp is the operator of an Expr.
type ExprOp uint8

const (
	EConst  ExprOp = iota // Val
	EVar                  // Var (scalar, shared or local)
	EIndex                // Var[X] (array element; bounds-checked)
	ETid                  // instance index of the executing thread
	ENondet               // any value in [Lo, Hi]; Unbounded: any W-bit value
	ENeg                  // -X
	ENot                  // !X
	ECompl                // ~X
	EMul
	EDiv // truncating; division by zero is a violation
	ERem
	EAdd
	ESub
	EShl // shift amount outside [0, W) is a violation
	EShr // arithmetic
	ELt
	ELe
	EGt
	EGe
	EEq
	ENe
	EAnd  // bitwise &
	EXor  // bitwise ^
	EOr   // bitwise |
	ELAnd // && (short-circuit)
	ELOr  // || (short-circuit)
	ECond // X ? Y : Z (short-circuit)
	ELen  // the number of messages in channel Chan[X] (X nil for a single channel)

	// C and Go (memory.go): conversions and memory addressed by pointers.
	EConv    // X converted to Type (Convert)
	EAddr    // the address of Var's cell X (X nil: cell 0); X may be one past the end
	EDeref   // the cell pointer X addresses, read as Type
	EPtrAdd  // pointer X moved by Y cells, within its object (or one past its end); Val 1: by Y bytes (ByteCell)
	EPtrDiff // (X - Y) / Val: the cells between two pointers into one object, in elements of Val cells
	ESelf    // the executing thread's value: its number plus one (pthread_self)
	numExprOps
)

var exprOpNames = [...]string{
	EConst: "const", EVar: "var", EIndex: "index", ETid: "tid", ENondet: "nondet",
	ENeg: "-", ENot: "!", ECompl: "~", EMul: "*", EDiv: "/", ERem: "%", EAdd: "+",
	ESub: "-", EShl: "<<", EShr: ">>", ELt: "<", ELe: "<=", EGt: ">", EGe: ">=",
	EEq: "==", ENe: "!=", EAnd: "&", EXor: "^", EOr: "|", ELAnd: "&&", ELOr: "||",
	ECond: "?:", ELen: "len", EConv: "conv", EAddr: "&", EDeref: "*", EPtrAdd: "ptr+", EPtrDiff: "ptr-",
	ESelf: "self",
}

func (op ExprOp) String() string {
	if int(op) < len(exprOpNames) {
		return exprOpNames[op]
	}
	return fmt.Sprintf("ExprOp(%d)", op)
}

// An Expr is a side-effect-free expression tree. Calls of expression functions are
// inlined by lang; cas is hoisted into OpCas nodes, so evaluating an Expr never
// writes state. It can fail at run time (bounds, division by zero, shift).
type Expr struct {
	Op        ExprOp
	Type      Type
	Val       int64    // EConst
	Var       *Var     // EVar, EIndex
	Chan      *Channel // ELen
	X, Y, Z   *Expr
	Lo, Hi    int64 // ENondet
	Unbounded bool  // ENondet written as nondet(): any value of Type
	Pos       Pos   // where a run-time error is reported
	// Text is the source text of a nondet call (say "__VERIFIER_nondet_int()"),
	// so that an engine that refuses it can name it; empty for .kb's nondet.
	Text string
}

// An LValue is an assignable location: a scalar variable, an array element, or
// the cell a pointer addresses.
type LValue struct {
	Var   *Var
	Index *Expr // nil for a scalar
	// Ptr, when Var is nil, is the pointer whose cell is assigned, a value of
	// Type (memory.go).
	Ptr  *Expr
	Type Type
	Pos  Pos
}

// Shared reports whether the lvalue is a cell other threads may reach: a shared
// variable's, or any a pointer addresses.
func (lv *LValue) Shared() bool { return lv.Ptr != nil || lv.Var.Shared }

// OpKind is the operation a Node performs.
type OpKind uint8

const (
	OpNop    OpKind = iota // no effect; control flow only
	OpAssign               // LHS = X
	OpBranch               // if X goto Next else goto Else
	OpAssert               // violation "assertion" unless X
	OpAssume               // enabled only when X; a thread blocked here cuts the execution
	OpAwait                // enabled only when X
	OpLock                 // lock Mutex[MIndex]
	OpUnlock               // unlock Mutex[MIndex]
	OpJoin                 // enabled when Join (instance JIndex, or every instance) has terminated
	OpYield                // no effect, but visible (a scheduling point)
	OpCas                  // if LHS == X { LHS = Y; Result = true } else { Result = false }
	OpSend                 // append the message Args to Chan[CIndex]; enabled while it is not full
	OpRecv                 // take the oldest message of Chan[CIndex] into Dsts; enabled while it is not empty

	// C and Go (memory.go).
	OpTryLock // take the mutex at Addr if it is free; Result (optional) is whether it was taken
	OpSpawn   // start the next free thread of Pool with argument X; LHS (optional) receives its value
	OpStart   // a created thread's first operation: enabled once it is started; LHS (optional) receives its argument
	OpAlloc   // a free block of Alloc, of X cells, into LHS; enabled while the pool has one
	OpFree    // free the heap block pointer X addresses (a null X does nothing)

	// OpSelect performs one of its Cases (each an OpSend or OpRecv node) that
	// can proceed, any one when several can (a draw), and stores the case's
	// index into LHS; with Default set and no case ready it does nothing and
	// stores len(Cases). Enabled while some case can proceed, or always with
	// Default. (select.go)
	OpSelect

	// OpClose closes channel Chan[CIndex] (Go's close): later sends on it
	// panic, receives on it never wait — they take the messages left, then
	// zeros (select.go). Closing a closed channel panics.
	OpClose
)

// OpProps are the properties of an operation that the lowering, the semantics,
// the search algorithms and the symbolic encoding consult. They are kept in one
// table (opTable) so that a new operation is described once, and no list of
// operations elsewhere can drift from it.
type OpProps struct {
	Name string
	// Blocks: the thread may wait here; whether it can proceed depends on the state
	// (Node.Guard, Program.Status).
	Blocks bool
	// Visible: a scheduling point whatever the operation reads: it blocks, yields,
	// or is a cas (docs/language.md §10). Other operations are visible when they touch
	// shared state (Node.Visible).
	Visible bool
	// Release: executing it may enable a thread that waits without reading
	// anything it writes to a shared cell: unlock frees a mutex. (Writes that a
	// guard reads and a thread's end, which a join waits for, release as well;
	// they are found from footprints.)
	Release bool
	// Encoded: the symbolic encoding expresses the operation.
	Encoded bool
}

var opTable = [...]OpProps{
	OpNop:     {Name: "nop", Encoded: true},
	OpAssign:  {Name: "assign", Encoded: true},
	OpBranch:  {Name: "branch", Encoded: true},
	OpAssert:  {Name: "assert", Encoded: true},
	OpAssume:  {Name: "assume", Blocks: true, Visible: true, Encoded: true},
	OpAwait:   {Name: "await", Blocks: true, Visible: true, Encoded: true},
	OpLock:    {Name: "lock", Blocks: true, Visible: true, Encoded: true},
	OpUnlock:  {Name: "unlock", Visible: true, Release: true, Encoded: true},
	OpJoin:    {Name: "join", Blocks: true, Visible: true, Encoded: true},
	OpYield:   {Name: "yield", Visible: true, Encoded: true},
	OpCas:     {Name: "cas", Visible: true, Encoded: true},
	OpSend:    {Name: "send", Blocks: true, Visible: true, Release: true, Encoded: true},
	OpRecv:    {Name: "recv", Blocks: true, Visible: true, Release: true, Encoded: true},
	OpTryLock: {Name: "trylock", Visible: true, Encoded: true},
	OpSpawn:   {Name: "spawn", Blocks: true, Visible: true, Release: true, Encoded: true},
	OpStart:   {Name: "start", Blocks: true, Visible: true, Encoded: true},
	OpAlloc:   {Name: "alloc", Blocks: true, Visible: true, Encoded: true},
	OpFree:    {Name: "free", Visible: true, Encoded: true},
	OpSelect:  {Name: "select", Blocks: true, Visible: true, Release: true, Encoded: true},
	// A close releases: it enables the receivers and senders waiting on the
	// channel (a sender to panic).
	OpClose: {Name: "close", Visible: true, Release: true, Encoded: true},
}

// Props returns the operation's properties.
func (k OpKind) Props() OpProps {
	if int(k) < len(opTable) {
		return opTable[k]
	}
	return OpProps{Name: fmt.Sprintf("OpKind(%d)", k)}
}

func (k OpKind) String() string { return k.Props().Name }

// Exit is the successor index that ends the thread.
const Exit = -1

// A Node is one operation of a thread's control-flow graph. Nodes are indexed by their
// position in Template.Nodes; Next and Else are node indices or Exit.
type Node struct {
	Op     OpKind
	LHS    *LValue // OpAssign, OpCas
	X, Y   *Expr   // OpAssign: X; OpBranch/OpAssert/OpAssume/OpAwait: X; OpCas: X expected, Y new
	Result *LValue // OpCas: optional bool local receiving success
	Mutex  *Mutex  // OpLock, OpUnlock
	MIndex *Expr   // index into a mutex array; nil for a single mutex
	Join   *Template
	JIndex *Expr     // OpJoin: instance index, nil for every instance
	Chan   *Channel  // OpSend, OpRecv, OpClose
	CIndex *Expr     // index into a channel array; nil for a single channel
	Args   []*Expr   // OpSend: the message's fields
	Dsts   []*LValue // OpRecv: where the message's fields go
	// OK, for an OpRecv (a plain one or a select's case), optionally
	// receives 1 when the receive took a message, 0 when it found its
	// channel closed and empty (Go's v, ok := <-c).
	OK *LValue
	// When, for a case of an OpSelect, is the condition under which the
	// case is considered at all (nil: always), evaluated each time the
	// select runs: a Go select's case on a nil channel is never ready.
	When *Expr
	// AnyOwner, for an OpUnlock, is Go's sync.Mutex.Unlock: any thread may
	// unlock the mutex, and unlocking a free one is a Panic. For an OpLock,
	// Go's Lock: a thread that locks a mutex it holds waits (no Relock).
	AnyOwner bool
	// Recoverable says that a Go panic of this node (a failing Panic assert,
	// a failing run-time check) may be stopped by a deferred recover, which
	// ir does not model: the run stops as Unsupported instead of reporting
	// the panic.
	Recoverable bool
	Msg         string // OpAssert: the message (may be empty)
	// C and Go (memory.go):
	Addr    *Expr // OpLock, OpUnlock, OpTryLock: the address of the mutex's cell, when Mutex is nil
	JThread *Expr // OpJoin: the value of the thread to wait for, when Join is nil; LHS (optional) receives its return value
	// JAlso, for an OpJoin of a thread value without LHS, are further thread
	// values it waits for too: main's consecutive joins made one step
	// (SpecializePrefix). Each is a constant.
	JAlso []*Expr
	// Cases, for an OpSelect, are its channel operations, OpSend and OpRecv
	// nodes that are never executed on their own (no Next); Default says
	// whether it has a default case.
	Cases   []*Node
	Default bool
	Pool    *Pool  // OpSpawn
	Alloc   *Alloc // OpAlloc
	// Kind, for an OpAssert, is the violation it reports when X is false:
	// Assertion unless set (ReachError for a call of reach_error, Panic for
	// Go's panic, with Msg its message).
	Kind ViolationKind
	Next int
	Else int // OpBranch only

	// Cut marks a cut point: a transition begins here (docs/language.md §10). lang sets it
	// at the thread start, before each visible operation and at every loop head; with
	// --no-fold at every statement and condition. Nodes that come from one source
	// statement (e.g. a hoisted cas) are never separated by a cut.
	Cut bool

	// Atomic marks a node inside an atomic block (including its first node).
	Atomic bool

	// End marks a node of a statement labelled "end:": a thread blocked at a
	// location that starts here ends the run validly (SPIN's end labels), so a
	// run whose waiting threads all wait at such locations is no deadlock, and
	// a process whose threads do is not stuck (Program.End, Program.Stuck).
	End bool

	Pos  Pos
	Text string // source text of the statement or condition, for traces
}

// A Template is a thread declaration: its code, shared by all its instances.
type Template struct {
	Name      string
	Count     int // instances; 0 when declared without a count (one instance, no index)
	First     int // thread number of instance 0
	Locals    []*Var
	FrameSize int // local slots (sum of Cells over Locals)
	Nodes     []*Node
	Entry     int // node index where every instance starts
	Pos       Pos
	Process   *Process // the process instance the template belongs to, or nil
	// Start, for a thread created at run time, is the shared variable of its
	// slot (memory.go): whether it has been started, its argument and its
	// return value. nil for a thread that runs from the initial state.
	Start *Var

	// Filled in by Program.Finish:
	Transitions []*Transition // location i is Transitions[i]; location len(Transitions) is "terminated"
	// Receives: some transition receives on a rendezvous channel, so another
	// thread's step may move an instance (its steps read its port, PortLocation).
	Receives bool
	loc      []int         // node index -> location (-1 if not a cut point)
	dead     [][]cellRange // per location: the frame cells a step arriving there clears (dead.go)
}

// Instances is the number of threads the template declares.
func (t *Template) Instances() int {
	if t.Count == 0 {
		return 1
	}
	return t.Count
}

// Terminated is the control location of an instance that has finished.
func (t *Template) Terminated() int { return len(t.Transitions) }

// Stuck is the control location of an instance that can never move again
// because an assume inside its atomic section failed (see Program.Step): it
// sits on a false assume for ever.
func (t *Template) Stuck() int { return len(t.Transitions) + 1 }

// Loc is the location (transition index) that starts at node n, or -1.
func (t *Template) Loc(n int) int {
	if n == Exit {
		return t.Terminated()
	}
	return t.loc[n]
}

// A Transition is the code from one cut point to the next cut points reached: at most
// one visible operation, at its start, then local code with local branches but no
// loop. It executes atomically.
type Transition struct {
	Template *Template
	Index    int   // the control location where it starts
	Entry    int   // node index
	Nodes    []int // the nodes it may execute, in a topological order (Entry first)
	Succ     []int // control locations it may end in (Terminated() included)

	// Static footprint (whole arrays, whole mutex arrays): what any execution of the
	// transition may read or write. Used by encoders and for printing.
	Reads, Writes []*Var
	Locks         []*Mutex // lock/unlock operations
	Joins         []*Template
	Chans         []*Channel // send, recv and len
	// Handoffs, for a transition that may send on a rendezvous channel, are
	// the transitions of any template that may receive that message: the
	// step runs the receiver's transition too (ir/rendezvous.go), so its
	// static footprint includes theirs. Receives says whether the transition
	// starts at a receive on a rendezvous channel, which another thread's
	// send completes.
	Handoffs []*Transition
	Receives bool
	// InnerGuard: an assume, a lock or a join of a thread value inside the
	// transition's atomic section, after its first operation, may fail (find
	// its condition false, the mutex held, the thread running); the step then
	// undoes what it did and the thread is stuck (Program.Step).
	InnerGuard bool
}

// EntryNode is the node the transition starts at; its operation decides enabledness.
func (tr *Transition) EntryNode() *Node { return tr.Template.Nodes[tr.Entry] }

// EndsValidly reports whether a thread blocked at the transition ends its run
// validly: it waits at a statement labelled "end:" (Node.End).
func (tr *Transition) EndsValidly() bool { return tr.EntryNode().End }

// A Thread is one instance of a template.
type Thread struct {
	ID       int
	Name     string // "writer", "reader[2]"
	Template *Template
	Tid      int
	Base     int // State[Base] is the control location; locals follow
}

// Program is a lowered .kb program: what every engine consumes.
type Program struct {
	File      string
	Width     int // W, in bits (8..64)
	Shared    []*Var
	Mutexes   []*Mutex
	Channels  []*Channel
	Processes []*Process // empty for a program without processes
	Templates []*Template
	NoFold    bool // lowered with --no-fold
	// Pools and Allocs are the thread pools and allocation sites of a C or Go
	// program (memory.go).
	Pools  []*Pool
	Allocs []*Alloc
	// Entry, for a Go program, is the template of its entry goroutine (main):
	// a deadlocked end state in which it has terminated is a goroutine leak
	// rather than a deadlock (Program.End). nil for every other program.
	Entry *Template

	// Filled in by Finish:
	Threads     []*Thread
	SharedSize  int // shared cells: State[0:SharedSize]
	MutexBase   int // State[MutexBase+i] is lock i's owner+1
	NumLocks    int
	ChanBase    int // the queues of the channels, in channel number order
	NumChannels int
	chanBase    []int // per channel number: where its queue starts
	chanDecl    []*Channel
	chanLoc     []int   // per channel number: its first location, counted from the first channel's
	chanOfLoc   []int32 // per channel location, counted so: its channel number
	// HeadBase is where the channels' heads are (ChannelHead), one cell per
	// channel at the end of the state. A head only numbers message slots, the
	// locations of the dependency relation: two states that differ in their
	// heads alone have the same future runs, and a stateful search stores
	// State[:HeadBase] (IdentityCells).
	HeadBase  int
	StateSize int
	// Objects are the variables pointers address, Objects[i] numbered i+1;
	// a pointer value is its object's number shifted left by PtrShift, plus
	// its cell offset (memory.go).
	Objects  []*Var
	PtrShift uint
	phantoms bool // some pool has an Overflow cell (HasPhantoms)

	// Invariants must hold in every reachable state (invariant.go).
	Invariants []*Invariant
	// invariantLoc: the location space ends with InvariantLocation (Finish
	// adds it when the program has invariants); invariantReads marks the
	// locations the invariants read (nil: none).
	invariantLoc   bool
	invariantReads []bool
	// races, when set, makes Step check every state it reaches for a data
	// race (race.go, SelectRaces).
	races *raceTable
	// overflow makes signed arithmetic that overflows a violation
	// (overflow.go, SelectProperty).
	overflow bool
	// memsafety: a run checks SV-COMP's memory safety (SelectProperty).
	memsafety bool
	// anyOwner: some unlock is Go's (Node.AnyOwner), which need not be the
	// owner's (AnyOwnerUnlocks).
	anyOwner bool
}

// AnyOwnerUnlocks reports whether some unlock of the program is Go's
// (Node.AnyOwner): a thread may then release a mutex another thread took, and
// no analysis may assume that a lock and the same thread's next unlock
// enclose a critical section, nor that a mutex a thread took stays its own.
func (p *Program) AnyOwnerUnlocks() bool { return p.anyOwner }
