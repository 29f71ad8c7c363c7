package syntax

import (
	"strings"
)

// Print renders a node as canonical source: one statement per line, tab
// indentation, single spaces around binary operators. Parentheses appear exactly
// where the tree has a ParenExpr, so printing a parsed file and parsing the
// result again gives the same tree.
func Print(n Node) string {
	var p printer
	p.node(n)
	return p.String()
}

// ExprString renders an expression on one line, for error messages.
func ExprString(x Expr) string { return Print(x) }

type printer struct {
	strings.Builder
	indent int
}

func (p *printer) newline() {
	p.WriteByte('\n')
	for range p.indent {
		p.WriteByte('\t')
	}
}

func (p *printer) node(n Node) {
	switch n := n.(type) {
	case *File:
		p.file(n)
	case Decl:
		p.decl(n)
	case Stmt:
		p.stmt(n)
	case Expr:
		p.expr(n)
	case *TypeName:
		p.WriteString(n.Kind.String())
	case *Param:
		p.WriteString(n.Type.Kind.String())
		p.WriteByte(' ')
		p.WriteString(n.Name.Name)
	}
}

func (p *printer) file(f *File) {
	for i, d := range f.Decls {
		if i > 0 {
			p.WriteByte('\n')
		}
		p.decl(d)
		p.WriteByte('\n')
	}
}

func (p *printer) decl(d Decl) {
	switch d := d.(type) {
	case *BadDecl:
		p.WriteString("<bad declaration>")
	case *ConstDecl:
		p.WriteString("const ")
		p.WriteString(d.Name.Name)
		p.WriteString(" = ")
		p.expr(d.Value)
		p.WriteByte(';')
	case *VarDecl:
		p.varDecl(d)
		p.WriteByte(';')
	case *MutexDecl:
		p.WriteString("mutex ")
		p.WriteString(d.Name.Name)
		p.size(d.Size)
		p.WriteByte(';')
	case *FuncDecl:
		p.WriteString("func ")
		p.WriteString(d.Name.Name)
		p.WriteByte('(')
		for i, par := range d.Params {
			if i > 0 {
				p.WriteString(", ")
			}
			p.node(par)
		}
		p.WriteByte(')')
		if d.Result != nil {
			p.WriteByte(' ')
			p.WriteString(d.Result.Kind.String())
		}
		p.WriteByte(' ')
		p.block(d.Body)
	case *ThreadDecl:
		p.WriteString("thread ")
		p.WriteString(d.Name.Name)
		p.size(d.Count)
		p.WriteByte(' ')
		p.block(d.Body)
	case *ChanDecl:
		p.WriteString("chan (")
		for i, t := range d.Fields {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(t.Kind.String())
		}
		p.WriteString(") ")
		p.WriteString(d.Name.Name)
		p.size(d.Size)
		p.WriteString(" capacity ")
		p.expr(d.Cap)
		if d.Lossy.IsValid() {
			p.WriteString(" lossy")
		}
		if d.Unordered.IsValid() {
			p.WriteString(" unordered")
		}
		p.WriteByte(';')
	case *InvariantDecl:
		p.WriteString("invariant ")
		p.WriteString(d.Name.Name)
		p.WriteString(": ")
		p.expr(d.X)
		p.WriteByte(';')
	case *ProcessDecl:
		p.WriteString("process ")
		p.WriteString(d.Name.Name)
		p.size(d.Count)
		p.WriteString(" {")
		p.indent++
		for _, x := range d.Decls {
			p.newline()
			p.decl(x)
		}
		p.indent--
		p.newline()
		p.WriteByte('}')
	}
}

func (p *printer) varDecl(d *VarDecl) {
	if d.Shared.IsValid() {
		p.WriteString("shared ")
	}
	p.WriteString(d.Type.Kind.String())
	p.WriteByte(' ')
	p.WriteString(d.Name.Name)
	p.size(d.Size)
	if d.Init != nil {
		p.WriteString(" = ")
		p.expr(d.Init)
	}
}

// size prints the "[n]" of an array, mutex array or thread declaration, if any.
func (p *printer) size(n Expr) {
	if n != nil {
		p.WriteByte('[')
		p.expr(n)
		p.WriteByte(']')
	}
}

func (p *printer) block(b *BlockStmt) {
	if b == nil {
		p.WriteString("{}")
		return
	}
	p.WriteByte('{')
	if len(b.List) > 0 {
		p.indent++
		for _, s := range b.List {
			p.newline()
			p.stmt(s)
		}
		p.indent--
		p.newline()
	}
	p.WriteByte('}')
}

// body prints the body of an if, else, while or for: a block on the same line,
// another statement indented on the next line.
func (p *printer) body(s Stmt) {
	if b, ok := s.(*BlockStmt); ok {
		p.WriteByte(' ')
		p.block(b)
		return
	}
	p.indent++
	p.newline()
	p.stmt(s)
	p.indent--
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *BadStmt:
		p.WriteString("<bad statement>;")
	case *EmptyStmt:
		p.WriteByte(';')
	case *BlockStmt:
		p.block(s)
	case *IfStmt:
		p.WriteString("if (")
		p.expr(s.Cond)
		p.WriteByte(')')
		p.body(s.Then)
		if s.Else != nil {
			if _, ok := s.Then.(*BlockStmt); ok {
				p.WriteByte(' ')
			} else {
				p.newline()
			}
			p.WriteString("else")
			if elif, ok := s.Else.(*IfStmt); ok {
				p.WriteByte(' ')
				p.stmt(elif)
			} else {
				p.body(s.Else)
			}
		}
	case *WhileStmt:
		p.WriteString("while (")
		p.expr(s.Cond)
		p.WriteByte(')')
		p.body(s.Body)
	case *ForStmt:
		p.WriteString("for (")
		if s.Init != nil {
			p.simpleStmt(s.Init)
		}
		p.WriteByte(';')
		if s.Cond != nil {
			p.WriteByte(' ')
			p.expr(s.Cond)
		}
		p.WriteByte(';')
		if s.Post != nil {
			p.WriteByte(' ')
			p.simpleStmt(s.Post)
		}
		p.WriteByte(')')
		p.body(s.Body)
	case *AtomicStmt:
		p.WriteString("atomic ")
		p.block(s.Body)
	case *EndStmt:
		p.WriteString("end: ")
		p.stmt(s.Stmt)
	case *SelectStmt:
		p.WriteString("select {")
		for _, c := range s.Clauses {
			p.newline()
			if c.Comm != nil {
				p.WriteString("case ")
				p.simpleStmt(c.Comm)
				if c.When != nil {
					p.WriteString(" when (")
					p.expr(c.When)
					p.WriteByte(')')
				}
			} else {
				p.WriteString("default")
			}
			p.WriteByte(':')
			p.indent++
			for _, b := range c.Body.List {
				p.newline()
				p.stmt(b)
			}
			p.indent--
		}
		p.newline()
		p.WriteByte('}')
	default:
		p.simpleStmt(s)
		p.WriteByte(';')
	}
}

// simpleStmt prints a statement that ends with ";", without the ";".
func (p *printer) simpleStmt(s Stmt) {
	switch s := s.(type) {
	case *VarDecl:
		p.varDecl(s)
	case *AssignStmt:
		p.expr(s.LHS)
		p.WriteByte(' ')
		p.WriteString(s.Tok.String())
		p.WriteByte(' ')
		p.expr(s.RHS)
	case *IncDecStmt:
		p.expr(s.X)
		p.WriteString(s.Tok.String())
	case *ExprStmt:
		p.expr(s.X)
	case *BranchStmt:
		p.WriteString(s.Tok.String())
	case *ReturnStmt:
		p.WriteString("return")
		if s.Result != nil {
			p.WriteByte(' ')
			p.expr(s.Result)
		}
	case *AssertStmt:
		p.WriteString("assert(")
		p.expr(s.Cond)
		if s.Msg != nil {
			p.WriteString(", ")
			p.WriteString(s.Msg.Lit)
		}
		p.WriteByte(')')
	case *GuardStmt:
		p.WriteString(s.Tok.String())
		p.WriteByte('(')
		p.expr(s.Cond)
		p.WriteByte(')')
	case *LockStmt:
		p.WriteString(s.Tok.String())
		p.WriteByte('(')
		p.expr(s.Mutex)
		p.WriteByte(')')
	case *JoinStmt:
		p.WriteString("join(")
		p.expr(s.Thread)
		p.WriteByte(')')
	case *YieldStmt:
		p.WriteString("yield")
	case *ChanStmt:
		p.WriteString(s.Tok.String())
		p.WriteByte('(')
		p.exprList(s.Args)
		p.WriteByte(')')
		if s.OK != nil {
			p.WriteString(" ok(")
			p.expr(s.OK)
			p.WriteByte(')')
		}
	default:
		p.stmt(s)
	}
}

func (p *printer) exprList(list []Expr) {
	for i, x := range list {
		if i > 0 {
			p.WriteString(", ")
		}
		p.expr(x)
	}
}

func (p *printer) expr(x Expr) {
	switch x := x.(type) {
	case nil:
	case *BadExpr:
		p.WriteString("<bad expression>")
	case *Ident:
		p.WriteString(x.Name)
	case *IntLit:
		p.WriteString(x.Lit)
	case *BoolLit:
		if x.Value {
			p.WriteString("true")
		} else {
			p.WriteString("false")
		}
	case *StringLit:
		p.WriteString(x.Lit)
	case *TidExpr:
		p.WriteString("tid")
	case *PidExpr:
		p.WriteString("pid")
	case *LenExpr:
		p.WriteString("len(")
		p.exprList(x.Args)
		p.WriteByte(')')
	case *ParenExpr:
		p.WriteByte('(')
		p.expr(x.X)
		p.WriteByte(')')
	case *IndexExpr:
		p.WriteString(x.X.Name)
		p.WriteByte('[')
		p.expr(x.Index)
		p.WriteByte(']')
	case *CallExpr:
		p.WriteString(x.Fun.Name)
		p.WriteByte('(')
		p.exprList(x.Args)
		p.WriteByte(')')
	case *NondetExpr:
		p.WriteString("nondet(")
		p.exprList(x.Args)
		p.WriteByte(')')
	case *CasExpr:
		p.WriteString("cas(")
		p.exprList(x.Args)
		p.WriteByte(')')
	case *UnaryExpr:
		p.WriteString(x.Op.String())
		if u, ok := x.X.(*UnaryExpr); ok && u.Op == x.Op && x.Op == SUB {
			p.WriteByte(' ') // "- -x", not the decrement "--x"
		}
		p.expr(x.X)
	case *BinaryExpr:
		p.expr(x.X)
		p.WriteByte(' ')
		p.WriteString(x.Op.String())
		p.WriteByte(' ')
		p.expr(x.Y)
	case *CondExpr:
		p.expr(x.Cond)
		p.WriteString(" ? ")
		p.expr(x.X)
		p.WriteString(" : ")
		p.expr(x.Y)
	case *MemberExpr:
		p.WriteString(x.Proc.Name)
		if x.Index != nil {
			p.WriteByte('[')
			p.expr(x.Index)
			p.WriteByte(']')
		}
		p.WriteByte('.')
		p.WriteString(x.Member.Name)
		if x.MIndex != nil {
			p.WriteByte('[')
			p.expr(x.MIndex)
			p.WriteByte(']')
		}
	case *QuantExpr:
		if x.Exists {
			p.WriteString("exists ")
		} else {
			p.WriteString("forall ")
		}
		p.WriteString(x.Var.Name)
		p.WriteString(" in ")
		p.expr(x.Lo)
		p.WriteString("..")
		p.expr(x.Hi)
		p.WriteString(": ")
		p.expr(x.Body)
	case *InitList:
		p.WriteByte('{')
		p.exprList(x.Elems)
		p.WriteByte('}')
	}
}
