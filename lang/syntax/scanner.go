package syntax

import (
	"fmt"
	"unicode/utf8"
)

// Span is a range of byte offsets [From, To) in a source file.
type Span struct{ From, To int }

// A Scanner splits a source file into tokens. It reports malformed input through
// its error handler and always makes progress: every call of Scan consumes input
// until it returns EOF, which it then keeps returning.
type Scanner struct {
	src  []byte
	errh func(pos Pos, msg string)

	ch         rune // current character; -1 at end of input
	offset     int  // offset of ch
	rdOffset   int  // offset after ch
	line       int  // line of ch
	lineOffset int  // offset of the first character of that line

	// Comments holds the span of every comment scanned so far.
	Comments []Span
}

// Init prepares s to scan src. errh, if not nil, is called for each malformed
// token with its position and a message.
func (s *Scanner) Init(src []byte, errh func(pos Pos, msg string)) {
	*s = Scanner{src: src, errh: errh, line: 1}
	s.next()
	if s.ch == '\uFEFF' && s.offset == 0 {
		s.next() // a byte-order mark at the start is not part of the program
	}
}

func (s *Scanner) pos() Pos {
	return Pos{Offset: s.offset, Line: s.line, Col: s.offset - s.lineOffset + 1}
}

func (s *Scanner) error(pos Pos, msg string) {
	if s.errh != nil {
		s.errh(pos, msg)
	}
}

// next reads the next character into s.ch.
func (s *Scanner) next() {
	if s.ch == '\n' {
		s.line++
		s.lineOffset = s.rdOffset
	}
	s.offset = s.rdOffset
	if s.rdOffset >= len(s.src) {
		s.ch = -1
		return
	}
	r, w := rune(s.src[s.rdOffset]), 1
	switch {
	case r == 0:
		s.error(s.pos(), "invalid character NUL")
	case r >= utf8.RuneSelf:
		r, w = utf8.DecodeRune(s.src[s.rdOffset:])
		if r == utf8.RuneError && w == 1 {
			s.error(s.pos(), "invalid UTF-8 encoding")
		}
	}
	s.rdOffset += w
	s.ch = r
}

func (s *Scanner) peek() byte {
	if s.rdOffset < len(s.src) {
		return s.src[s.rdOffset]
	}
	return 0
}

func isLetter(c rune) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isDigit(c rune) bool  { return '0' <= c && c <= '9' }
func isHex(c rune) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isSpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// Scan returns the next token: its position, kind and literal text (the name of
// an identifier, the digits of an integer, the quoted text of a string).
func (s *Scanner) Scan() (pos Pos, tok Token, lit string) {
	for {
		pos, tok, lit = s.scan()
		if tok != illegal {
			return pos, tok, lit
		}
	}
}

// illegal is what scan returns for a character that starts no token (after
// reporting it), so that Scan can skip it without recursion.
const illegal = keywordEnd + 1

func (s *Scanner) scan() (pos Pos, tok Token, lit string) {
	for {
		s.skipSpace()
		pos = s.pos()
		if s.ch == '/' && (s.peek() == '/' || s.peek() == '*') {
			s.comment()
			continue
		}
		break
	}
	switch ch := s.ch; {
	case ch == -1:
		return pos, EOF, ""
	case isLetter(ch):
		start := s.offset
		for isLetter(s.ch) || isDigit(s.ch) {
			s.next()
		}
		lit = string(s.src[start:s.offset])
		if tok := keyword(lit); tok != IDENT {
			return pos, tok, ""
		}
		return pos, IDENT, lit
	case isDigit(ch):
		return pos, INTLIT, s.number(pos)
	case ch == '"':
		return pos, STRING, s.string(pos)
	}
	ch := s.ch
	s.next()
	switch ch {
	case '+':
		tok = s.choose(ADD, '=', ADD_ASSIGN, '+', INC)
	case '-':
		tok = s.choose(SUB, '=', SUB_ASSIGN, '-', DEC)
	case '*':
		tok = MUL
	case '/':
		tok = QUO
	case '%':
		tok = REM
	case '&':
		tok = s.choose(AND, '&', LAND, 0, 0)
	case '|':
		tok = s.choose(OR, '|', LOR, 0, 0)
	case '^':
		tok = XOR
	case '!':
		tok = s.choose(NOT, '=', NEQ, 0, 0)
	case '~':
		tok = TILDE
	case '=':
		tok = s.choose(ASSIGN, '=', EQL, 0, 0)
	case '<':
		tok = s.choose(LSS, '=', LEQ, '<', SHL)
	case '>':
		tok = s.choose(GTR, '=', GEQ, '>', SHR)
	case '?':
		tok = QUESTION
	case ':':
		tok = COLON
	case '(':
		tok = LPAREN
	case ')':
		tok = RPAREN
	case '[':
		tok = LBRACK
	case ']':
		tok = RBRACK
	case '{':
		tok = LBRACE
	case '}':
		tok = RBRACE
	case ',':
		tok = COMMA
	case ';':
		tok = SEMICOLON
	case '.':
		tok = s.choose(PERIOD, '.', DOTDOT, 0, 0)
	default:
		if ch != 0 && !(ch == utf8.RuneError && s.offset-pos.Offset == 1) {
			s.error(pos, fmt.Sprintf("invalid character %#U", ch))
		}
		return pos, illegal, ""
	}
	return pos, tok, ""
}

// choose returns tok1 if the current character is ch1 (and consumes it), tok2 if
// it is ch2, else tok0.
func (s *Scanner) choose(tok0 Token, ch1 rune, tok1 Token, ch2 rune, tok2 Token) Token {
	switch {
	case ch1 != 0 && s.ch == ch1:
		s.next()
		return tok1
	case ch2 != 0 && s.ch == ch2:
		s.next()
		return tok2
	}
	return tok0
}

func (s *Scanner) skipSpace() {
	for isSpace(s.ch) {
		s.next()
	}
}

// comment skips a // or /* */ comment starting at the current '/'.
func (s *Scanner) comment() {
	pos := s.pos()
	s.next()
	if s.ch == '/' {
		for s.ch != '\n' && s.ch != -1 {
			s.next()
		}
		s.Comments = append(s.Comments, Span{pos.Offset, s.offset})
		return
	}
	s.next() // the '*'
	for {
		if s.ch == -1 {
			s.error(pos, "comment not terminated")
			break
		}
		ch := s.ch
		s.next()
		if ch == '*' && s.ch == '/' {
			s.next()
			break
		}
	}
	s.Comments = append(s.Comments, Span{pos.Offset, s.offset})
}

// number scans an integer literal. Everything alphanumeric that follows the first
// digit belongs to the literal, so "12ab" is one malformed literal, not two tokens.
func (s *Scanner) number(pos Pos) string {
	start := s.offset
	for isLetter(s.ch) || isDigit(s.ch) {
		s.next()
	}
	lit := string(s.src[start:s.offset])
	if len(lit) > 1 && (lit[1] == 'x' || lit[1] == 'X') && lit[0] == '0' {
		digits := lit[2:]
		if digits == "" {
			s.error(pos, fmt.Sprintf("invalid integer literal %s: no hexadecimal digits", lit))
		}
		for i, c := range digits {
			if !isHex(c) {
				s.error(Pos{pos.Offset + 2 + i, pos.Line, pos.Col + 2 + i},
					fmt.Sprintf("invalid digit %q in hexadecimal literal", c))
				break
			}
		}
		return lit
	}
	for i, c := range lit {
		if !isDigit(c) {
			s.error(Pos{pos.Offset + i, pos.Line, pos.Col + i},
				fmt.Sprintf("invalid digit %q in integer literal", c))
			return lit
		}
	}
	if len(lit) > 1 && lit[0] == '0' {
		s.error(pos, fmt.Sprintf("invalid integer literal %s: leading zeros are not allowed (there are no octal literals)", lit))
	}
	return lit
}

// string scans a string literal, which must end on the line it starts on.
func (s *Scanner) string(pos Pos) string {
	start := s.offset
	s.next() // opening quote
	for {
		switch s.ch {
		case '"':
			s.next()
			return string(s.src[start:s.offset])
		case '\\':
			s.next()
			if s.ch == '\n' || s.ch == -1 {
				continue
			}
			s.next()
		case '\n', -1:
			s.error(pos, "string literal not terminated")
			return string(s.src[start:s.offset]) + `"`
		default:
			s.next()
		}
	}
}
