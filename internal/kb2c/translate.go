package kb2c

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"kbmc/internal/constfold"
	"kbmc/lang"
	"kbmc/lang/syntax"
)

// Width is the only integer width the translation keeps: C's int. At other
// widths .kb arithmetic wraps where C's, done in int after the integer
// promotions, does not.
const Width = 32

// MaxNondet is the widest nondet(lo, hi) drawn as a tree of nondeterministic
// bools with one leaf per value, so that the explicit engine tries as many
// values in both forms (explicit.DefaultMaxNondet); a wider one is drawn bit
// by bit and reduced to the range.
const MaxNondet = 256

// Program is the C form of a .kb program.
type Program struct {
	// C is the translation unit: C that cfront reads as a .i file, without
	// preprocessor directives.
	C []byte
	// Threads is the number of threads main creates: every instance of every
	// .kb thread template.
	Threads int
	// JoinSteps is the largest number of C steps one step of the .kb program
	// becomes: a join of a template of n instances is n joins (at least 1).
	JoinSteps int
	// JoinExtra is how many C steps the joins of templates add to one
	// execution, at most: n-1 for each join of a template of n instances
	// each time it runs. -1 when a join runs an unknown number of times (in a
	// loop or a function).
	JoinExtra int
}

// Depth returns a depth bound for the C form that covers every execution of
// the .kb program within depth d: main creates the threads in one step, each
// thread starts with a step of its own (cfront's start transition, which
// takes the argument), and the joins of a template's instances one by one
// add JoinExtra steps, or at most JoinSteps-1 for each of the d .kb steps.
// Every other .kb step is one C step.
func (p *Program) Depth(d int) int {
	extra := (p.JoinSteps - 1) * d
	if p.JoinExtra >= 0 {
		extra = min(extra, p.JoinExtra)
	}
	return d + 1 + p.Threads + extra
}

// Translate returns the C form of a classic .kb program (threads over shared
// memory), read from src. The program must compile at width 32; a construct
// the translation does not keep (await, processes, channels) is an input error
// at its position, in a syntax.ErrorList as lang reports its own.
func Translate(filename string, src []byte) (*Program, error) {
	if _, err := lang.Compile(filename, src, lang.Config{Width: Width}); err != nil {
		return nil, err
	}
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	t := &translator{file: f, top: map[string]*sym{}, funcs: map[string]*fnInfo{},
		inSizes: map[int]bool{}, joinSteps: 1}
	t.collect()
	if len(t.errs) == 0 {
		t.emitProgram()
	}
	if len(t.errs) > 0 {
		t.errs.Sort()
		return nil, t.errs
	}
	return &Program{C: []byte(t.out.String()), Threads: t.instances, JoinSteps: t.joinSteps, JoinExtra: t.joinExtra}, nil
}

type typ uint8

const (
	tInt typ = iota
	tBool
)

func (t typ) c() string {
	if t == tBool {
		return "_Bool"
	}
	return "int"
}

func typeOf(n *syntax.TypeName) typ {
	if n != nil && n.Kind == syntax.BOOL {
		return tBool
	}
	return tInt
}

type symKind uint8

const (
	symConst symKind = iota
	symShared
	symLocal
	symMutex
	symFunc
	symThread
	symSubst // a parameter of an expression function replaced by its argument
)

// A sym is what a name stands for.
type sym struct {
	kind symKind
	c    string // the C name, or for symSubst the argument's C text
	typ  typ
	size int   // array length (0: a scalar); a template's instance count (0: one thread)
	val  int64 // symConst
	fn   *fnInfo
	// counted: a thread template declared with a count (join(t[i]) indexes it).
	counted bool
}

// fnInfo is a .kb function.
type fnInfo struct {
	decl   *syntax.FuncDecl
	c      string
	params []*syntax.Param
	result typ
	void   bool
	expr   syntax.Expr // an expression function's body: its one return's value
	// The effects of calling an expression function: it reads shared state
	// or performs a cas (visible), it performs a cas.
	scanned, scanning, visible, cas bool
	// A statement function's joins, and the statement functions it calls.
	joins  []joinUse
	called []*fnInfo
}

type translator struct {
	file      *syntax.File
	top       map[string]*sym
	funcs     map[string]*fnInfo
	consts    []*syntax.ConstDecl
	shared    []*syntax.VarDecl
	mutexes   []*syntax.MutexDecl
	fnOrder   []*fnInfo
	threads   []*syntax.ThreadDecl
	inSizes   map[int]bool // sizes of the index probes kbh_in<n> in use
	needStep  bool         // kbh_step is called
	instances int
	joinSteps int
	joinExtra int // see Program.JoinExtra
	out       strings.Builder
	errs      syntax.ErrorList
}

func (t *translator) errorf(pos syntax.Pos, format string, args ...any) {
	t.errs = append(t.errs, t.file.NewError(pos, fmt.Sprintf(format, args...)))
}

// collect declares the top-level names and evaluates the constants, sizes and
// counts (the program compiled, so they are valid).
func (t *translator) collect() {
	for _, d := range t.file.Decls {
		switch d := d.(type) {
		case *syntax.ConstDecl:
			t.consts = append(t.consts, d)
		case *syntax.VarDecl:
			t.shared = append(t.shared, d)
			t.top[d.Name.Name] = &sym{kind: symShared, c: cName(d.Name.Name), typ: typeOf(d.Type)}
		case *syntax.MutexDecl:
			t.mutexes = append(t.mutexes, d)
			t.top[d.Name.Name] = &sym{kind: symMutex, c: cName(d.Name.Name)}
		case *syntax.FuncDecl:
			f := &fnInfo{decl: d, c: cName(d.Name.Name), params: d.Params, result: typeOf(d.Result), void: d.Result == nil}
			if d.Result != nil && len(d.Body.List) == 1 {
				if r, ok := d.Body.List[0].(*syntax.ReturnStmt); ok && r.Result != nil {
					f.expr = r.Result
				}
			}
			t.funcs[d.Name.Name] = f
			t.fnOrder = append(t.fnOrder, f)
			t.top[d.Name.Name] = &sym{kind: symFunc, c: f.c, fn: f}
		case *syntax.ThreadDecl:
			t.threads = append(t.threads, d)
			t.top[d.Name.Name] = &sym{kind: symThread, c: cName(d.Name.Name), counted: d.Count != nil}
		case *syntax.ProcessDecl:
			t.errorf(d.Pos(), "process %s: the C form has no processes (only classic programs translate)", d.Name.Name)
		case *syntax.ChanDecl:
			t.errorf(d.Pos(), "channel %s: the C form has no channels (only classic programs translate)", d.Name.Name)
		case *syntax.InvariantDecl:
			t.errorf(d.Pos(), "invariant %s: the C form has no global invariants", d.Name.Name)
		}
	}
	// Constants, in order: each may use the ones before it.
	for _, d := range t.consts {
		v, _, ok := t.constValue(nil, d.Value)
		if !ok {
			t.errorf(d.Value.Pos(), "internal error: constant %s has no value", d.Name.Name)
			continue
		}
		t.top[d.Name.Name] = &sym{kind: symConst, c: cName(d.Name.Name), val: v}
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
	for _, d := range t.shared {
		t.top[d.Name.Name].size = size(d.Size)
	}
	for _, d := range t.mutexes {
		t.top[d.Name.Name].size = size(d.Size)
	}
	for _, d := range t.threads {
		s := t.top[d.Name.Name]
		s.size = size(d.Count)
		if d.Count == nil {
			t.instances++
		} else {
			t.instances += s.size
		}
	}
}

// constValue folds a constant expression as lang does (W-bit arithmetic, an
// operation that would fail at run time is no constant), seen from body b
// (nil: top level, where locals hide nothing).
func (t *translator) constValue(b *body, e syntax.Expr) (int64, typ, bool) {
	v, isBool, ok := constfold.Fold(e, Width, func(name string) (int64, bool) {
		var s *sym
		if b != nil {
			s = b.lookup(name)
		} else {
			s = t.top[name]
		}
		if s != nil && s.kind == symConst {
			return s.val, true
		}
		return 0, false
	})
	if isBool {
		return v, tBool, ok
	}
	return v, tInt, ok
}

// literal is the C text of a constant of type ty.
func literal(v int64, ty typ) string {
	switch {
	case ty == tBool:
		if v != 0 {
			return "1"
		}
		return "0"
	case v == math.MinInt32:
		return "(-2147483647 - 1)"
	case v < 0:
		return fmt.Sprintf("(%d)", v)
	}
	return fmt.Sprint(v)
}

// emitProgram writes the translation unit.
func (t *translator) emitProgram() {
	// The bodies first: they say which helpers the declarations need.
	var fns, threads strings.Builder
	for _, f := range t.fnOrder {
		t.emitFunc(&fns, f)
	}
	for _, d := range t.threads {
		t.emitThread(&threads, d)
	}
	w := &t.out
	fmt.Fprintf(w, "// The C form of %s, written by kbmc's kb2c: every statement that touches\n", t.file.Name)
	w.WriteString("// shared memory runs in an atomic section, as .kb runs each statement.\n\n")
	w.WriteString(prelude)
	if len(t.consts) > 0 {
		w.WriteString("\n")
		for _, d := range t.consts {
			fmt.Fprintf(w, "enum { %s = %s };\n", cName(d.Name.Name), literal(t.top[d.Name.Name].val, tInt))
		}
	}
	if len(t.shared) > 0 {
		w.WriteString("\n")
	}
	for _, d := range t.shared {
		s := t.top[d.Name.Name]
		if s.size == 0 {
			init := "0"
			if d.Init != nil {
				v, _, _ := t.constValue(nil, d.Init)
				init = literal(v, s.typ)
			}
			fmt.Fprintf(w, "%s %s = %s;\n", s.typ.c(), s.c, init)
			continue
		}
		vals := make([]string, s.size)
		for i := range vals {
			vals[i] = "0"
		}
		if l, ok := d.Init.(*syntax.InitList); ok {
			for i, e := range l.Elems {
				v, _, _ := t.constValue(nil, e)
				vals[i] = literal(v, s.typ)
			}
		}
		fmt.Fprintf(w, "%s %s[%d] = {%s};\n", s.typ.c(), s.c, s.size, strings.Join(vals, ", "))
	}
	if len(t.mutexes) > 0 {
		w.WriteString("\n")
	}
	for _, d := range t.mutexes {
		s := t.top[d.Name.Name]
		if s.size == 0 {
			fmt.Fprintf(w, "pthread_mutex_t %s;\n", s.c)
		} else {
			fmt.Fprintf(w, "pthread_mutex_t %s[%d];\n", s.c, s.size)
		}
	}
	// The index probes: kbh_in<n>[i] is i for i in [0, n), and a bounds
	// violation otherwise, as a .kb index of a mutex array is. (The address
	// &ms[i] of an element outside would be an invalid dereference.)
	for _, n := range slices.Sorted(maps.Keys(t.inSizes)) {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprint(i)
		}
		fmt.Fprintf(w, "const int kbh_in%d[%d] = {%s};\n", n, n, strings.Join(vals, ", "))
	}
	w.WriteString("\n// The threads' handles, which main sets before any thread runs.\n")
	for _, d := range t.threads {
		s := t.top[d.Name.Name]
		if d.Count == nil {
			fmt.Fprintf(w, "pthread_t kbh_h_%s;\n", s.c)
		} else if s.size > 0 {
			fmt.Fprintf(w, "pthread_t kbh_h_%s[%d];\n", s.c, s.size)
		}
	}
	if t.needStep {
		w.WriteString(stepHelper)
	}
	if len(t.fnOrder) > 0 {
		w.WriteString("\n")
		for _, f := range t.fnOrder {
			fmt.Fprintf(w, "%s;\n", t.signature(f))
		}
		w.WriteString(fns.String())
	}
	w.WriteString(threads.String())
	// main creates every thread in one atomic step: none runs, or is joined,
	// before all exist, as in .kb, where all start in the initial state.
	w.WriteString("\nint main(void) {\n    __VERIFIER_atomic_begin();\n")
	for _, d := range t.threads {
		s := t.top[d.Name.Name]
		if d.Count == nil {
			fmt.Fprintf(w, "    pthread_create(&kbh_h_%s, 0, %s, (void *)0);\n", s.c, s.c)
			continue
		}
		for i := range s.size {
			fmt.Fprintf(w, "    pthread_create(&kbh_h_%s[%d], 0, %s, (void *)%d);\n", s.c, i, s.c, i)
		}
	}
	w.WriteString("    __VERIFIER_atomic_end();\n    return 0;\n}\n")
}

// prelude declares what the C form uses, so that it needs no header.
const prelude = `typedef unsigned long pthread_t;
typedef struct { int kbh_owner; } pthread_mutex_t;
extern int pthread_create(pthread_t *, void *, void *(*)(void *), void *);
extern int pthread_join(pthread_t, void **);
extern int pthread_mutex_lock(pthread_mutex_t *);
extern int pthread_mutex_unlock(pthread_mutex_t *);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);
extern _Bool __VERIFIER_nondet_bool(void);
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
`

// stepHelper is one step that does nothing: a yield, or an atomic block
// without statements, is a step of its own in .kb.
const stepHelper = `
static void kbh_step(void) {
    __VERIFIER_atomic_begin();
    int kbh_s = 0;
    __VERIFIER_atomic_end();
}
`

// signature is a function's C declarator; every function takes the calling
// thread's tid first, which .kb functions may read.
func (t *translator) signature(f *fnInfo) string {
	params := []string{"int tid"}
	for _, p := range f.params {
		params = append(params, typeOf(p.Type).c()+" "+paramName(t, p.Name.Name))
	}
	ret := "void"
	if !f.void {
		ret = f.result.c()
	}
	return fmt.Sprintf("%s %s(%s)", ret, f.c, strings.Join(params, ", "))
}

// paramName is the C name of a parameter or local: renamed when it would hide
// a top-level name.
func paramName(t *translator, name string) string {
	c := cName(name)
	if _, ok := t.top[name]; ok {
		return "kbl_" + c
	}
	return c
}

// emitFunc writes a function's definition.
func (t *translator) emitFunc(w *strings.Builder, f *fnInfo) {
	b := t.newBody(w, f)
	for _, p := range f.params {
		b.scopes[0][p.Name.Name] = &sym{kind: symLocal, c: paramName(t, p.Name.Name), typ: typeOf(p.Type)}
	}
	fmt.Fprintf(w, "\n%s {\n", t.signature(f))
	b.indent = 1
	if f.expr != nil {
		// An expression function is part of its caller's statement: its
		// evaluation is never a step of its own.
		x := b.expr(f.expr)
		b.flushTemps()
		b.lines(x.pre)
		b.line("return %s;", x.text)
	} else {
		// lang rejects a function with a result that may end without a
		// return, so control never falls off the end of the C function.
		b.stmts(f.decl.Body.List)
	}
	f.joins, f.called = b.joins, b.called
	w.WriteString("}\n")
}

// emitThread writes a thread template's start routine; main passes each
// instance its tid as the argument.
func (t *translator) emitThread(w *strings.Builder, d *syntax.ThreadDecl) {
	b := t.newBody(w, nil)
	b.instances = 1
	if d.Count != nil {
		b.instances = t.top[d.Name.Name].size
	}
	fmt.Fprintf(w, "\nvoid *%s(void *kbh_arg) {\n", t.top[d.Name.Name].c)
	b.indent = 1
	b.line("int tid = (int)(long)kbh_arg;")
	b.stmts(d.Body.List)
	b.line("return 0;")
	w.WriteString("}\n")
	// A thread that joins its own template waits for ever in .kb (it waits
	// for itself); pthread_join of oneself is an error in C.
	joins := b.joins
	seen := map[*fnInfo]bool{}
	var visit func(fs []*fnInfo)
	visit = func(fs []*fnInfo) {
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				joins = append(joins, f.joins...)
				visit(f.called)
			}
		}
	}
	visit(b.called)
	for _, j := range joins {
		if j.name == d.Name.Name {
			t.errorf(j.pos, "join of %s by a thread of %s: a thread that joins itself waits for ever in .kb, and fails in C", j.name, j.name)
		}
	}
}

// scanFunc computes an expression function's effects.
func (t *translator) scanFunc(f *fnInfo) {
	if f.scanned || f.scanning || f.expr == nil {
		return
	}
	f.scanning = true
	b := t.newBody(nil, f)
	for _, p := range f.params {
		b.scopes[0][p.Name.Name] = &sym{kind: symLocal, c: paramName(t, p.Name.Name), typ: typeOf(p.Type)}
	}
	f.visible, f.cas = b.visible(f.expr), b.hasCas(f.expr)
	f.scanning, f.scanned = false, true
}
