package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Go's close in the output: the text trace shows close(c) and a receive of
// zeros as such, the JSON marks it closed, the chart pairs it with no
// message, the properties list the panics, and a panic is the violation's
// kind.
func TestCloseOutput(t *testing.T) {
	path := writeProgram(t, `chan (int) c capacity 1;
thread sender { send(c, 0); close(c); }
thread receiver { int x = 0; int y = 0; bool ok = true; recv(c, x); recv(c, y) ok(ok); assert(ok, "a second message"); }
`)
	code, out, _ := kbmc(t, "check", "--workers", "1", path)
	if code != exitUnsafe || !strings.Contains(out, "close(c)") || !strings.Contains(out, "c is closed: received zeros") {
		t.Errorf("exit %d, want close(c) and the zeros received in the trace:\n%s", code, out)
	}
	code, out, _ = kbmc(t, "check", "--workers", "1", "--json", path)
	var res struct {
		Trace []struct {
			Received *struct {
				Channel string `json:"channel"`
				Fields  []any  `json:"fields"`
				Closed  bool   `json:"closed"`
			} `json:"received"`
		} `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitUnsafe {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	closed := 0
	for _, st := range res.Trace {
		if st.Received != nil && st.Received.Closed {
			closed++
		}
	}
	if closed != 1 {
		t.Errorf("%d receives marked closed, want 1:\n%s", closed, out)
	}
	// The zeros (0) are no message: the sent (0) is the first receive's.
	code, out, _ = kbmc(t, "check", "--workers", "1", "--trace", "mermaid", path)
	if code != exitUnsafe || strings.Count(out, "(0) on c") != 1 {
		t.Errorf("exit %d, want one arrow for the one message:\n%s", code, out)
	}

	code, out, _ = kbmc(t, "check", "--show-properties", path)
	if code != 0 || !strings.Contains(out, "panic.1") || !strings.Contains(out, "panic.2") || strings.Contains(out, "panic.3") {
		t.Errorf("exit %d, want two panic properties (the send, the close):\n%s", code, out)
	}
	path = writeProgram(t, `chan (int) c capacity 1;
thread a { close(c); }
thread b { send(c, 1); }
`)
	code, out, _ = kbmc(t, "check", "--workers", "1", "--json", path)
	if code != exitUnsafe || !strings.Contains(out, `"kind":"panic"`) || !strings.Contains(out, "send on closed channel") {
		t.Errorf("exit %d, want a panic:\n%s", code, out)
	}
}
