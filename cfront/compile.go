package cfront

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"modernc.org/cc/v4"
	"modernc.org/token"

	"kbmc/ir"
	"kbmc/lang/syntax"
)

// Config holds the settings of one compilation.
type Config struct {
	// DataModel is ILP32 (int, long and pointers of 32 bits, SV-COMP's default)
	// or LP64; empty means ILP32.
	DataModel string
	// Defines are -D NAME=VALUE macros for preprocessing a .c file.
	Defines map[string]int64
	// NoFold makes every statement and condition a cut point of its own.
	NoFold bool
	// LoopThreads is how many threads a pthread_create inside a loop whose
	// trip count cfront cannot tell may start (0: DefaultLoopThreads).
	LoopThreads int
	// LoopBlocks is how many blocks a malloc inside such a loop may allocate,
	// and BlockCells the cells of a block whose size is not a constant (0: the
	// defaults).
	LoopBlocks, BlockCells int
	// Phantoms lowers the program for explicit.Hunt: a pthread_create that
	// finds its pool full starts a phantom, a thread that never runs
	// (ir.Pool.Overflow), instead of waiting. A bug hunt then reaches the
	// code after a loop that creates more threads than the pool holds; the
	// searches and the symbolic engine refuse such a program.
	Phantoms bool

	parseLimit time.Duration // 0: parseLimit; tests set less
}

// The defaults of Config's bounds. A thread pool or heap pool that runs out
// cuts the executions that need more (verdict at most bounded-safe, with the
// reason); they are bounds of the model, as the depth is.
const (
	DefaultLoopThreads = 3
	DefaultLoopBlocks  = 3
	DefaultBlockCells  = 16
	// maxPool caps any one pool, whatever the loops around its creation say.
	maxPool = 64
)

// Error is one input error with its position; ErrorList every input error of
// a file. They are lang's types, so that kbmc reports C errors as it reports
// .kb ones.
type (
	Error     = syntax.Error
	ErrorList = syntax.ErrorList
)

// IsC reports whether a file name is one cfront reads: .c or .i.
func IsC(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".c" || ext == ".i"
}

// Compile preprocesses (a .c file), parses, checks and lowers one C translation
// unit. Input errors come back as an ErrorList.
func Compile(path string, src []byte, cfg Config) (*ir.Program, error) {
	model := strings.ToUpper(cfg.DataModel)
	if model == "" {
		model = "ILP32"
	}
	arch := map[string]string{"ILP32": "386", "LP64": "amd64"}[model]
	if arch == "" {
		return nil, fmt.Errorf("cfront: data model %q: want ILP32 or LP64", cfg.DataModel)
	}
	text := src
	lines := lineMap{file: path}
	if strings.ToLower(filepath.Ext(path)) == ".c" {
		var err error
		text, lines, err = preprocess(path, src, model, cfg.Defines)
		if err != nil {
			return nil, err
		}
	}
	abi, err := cc.NewABI("linux", arch)
	if err != nil {
		return nil, fmt.Errorf("cfront: %w", err)
	}
	ccfg := &cc.Config{ABI: abi}
	if err := ccfg.ApplyOptions(); err != nil {
		return nil, fmt.Errorf("cfront: %w", err)
	}
	limit := cfg.parseLimit
	if limit == 0 {
		limit = parseLimit
	}
	ast, err := translate(ccfg, limit, []cc.Source{
		{Name: "<predefined>", Value: predefined(model)},
		{Name: "<builtin>", Value: cc.Builtin},
		{Name: path, Value: string(text)},
	})
	if err != nil {
		return nil, lines.errors(err, src)
	}
	l := newLowerer(path, src, ast, abi, lines, cfg, model)
	p, errs := l.lower()
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	// Before Finish, whose analyses read the ranges.
	p.NarrowNondets()
	if err := p.Finish(); err != nil {
		return nil, fmt.Errorf("cfront: internal error: %s: %w", path, err)
	}
	specialized := p.SpecializePrefix()
	// After SpecializePrefix, which makes a slot's argument a constant of its
	// code, so that the lock a philosopher takes first names a fixed mutex.
	hoisted := p.HoistStarts()
	// Last: the propagation leaves locals whose reads it replaced.
	dropped := p.DropUnreadLocals()
	if specialized || hoisted || dropped {
		if err := p.Finish(); err != nil {
			return nil, fmt.Errorf("cfront: internal error: %s: after specializing main's prefix: %w", path, err)
		}
	}
	return p, nil
}

// translate is cc.Translate, guarded: a panic inside cc (on an input it does
// not expect) becomes an input error, and so does a parse that does not end.
// cc's parser loops for ever after a '*' followed by a token that cannot follow
// it (int * ;), so such a token is reported before cc sees the file; the time
// limit is the safety net for any other such input (its goroutine is then left
// behind: the process ends soon after).
func translate(cfg *cc.Config, limit time.Duration, sources []cc.Source) (*cc.AST, error) {
	src := sources[len(sources)-1]
	if text, _ := src.Value.(string); text != "" {
		pos, msg, defines := precheck(text)
		if msg != "" {
			return nil, fmt.Errorf("%s:%d:%d: %s", src.Name, pos.Line, pos.Col, msg)
		}
		// A macro the file defines can put a keyword after a '*' that the
		// scan of its text cannot see: check the expanded tokens too. (A .c
		// file comes here preprocessed by gcc, a task's .i file has no
		// #define, so this costs nothing in the common case.)
		if defines {
			var expanded strings.Builder
			if cc.Preprocess(cfg, sources, &expanded) == nil {
				if _, msg, _ := precheck(expanded.String()); msg != "" {
					return nil, fmt.Errorf("%s:1:1: after macro expansion: %s", src.Name, msg)
				}
			}
		}
	}
	type result struct {
		ast *cc.AST
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{nil, fmt.Errorf("%s:1:1: the C parser (modernc.org/cc/v4) failed on this input: %v", src.Name, r)}
			}
		}()
		ast, err := cc.Translate(cfg, sources)
		done <- result{ast, err}
	}()
	select {
	case r := <-done:
		return r.ast, r.err
	case <-time.After(limit):
		return nil, fmt.Errorf("%s:1:1: the C parser (modernc.org/cc/v4) did not finish within %v: the file has a syntax error it cannot recover from", src.Name, limit)
	}
}

// precheck finds, before cc's parser sees the source, the inputs that make it
// loop for ever or crash: a line that starts with '#' but is no directive, an
// unterminated string or character literal, a stray byte (a control character,
// or a byte of a non-ASCII character outside a literal or comment), a '*' the
// next token cannot follow (strandedStar), and a struct of itself
// (selfContaining). It returns the position and the message of the first, or
// "", and whether the source defines a macro.
func precheck(src string) (pos ir.Pos, msg string, defines bool) {
	pos, ok, defines := directives(src)
	if !ok {
		return pos, "invalid preprocessing directive", defines
	}
	toks := cTokens(src)
	for _, t := range toks {
		switch c := t.text[0]; {
		case !t.ok:
			return t.pos, "unterminated string or character literal", defines
		case c < ' ' && c != '\t' || c >= 0x7f:
			return t.pos, fmt.Sprintf("stray byte %#02x in the program", c), defines
		}
	}
	if pos, ok := strandedStar(toks); !ok {
		return pos, "syntax error: unexpected token after '*'", defines
	}
	if pos, tag := selfContaining(toks); tag != "" {
		return pos, tag + " has a member of its own type (only a pointer to it may be)", defines
	}
	return ir.Pos{}, "", defines
}

// directives walks the lines that start with '#': it finds one that names no
// directive (a name or a line marker's number after the '#', or nothing),
// which cTokens skips but cc's preprocessor passes on, and its parser can
// then loop on (##(* for example), reporting the '#' and false; and it says
// whether the source defines a macro.
func directives(src string) (bad ir.Pos, ok, defines bool) {
	for i, line := range strings.Split(src, "\n") {
		rest := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(rest, "#") {
			continue
		}
		col := len(line) - len(rest) + 1
		rest = strings.TrimLeft(rest[1:], " \t\r")
		switch {
		case strings.HasPrefix(rest, "define"):
			defines = true
		case rest == "" || rest[0] == '_' || rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z' || rest[0] >= '0' && rest[0] <= '9':
		default:
			return ir.Pos{Line: i + 1, Col: col}, false, defines
		}
	}
	return ir.Pos{}, true, defines
}

// selfContaining finds a struct or union with a member of its own type, not
// behind a pointer (struct A { struct A a; }), which C forbids and on which
// cc's field lookup recurses until the stack overflows (a crash no recover
// catches). It returns the member type's position and "struct A", or "".
// Types in a member's parameter list (int (*f)(struct A)) are fine.
func selfContaining(toks []cToken) (ir.Pos, string) {
	type open struct {
		tag          string
		depth, paren int
	}
	var stack []open
	depth, paren := 0, 0
	for i := 0; i < len(toks); i++ {
		switch t := toks[i].text; t {
		case "{":
			depth++
		case "}":
			if n := len(stack); n > 0 && stack[n-1].depth == depth {
				stack = stack[:n-1]
			}
			depth--
		case "(":
			paren++
		case ")":
			paren--
		case "struct", "union":
			if i+2 >= len(toks) {
				continue
			}
			tag := t + " " + toks[i+1].text
			if toks[i+2].text == "{" {
				stack = append(stack, open{tag, depth + 1, paren})
				continue
			}
			j := i + 2
			for j < len(toks) && qualifiers[toks[j].text] {
				j++
			}
			if j == len(toks) || toks[j].text == "*" || toks[j].text == "(" {
				continue
			}
			for _, o := range stack {
				if o.tag == tag && paren == o.paren {
					return toks[i].pos, tag
				}
			}
		}
	}
	return ir.Pos{}, ""
}

// strandedStar scans C source for a '*' (and the qualifiers after it) followed
// by a token that cannot follow it in C: not a name, number, literal, another
// '*', a parenthesis, bracket, comma, colon or unary operator (';', '=', '{',
// an unterminated literal, a stray byte, the end of the file). It reports that
// token's position and false if it finds one.
func strandedStar(toks []cToken) (ir.Pos, bool) {
	for i := 0; i < len(toks); i++ {
		if toks[i].text != "*" && toks[i].text != "^" { // cc parses ^ as a (block) pointer too
			continue
		}
		j := i + 1
		for j < len(toks) && (qualifiers[toks[j].text] || builtinEmptyMacros[toks[j].text]) {
			j++
		}
		if j == len(toks) {
			last := toks[len(toks)-1]
			return ir.Pos{Line: last.pos.Line, Col: last.pos.Col + len(last.text)}, false
		}
		if t := toks[j]; !t.ok || !mayFollowStar(t.text) {
			return t.pos, false
		}
	}
	return ir.Pos{}, true
}

// nowhereAfterStar are the keywords of cc's C (with GNU's spellings) that
// cannot follow a pointer's '*' in any C: cc's parser takes them as a bad
// type qualifier and skips tokens until one that may end a declarator's
// qualifiers, which a file that ends first never has. The qualifiers
// themselves, static, and the keywords that start an expression (sizeof,
// _Alignof, _Generic, __real__, __imag__) may follow a '*'.
var nowhereAfterStar = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`auto break case char continue default do double else enum extern
		float for goto if inline int long register return short signed struct switch typedef union
		unsigned void while _Alignas _Bool _Complex _Imaginary _Noreturn _Static_assert _Thread_local
		_Decimal128 _Decimal32 _Decimal64 _Float128 _Float128x _Float16 __fp16 _Float32 _Float32x
		_Float64 _Float64x __asm __asm__ asm __auto_type __bf16 __complex __complex__ __declspec
		__float128 __inline __inline__ __int128 __int128_t __label__ __signed __signed__ __thread
		__typeof __typeof__ typeof __uint128_t`) {
		m[k] = true
	}
	return m
}()

// builtinEmptyMacros are the names cc.Builtin defines as nothing
// (__extension__, …): after a '*' they vanish, like a qualifier.
var builtinEmptyMacros = emptyMacros(cc.Builtin)

// emptyMacros lists the object-like macros src defines with an empty body.
func emptyMacros(src string) map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(src, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "#define" && !strings.Contains(f[1], "(") {
			m[f[1]] = true
		}
	}
	return m
}

// qualifiers are the words that may follow a pointer's '*'.
var qualifiers = map[string]bool{"const": true, "volatile": true, "restrict": true, "_Atomic": true,
	"__restrict": true, "__restrict__": true, "__const": true, "__volatile__": true, "__volatile": true,
	"_Nonnull": true, "_Nullable": true, "__attribute__": true}

// mayFollowStar reports whether a token may follow a '*' (and its
// qualifiers): a name (not a keyword of nowhereAfterStar), a number, a
// literal, or one of ( ) * , [ ] : - + ! ~ & ++ --. Each of them ends cc's
// scan of the qualifiers after a '*'.
func mayFollowStar(t string) bool {
	c := t[0]
	switch {
	case nowhereAfterStar[t]:
		return false
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '$', c == '"', c == '\'':
		return true
	}
	switch t {
	case "(", ")", "*", ",", "[", "]", ":", "-", "+", "!", "~", "&", "++", "--":
		return true
	}
	return false
}

// cToken is a token of strandedStar's scan: ok is false for an unterminated
// literal.
type cToken struct {
	text string
	pos  ir.Pos
	ok   bool
}

// cTokens splits C source into tokens, enough to tell what follows a '*':
// names and numbers, literals, and punctuation (the two- and three-character
// operators whole); comments, white space and preprocessor lines are skipped.
func cTokens(src string) []cToken {
	var toks []cToken
	line, col := 1, 1
	i := 0
	step := func(n int) {
		for ; n > 0 && i < len(src); n-- {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	lineStart := true
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			step(1)
			lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			step(1)
			continue
		case c == '#' && lineStart, c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				step(1)
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			step(2)
			for i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/') {
				step(1)
			}
			step(2)
			continue
		}
		lineStart = false
		at, from := ir.Pos{Line: line, Col: col}, i
		ok := true
		switch {
		case c == '"' || c == '\'':
			step(1)
			for i < len(src) && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					step(1)
				}
				step(1)
			}
			if ok = i < len(src) && src[i] == c; ok {
				step(1)
			}
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '$', c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			// A number may hold a '.' (1.5, .5); a name ends before one
			// (return.x is the keyword return, then '.').
			number := c >= '0' && c <= '9' || c == '.'
			for i < len(src) && (src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' ||
				src[i] >= '0' && src[i] <= '9' || src[i] == '_' || src[i] == '$' || number && src[i] == '.') {
				step(1)
			}
		default:
			n := 1
			for _, op := range []string{"...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
				"*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##"} {
				if strings.HasPrefix(src[i:], op) {
					n = len(op)
					break
				}
			}
			step(n)
		}
		toks = append(toks, cToken{text: src[from:i], pos: at, ok: ok})
	}
	return toks
}

// parseLimit bounds a parse: cc translates SV-COMP's largest preprocessed
// files in about a second.
const parseLimit = 30 * time.Second

// predefined are the macros cc.Builtin relies on, for the data model.
func predefined(model string) string {
	if model == "LP64" {
		return "#define __SIZE_TYPE__ unsigned long\n#define __PTRDIFF_TYPE__ long\n#define __WCHAR_TYPE__ int\n" +
			"#define __UINT16_TYPE__ unsigned short\n#define __UINT32_TYPE__ unsigned\n#define __UINT64_TYPE__ unsigned long\n"
	}
	return "#define __SIZE_TYPE__ unsigned\n#define __PTRDIFF_TYPE__ int\n#define __WCHAR_TYPE__ long\n" +
		"#define __UINT16_TYPE__ unsigned short\n#define __UINT32_TYPE__ unsigned\n#define __UINT64_TYPE__ unsigned long long\n"
}

// preprocess runs the C preprocessor (gcc -E, -m32 for ILP32) on a .c file and
// returns its output with the map from its lines back to the source's.
func preprocess(path string, src []byte, model string, defines map[string]int64) ([]byte, lineMap, error) {
	lines := lineMap{file: path}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return nil, lines, errors.New("preprocessing a .c file needs gcc (Debian: apt-get install gcc gcc-multilib; scripts/deps installs them); or give kbmc the preprocessed .i file")
	}
	args := []string{"-E", "-x", "c", "-D__kbmc__=1"}
	if model == "ILP32" {
		args = append(args, "-m32")
	}
	names := make([]string, 0, len(defines))
	for n := range defines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		args = append(args, fmt.Sprintf("-D%s=%d", n, defines[n]))
	}
	if dir := filepath.Dir(path); dir != "" {
		args = append(args, "-I", dir)
	}
	args = append(args, "-")
	cmd := exec.Command(gcc, args...)
	cmd.Stdin = bytes.NewReader(src)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "bits/") || strings.Contains(msg, "gnu/stubs-32.h") {
			msg += "\n(32-bit headers are missing: apt-get install gcc-multilib, or run with --data-model LP64)"
		}
		return nil, lines, fmt.Errorf("%s: preprocessing failed: %s", path, strings.ReplaceAll(msg, "<stdin>", path))
	}
	text := out.Bytes()
	lines.build(text)
	return text, lines, nil
}

// lineMap maps lines of the text cc parses to lines of the file the user gave:
// the same for a .i file, and for a preprocessed .c file through the line
// markers the preprocessor writes. A line from another file (a header) maps to
// line 0.
type lineMap struct {
	file string
	to   []int // to[i] is the source line of text line i+1 (nil: the identity)
}

func (m *lineMap) build(text []byte) {
	m.to = m.to[:0]
	cur, inMain := 1, true
	for _, line := range bytes.Split(text, []byte("\n")) {
		if len(line) > 2 && line[0] == '#' && line[1] == ' ' {
			// # 12 "file.c" flags
			f := strings.Fields(string(line[2:]))
			if len(f) >= 2 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					name := strings.Trim(f[1], `"`)
					inMain = name == "<stdin>" || name == m.file
					m.to = append(m.to, 0)
					cur = n
					continue
				}
			}
		}
		if inMain {
			m.to = append(m.to, cur)
		} else {
			m.to = append(m.to, 0)
		}
		cur++
	}
}

// ccPosition is the position type cc nodes report.
type ccPosition = token.Position

// node maps a cc node's position to the user's file; ok is false for a
// position in another file.
func (m *lineMap) node(n cc.Node) (ir.Pos, bool) { return m.at(n.Position()) }

// at maps a cc position to the user's file.
func (m *lineMap) at(p ccPosition) (ir.Pos, bool) {
	if p.Line <= 0 || p.Filename != m.file && m.to == nil {
		return ir.Pos{}, false
	}
	if m.to == nil {
		return ir.Pos{Line: p.Line, Col: p.Column}, true
	}
	if p.Line > len(m.to) || m.to[p.Line-1] == 0 {
		return ir.Pos{}, false
	}
	return ir.Pos{Line: m.to[p.Line-1], Col: p.Column}, true
}

// errors turns cc's error, a list of "file:line:col: message" lines, into an
// ErrorList with the user's positions and source lines.
func (m *lineMap) errors(err error, src []byte) error {
	var list ErrorList
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		pos, msg := splitPosition(line)
		msg = ccOrigin.ReplaceAllString(msg, "")
		if pos.Line == 0 && strings.HasPrefix(msg, "TODO ") {
			// cc's note that a node it already reported failed to type-check.
			continue
		}
		e := &Error{Pos: syntax.Position{Filename: m.file}, Msg: msg}
		if pos.Line > 0 {
			if p, ok := m.at(pos); ok {
				e.Pos.Line, e.Pos.Col, e.Source = p.Line, p.Col, sourceLine(src, p.Line)
			} else if pos.Filename != "" {
				e.Msg = fmt.Sprintf("%s (in %s:%d)", msg, pos.Filename, pos.Line)
			}
		}
		list = append(list, e)
	}
	if len(list) == 0 {
		return err
	}
	list.Sort()
	return list
}

// ccOrigin is where in its own source cc raised an error, "(check.go:5373:check:)":
// of no use to a user.
var ccOrigin = regexp.MustCompile(`\s*\([a-z0-9_]+\.go:\d+:[A-Za-z0-9_.]*:\)$`)

// splitPosition splits "file:line:col: message".
func splitPosition(s string) (ccPosition, string) {
	parts := strings.SplitN(s, ":", 4)
	if len(parts) == 4 {
		line, err1 := strconv.Atoi(parts[1])
		col, err2 := strconv.Atoi(parts[2])
		if err1 == nil && err2 == nil {
			return ccPosition{Filename: parts[0], Line: line, Column: col}, strings.TrimSpace(parts[3])
		}
	}
	return ccPosition{}, s
}

// sourceLine is line n of src, without its line break.
func sourceLine(src []byte, n int) string {
	lines := bytes.Split(src, []byte("\n"))
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimRight(string(lines[n-1]), "\r")
}
