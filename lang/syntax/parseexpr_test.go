package syntax

import (
	"strings"
	"testing"
)

func TestParseExpr(t *testing.T) {
	tests := []struct {
		src  string
		want string // printed form, or the error text
		err  bool
	}{
		{src: "a + b * c", want: "a + b * c"},
		{src: "(x >= 0) && !done ? 1 : n[2]", want: "(x >= 0) && !done ? 1 : n[2]"},
		{src: "  -x  ", want: "-x"},
		{src: "a +", want: "1:4: expected expression, found end of file", err: true},
		{src: "a b", want: "1:3: expected end of expression, found identifier b", err: true},
		{src: "x = 1", want: "1:3: expected end of expression, found \"=\"", err: true},
		{src: "a @ b", want: "1:3: invalid character", err: true},
		{src: "", want: "1:1: expected expression, found end of file", err: true},
	}
	for _, tc := range tests {
		x, err := ParseExpr("pred", []byte(tc.src))
		if x == nil {
			t.Errorf("%q: nil expression", tc.src)
			continue
		}
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "pred:") {
				t.Errorf("%q: error %q lacks the file name", tc.src, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if got := ExprString(x); got != tc.want {
			t.Errorf("%q: printed %q, want %q", tc.src, got, tc.want)
		}
	}
}
