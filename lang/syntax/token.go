package syntax

import "strconv"

// Token is a lexical token of the .kb language.
type Token uint8

const (
	EOF Token = iota

	IDENT  // x
	INTLIT // 42, 0x2A
	STRING // "message"

	// Operators and delimiters.
	ADD        // +
	SUB        // -
	MUL        // *
	QUO        // /
	REM        // %
	SHL        // <<
	SHR        // >>
	AND        // &
	OR         // |
	XOR        // ^
	LAND       // &&
	LOR        // ||
	NOT        // !
	TILDE      // ~
	EQL        // ==
	NEQ        // !=
	LSS        // <
	LEQ        // <=
	GTR        // >
	GEQ        // >=
	ASSIGN     // =
	ADD_ASSIGN // +=
	SUB_ASSIGN // -=
	INC        // ++
	DEC        // --
	QUESTION   // ?
	COLON      // :
	LPAREN     // (
	RPAREN     // )
	LBRACK     // [
	RBRACK     // ]
	LBRACE     // {
	RBRACE     // }
	COMMA      // ,
	SEMICOLON  // ;
	PERIOD     // .
	DOTDOT     // ..

	keywordBegin
	CONST
	SHARED
	MUTEX
	FUNC
	THREAD
	INT
	BOOL
	IF
	ELSE
	WHILE
	FOR
	BREAK
	CONTINUE
	RETURN
	ASSERT
	ASSUME
	AWAIT
	LOCK
	UNLOCK
	JOIN
	YIELD
	ATOMIC
	TRUE
	FALSE
	TID
	NONDET
	CAS
	PROCESS
	CHAN
	CAPACITY
	SEND
	RECV
	LEN
	PID
	SELECT
	CASE
	DEFAULT
	CLOSE
	keywordEnd
)

var tokenStrings = [...]string{
	EOF:    "end of file",
	IDENT:  "identifier",
	INTLIT: "integer literal",
	STRING: "string literal",

	ADD: "+", SUB: "-", MUL: "*", QUO: "/", REM: "%", SHL: "<<", SHR: ">>",
	AND: "&", OR: "|", XOR: "^", LAND: "&&", LOR: "||", NOT: "!", TILDE: "~",
	EQL: "==", NEQ: "!=", LSS: "<", LEQ: "<=", GTR: ">", GEQ: ">=",
	ASSIGN: "=", ADD_ASSIGN: "+=", SUB_ASSIGN: "-=", INC: "++", DEC: "--",
	QUESTION: "?", COLON: ":", LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]",
	LBRACE: "{", RBRACE: "}", COMMA: ",", SEMICOLON: ";",
	PERIOD: ".", DOTDOT: "..",

	CONST: "const", SHARED: "shared", MUTEX: "mutex", FUNC: "func", THREAD: "thread",
	INT: "int", BOOL: "bool", IF: "if", ELSE: "else", WHILE: "while", FOR: "for",
	BREAK: "break", CONTINUE: "continue", RETURN: "return", ASSERT: "assert",
	ASSUME: "assume", AWAIT: "await", LOCK: "lock", UNLOCK: "unlock", JOIN: "join",
	YIELD: "yield", ATOMIC: "atomic", TRUE: "true", FALSE: "false", TID: "tid",
	NONDET: "nondet", CAS: "cas", PROCESS: "process", CHAN: "chan", CAPACITY: "capacity",
	SEND: "send", RECV: "recv", LEN: "len", PID: "pid",
	SELECT: "select", CASE: "case", DEFAULT: "default", CLOSE: "close",
}

// String returns the token's source form for operators and keywords, and a
// description for the other tokens.
func (t Token) String() string {
	if int(t) < len(tokenStrings) && tokenStrings[t] != "" {
		return tokenStrings[t]
	}
	return "Token(" + strconv.Itoa(int(t)) + ")"
}

// IsKeyword reports whether t is a reserved word.
func (t Token) IsKeyword() bool { return keywordBegin < t && t < keywordEnd }

// keyword returns the keyword token spelled name, or IDENT.
func keyword(name string) Token {
	for t := keywordBegin + 1; t < keywordEnd; t++ {
		if tokenStrings[t] == name {
			return t
		}
	}
	return IDENT
}

// Precedence levels of the binary operators, as in C; 0 for other tokens.
const (
	LowestPrec  = 0
	HighestPrec = 10
)

// Precedence returns the binary-operator precedence of t (higher binds tighter),
// or LowestPrec if t is not a binary operator.
func (t Token) Precedence() int {
	switch t {
	case LOR:
		return 1
	case LAND:
		return 2
	case OR:
		return 3
	case XOR:
		return 4
	case AND:
		return 5
	case EQL, NEQ:
		return 6
	case LSS, LEQ, GTR, GEQ:
		return 7
	case SHL, SHR:
		return 8
	case ADD, SUB:
		return 9
	case MUL, QUO, REM:
		return 10
	}
	return LowestPrec
}
