package detect

import (
	"strconv"
	"strings"
)

// Logs carry no memory dump, so the local state after an event is read from its
// text: every key=value pair sets variable key (a key keeps its value until it is
// set again). A key is an identifier, optionally indexed (slot[2]); "=" must
// touch both sides, so "x == 1", "x <= 1" and "x = 1" set nothing. A value runs
// to the next white space, comma or semicolon, or is a double-quoted Go string; a
// trailing full stop and an unmatched closing bracket are not part of it.

// textAssignments calls set for each key=value pair in text, in order.
func textAssignments(text string, set func(key string, v Value)) {
	for i := 0; i < len(text); i++ {
		if text[i] != '=' {
			continue
		}
		if i+1 < len(text) && text[i+1] == '=' { // ==
			i++
			continue
		}
		key := keyBefore(text, i)
		if key == "" {
			continue
		}
		raw, end, quoted := valueAfter(text, i+1)
		if end == i+1 {
			continue // "x=" with nothing after it
		}
		if quoted {
			set(key, WordVal(raw))
		} else {
			set(key, ParseValue(raw))
		}
		i = end - 1
	}
}

// keyBefore returns the key that ends just before text[eq], or "".
func keyBefore(text string, eq int) string {
	end := eq
	start := end
	if start > 0 && text[start-1] == ']' {
		// slot[2]=…: digits inside brackets.
		j := start - 2
		for j >= 0 && isDigit(text[j]) {
			j--
		}
		if j < 0 || text[j] != '[' || j == start-2 {
			return ""
		}
		start = j
	}
	j := start
	for j > 0 && isIdentByte(text[j-1]) {
		j--
	}
	if j == start || isDigit(text[j]) {
		return ""
	}
	if j > 0 && text[j-1] == '.' {
		return "" // a field of something else: node[1].leader=3 is not ours
	}
	return text[j:end]
}

// valueAfter returns the value starting at text[i] and the offset after it.
func valueAfter(text string, i int) (raw string, end int, quoted bool) {
	if i < len(text) && text[i] == '"' {
		j := i + 1
		for j < len(text) && text[j] != '"' {
			if text[j] == '\\' {
				j++
			}
			j++
		}
		if j < len(text) {
			if s, err := strconv.Unquote(text[i : j+1]); err == nil {
				return s, j + 1, true
			}
		}
	}
	j := i
	for j < len(text) && !isValueEnd(text[j]) {
		j++
	}
	raw = trimValue(text[i:j])
	return raw, i + len(raw), false
}

func isValueEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';'
}

// trimValue drops a trailing full stop and unmatched closing brackets.
func trimValue(s string) string {
	for len(s) > 0 {
		last := s[len(s)-1]
		open := map[byte]byte{')': '(', ']': '[', '}': '{'}[last]
		switch {
		case last == '.':
		case open != 0 && strings.Count(s, string(open)) < strings.Count(s, string(last)):
		default:
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

// ParseValue reads a value as logs write it: an integer (decimal, or hex with
// 0x), true or false, or else a word.
func ParseValue(s string) Value {
	switch s {
	case "true":
		return BoolVal(true)
	case "false":
		return BoolVal(false)
	}
	digits, neg := s, false
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		digits, neg = digits[1:], digits[0] == '-'
	}
	base := 10
	if len(digits) > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') {
		digits, base = digits[2:], 16
	}
	if digits != "" && digits[0] != '+' && digits[0] != '-' {
		if neg {
			digits = "-" + digits
		}
		if n, err := strconv.ParseInt(digits, base, 64); err == nil {
			return IntVal(n)
		}
	}
	return WordVal(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)
}
