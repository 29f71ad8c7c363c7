package syntax

import (
	"fmt"
	"strconv"
)

// MaxNesting is how deeply blocks, statements and expressions may nest. Deeper
// input is rejected with an error: it is never a sensible program, and the limit
// keeps every later pass (which recurses over the tree) far from stack exhaustion.
const MaxNesting = 200

// Parse parses one .kb source file. It always returns a *File (partial if there
// were syntax errors) and, if there were any, an ErrorList of every syntax error,
// sorted by position.
func Parse(filename string, src []byte) (*File, error) {
	p := &parser{file: &File{Name: filename, Src: src}}
	p.sc.Init(src, p.scanError)
	p.next()
	p.parseFile()
	p.file.Comments = p.sc.Comments
	p.errs.Sort()
	return p.file, p.errs.Err()
}

type parser struct {
	file *File
	sc   Scanner
	errs ErrorList

	// The current token.
	pos Pos
	tok Token
	lit string

	prevEnd Pos // end of the previous token

	// unsynced is set by a syntax error and cleared when the parser has skipped
	// to a statement or declaration boundary; while it is set, parse functions
	// return early instead of piling up follow-up errors.
	unsynced bool
	lastLine int // line of the last error, to report at most one error per line
	depth    int
	aborted  bool // nesting limit exceeded: the rest of the file is skipped
}

func (p *parser) next() {
	if p.aborted {
		p.tok, p.lit = EOF, ""
		return
	}
	if p.pos.IsValid() || p.tok != EOF {
		p.prevEnd = p.tokenEnd()
	}
	p.pos, p.tok, p.lit = p.sc.Scan()
}

// peek returns the token after the current one without consuming it (for
// "end:", whose "end" is otherwise a name). Errors are reported when the
// token is scanned for real.
func (p *parser) peek() Token {
	sc := p.sc
	sc.errh = func(Pos, string) {}
	sc.Comments = nil
	_, tok, _ := sc.Scan()
	return tok
}

// tokenEnd is the position just after the current token.
func (p *parser) tokenEnd() Pos {
	switch p.tok {
	case IDENT, INTLIT, STRING:
		return after(p.pos, len(p.lit))
	case EOF:
		return p.pos
	}
	return after(p.pos, len(p.tok.String()))
}

func (p *parser) scanError(pos Pos, msg string) { p.report(pos, msg) }

// report records an error, unless the line already has one: the first error on a
// line is the one that matters, later ones are usually its echoes.
func (p *parser) report(pos Pos, msg string) {
	if p.aborted || pos.Line == p.lastLine {
		return
	}
	p.lastLine = pos.Line
	p.errs = append(p.errs, p.file.NewError(pos, msg))
}

// error reports a syntax error and puts the parser into recovery mode.
func (p *parser) error(pos Pos, msg string) {
	p.report(pos, msg)
	p.unsynced = true
}

// found describes the current token for "expected X, found Y".
func (p *parser) found() string {
	switch p.tok {
	case IDENT:
		return "identifier " + p.lit
	case INTLIT, STRING:
		return "literal " + p.lit
	case EOF:
		return "end of file"
	}
	return strconv.Quote(p.tok.String())
}

func (p *parser) errorExpected(what string) {
	p.error(p.pos, fmt.Sprintf("expected %s, found %s", what, p.found()))
}

// expect consumes tok if it is the current token; otherwise it reports an error.
func (p *parser) expect(tok Token) (Pos, bool) {
	pos := p.pos
	if p.tok != tok {
		p.errorExpected(strconv.Quote(tok.String()))
		return pos, false
	}
	p.next()
	return pos, true
}

// expectSemi consumes a ";". A missing one is reported where it belongs, at the
// end of the previous token when the next token is on a later line, and is then
// taken as present: that is the most likely repair and keeps the next statement.
func (p *parser) expectSemi() {
	if p.tok == SEMICOLON {
		p.next()
		return
	}
	pos := p.pos
	if p.prevEnd.IsValid() && p.prevEnd.Line < pos.Line {
		pos = p.prevEnd
	}
	p.report(pos, fmt.Sprintf("expected %q, found %s", ";", p.found()))
}

// enter and leave track nesting depth. enter reports false (after reporting the
// error and aborting the parse) once the depth exceeds MaxNesting.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > MaxNesting {
		if !p.aborted {
			p.error(p.pos, fmt.Sprintf("program nested too deeply (more than %d levels)", MaxNesting))
			p.aborted = true
			p.tok, p.lit = EOF, ""
		}
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// ---------------------------------------------------------------------------
// Declarations

func isDeclStart(tok Token) bool {
	switch tok {
	case CONST, SHARED, MUTEX, FUNC, THREAD, PROCESS, CHAN:
		return true
	}
	return false
}

func (p *parser) parseFile() {
	for p.tok != EOF {
		start := p.pos.Offset
		if d := p.parseDecl(); d != nil {
			p.file.Decls = append(p.file.Decls, d)
		}
		if p.unsynced {
			p.syncDecl(false)
		}
		if p.pos.Offset == start && p.tok != EOF {
			p.next() // guarantee progress
		}
	}
}

// syncDecl skips to the next declaration keyword outside braces; in a process
// body also to the "}" that closes it.
func (p *parser) syncDecl(inProcess bool) {
	depth := 0
	for p.tok != EOF {
		switch p.tok {
		case LBRACE:
			depth++
		case RBRACE:
			if depth == 0 && inProcess {
				p.unsynced = false
				return
			}
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 && isDeclStart(p.tok) {
				p.unsynced = false
				return
			}
		}
		p.next()
	}
	p.unsynced = false
}

func (p *parser) parseDecl() Decl {
	switch p.tok {
	case CONST:
		return p.parseConstDecl()
	case SHARED:
		return p.parseSharedDecl()
	case MUTEX:
		return p.parseMutexDecl()
	case FUNC:
		return p.parseFuncDecl()
	case THREAD:
		return p.parseThreadDecl()
	case CHAN:
		return p.parseChanDecl()
	case PROCESS:
		return p.parseProcessDecl()
	case INT, BOOL:
		p.error(p.pos, fmt.Sprintf("expected declaration, found %s (a variable outside a body is declared with \"shared\"; "+
			"a function with \"func name(params) %s { … }\")", p.found(), map[Token]string{INT: "int", BOOL: "bool"}[p.tok]))
	case IDENT:
		if p.lit == "invariant" {
			// No other declaration starts with a name.
			return p.parseInvariantDecl()
		}
		if p.lit == "void" {
			p.error(p.pos, "expected declaration, found identifier void (kbmc has no void: a function without a result is declared \"func name(params) { … }\")")
			break
		}
		p.errorExpected("declaration")
	default:
		p.errorExpected("declaration")
	}
	return nil
}

func (p *parser) parseIdent() *Ident {
	pos := p.pos
	if p.tok != IDENT {
		p.errorExpected("name")
		return &Ident{NamePos: pos, Name: "_"}
	}
	name := p.lit
	p.next()
	return &Ident{NamePos: pos, Name: name}
}

func (p *parser) parseConstDecl() Decl {
	d := &ConstDecl{Const: p.pos}
	p.next()
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	if _, ok := p.expect(ASSIGN); !ok {
		return nil
	}
	d.Value = p.parseExpr()
	if p.unsynced {
		return nil
	}
	p.expectSemi()
	return d
}

// parseInvariantDecl parses "invariant Name: expr;" (the current token is the
// name invariant).
func (p *parser) parseInvariantDecl() Decl {
	d := &InvariantDecl{Invariant: p.pos}
	p.next()
	d.Name = p.parseIdent()
	var ok bool
	if d.Colon, ok = p.expect(COLON); !ok {
		return nil
	}
	d.X = p.parseExpr()
	if p.unsynced {
		return nil
	}
	p.expectSemi()
	return d
}

func (p *parser) parseSharedDecl() Decl {
	shared := p.pos
	p.next()
	d := p.parseVarDecl(shared)
	if d == nil {
		return nil
	}
	p.expectSemi()
	return d
}

// parseType parses int or bool.
func (p *parser) parseType() *TypeName {
	if p.tok != INT && p.tok != BOOL {
		p.errorExpected(`type ("int" or "bool")`)
		return nil
	}
	t := &TypeName{TypePos: p.pos, Kind: p.tok}
	p.next()
	return t
}

// parseVarDecl parses "T name [size] [= init]" (without the ";").
func (p *parser) parseVarDecl(shared Pos) *VarDecl {
	d := &VarDecl{Shared: shared}
	if d.Type = p.parseType(); d.Type == nil {
		return nil
	}
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	var ok bool
	if d.Lbrack, d.Size, d.Rbrack, ok = p.parseSize(); !ok {
		return nil
	}
	if p.tok == ASSIGN {
		p.next()
		if p.tok == LBRACE {
			d.Init = p.parseInitList()
		} else {
			d.Init = p.parseExpr()
		}
		if p.unsynced {
			return nil
		}
	}
	return d
}

// parseSize parses an optional "[expr]"; without one it returns a nil size.
func (p *parser) parseSize() (lbrack Pos, size Expr, rbrack Pos, ok bool) {
	if p.tok != LBRACK {
		return lbrack, nil, rbrack, true
	}
	lbrack = p.pos
	p.next()
	size = p.parseExpr()
	if p.unsynced {
		return
	}
	rbrack, ok = p.expect(RBRACK)
	return
}

func (p *parser) parseInitList() Expr {
	l := &InitList{Lbrace: p.pos}
	if !p.enter() {
		return &BadExpr{From: l.Lbrace, To: p.pos}
	}
	defer p.leave()
	p.next()
	if !p.parseList(RBRACE, func() { l.Elems = append(l.Elems, p.parseExpr()) }) {
		return &BadExpr{From: l.Lbrace, To: p.pos}
	}
	var ok bool
	if l.Rbrace, ok = p.expect(RBRACE); !ok {
		return &BadExpr{From: l.Lbrace, To: p.pos}
	}
	return l
}

func (p *parser) parseMutexDecl() Decl {
	d := &MutexDecl{Mutex: p.pos}
	p.next()
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	var ok bool
	if d.Lbrack, d.Size, d.Rbrack, ok = p.parseSize(); !ok {
		return nil
	}
	p.expectSemi()
	return d
}

func (p *parser) parseFuncDecl() Decl {
	d := &FuncDecl{Func: p.pos}
	p.next()
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	if _, ok := p.expect(LPAREN); !ok {
		return nil
	}
	param := func() {
		t := p.parseType()
		if t == nil {
			return
		}
		if name := p.parseIdent(); !p.unsynced {
			d.Params = append(d.Params, &Param{Type: t, Name: name})
		}
	}
	if !p.parseList(RPAREN, param) {
		return nil
	}
	if _, ok := p.expect(RPAREN); !ok {
		return nil
	}
	if p.tok == INT || p.tok == BOOL {
		d.Result = p.parseType()
	}
	if d.Body = p.parseBody(); d.Body == nil {
		return nil
	}
	return d
}

func (p *parser) parseThreadDecl() Decl {
	d := &ThreadDecl{Thread: p.pos}
	p.next()
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	var ok bool
	if d.Lbrack, d.Count, d.Rbrack, ok = p.parseSize(); !ok {
		return nil
	}
	if d.Body = p.parseBody(); d.Body == nil {
		return nil
	}
	return d
}

// parseChanDecl parses "chan (T, …) name [size] capacity K;".
func (p *parser) parseChanDecl() Decl {
	d := &ChanDecl{Chan: p.pos}
	p.next()
	var ok bool
	if d.Lparen, ok = p.expect(LPAREN); !ok {
		return nil
	}
	field := func() {
		if t := p.parseType(); t != nil {
			d.Fields = append(d.Fields, t)
		}
	}
	if !p.parseList(RPAREN, field) {
		return nil
	}
	if d.Rparen, ok = p.expect(RPAREN); !ok {
		return nil
	}
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	if d.Lbrack, d.Size, d.Rbrack, ok = p.parseSize(); !ok {
		return nil
	}
	if d.Capacity, ok = p.expect(CAPACITY); !ok {
		return nil
	}
	if d.Cap = p.parseExpr(); p.unsynced {
		return nil
	}
	// Attributes: words, not keywords, so that programs may still use them
	// as names.
	for p.tok == IDENT && (p.lit == "lossy" || p.lit == "unordered") {
		at := &d.Lossy
		if p.lit == "unordered" {
			at = &d.Unordered
		}
		if at.IsValid() {
			p.error(p.pos, p.lit+" given twice")
		}
		*at = p.pos
		p.next()
	}
	p.expectSemi()
	return d
}

// parseProcessDecl parses "process name [count] { declarations }".
func (p *parser) parseProcessDecl() Decl {
	d := &ProcessDecl{Process: p.pos}
	p.next()
	d.Name = p.parseIdent()
	if p.unsynced {
		return nil
	}
	var ok bool
	if d.Lbrack, d.Count, d.Rbrack, ok = p.parseSize(); !ok {
		return nil
	}
	if p.tok != LBRACE {
		p.errorExpected(strconv.Quote("{"))
		return nil
	}
	d.Lbrace = p.pos
	if !p.enter() {
		return nil
	}
	defer p.leave()
	p.next()
	for p.tok != RBRACE && p.tok != EOF {
		start := p.pos.Offset
		if x := p.parseDecl(); x != nil {
			d.Decls = append(d.Decls, x)
		}
		if p.unsynced {
			p.syncDecl(true)
		}
		if p.pos.Offset == start && p.tok != RBRACE && p.tok != EOF {
			p.next() // guarantee progress
		}
	}
	if d.Rbrace, ok = p.expect(RBRACE); !ok {
		return nil
	}
	return d
}

// parseBody parses the block of a function or thread. It returns nil if the
// block is missing or its closing brace is.
func (p *parser) parseBody() *BlockStmt {
	if p.tok != LBRACE {
		p.errorExpected(strconv.Quote("{"))
		return nil
	}
	b := p.parseBlock()
	if p.unsynced {
		return nil
	}
	return b
}

// ---------------------------------------------------------------------------
// Statements

func (p *parser) parseBlock() *BlockStmt {
	b := &BlockStmt{Lbrace: p.pos}
	if !p.enter() {
		return b
	}
	defer p.leave()
	p.next()
	b.List = p.parseStmtList()
	b.Rbrace, _ = p.expect(RBRACE)
	return b
}

// parseSelect parses select { case send(…): … case recv(…): … default: … }.
func (p *parser) parseSelect() Stmt {
	s := &SelectStmt{Select: p.pos}
	p.next()
	if _, ok := p.expect(LBRACE); !ok {
		return nil
	}
	if !p.enter() {
		return nil
	}
	defer p.leave()
	for p.tok == CASE || p.tok == DEFAULT {
		c := &CommClause{Case: p.pos}
		if p.tok == CASE {
			p.next()
			if p.tok != SEND && p.tok != RECV {
				p.errorExpected("send or recv")
				return nil
			}
			if c.Comm = p.parseChanOp(); c.Comm == nil {
				return nil
			}
			if p.tok == IDENT && p.lit == "when" {
				c.WhenPos = p.pos
				p.next()
				var ok bool
				if c.When, _, ok = p.parseParenCond(); !ok {
					return nil
				}
			}
		} else {
			p.next()
		}
		colon, ok := p.expect(COLON)
		if !ok {
			return nil
		}
		c.Body = &BlockStmt{Lbrace: colon}
		c.Body.List = p.parseStmtList()
		c.Body.Rbrace = p.pos
		s.Clauses = append(s.Clauses, c)
	}
	var ok bool
	if s.Rbrace, ok = p.expect(RBRACE); !ok {
		return nil
	}
	return s
}

// parseChanOp parses send(…), recv(…) [ok(lv)] or close(…). "ok" is a word,
// not a keyword, as channel attributes are: programs may still use it as a
// name.
func (p *parser) parseChanOp() *ChanStmt {
	s := &ChanStmt{TokPos: p.pos, Tok: p.tok}
	p.next()
	var ok bool
	if s.Lparen, s.Args, s.Rparen, ok = p.parseArgs(); !ok {
		return nil
	}
	if p.tok == IDENT && p.lit == "ok" {
		if s.Tok != RECV {
			p.error(p.pos, "ok(…) follows a recv only: it says whether a message was taken")
			return nil
		}
		s.OKPos = p.pos
		p.next()
		if _, ok := p.expect(LPAREN); !ok {
			return nil
		}
		if s.OK = p.parseExpr(); p.unsynced {
			return nil
		}
		if s.OKEnd, ok = p.expect(RPAREN); !ok {
			return nil
		}
	}
	return s
}

// parseStmtList parses statements up to a "}" (or a select's next clause).
func (p *parser) parseStmtList() []Stmt {
	var list []Stmt
	for p.tok != RBRACE && p.tok != EOF && p.tok != CASE && p.tok != DEFAULT {
		if isDeclStart(p.tok) {
			// Most likely a "}" is missing: let the enclosing block report it and
			// the declaration be parsed as one.
			break
		}
		start := p.pos.Offset
		if s := p.parseStmt(); s != nil {
			list = append(list, s)
		}
		if p.unsynced {
			p.syncStmt()
		}
		if p.pos.Offset == start && p.tok != RBRACE && p.tok != EOF {
			p.next() // guarantee progress
		}
	}
	return list
}

// syncStmt skips to a statement boundary: past the next ";", or past a
// balanced {…} (with any else branches that follow), or up to a "}" that closes
// the enclosing block or a declaration keyword.
func (p *parser) syncStmt() {
	depth := 0
	for p.tok != EOF {
		switch p.tok {
		case SEMICOLON:
			if depth == 0 {
				p.next()
				p.unsynced = false
				return
			}
		case LBRACE:
			depth++
		case RBRACE:
			if depth == 0 {
				p.unsynced = false
				return
			}
			depth--
			if depth == 0 {
				p.next()
				if p.tok != ELSE {
					p.unsynced = false
					return
				}
				continue
			}
		default:
			if depth == 0 && isDeclStart(p.tok) {
				p.unsynced = false
				return
			}
		}
		p.next()
	}
	p.unsynced = false
}

func startsExpr(tok Token) bool {
	switch tok {
	case IDENT, INTLIT, LPAREN, SUB, NOT, TILDE, TRUE, FALSE, TID, NONDET, CAS, PID, LEN:
		return true
	}
	return false
}

func (p *parser) parseStmt() Stmt {
	if !p.enter() {
		return nil
	}
	defer p.leave()
	switch p.tok {
	case LBRACE:
		return p.parseBlock()
	case INT, BOOL:
		d := p.parseVarDecl(Pos{})
		if d == nil {
			return nil
		}
		p.expectSemi()
		return d
	case SEMICOLON:
		s := &EmptyStmt{Semi: p.pos}
		p.next()
		return s
	case IF:
		return p.parseIf()
	case WHILE:
		s := &WhileStmt{While: p.pos}
		p.next()
		var ok bool
		if s.Cond, s.Rparen, ok = p.parseParenCond(); !ok {
			return nil
		}
		if s.Body = p.parseBranchBody("while"); s.Body == nil {
			return nil
		}
		return s
	case FOR:
		return p.parseFor()
	case BREAK, CONTINUE:
		s := &BranchStmt{TokPos: p.pos, Tok: p.tok}
		p.next()
		p.expectSemi()
		return s
	case RETURN:
		s := &ReturnStmt{Return: p.pos}
		p.next()
		if p.tok != SEMICOLON && p.tok != RBRACE {
			if s.Result = p.parseExpr(); p.unsynced {
				return nil
			}
		}
		p.expectSemi()
		return s
	case ASSERT:
		return p.parseAssert()
	case ASSUME, AWAIT:
		s := &GuardStmt{TokPos: p.pos, Tok: p.tok}
		p.next()
		var ok bool
		if s.Cond, s.Rparen, ok = p.parseParenCond(); !ok {
			return nil
		}
		p.expectSemi()
		return s
	case LOCK, UNLOCK:
		s := &LockStmt{TokPos: p.pos, Tok: p.tok}
		p.next()
		var ok bool
		if s.Mutex, s.Rparen, ok = p.parseParenCond(); !ok {
			return nil
		}
		p.expectSemi()
		return s
	case JOIN:
		s := &JoinStmt{Join: p.pos}
		p.next()
		var ok bool
		if s.Thread, s.Rparen, ok = p.parseParenCond(); !ok {
			return nil
		}
		p.expectSemi()
		return s
	case YIELD:
		s := &YieldStmt{Yield: p.pos}
		p.next()
		p.expectSemi()
		return s
	case SEND, RECV, CLOSE:
		s := p.parseChanOp()
		if s == nil {
			return nil
		}
		p.expectSemi()
		return s
	case SELECT:
		return p.parseSelect()
	case ATOMIC:
		s := &AtomicStmt{Atomic: p.pos}
		p.next()
		if p.tok != LBRACE {
			p.errorExpected(strconv.Quote("{"))
			return nil
		}
		s.Body = p.parseBlock()
		return s
	}
	if p.tok == IDENT && p.lit == "end" && p.peek() == COLON {
		s := &EndStmt{EndPos: p.pos}
		p.next()
		p.next()
		if s.Stmt = p.parseStmt(); s.Stmt == nil {
			return nil
		}
		return s
	}
	if !startsExpr(p.tok) {
		p.errorExpected("statement")
		return nil
	}
	s := p.parseSimpleStmt()
	if s == nil {
		return nil
	}
	p.expectSemi()
	return s
}

// parseParenCond parses "(expr)".
func (p *parser) parseParenCond() (x Expr, rparen Pos, ok bool) {
	if _, ok = p.expect(LPAREN); !ok {
		return nil, rparen, false
	}
	if x = p.parseExpr(); p.unsynced || !p.noAssignInCond() {
		return nil, rparen, false
	}
	rparen, ok = p.expect(RPAREN)
	return x, rparen, ok
}

func (p *parser) parseIf() Stmt {
	s := &IfStmt{If: p.pos}
	p.next()
	var ok bool
	if s.Cond, s.Rparen, ok = p.parseParenCond(); !ok {
		return nil
	}
	if s.Then = p.parseBranchBody("if"); s.Then == nil {
		return nil
	}
	if p.tok == ELSE {
		p.next()
		if p.tok == IF {
			s.Else = p.parseStmt() // else if (…) { … }
		} else {
			s.Else = p.parseBranchBody("else")
		}
		if s.Else == nil {
			return nil
		}
	}
	return s
}

// parseBranchBody parses the body of if, else, while or for, which must be a
// block (docs/language.md §4). A body without braces is reported with the fix,
// and parsed all the same so that later errors are found too. "while (c);" is
// C's empty-loop trap: a busy-wait is written while (c) {}.
func (p *parser) parseBranchBody(what string) Stmt {
	if p.tok == LBRACE {
		return p.parseBlock()
	}
	form := what + " (…) { … }"
	if what == "else" {
		form = "else { … } (or else if (…) { … })"
	}
	if p.tok == SEMICOLON {
		if what == "while" || what == "for" {
			p.report(p.pos, fmt.Sprintf("the body of %s must be a block in braces: an empty loop (a busy-wait) is written %s (…) {}", what, what))
		} else {
			p.report(p.pos, fmt.Sprintf("the body of %s must be a block in braces: write %s", what, form))
		}
	} else {
		p.report(p.pos, fmt.Sprintf("the body of %s must be a block in braces: write %s", what, form))
	}
	return p.parseStmt()
}

// noAssignInCond reports "=" where a condition expects "==" (C's
// if (x = 1) mistake): kbmc has no assignment expressions.
func (p *parser) noAssignInCond() bool {
	if p.tok == ASSIGN {
		p.error(p.pos, "\"=\" assigns and is not an expression here; to compare, write \"==\"")
		return false
	}
	return true
}

func (p *parser) parseFor() Stmt {
	s := &ForStmt{For: p.pos}
	p.next()
	if _, ok := p.expect(LPAREN); !ok {
		return nil
	}
	switch {
	case p.tok == INT || p.tok == BOOL:
		d := p.parseVarDecl(Pos{})
		if d == nil {
			return nil
		}
		s.Init = d
	case p.tok != SEMICOLON:
		if s.Init = p.parseSimpleStmt(); s.Init == nil {
			return nil
		}
	}
	if _, ok := p.expect(SEMICOLON); !ok {
		return nil
	}
	if p.tok != SEMICOLON {
		if s.Cond = p.parseExpr(); p.unsynced {
			return nil
		}
	}
	if _, ok := p.expect(SEMICOLON); !ok {
		return nil
	}
	if p.tok != RPAREN {
		if s.Post = p.parseSimpleStmt(); s.Post == nil {
			return nil
		}
	}
	var ok bool
	if s.Rparen, ok = p.expect(RPAREN); !ok {
		return nil
	}
	if s.Body = p.parseBranchBody("for"); s.Body == nil {
		return nil
	}
	return s
}

func (p *parser) parseAssert() Stmt {
	s := &AssertStmt{Assert: p.pos}
	p.next()
	if _, ok := p.expect(LPAREN); !ok {
		return nil
	}
	if s.Cond = p.parseExpr(); p.unsynced || !p.noAssignInCond() {
		return nil
	}
	if p.tok == COMMA {
		p.next()
		if p.tok != STRING {
			p.errorExpected("message string")
			return nil
		}
		s.Msg = &StringLit{ValuePos: p.pos, Lit: p.lit}
		v, err := strconv.Unquote(p.lit)
		if err != nil {
			p.report(p.pos, "invalid escape sequence in string literal")
			v = p.lit[1 : len(p.lit)-1]
		}
		s.Msg.Value = v
		p.next()
	}
	var ok bool
	if s.Rparen, ok = p.expect(RPAREN); !ok {
		return nil
	}
	p.expectSemi()
	return s
}

// parseSimpleStmt parses an assignment, an increment or decrement, or an
// expression statement (without the ";").
func (p *parser) parseSimpleStmt() Stmt {
	x := p.parseExpr()
	if p.unsynced {
		return nil
	}
	switch p.tok {
	case ASSIGN, ADD_ASSIGN, SUB_ASSIGN:
		s := &AssignStmt{LHS: x, TokPos: p.pos, Tok: p.tok}
		p.next()
		if s.RHS = p.parseExpr(); p.unsynced {
			return nil
		}
		return s
	case INC, DEC:
		s := &IncDecStmt{X: x, TokPos: p.pos, Tok: p.tok}
		p.next()
		return s
	}
	return &ExprStmt{X: x}
}

// ---------------------------------------------------------------------------
// Expressions

func (p *parser) bad(from Pos) Expr { return &BadExpr{From: from, To: p.pos} }

// parseExpr parses an expression, ?: included.
func (p *parser) parseExpr() Expr {
	start := p.pos
	x := p.parseBinary(LowestPrec + 1)
	if p.unsynced {
		return p.bad(start)
	}
	if p.tok != QUESTION {
		return x
	}
	if !p.enter() {
		return p.bad(start)
	}
	defer p.leave()
	c := &CondExpr{Cond: x, Question: p.pos}
	p.next()
	if c.X = p.parseExpr(); p.unsynced {
		return p.bad(start)
	}
	var ok bool
	if c.Colon, ok = p.expect(COLON); !ok {
		return p.bad(start)
	}
	if c.Y = p.parseExpr(); p.unsynced {
		return p.bad(start)
	}
	return c
}

// parseBinary parses a chain of binary operators of precedence prec1 or higher.
func (p *parser) parseBinary(prec1 int) Expr {
	start := p.pos
	x := p.parseUnary()
	for !p.unsynced {
		op := p.tok
		prec := op.Precedence()
		if prec < prec1 {
			return x
		}
		pos := p.pos
		p.next()
		y := p.parseBinary(prec + 1)
		x = &BinaryExpr{X: x, OpPos: pos, Op: op, Y: y}
	}
	return p.bad(start)
}

func (p *parser) parseUnary() Expr {
	switch p.tok {
	case SUB, NOT, TILDE:
		if !p.enter() {
			return p.bad(p.pos)
		}
		defer p.leave()
		u := &UnaryExpr{OpPos: p.pos, Op: p.tok}
		p.next()
		u.X = p.parseUnary()
		return u
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() Expr {
	pos := p.pos
	switch p.tok {
	case IDENT:
		if (p.lit == "forall" || p.lit == "exists") && p.peek() == IDENT {
			return p.parseQuant()
		}
		id := &Ident{NamePos: pos, Name: p.lit}
		p.next()
		switch p.tok {
		case PERIOD:
			return p.parseMember(&MemberExpr{Proc: id})
		case LBRACK:
			if !p.enter() {
				return p.bad(pos)
			}
			defer p.leave()
			x := &IndexExpr{X: id, Lbrack: p.pos}
			p.next()
			if x.Index = p.parseExpr(); p.unsynced {
				return p.bad(pos)
			}
			var ok bool
			if x.Rbrack, ok = p.expect(RBRACK); !ok {
				return p.bad(pos)
			}
			if p.tok == PERIOD {
				return p.parseMember(&MemberExpr{Proc: id, Lbrack: x.Lbrack, Index: x.Index, Rbrack: x.Rbrack})
			}
			return x
		case LPAREN:
			c := &CallExpr{Fun: id}
			var ok bool
			if c.Lparen, c.Args, c.Rparen, ok = p.parseArgs(); !ok {
				return p.bad(pos)
			}
			return c
		}
		return id
	case INTLIT:
		x := &IntLit{ValuePos: pos, Lit: p.lit}
		digits, base := p.lit, 10
		if len(digits) > 1 && (digits[1] == 'x' || digits[1] == 'X') {
			digits, base = digits[2:], 16
		}
		v, err := strconv.ParseUint(digits, base, 64)
		if err != nil {
			// Malformed literals were reported by the scanner; what is left is
			// a value beyond 64 bits, which the checker reports as out of range.
			x.Overflow = true
		}
		x.Value = v
		p.next()
		return x
	case TRUE, FALSE:
		x := &BoolLit{ValuePos: pos, Value: p.tok == TRUE}
		p.next()
		return x
	case TID:
		p.next()
		return &TidExpr{TidPos: pos}
	case PID:
		p.next()
		return &PidExpr{PidPos: pos}
	case LEN:
		p.next()
		x := &LenExpr{Len: pos}
		var ok bool
		if x.Lparen, x.Args, x.Rparen, ok = p.parseArgs(); !ok {
			return p.bad(pos)
		}
		return x
	case NONDET:
		p.next()
		x := &NondetExpr{Nondet: pos}
		var ok bool
		if x.Lparen, x.Args, x.Rparen, ok = p.parseArgs(); !ok {
			return p.bad(pos)
		}
		return x
	case CAS:
		p.next()
		x := &CasExpr{Cas: pos}
		var ok bool
		if x.Lparen, x.Args, x.Rparen, ok = p.parseArgs(); !ok {
			return p.bad(pos)
		}
		return x
	case LPAREN:
		if !p.enter() {
			return p.bad(pos)
		}
		defer p.leave()
		p.next()
		x := &ParenExpr{Lparen: pos}
		if x.X = p.parseExpr(); p.unsynced {
			return p.bad(pos)
		}
		var ok bool
		if x.Rparen, ok = p.expect(RPAREN); !ok {
			return p.bad(pos)
		}
		return x
	}
	p.errorExpected("expression")
	return p.bad(pos)
}

// parseMember parses the rest of a process member access, from the ".":
// ".member" or ".member[index]".
func (p *parser) parseMember(x *MemberExpr) Expr {
	x.Dot = p.pos
	p.next()
	x.Member = p.parseIdent()
	if p.unsynced {
		return p.bad(x.Proc.Pos())
	}
	if p.tok != LBRACK {
		return x
	}
	if !p.enter() {
		return p.bad(x.Proc.Pos())
	}
	defer p.leave()
	x.MLbrack = p.pos
	p.next()
	if x.MIndex = p.parseExpr(); p.unsynced {
		return p.bad(x.Proc.Pos())
	}
	var ok bool
	if x.MRbrack, ok = p.expect(RBRACK); !ok {
		return p.bad(x.Proc.Pos())
	}
	return x
}

// parseQuant parses "forall v in lo..hi: body" or the same with exists (the
// current token is the name forall or exists, followed by a name). The body
// extends as far as possible, like a conditional expression's last operand.
func (p *parser) parseQuant() Expr {
	pos := p.pos
	if !p.enter() {
		return p.bad(pos)
	}
	defer p.leave()
	q := &QuantExpr{Quant: pos, Exists: p.lit == "exists"}
	p.next()
	q.Var = p.parseIdent()
	if p.tok != IDENT || p.lit != "in" {
		p.errorExpected(`"in" (forall NAME in LOW..HIGH: condition)`)
		return p.bad(pos)
	}
	q.In = p.pos
	p.next()
	if q.Lo = p.parseBinary(LowestPrec + 1); p.unsynced {
		return p.bad(pos)
	}
	var ok bool
	if q.DotDot, ok = p.expect(DOTDOT); !ok {
		return p.bad(pos)
	}
	if q.Hi = p.parseBinary(LowestPrec + 1); p.unsynced {
		return p.bad(pos)
	}
	if q.Colon, ok = p.expect(COLON); !ok {
		return p.bad(pos)
	}
	if q.Body = p.parseExpr(); p.unsynced {
		return p.bad(pos)
	}
	return q
}

// parseArgs parses "(a, b, …)".
func (p *parser) parseArgs() (lparen Pos, args []Expr, rparen Pos, ok bool) {
	if lparen, ok = p.expect(LPAREN); !ok {
		return
	}
	if !p.enter() {
		return lparen, nil, rparen, false
	}
	defer p.leave()
	if !p.parseList(RPAREN, func() { args = append(args, p.parseExpr()) }) {
		return lparen, args, rparen, false
	}
	rparen, ok = p.expect(RPAREN)
	return
}

// parseList parses the elements of a comma-separated list, possibly empty, up to
// the token closing (which it leaves to the caller). elem parses one element; a
// syntax error in it ends the list, and parseList reports false.
func (p *parser) parseList(closing Token, elem func()) bool {
	for p.tok != closing {
		elem()
		if p.unsynced {
			return false
		}
		if p.tok != COMMA {
			break
		}
		p.next()
	}
	return true
}
