package lang

import (
	"fmt"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// typ is the type of an expression as the checker sees it.
type typ uint8

const (
	invalid typ = iota // the expression had an error; suppresses follow-up errors
	intType
	boolType
	voidType // a call of a function without result
)

func (t typ) String() string {
	switch t {
	case intType:
		return "int"
	case boolType:
		return "bool"
	case voidType:
		return "no value"
	}
	return "invalid type"
}

func (t typ) ir() ir.Type {
	if t == boolType {
		return ir.Bool
	}
	return ir.Int
}

func typeOf(t *syntax.TypeName) typ {
	if t != nil && t.Kind == syntax.BOOL {
		return boolType
	}
	return intType
}

// An object is what a name denotes.
type object interface {
	ident() *syntax.Ident
}

// constObj is a const declaration.
type constObj struct {
	id    *syntax.Ident
	decl  *syntax.ConstDecl
	state resolveState
	val   int64
	ok    bool // val is valid (no error in the declaration)
}

type resolveState uint8

const (
	unresolved resolveState = iota
	resolving
	resolved
)

// varObj is a variable: shared, a thread or function local, or a parameter.
type varObj struct {
	id     *syntax.Ident
	typ    typ
	size   int // 0 for a scalar, else the array length
	shared bool
	param  bool
	init   []int64 // shared: initial values (nil: all zero)
	decl   *syntax.VarDecl
	fn     *funcObj    // the function declaring it, nil in a thread body or for shared
	proc   *processObj // shared: the process whose memory it is, or nil
}

// mutexObj is a mutex declaration.
type mutexObj struct {
	id   *syntax.Ident
	decl *syntax.MutexDecl
	size int         // 0 for a single mutex
	proc *processObj // the process it belongs to, or nil
}

// funcObj is a function declaration.
type funcObj struct {
	id     *syntax.Ident
	decl   *syntax.FuncDecl
	params []*varObj
	result typ // voidType if none

	// exprBody is e when the body is exactly "return e;": an expression function,
	// callable anywhere an expression may stand.
	exprBody syntax.Expr

	calls []callSite // calls in the body, for the recursion check

	proc *processObj // the process it is declared in, or nil
}

type callSite struct {
	callee *funcObj
	call   *syntax.CallExpr
}

// threadObj is a thread declaration.
type threadObj struct {
	id    *syntax.Ident
	decl  *syntax.ThreadDecl
	count int         // 0 when declared without a count
	proc  *processObj // the process it belongs to, or nil
}

// processObj is a process declaration: its members are visible in its own
// bodies only.
type processObj struct {
	id    *syntax.Ident
	decl  *syntax.ProcessDecl
	count int // 0 when declared without a count
	names map[string]object
}

// name is the name of instance pid as traces show it: "node[1]", or "node" for a
// process declared without a count.
func (p *processObj) name(pid int) string {
	if p.count == 0 {
		return p.id.Name
	}
	return fmt.Sprintf("%s[%d]", p.id.Name, pid)
}

// instances is the number of instances the declaration stands for.
func (p *processObj) instances() int { return max(p.count, 1) }

// chanObj is a channel declaration.
type chanObj struct {
	id       *syntax.Ident
	decl     *syntax.ChanDecl
	size     int // 0 for a single channel
	fields   []typ
	capacity int
}

func (o *constObj) ident() *syntax.Ident   { return o.id }
func (o *varObj) ident() *syntax.Ident     { return o.id }
func (o *mutexObj) ident() *syntax.Ident   { return o.id }
func (o *funcObj) ident() *syntax.Ident    { return o.id }
func (o *threadObj) ident() *syntax.Ident  { return o.id }
func (o *processObj) ident() *syntax.Ident { return o.id }
func (o *chanObj) ident() *syntax.Ident    { return o.id }

// kindOf describes an object for messages: "mutex m", "thread t".
func kindOf(o object) string {
	switch o := o.(type) {
	case *constObj:
		return "constant"
	case *varObj:
		switch {
		case o.shared:
			return "shared variable"
		case o.param:
			return "parameter"
		}
		return "local variable"
	case *mutexObj:
		return "mutex"
	case *funcObj:
		return "function"
	case *threadObj:
		return "thread"
	case *processObj:
		return "process"
	case *chanObj:
		return "channel"
	}
	return "name"
}

// scope is a block scope of a thread or function body. The file scope is not a
// scope value: it is the checker's global map, consulted when the chain ends.
type scope struct {
	parent *scope
	names  map[string]*varObj
}

func (s *scope) lookup(name string) *varObj {
	for ; s != nil; s = s.parent {
		if v, ok := s.names[name]; ok {
			return v
		}
	}
	return nil
}

// operand is what the checker knows about an expression.
type operand struct {
	typ     typ
	isConst bool
	val     int64 // if isConst; a bool as 0 or 1
	// constErr is set when the expression would be constant but its evaluation
	// fails (a division by zero); it is reported if a constant is required.
	constErr string
}
