package syntax

// Inspect traverses the tree rooted at n in depth-first order: it calls f(n), and
// if that returns true, inspects each non-nil child of n in source order.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	// insp skips a child held as a nil interface (an absent Expr or Stmt) through
	// Inspect's own check; children of pointer type are tested where they may be nil.
	insp := func(c Node) { Inspect(c, f) }
	switch n := n.(type) {
	case *File:
		for _, d := range n.Decls {
			insp(d)
		}
	case *ParenExpr:
		insp(n.X)
	case *IndexExpr:
		insp(n.X)
		insp(n.Index)
	case *CallExpr:
		insp(n.Fun)
		for _, a := range n.Args {
			insp(a)
		}
	case *NondetExpr:
		for _, a := range n.Args {
			insp(a)
		}
	case *CasExpr:
		for _, a := range n.Args {
			insp(a)
		}
	case *LenExpr:
		for _, a := range n.Args {
			insp(a)
		}
	case *UnaryExpr:
		insp(n.X)
	case *BinaryExpr:
		insp(n.X)
		insp(n.Y)
	case *CondExpr:
		insp(n.Cond)
		insp(n.X)
		insp(n.Y)
	case *MemberExpr:
		insp(n.Proc)
		insp(n.Index)
		insp(n.Member)
		insp(n.MIndex)
	case *QuantExpr:
		insp(n.Var)
		insp(n.Lo)
		insp(n.Hi)
		insp(n.Body)
	case *InitList:
		for _, e := range n.Elems {
			insp(e)
		}
	case *BlockStmt:
		for _, s := range n.List {
			insp(s)
		}
	case *VarDecl:
		insp(n.Type)
		insp(n.Name)
		insp(n.Size)
		insp(n.Init)
	case *AssignStmt:
		insp(n.LHS)
		insp(n.RHS)
	case *IncDecStmt:
		insp(n.X)
	case *ExprStmt:
		insp(n.X)
	case *IfStmt:
		insp(n.Cond)
		insp(n.Then)
		insp(n.Else)
	case *WhileStmt:
		insp(n.Cond)
		insp(n.Body)
	case *ForStmt:
		insp(n.Init)
		insp(n.Cond)
		insp(n.Post)
		insp(n.Body)
	case *ReturnStmt:
		insp(n.Result)
	case *AssertStmt:
		insp(n.Cond)
		if n.Msg != nil {
			insp(n.Msg)
		}
	case *GuardStmt:
		insp(n.Cond)
	case *LockStmt:
		insp(n.Mutex)
	case *JoinStmt:
		insp(n.Thread)
	case *AtomicStmt:
		insp(n.Body)
	case *EndStmt:
		insp(n.Stmt)
	case *ChanStmt:
		for _, a := range n.Args {
			insp(a)
		}
		if n.OK != nil {
			insp(n.OK)
		}
	case *SelectStmt:
		for _, c := range n.Clauses {
			insp(c)
		}
	case *CommClause:
		if n.Comm != nil {
			insp(n.Comm)
		}
		if n.When != nil {
			insp(n.When)
		}
		insp(n.Body)
	case *ConstDecl:
		insp(n.Name)
		insp(n.Value)
	case *MutexDecl:
		insp(n.Name)
		insp(n.Size)
	case *Param:
		insp(n.Type)
		insp(n.Name)
	case *FuncDecl:
		insp(n.Name)
		for _, p := range n.Params {
			insp(p)
		}
		if n.Result != nil {
			insp(n.Result)
		}
		insp(n.Body)
	case *ThreadDecl:
		insp(n.Name)
		insp(n.Count)
		insp(n.Body)
	case *ChanDecl:
		for _, t := range n.Fields {
			insp(t)
		}
		insp(n.Name)
		insp(n.Size)
		insp(n.Cap)
	case *InvariantDecl:
		insp(n.Name)
		insp(n.X)
	case *ProcessDecl:
		insp(n.Name)
		insp(n.Count)
		for _, d := range n.Decls {
			insp(d)
		}
	}
}
