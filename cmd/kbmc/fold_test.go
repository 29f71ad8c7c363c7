package main

import (
	"strings"
	"testing"
)

// TestTraceFoldsRepeatedDeclarations checks that the text trace shows a loop's
// declaration again only when it gives its variable another value, and says
// how many it left out; the JSON trace keeps every statement.
func TestTraceFoldsRepeatedDeclarations(t *testing.T) {
	path := writeProgram(t, `shared int x;
thread a {
    int i = 0;
    while (i < 3) {
        int step = 1;
        int twice = 2 * i;
        x = x + step;
        i = i + 1;
    }
    assert(x != 3, "three");
}
`)
	_, out, _ := kbmc(t, "check", "--algo", "dfs", path)
	count := func(s string) int { return strings.Count(out, s) }
	if n := count("int step = 1"); n != 1 {
		t.Errorf("int step = 1 shown %d times, want once (it sets step=1 every time)\n%s", n, out)
	}
	if n := count("int twice = 2 * i"); n != 3 {
		t.Errorf("int twice = 2 * i shown %d times, want 3 (its value changes)\n%s", n, out)
	}
	if !strings.Contains(out, "2 declarations not shown again") {
		t.Errorf("the trace does not say what it left out\n%s", out)
	}
	_, js, _ := kbmc(t, "check", "--algo", "dfs", "--json", path)
	if n := strings.Count(js, `"int step = 1"`); n != 3 {
		t.Errorf("the JSON trace has int step = 1 %d times, want every one of 3", n)
	}
}
