package syntax

import (
	"fmt"
	"strings"
	"testing"
)

type scanned struct {
	tok Token
	lit string
	pos string // line:col
}

func scanAll(src string) (toks []scanned, errs []string) {
	var s Scanner
	s.Init([]byte(src), func(pos Pos, msg string) { errs = append(errs, pos.String()+": "+msg) })
	for {
		pos, tok, lit := s.Scan()
		if tok == EOF {
			return toks, errs
		}
		toks = append(toks, scanned{tok, lit, pos.String()})
	}
}

func TestScannerTokens(t *testing.T) {
	tests := []struct {
		src  string
		want string // tokens as "tok" or "tok:lit", space separated
	}{
		{"x", "identifier:x"},
		{"_a1 B_2", "identifier:_a1 identifier:B_2"},
		{"0 42 0x2A 0XfF", "integer literal:0 integer literal:42 integer literal:0x2A integer literal:0XfF"},
		{`"hi \"there\""`, `string literal:"hi \"there\""`},
		{"+ - * / % << >> & | ^ && || ! ~", "+ - * / % << >> & | ^ && || ! ~"},
		{"== != < <= > >= = += -= ++ --", "== != < <= > >= = += -= ++ --"},
		{"? : ( ) [ ] { } , ;", "? : ( ) [ ] { } , ;"},
		{"x+++y", "identifier:x ++ + identifier:y"},
		{"a<<=b", "identifier:a << = identifier:b"},
		{"const shared mutex func thread int bool", "const shared mutex func thread int bool"},
		{"if else while for break continue return", "if else while for break continue return"},
		{"assert assume await lock unlock join yield atomic", "assert assume await lock unlock join yield atomic"},
		{"true false tid nondet cas", "true false tid nondet cas"},
		{"x // comment\ny", "identifier:x identifier:y"},
		{"x /* a\n b */ y", "identifier:x identifier:y"},
		{"\uFEFFthread", "thread"},
		{"threads ifx", "identifier:threads identifier:ifx"},
		// Invariants: process members and quantifier ranges; a number stops at the dot.
		{"p[1].x 0..N-1 a...b", "identifier:p [ integer literal:1 ] . identifier:x integer literal:0 .. identifier:N - integer literal:1 identifier:a .. . identifier:b"},
		{"invariant forall exists in", "identifier:invariant identifier:forall identifier:exists identifier:in"},
	}
	for _, tt := range tests {
		toks, errs := scanAll(tt.src)
		if len(errs) > 0 {
			t.Errorf("%q: unexpected errors %v", tt.src, errs)
		}
		var got []string
		for _, tk := range toks {
			if tk.lit != "" {
				got = append(got, tk.tok.String()+":"+tk.lit)
			} else {
				got = append(got, tk.tok.String())
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, g, tt.want)
		}
	}
}

func TestScannerPositions(t *testing.T) {
	toks, _ := scanAll("a\n\tbb /* x\n */ c\r\n  d")
	var got []string
	for _, tk := range toks {
		got = append(got, tk.lit+"@"+tk.pos)
	}
	want := "a@1:1 bb@2:2 c@3:5 d@4:3"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got %s, want %s", g, want)
	}
}

func TestScannerErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"x @ y", "1:3: invalid character U+0040 '@'"},
		{"012", "1:1: invalid integer literal 012: leading zeros are not allowed"},
		{"0x", "1:1: invalid integer literal 0x: no hexadecimal digits"},
		{"0x1g", "1:4: invalid digit 'g' in hexadecimal literal"},
		{"12ab", "1:3: invalid digit 'a' in integer literal"},
		{"0b101", "1:2: invalid digit 'b' in integer literal"},
		{`"abc`, "1:1: string literal not terminated"},
		{"\"ab\nc\"", "1:1: string literal not terminated"},
		{"/* never ends", "1:1: comment not terminated"},
		{"a\x00b", "1:2: invalid character NUL"},
		{"a\xffb", "1:2: invalid UTF-8 encoding"},
		{"é", "1:1: invalid character U+00E9 'é'"},
	}
	for _, tt := range tests {
		_, errs := scanAll(tt.src)
		if len(errs) == 0 || !strings.HasPrefix(errs[0], tt.want) {
			t.Errorf("%q: errors %v, want first %q", tt.src, errs, tt.want)
		}
	}
}

func TestTokenPrecedence(t *testing.T) {
	// C's order, loosest first.
	levels := [][]Token{{LOR}, {LAND}, {OR}, {XOR}, {AND}, {EQL, NEQ}, {LSS, LEQ, GTR, GEQ}, {SHL, SHR}, {ADD, SUB}, {MUL, QUO, REM}}
	for i, level := range levels {
		for _, tok := range level {
			if got := tok.Precedence(); got != i+1 {
				t.Errorf("%s: precedence %d, want %d", tok, got, i+1)
			}
		}
	}
	for _, tok := range []Token{ASSIGN, QUESTION, NOT, IDENT, EOF} {
		if p := tok.Precedence(); p != LowestPrec {
			t.Errorf("%s: precedence %d, want none", tok, p)
		}
	}
	if !CAS.IsKeyword() || IDENT.IsKeyword() || fmt.Sprint(Token(250)) != "Token(250)" {
		t.Error("keyword classification or String of an unknown token is wrong")
	}
}
