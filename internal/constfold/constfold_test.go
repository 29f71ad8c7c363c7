package constfold

import (
	"testing"

	"kbmc/lang/syntax"
)

func TestFold(t *testing.T) {
	consts := map[string]int64{"N": 3, "BIG": 2147483647}
	lookup := func(name string) (int64, bool) { v, ok := consts[name]; return v, ok }
	tests := []struct {
		src    string
		width  int
		want   int64
		isBool bool
		ok     bool
	}{
		{"N * 2 + 1", 32, 7, false, true},
		{"BIG + 1", 32, -2147483648, false, true},    // wraps at the width
		{"BIG + 1", 64, 2147483648, false, true},     // not at 64
		{"100 + 100", 8, -56, false, true},           // nor at 8
		{"1 / 0", 32, 0, false, false},               // fails at run time: no constant
		{"1 << 32", 32, 0, false, false},             // shift out of range
		{"-7 % 2", 32, -1, false, true},              // truncated
		{"-7 >> 1", 32, -4, false, true},             // arithmetic
		{"N > 2 && !false", 32, 1, true, true},       // bools are 0 and 1
		{"true & false", 32, 0, true, true},          // & of bools stays a bool
		{"N == 3 ? 10 : 1 / 0", 32, 10, false, true}, // the branch not taken is not folded
		{"x + 1", 32, 0, false, false},               // x is no constant
		{"~0", 32, -1, false, true},
	}
	for _, tc := range tests {
		e, err := syntax.ParseExpr("e", []byte(tc.src))
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		v, isBool, ok := Fold(e, tc.width, lookup)
		if ok != tc.ok || ok && (v != tc.want || isBool != tc.isBool) {
			t.Errorf("Fold(%s) at width %d = %d, %v, %v; want %d, %v, %v", tc.src, tc.width, v, isBool, ok, tc.want, tc.isBool, tc.ok)
		}
	}
}
