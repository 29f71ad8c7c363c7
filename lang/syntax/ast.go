package syntax

import (
	"cmp"
	"slices"
	"strings"
)

// A Node is any node of the syntax tree. Pos is its first character; End is the
// position just after its last character (a statement's End excludes its ";").
type Node interface {
	Pos() Pos
	End() Pos
}

// An Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// A Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// A Decl is a top-level declaration.
type Decl interface {
	Node
	declNode()
}

// after returns the position just after a token of n bytes starting at p. Tokens
// never span lines, so the column moves with the offset.
func after(p Pos, n int) Pos {
	if !p.IsValid() {
		return p
	}
	return Pos{Offset: p.Offset + n, Line: p.Line, Col: p.Col + n}
}

// ---------------------------------------------------------------------------
// Expressions

type (
	// BadExpr stands for an expression that failed to parse.
	BadExpr struct{ From, To Pos }

	// Ident is a name.
	Ident struct {
		NamePos Pos
		Name    string
	}

	// IntLit is a decimal or hexadecimal integer literal. Value is its magnitude;
	// Overflow reports that it does not even fit in 64 bits.
	IntLit struct {
		ValuePos Pos
		Lit      string
		Value    uint64
		Overflow bool
	}

	// BoolLit is true or false.
	BoolLit struct {
		ValuePos Pos
		Value    bool
	}

	// StringLit is a string literal; it only occurs as an assert message.
	StringLit struct {
		ValuePos Pos
		Lit      string // as written, with quotes
		Value    string // unquoted
	}

	// TidExpr is the instance index tid.
	TidExpr struct{ TidPos Pos }

	// PidExpr is the process instance index pid.
	PidExpr struct{ PidPos Pos }

	// LenExpr is len(c): the number of messages in a channel; the checker
	// validates Args.
	LenExpr struct {
		Len    Pos
		Lparen Pos
		Args   []Expr
		Rparen Pos
	}

	// ParenExpr is (X).
	ParenExpr struct {
		Lparen Pos
		X      Expr
		Rparen Pos
	}

	// IndexExpr is X[Index]; only names can be indexed.
	IndexExpr struct {
		X      *Ident
		Lbrack Pos
		Index  Expr
		Rbrack Pos
	}

	// CallExpr is a call of a declared function.
	CallExpr struct {
		Fun    *Ident
		Lparen Pos
		Args   []Expr
		Rparen Pos
	}

	// NondetExpr is nondet() or nondet(lo, hi); the checker validates Args.
	NondetExpr struct {
		Nondet Pos
		Lparen Pos
		Args   []Expr
		Rparen Pos
	}

	// CasExpr is cas(target, expected, new); the checker validates Args.
	CasExpr struct {
		Cas    Pos
		Lparen Pos
		Args   []Expr
		Rparen Pos
	}

	// UnaryExpr is -X, !X or ~X.
	UnaryExpr struct {
		OpPos Pos
		Op    Token
		X     Expr
	}

	// BinaryExpr is X Op Y.
	BinaryExpr struct {
		X     Expr
		OpPos Pos
		Op    Token
		Y     Expr
	}

	// CondExpr is Cond ? X : Y.
	CondExpr struct {
		Cond     Expr
		Question Pos
		X        Expr
		Colon    Pos
		Y        Expr
	}

	// MemberExpr is Proc.Member, Proc[Index].Member or either with
	// [MIndex] after the member: a variable of a process instance's memory,
	// read from outside the process. It only occurs in an invariant.
	MemberExpr struct {
		Proc    *Ident
		Lbrack  Pos
		Index   Expr // nil for a process declared without a count
		Rbrack  Pos
		Dot     Pos
		Member  *Ident
		MLbrack Pos
		MIndex  Expr // nil for a scalar member
		MRbrack Pos
	}

	// QuantExpr is forall Var in Lo..Hi: Body or exists Var in Lo..Hi: Body,
	// the conjunction or disjunction of Body over Var = Lo, …, Hi. The body
	// extends as far as possible. It only occurs in an invariant.
	QuantExpr struct {
		Quant  Pos
		Exists bool // exists; false: forall
		Var    *Ident
		In     Pos
		Lo     Expr
		DotDot Pos
		Hi     Expr
		Colon  Pos
		Body   Expr
	}

	// InitList is {e, …}; it only occurs as the initialiser of an array.
	InitList struct {
		Lbrace Pos
		Elems  []Expr
		Rbrace Pos
	}
)

func (x *BadExpr) Pos() Pos    { return x.From }
func (x *Ident) Pos() Pos      { return x.NamePos }
func (x *IntLit) Pos() Pos     { return x.ValuePos }
func (x *BoolLit) Pos() Pos    { return x.ValuePos }
func (x *StringLit) Pos() Pos  { return x.ValuePos }
func (x *TidExpr) Pos() Pos    { return x.TidPos }
func (x *PidExpr) Pos() Pos    { return x.PidPos }
func (x *LenExpr) Pos() Pos    { return x.Len }
func (x *ParenExpr) Pos() Pos  { return x.Lparen }
func (x *IndexExpr) Pos() Pos  { return x.X.Pos() }
func (x *CallExpr) Pos() Pos   { return x.Fun.Pos() }
func (x *NondetExpr) Pos() Pos { return x.Nondet }
func (x *CasExpr) Pos() Pos    { return x.Cas }
func (x *UnaryExpr) Pos() Pos  { return x.OpPos }
func (x *BinaryExpr) Pos() Pos { return x.X.Pos() }
func (x *CondExpr) Pos() Pos   { return x.Cond.Pos() }
func (x *InitList) Pos() Pos   { return x.Lbrace }
func (x *MemberExpr) Pos() Pos { return x.Proc.Pos() }
func (x *QuantExpr) Pos() Pos  { return x.Quant }

func (x *BadExpr) End() Pos { return x.To }
func (x *Ident) End() Pos   { return after(x.NamePos, len(x.Name)) }
func (x *IntLit) End() Pos  { return after(x.ValuePos, len(x.Lit)) }
func (x *BoolLit) End() Pos {
	if x.Value {
		return after(x.ValuePos, len("true"))
	}
	return after(x.ValuePos, len("false"))
}
func (x *StringLit) End() Pos  { return after(x.ValuePos, len(x.Lit)) }
func (x *TidExpr) End() Pos    { return after(x.TidPos, len("tid")) }
func (x *PidExpr) End() Pos    { return after(x.PidPos, len("pid")) }
func (x *LenExpr) End() Pos    { return after(x.Rparen, 1) }
func (x *ParenExpr) End() Pos  { return after(x.Rparen, 1) }
func (x *IndexExpr) End() Pos  { return after(x.Rbrack, 1) }
func (x *CallExpr) End() Pos   { return after(x.Rparen, 1) }
func (x *NondetExpr) End() Pos { return after(x.Rparen, 1) }
func (x *CasExpr) End() Pos    { return after(x.Rparen, 1) }
func (x *UnaryExpr) End() Pos  { return x.X.End() }
func (x *MemberExpr) End() Pos {
	if x.MIndex != nil {
		return after(x.MRbrack, 1)
	}
	return x.Member.End()
}
func (x *QuantExpr) End() Pos  { return x.Body.End() }
func (x *BinaryExpr) End() Pos { return x.Y.End() }
func (x *CondExpr) End() Pos   { return x.Y.End() }
func (x *InitList) End() Pos   { return after(x.Rbrace, 1) }

func (*BadExpr) exprNode()    {}
func (*Ident) exprNode()      {}
func (*IntLit) exprNode()     {}
func (*BoolLit) exprNode()    {}
func (*StringLit) exprNode()  {}
func (*TidExpr) exprNode()    {}
func (*PidExpr) exprNode()    {}
func (*LenExpr) exprNode()    {}
func (*ParenExpr) exprNode()  {}
func (*IndexExpr) exprNode()  {}
func (*CallExpr) exprNode()   {}
func (*NondetExpr) exprNode() {}
func (*CasExpr) exprNode()    {}
func (*UnaryExpr) exprNode()  {}
func (*BinaryExpr) exprNode() {}
func (*CondExpr) exprNode()   {}
func (*InitList) exprNode()   {}
func (*MemberExpr) exprNode() {}
func (*QuantExpr) exprNode()  {}

// Unparen returns e with any enclosing parentheses removed.
func Unparen(e Expr) Expr {
	for {
		p, ok := e.(*ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// ---------------------------------------------------------------------------
// Types

// TypeName is one of the two types, int or bool.
type TypeName struct {
	TypePos Pos
	Kind    Token // INT or BOOL
}

func (t *TypeName) Pos() Pos { return t.TypePos }
func (t *TypeName) End() Pos { return after(t.TypePos, len(t.Kind.String())) }

// ---------------------------------------------------------------------------
// Statements

type (
	// BadStmt stands for a statement that failed to parse.
	BadStmt struct{ From, To Pos }

	// EmptyStmt is a lone ";".
	EmptyStmt struct{ Semi Pos }

	// BlockStmt is { List }.
	BlockStmt struct {
		Lbrace Pos
		List   []Stmt
		Rbrace Pos
	}

	// VarDecl declares a variable: a shared one at top level (Shared is the
	// position of the keyword) or a local one in a body (Shared is invalid).
	// Size is nil for a scalar; Init is nil, an expression, or an *InitList.
	VarDecl struct {
		Shared Pos
		Type   *TypeName
		Name   *Ident
		Lbrack Pos
		Size   Expr
		Rbrack Pos
		Init   Expr
	}

	// AssignStmt is LHS Tok RHS with Tok one of =, +=, -=.
	AssignStmt struct {
		LHS    Expr
		TokPos Pos
		Tok    Token
		RHS    Expr
	}

	// IncDecStmt is X++ or X--.
	IncDecStmt struct {
		X      Expr
		TokPos Pos
		Tok    Token // INC or DEC
	}

	// ExprStmt is an expression used as a statement: a call or a cas.
	ExprStmt struct{ X Expr }

	// IfStmt is if (Cond) Then [else Else].
	IfStmt struct {
		If     Pos
		Cond   Expr
		Rparen Pos
		Then   Stmt
		Else   Stmt // nil, *BlockStmt, *IfStmt or another statement
	}

	// WhileStmt is while (Cond) Body.
	WhileStmt struct {
		While  Pos
		Cond   Expr
		Rparen Pos
		Body   Stmt
	}

	// ForStmt is for (Init; Cond; Post) Body; each of the three may be nil.
	ForStmt struct {
		For    Pos
		Init   Stmt
		Cond   Expr
		Post   Stmt
		Rparen Pos
		Body   Stmt
	}

	// BranchStmt is break or continue.
	BranchStmt struct {
		TokPos Pos
		Tok    Token
	}

	// ReturnStmt is return [Result].
	ReturnStmt struct {
		Return Pos
		Result Expr
	}

	// AssertStmt is assert(Cond [, Msg]).
	AssertStmt struct {
		Assert Pos
		Cond   Expr
		Msg    *StringLit
		Rparen Pos
	}

	// GuardStmt is assume(Cond) or await(Cond).
	GuardStmt struct {
		TokPos Pos
		Tok    Token // ASSUME or AWAIT
		Cond   Expr
		Rparen Pos
	}

	// LockStmt is lock(Mutex) or unlock(Mutex).
	LockStmt struct {
		TokPos Pos
		Tok    Token // LOCK or UNLOCK
		Mutex  Expr
		Rparen Pos
	}

	// JoinStmt is join(Thread).
	JoinStmt struct {
		Join   Pos
		Thread Expr
		Rparen Pos
	}

	// YieldStmt is yield.
	YieldStmt struct{ Yield Pos }

	// ChanStmt is send(c, e…), recv(c, lv…) [ok(lv)] or close(c): Args[0]
	// names the channel; the checker validates Args. OK, for a recv, is where
	// "ok(b)" stores whether a message was taken (false: the channel is
	// closed and empty).
	ChanStmt struct {
		TokPos Pos
		Tok    Token // SEND, RECV or CLOSE
		Lparen Pos
		Args   []Expr
		Rparen Pos
		OKPos  Pos  // of "ok", or invalid
		OK     Expr // nil without ok(…)
		OKEnd  Pos  // of ok's ")"
	}

	// AtomicStmt is atomic Body.
	AtomicStmt struct {
		Atomic Pos
		Body   *BlockStmt
	}

	// SelectStmt is select { case send(…): … case recv(…): … default: … }:
	// one of the channel operations that can proceed, then its clause's
	// statements.
	SelectStmt struct {
		Select  Pos
		Clauses []*CommClause
		Rbrace  Pos
	}

	// CommClause is one clause of a select: "case Comm: Body" or, with Comm
	// nil, "default: Body". Body's braces are the colon and the end of the
	// clause (its statements are written without braces).
	CommClause struct {
		Case Pos // of "case" or "default"
		Comm *ChanStmt
		// When is the case's condition, "when (e)" after its operation: the
		// case is considered only while it holds. nil: always.
		WhenPos Pos
		When    Expr
		Body    *BlockStmt
	}

	// EndStmt is "end: Stmt": a statement a thread may wait at for ever, as a
	// valid end of a run (SPIN's end labels).
	EndStmt struct {
		EndPos Pos // of "end"
		Stmt   Stmt
	}
)

func (s *BadStmt) Pos() Pos    { return s.From }
func (s *EmptyStmt) Pos() Pos  { return s.Semi }
func (s *BlockStmt) Pos() Pos  { return s.Lbrace }
func (s *AssignStmt) Pos() Pos { return s.LHS.Pos() }
func (s *IncDecStmt) Pos() Pos { return s.X.Pos() }
func (s *ExprStmt) Pos() Pos   { return s.X.Pos() }
func (s *IfStmt) Pos() Pos     { return s.If }
func (s *WhileStmt) Pos() Pos  { return s.While }
func (s *ForStmt) Pos() Pos    { return s.For }
func (s *BranchStmt) Pos() Pos { return s.TokPos }
func (s *ReturnStmt) Pos() Pos { return s.Return }
func (s *AssertStmt) Pos() Pos { return s.Assert }
func (s *GuardStmt) Pos() Pos  { return s.TokPos }
func (s *LockStmt) Pos() Pos   { return s.TokPos }
func (s *JoinStmt) Pos() Pos   { return s.Join }
func (s *YieldStmt) Pos() Pos  { return s.Yield }
func (s *ChanStmt) Pos() Pos   { return s.TokPos }
func (s *AtomicStmt) Pos() Pos { return s.Atomic }
func (s *EndStmt) Pos() Pos    { return s.EndPos }
func (s *SelectStmt) Pos() Pos { return s.Select }
func (c *CommClause) Pos() Pos { return c.Case }

func (s *VarDecl) Pos() Pos {
	if s.Shared.IsValid() {
		return s.Shared
	}
	return s.Type.Pos()
}

func (s *BadStmt) End() Pos    { return s.To }
func (s *EmptyStmt) End() Pos  { return s.Semi }
func (s *BlockStmt) End() Pos  { return after(s.Rbrace, 1) }
func (s *AssignStmt) End() Pos { return s.RHS.End() }
func (s *IncDecStmt) End() Pos { return after(s.TokPos, 2) }
func (s *ExprStmt) End() Pos   { return s.X.End() }
func (s *IfStmt) End() Pos {
	if s.Else != nil {
		return s.Else.End()
	}
	return s.Then.End()
}
func (s *WhileStmt) End() Pos  { return s.Body.End() }
func (s *ForStmt) End() Pos    { return s.Body.End() }
func (s *BranchStmt) End() Pos { return after(s.TokPos, len(s.Tok.String())) }
func (s *ReturnStmt) End() Pos {
	if s.Result != nil {
		return s.Result.End()
	}
	return after(s.Return, len("return"))
}
func (s *AssertStmt) End() Pos { return after(s.Rparen, 1) }
func (s *GuardStmt) End() Pos  { return after(s.Rparen, 1) }
func (s *LockStmt) End() Pos   { return after(s.Rparen, 1) }
func (s *JoinStmt) End() Pos   { return after(s.Rparen, 1) }
func (s *YieldStmt) End() Pos  { return after(s.Yield, len("yield")) }
func (s *ChanStmt) End() Pos {
	if s.OK != nil {
		return after(s.OKEnd, 1)
	}
	return after(s.Rparen, 1)
}
func (s *AtomicStmt) End() Pos { return s.Body.End() }
func (s *EndStmt) End() Pos    { return s.Stmt.End() }
func (s *SelectStmt) End() Pos { return after(s.Rbrace, 1) }
func (c *CommClause) End() Pos { return c.Body.Rbrace }

func (s *VarDecl) End() Pos {
	switch {
	case s.Init != nil:
		return s.Init.End()
	case s.Size != nil:
		return after(s.Rbrack, 1)
	}
	return s.Name.End()
}

func (*BadStmt) stmtNode()    {}
func (*EmptyStmt) stmtNode()  {}
func (*BlockStmt) stmtNode()  {}
func (*VarDecl) stmtNode()    {}
func (*AssignStmt) stmtNode() {}
func (*IncDecStmt) stmtNode() {}
func (*ExprStmt) stmtNode()   {}
func (*IfStmt) stmtNode()     {}
func (*WhileStmt) stmtNode()  {}
func (*ForStmt) stmtNode()    {}
func (*BranchStmt) stmtNode() {}
func (*ReturnStmt) stmtNode() {}
func (*AssertStmt) stmtNode() {}
func (*GuardStmt) stmtNode()  {}
func (*LockStmt) stmtNode()   {}
func (*JoinStmt) stmtNode()   {}
func (*YieldStmt) stmtNode()  {}
func (*ChanStmt) stmtNode()   {}
func (*AtomicStmt) stmtNode() {}
func (*EndStmt) stmtNode()    {}
func (*SelectStmt) stmtNode() {}

// ---------------------------------------------------------------------------
// Declarations

type (
	// BadDecl stands for a declaration that failed to parse.
	BadDecl struct{ From, To Pos }

	// ConstDecl is const Name = Value.
	ConstDecl struct {
		Const Pos
		Name  *Ident
		Value Expr
	}

	// MutexDecl is mutex Name [Size].
	MutexDecl struct {
		Mutex  Pos
		Name   *Ident
		Lbrack Pos
		Size   Expr // nil for a single mutex
		Rbrack Pos
	}

	// Param is one parameter of a function.
	Param struct {
		Type *TypeName
		Name *Ident
	}

	// FuncDecl is func Name(Params) [Result] Body.
	FuncDecl struct {
		Func   Pos
		Name   *Ident
		Params []*Param
		Result *TypeName // nil if the function returns nothing
		Body   *BlockStmt
	}

	// ThreadDecl is thread Name [Count] Body.
	ThreadDecl struct {
		Thread Pos
		Name   *Ident
		Lbrack Pos
		Count  Expr // nil for a single instance
		Rbrack Pos
		Body   *BlockStmt
	}

	// ChanDecl is chan (Fields) Name [Size] capacity Cap.
	ChanDecl struct {
		Chan     Pos
		Lparen   Pos
		Fields   []*TypeName
		Rparen   Pos
		Name     *Ident
		Lbrack   Pos
		Size     Expr // nil for a single channel
		Rbrack   Pos
		Capacity Pos
		Cap      Expr
		// Lossy and Unordered are the positions of the attributes after the
		// capacity (invalid when absent).
		Lossy, Unordered Pos
	}

	// InvariantDecl is invariant Name: X; a condition every reachable state
	// must satisfy. invariant is no keyword: a declaration that starts with
	// the name invariant is one.
	InvariantDecl struct {
		Invariant Pos
		Name      *Ident
		Colon     Pos
		X         Expr
	}

	// ProcessDecl is process Name [Count] { Decls }: the shared variables,
	// mutexes, functions and threads of one process template.
	ProcessDecl struct {
		Process Pos
		Name    *Ident
		Lbrack  Pos
		Count   Expr // nil for a single instance
		Rbrack  Pos
		Lbrace  Pos
		Decls   []Decl
		Rbrace  Pos
	}
)

func (d *BadDecl) Pos() Pos       { return d.From }
func (d *ConstDecl) Pos() Pos     { return d.Const }
func (d *MutexDecl) Pos() Pos     { return d.Mutex }
func (d *FuncDecl) Pos() Pos      { return d.Func }
func (d *ThreadDecl) Pos() Pos    { return d.Thread }
func (d *ChanDecl) Pos() Pos      { return d.Chan }
func (d *ProcessDecl) Pos() Pos   { return d.Process }
func (d *InvariantDecl) Pos() Pos { return d.Invariant }
func (d *Param) Pos() Pos         { return d.Type.Pos() }

func (d *BadDecl) End() Pos   { return d.To }
func (d *ConstDecl) End() Pos { return d.Value.End() }
func (d *MutexDecl) End() Pos {
	if d.Size != nil {
		return after(d.Rbrack, 1)
	}
	return d.Name.End()
}
func (d *FuncDecl) End() Pos   { return d.Body.End() }
func (d *ThreadDecl) End() Pos { return d.Body.End() }
func (d *ChanDecl) End() Pos {
	last := d.Cap.End()
	for _, a := range [...]struct {
		at   Pos
		name string
	}{{d.Lossy, "lossy"}, {d.Unordered, "unordered"}} {
		if a.at.IsValid() && a.at.Offset >= last.Offset {
			last = after(a.at, len(a.name))
		}
	}
	return last
}
func (d *ProcessDecl) End() Pos   { return after(d.Rbrace, 1) }
func (d *InvariantDecl) End() Pos { return d.X.End() }
func (d *Param) End() Pos         { return d.Name.End() }

func (*BadDecl) declNode()       {}
func (*ConstDecl) declNode()     {}
func (*VarDecl) declNode()       {}
func (*MutexDecl) declNode()     {}
func (*FuncDecl) declNode()      {}
func (*ThreadDecl) declNode()    {}
func (*ChanDecl) declNode()      {}
func (*ProcessDecl) declNode()   {}
func (*InvariantDecl) declNode() {}

// ---------------------------------------------------------------------------
// Files

// A File is a parsed source file.
type File struct {
	Name     string
	Src      []byte
	Decls    []Decl
	Comments []Span
}

// Pos is the start of the file.
func (f *File) Pos() Pos {
	return Pos{Offset: 0, Line: 1, Col: 1}
}

// End is the end of its last declaration.
func (f *File) End() Pos {
	if len(f.Decls) == 0 {
		return f.Pos()
	}
	return f.Decls[len(f.Decls)-1].End()
}

// Position converts p to a printable position in f.
func (f *File) Position(p Pos) Position {
	return Position{Filename: f.Name, Line: p.Line, Col: p.Col}
}

// LineAt returns the source line that holds byte offset off, without its line break.
func (f *File) LineAt(off int) string {
	if off < 0 || off > len(f.Src) {
		return ""
	}
	start := off
	for start > 0 && f.Src[start-1] != '\n' {
		start--
	}
	end := off
	for end < len(f.Src) && f.Src[end] != '\n' {
		end++
	}
	return strings.TrimSuffix(string(f.Src[start:end]), "\r")
}

// NewError returns an error at p in f, with the source line for the caret display.
func (f *File) NewError(p Pos, msg string) *Error {
	if !p.IsValid() {
		return &Error{Pos: Position{Filename: f.Name}, Msg: msg}
	}
	return &Error{Pos: f.Position(p), Msg: msg, Source: f.LineAt(p.Offset)}
}

// Text returns the source text from from to to as one line: comments are removed,
// each run of white space becomes a single space (none just inside brackets or
// before "," and ";"), and string literals are kept as written. It is how traces
// show a statement or a condition.
func (f *File) Text(from, to Pos) string {
	a, b := from.Offset, to.Offset
	if a < 0 || b > len(f.Src) || a > b {
		return ""
	}
	var sb strings.Builder
	space := false
	for i := a; i < b; {
		if c, ok := f.commentAt(i); ok {
			i = c.To
			space = true
			continue
		}
		ch := f.Src[i]
		if ch == '"' {
			// A string literal is copied as written, white space included.
			j := i + 1
			for j < b && f.Src[j] != '"' && f.Src[j] != '\n' {
				if f.Src[j] == '\\' && j+1 < b {
					j++
				}
				j++
			}
			if j < b && f.Src[j] == '"' {
				j++
			}
			if space && sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			space = false
			sb.Write(f.Src[i:j])
			i = j
			continue
		}
		i++
		if isSpace(rune(ch)) {
			space = true
			continue
		}
		if space && sb.Len() > 0 && !tight(sb.String()[sb.Len()-1], ch) {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteByte(ch)
	}
	return sb.String()
}

// tight reports whether no space belongs between prev and next: inside
// brackets and before a comma or semicolon.
func tight(prev, next byte) bool {
	switch {
	case prev == '(' || prev == '[':
		return true
	case next == ')' || next == ']' || next == ',' || next == ';':
		return true
	}
	return false
}

// commentAt returns the comment that starts at offset off, if any.
func (f *File) commentAt(off int) (Span, bool) {
	i, ok := slices.BinarySearchFunc(f.Comments, off, func(c Span, off int) int { return cmp.Compare(c.From, off) })
	if !ok {
		return Span{}, false
	}
	return f.Comments[i], true
}
