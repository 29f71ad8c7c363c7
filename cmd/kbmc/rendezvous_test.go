package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A rendezvous is one step of the sender's: the text trace says to whom it
// handed the message and shows the receiver's statements under it with the
// receiver's name, the JSON says the same with partner and folded threads,
// and the chart draws the message within the step's row.
func TestRendezvousTrace(t *testing.T) {
	path := writeProgram(t, `chan (int) c capacity 0;
shared int x = 0;
thread sender { send(c, 7); x = 1; }
thread receiver { int m = 0; recv(c, m); assert(x == 0, "the sender has not written yet"); }
`)
	code, out, _ := kbmc(t, "check", "--workers", "1", path)
	if code != exitUnsafe || !strings.Contains(out, "handed (7) to receiver on c") ||
		!strings.Contains(out, "receiver  "+path+":4    recv(c, m)") {
		t.Errorf("exit %d, want the handoff and the receiver's recv under it:\n%s", code, out)
	}
	code, out, _ = kbmc(t, "check", "--workers", "1", "--json", path)
	var res struct {
		Trace []struct {
			Thread  string `json:"thread"`
			Partner string `json:"partner"`
			Sent    *struct {
				Channel string `json:"channel"`
			} `json:"sent"`
			Folded []struct {
				Thread string `json:"thread"`
				Text   string `json:"text"`
			} `json:"folded"`
		} `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitUnsafe {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	found := false
	for _, st := range res.Trace {
		if st.Partner == "" {
			continue
		}
		found = true
		if st.Thread != "sender" || st.Partner != "receiver" || st.Sent == nil || st.Sent.Channel != "c" ||
			len(st.Folded) == 0 || st.Folded[0].Thread != "receiver" || st.Folded[0].Text != "recv(c, m)" {
			t.Errorf("the handoff step: %+v", st)
		}
	}
	if !found {
		t.Errorf("no step has a partner:\n%s", out)
	}
	code, out, _ = kbmc(t, "check", "--workers", "1", "--trace", "mermaid", path)
	if code != exitUnsafe || !strings.Contains(out, "->>") || !strings.Contains(out, "(7) on c") {
		t.Errorf("exit %d, want an arrow for the handed-over message:\n%s", code, out)
	}
	code, out, _ = kbmc(t, "check", "--workers", "1", "--trace", "msc", path)
	if code != exitUnsafe || !strings.Contains(out, "(7) on c") || strings.Contains(out, "in flight") {
		t.Errorf("exit %d, want the SVG to draw the message delivered:\n%s", code, out)
	}
}
