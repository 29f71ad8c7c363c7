package syntax

// ParseExpr parses src as exactly one expression, with nothing after it. It is how
// tools that take a .kb expression on their own (kbmc detect's predicates) share
// the language's syntax and its positioned errors. Like Parse it never panics; on
// a syntax error it returns the partial tree (a BadExpr where parsing stopped) and
// the ErrorList.
func ParseExpr(filename string, src []byte) (Expr, error) {
	p := &parser{file: &File{Name: filename, Src: src}}
	p.sc.Init(src, p.scanError)
	p.next()
	x := p.parseExpr()
	if !p.unsynced && p.tok != EOF {
		p.errorExpected("end of expression")
	}
	p.errs.Sort()
	return x, p.errs.Err()
}
