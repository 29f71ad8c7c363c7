package kb2go

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kbmc/internal/constfold"
	"kbmc/lang"
	"kbmc/lang/syntax"
)

// Width is the only integer width the translation keeps: a .kb int is a Go
// int32, whose arithmetic wraps as .kb's does at width 32.
const Width = 32

// MaxNondet is the widest nondet(lo, hi) translated: rand.Intn over the
// range, whose values gofront explores one by one as the explicit engine
// explores the .kb draw's.
const MaxNondet = 256

// Messages of the panics that stand for .kb violations Go has no run-time
// check of its own for. The dual test maps a Go panic with one of these
// messages to the .kb kind (assertion, bounds, shift), every other Go panic
// to .kb's panic (a send on a closed channel, a close of a closed one).
const (
	AssertionPanic = "kb2go: assertion failed"
	BoundsPanic    = "kb2go: index out of range"
	ShiftPanic     = "kb2go: shift amount out of range"
)

// Program is the Go form of a .kb program.
type Program struct {
	// Go is the source of a one-file package main.
	Go []byte
	// Goroutines is the number of goroutines main starts: one per thread
	// instance of every process instance.
	Goroutines int
	// Channels is the number of channels main makes.
	Channels int
	// Split says that some .kb step may be two Go steps: a Gosched where
	// the .kb transition starts, then its channel operation.
	Split bool
}

// Depth returns a depth bound for the Go form that covers every execution
// of the .kb form within d steps. Every .kb step is one Go step (a channel
// operation, a select, a read of len(c), a Gosched where .kb starts a
// transition without one), or two where a Gosched starts a transition
// whose channel operation comes after an evaluation that may fail (Split).
// The Go form adds main's steps (its start, one make per channel, a go
// statement per goroutine), each goroutine's start, and for each goroutine
// a Gosched before the operation it waits at for ever, where the .kb thread
// waits at the transition's start.
func (p *Program) Depth(d int) int {
	if p.Split {
		d *= 2
	}
	return d + 1 + p.Channels + 3*p.Goroutines
}

// Translate returns the Go form of a distributed .kb program read from src:
// processes of one thread each, talking through channels. The program must
// compile at width 32; a construct the translation does not keep is an
// input error at its position, in a syntax.ErrorList as lang reports its
// own.
func Translate(filename string, src []byte) (*Program, error) {
	if _, err := lang.Compile(filename, src, lang.Config{Width: Width}); err != nil {
		return nil, err
	}
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	t := &translator{file: f, consts: map[string]int64{}, chans: map[string]*channel{}, helpers: map[string]string{}}
	t.collect()
	if len(t.errs) == 0 {
		t.emitProgram()
	}
	if len(t.errs) > 0 {
		t.errs.Sort()
		return nil, t.errs
	}
	return &Program{Go: []byte(t.out.String()), Goroutines: t.goroutines, Channels: t.makes, Split: t.split}, nil
}

type typ uint8

const (
	tInt typ = iota
	tBool
)

func (t typ) Go() string {
	if t == tBool {
		return "bool"
	}
	return "int32"
}

func typeOf(n *syntax.TypeName) typ {
	if n != nil && n.Kind == syntax.BOOL {
		return tBool
	}
	return tInt
}

// A channel is a .kb channel or channel array: one Go channel per element.
type channel struct {
	decl   *syntax.ChanDecl
	goName string // the Go names of its elements: goName, or goName_i
	size   int    // 0: a single channel
	cap    int64
	fields []typ
}

// elem is the Go element type: the field itself, or the fields packed into
// an int64 (ints 32 bits each, bools 1 bit), so that a message is a value
// gofront keeps in a goroutine's registers, where a struct would be memory
// of its own.
func (c *channel) elem() string {
	if len(c.fields) == 1 {
		return c.fields[0].Go()
	}
	return "int64"
}

// bits is the width of the packed message.
func (c *channel) bits() int {
	n := 0
	for _, f := range c.fields {
		if f == tBool {
			n++
		} else {
			n += 32
		}
	}
	return n
}

func (c *channel) element(i int) string {
	if c.size == 0 {
		return c.goName
	}
	return fmt.Sprintf("%s_%d", c.goName, i)
}

// A process is a process template with its one thread template.
type process struct {
	decl   *syntax.ProcessDecl
	count  int // instances (at least 1)
	vars   []*syntax.VarDecl
	thread *syntax.ThreadDecl
	tcount int // the thread template's instances (1)
	goName string
}

type translator struct {
	file       *syntax.File
	consts     map[string]int64
	chanOrder  []*channel
	chans      map[string]*channel
	procs      []*process
	helpers    map[string]string // name: definition
	rand       bool              // math/rand is imported
	runtime    bool              // runtime is imported
	goroutines int
	makes      int
	split      bool // see Program.Split
	out        strings.Builder
	errs       syntax.ErrorList
}

func (t *translator) errorf(pos syntax.Pos, format string, args ...any) {
	t.errs = append(t.errs, t.file.NewError(pos, fmt.Sprintf(format, args...)))
}

// reserved are the names a .kb name may not keep in Go: keywords,
// predeclared identifiers, the packages the Go form imports, main; and
// every name starting with kb is the translation's own.
var reserved = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`break case chan const continue default defer else fallthrough for
		func go goto if import interface map package range return select struct switch type var
		any append bool byte cap clear close complex complex64 complex128 copy delete error false
		float32 float64 imag int int8 int16 int32 int64 iota len make max min new nil panic print
		println real recover rune string true uint uint8 uint16 uint32 uint64 uintptr
		rand runtime sync main pid tid`) {
		reserved[n] = true
	}
}

// goName is the Go name of a .kb variable.
func goName(name string) string {
	if reserved[name] || strings.HasPrefix(name, "kb") || strings.HasPrefix(name, "_") {
		return "kbv_" + name
	}
	return name
}

// collect reads the declarations: constants, channels, processes. A
// classic program (threads over shared memory) does not translate yet.
func (t *translator) collect() {
	var consts []*syntax.ConstDecl
	for _, d := range t.file.Decls {
		switch d := d.(type) {
		case *syntax.ConstDecl:
			consts = append(consts, d)
		case *syntax.ChanDecl:
			c := &channel{decl: d, goName: "kbc_" + d.Name.Name}
			for _, f := range d.Fields {
				c.fields = append(c.fields, typeOf(f))
			}
			t.chans[d.Name.Name] = c
			t.chanOrder = append(t.chanOrder, c)
		case *syntax.ProcessDecl:
			t.procs = append(t.procs, &process{decl: d, goName: "kbp_" + d.Name.Name})
		case *syntax.VarDecl:
			t.errorf(d.Pos(), "shared variable %s outside a process: threads over shared memory do not translate to Go (only processes of one thread each)", d.Name.Name)
		case *syntax.MutexDecl:
			t.errorf(d.Pos(), "mutex %s: Go's sync.Mutex blocks on a relock where .kb reports relock, and lets another goroutine unlock", d.Name.Name)
		case *syntax.FuncDecl:
			t.errorf(d.Pos(), "function %s: functions do not translate yet", d.Name.Name)
		case *syntax.ThreadDecl:
			t.errorf(d.Pos(), "thread %s outside a process: threads over shared memory do not translate to Go (only processes of one thread each)", d.Name.Name)
		case *syntax.InvariantDecl:
			t.errorf(d.Pos(), "invariant %s: Go has no global invariants", d.Name.Name)
		}
	}
	for _, d := range consts {
		v, _, ok := t.constValue(nil, d.Value)
		if !ok {
			t.errorf(d.Value.Pos(), "internal error: constant %s has no value", d.Name.Name)
			continue
		}
		t.consts[d.Name.Name] = v
	}
	size := func(e syntax.Expr) int {
		if e == nil {
			return 0
		}
		v, _, ok := t.constValue(nil, e)
		if !ok || v < 0 {
			t.errorf(e.Pos(), "internal error: size without a value")
			return 0
		}
		return int(v)
	}
	for _, c := range t.chanOrder {
		d := c.decl
		c.size = size(d.Size)
		c.cap = int64(size(d.Cap))
		if d.Lossy.IsValid() {
			t.errorf(d.Lossy, "lossy channel %s: a Go channel never loses a message", d.Name.Name)
		}
		if d.Unordered.IsValid() {
			t.errorf(d.Unordered, "unordered channel %s: a Go channel is FIFO", d.Name.Name)
		}
		if c.bits() > 64 {
			t.errorf(d.Pos(), "channel %s: its messages need %d bits; the Go form packs a message into 64", d.Name.Name, c.bits())
		}
		t.makes += max(c.size, 1)
	}
	for _, p := range t.procs {
		p.count = max(size(p.decl.Count), 1)
		for _, d := range p.decl.Decls {
			switch d := d.(type) {
			case *syntax.VarDecl:
				p.vars = append(p.vars, d)
			case *syntax.ThreadDecl:
				if p.thread != nil {
					t.errorf(d.Pos(), "process %s has a second thread, %s: its memory would be shared between goroutines (only processes of one thread each translate)", p.decl.Name.Name, d.Name.Name)
					continue
				}
				p.thread = d
				p.tcount = max(size(d.Count), 1)
				if p.tcount > 1 {
					t.errorf(d.Pos(), "thread %s has %d instances, which share their process's memory (only processes of one thread each translate)", d.Name.Name, p.tcount)
				}
			case *syntax.MutexDecl:
				t.errorf(d.Pos(), "mutex %s: Go's sync.Mutex blocks on a relock where .kb reports relock, and lets another goroutine unlock", d.Name.Name)
			case *syntax.FuncDecl:
				t.errorf(d.Pos(), "function %s: functions do not translate yet", d.Name.Name)
			}
		}
		if p.thread != nil {
			t.goroutines += p.count
		}
	}
}

// emitProgram writes the package.
func (t *translator) emitProgram() {
	var bodies strings.Builder
	for _, p := range t.procs {
		if p.thread != nil {
			t.emitProcess(&bodies, p)
		}
	}
	w := &t.out
	fmt.Fprintf(w, "// The Go form of %s, written by kbmc's kb2go: each process instance is a\n", t.file.Name)
	w.WriteString("// goroutine whose memory is its own, each channel a Go channel. main starts\n")
	w.WriteString("// the goroutines and returns: goroutines that all wait for ever are a leak,\n")
	w.WriteString("// where .kb reports a deadlock.\n\npackage main\n")
	if t.rand || t.runtime {
		w.WriteString("\nimport (\n")
		if t.rand {
			w.WriteString("\t\"math/rand\"\n")
		}
		if t.runtime {
			w.WriteString("\t\"runtime\"\n")
		}
		w.WriteString(")\n")
	}
	w.WriteString(bodies.String())
	w.WriteString("\nfunc main() {\n")
	for _, c := range t.chanOrder {
		for i := range max(c.size, 1) {
			if c.cap == 0 {
				fmt.Fprintf(w, "\t%s := make(chan %s)\n", c.element(i), c.elem())
			} else {
				fmt.Fprintf(w, "\t%s := make(chan %s, %d)\n", c.element(i), c.elem(), c.cap)
			}
		}
	}
	args := t.chanArgs()
	for _, p := range t.procs {
		if p.thread == nil {
			continue
		}
		for pid := range p.count {
			fmt.Fprintf(w, "\tgo %s(%d, 0%s)\n", p.goName, pid, args)
		}
	}
	w.WriteString("}\n")
	for _, name := range slices.Sorted(maps.Keys(t.helpers)) {
		w.WriteString("\n" + t.helpers[name])
	}
}

// chanArgs is ", c, d_0, d_1…": every channel, in declaration order.
func (t *translator) chanArgs() string {
	var b strings.Builder
	for _, c := range t.chanOrder {
		for i := range max(c.size, 1) {
			b.WriteString(", " + c.element(i))
		}
	}
	return b.String()
}

// emitProcess writes the function a process instance's goroutine runs: its
// memory as locals, then its thread's body.
func (t *translator) emitProcess(w *strings.Builder, p *process) {
	var params []string
	for _, c := range t.chanOrder {
		for i := range max(c.size, 1) {
			params = append(params, fmt.Sprintf("%s chan %s", c.element(i), c.elem()))
		}
	}
	fmt.Fprintf(w, "\n// %s runs an instance of process %s: thread %s.\n", p.goName, p.decl.Name.Name, p.thread.Name.Name)
	fmt.Fprintf(w, "func %s(pid, tid int32", p.goName)
	for _, s := range params {
		w.WriteString(", " + s)
	}
	w.WriteString(") {\n")
	b := &body{t: t, w: w, indent: 1, scopes: []map[string]*sym{{}}, pids: p.count}
	for _, d := range p.vars {
		b.varDecl(d)
	}
	b.line("{")
	b.indent++
	b.push()
	b.stmts(p.thread.Body.List)
	b.pop()
	b.indent--
	b.line("}")
	w.WriteString("}\n")
}

// helper records a helper function the Go form calls.
func (t *translator) helper(name, def string) string {
	t.helpers[name] = def
	return name
}

// getHelper reads element i of an array of n elements of type ty, passed as
// scalars (gofront keeps scalars in registers, where an array would be
// memory of its own); an index out of range panics with BoundsPanic.
func (t *translator) getHelper(ty typ, n int) string {
	name := fmt.Sprintf("kbGet%s%d", strings.ToUpper(ty.Go()[:1]), n)
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(i int32", name)
	for i := range n {
		fmt.Fprintf(&b, ", v%d", i)
	}
	fmt.Fprintf(&b, " %s) %s {\n\tswitch i {\n", ty.Go(), ty.Go())
	for i := range n {
		fmt.Fprintf(&b, "\tcase %d:\n\t\treturn v%d\n", i, i)
	}
	fmt.Fprintf(&b, "\t}\n\tpanic(%q)\n}\n", BoundsPanic)
	return t.helper(name, b.String())
}

// chanHelper picks channel i of a channel array of n channels of elem.
func (t *translator) chanHelper(elem string, n int) string {
	name := fmt.Sprintf("kbChan%s_%d", elem, n)
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(i int32", name)
	for i := range n {
		fmt.Fprintf(&b, ", c%d", i)
	}
	fmt.Fprintf(&b, " chan %s) chan %s {\n\tswitch i {\n", elem, elem)
	for i := range n {
		fmt.Fprintf(&b, "\tcase %d:\n\t\treturn c%d\n", i, i)
	}
	fmt.Fprintf(&b, "\t}\n\tpanic(%q)\n}\n", BoundsPanic)
	return t.helper(name, b.String())
}

// packHelper packs a message of c's fields into an int64.
func (t *translator) packHelper(c *channel) string {
	sig := ""
	for _, f := range c.fields {
		sig += strings.ToUpper(f.Go()[:1])
	}
	name := "kbPack" + sig
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(", name)
	for i, f := range c.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "f%d %s", i, f.Go())
	}
	b.WriteString(") int64 {\n\tvar m int64\n")
	off := 0
	for i, f := range c.fields {
		if f == tBool {
			fmt.Fprintf(&b, "\tif f%d {\n\t\tm |= 1 << %d\n\t}\n", i, off)
			off++
			continue
		}
		fmt.Fprintf(&b, "\tm |= int64(uint32(f%d)) << %d\n", i, off)
		off += 32
	}
	b.WriteString("\treturn m\n}\n")
	return t.helper(name, b.String())
}

// unpack is the Go expression of field i of the packed message m.
func (c *channel) unpack(m string, i int) string {
	if len(c.fields) == 1 {
		return m
	}
	off := 0
	for j := range i {
		if c.fields[j] == tBool {
			off++
		} else {
			off += 32
		}
	}
	if c.fields[i] == tBool {
		return fmt.Sprintf("%s>>%d&1 != 0", m, off)
	}
	return fmt.Sprintf("int32(%s >> %d)", m, off)
}

// literal is the Go text of a constant of type ty.
func literal(v int64, ty typ) string {
	switch {
	case ty == tBool:
		return strconv.FormatBool(v != 0)
	case v < 0:
		return fmt.Sprintf("(%d)", v)
	}
	return fmt.Sprint(v)
}

// constValue folds a constant expression as lang does, seen from body b
// (nil: top level, where locals hide nothing).
func (t *translator) constValue(b *body, e syntax.Expr) (int64, typ, bool) {
	v, isBool, ok := constfold.Fold(e, Width, func(name string) (int64, bool) {
		if b != nil && b.lookup(name) != nil {
			return 0, false // a local or process variable hides the constant
		}
		v, ok := t.consts[name]
		return v, ok
	})
	if isBool {
		return v, tBool, ok
	}
	return v, tInt, ok
}
