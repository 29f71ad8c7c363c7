package ir_test

import (
	"strings"
	"testing"

	"kbmc/ir"
	"kbmc/lang"
)

// TestSelect: a select is enabled while one of its cases can go (always with a
// default), draws among the ready cases, performs the drawn one, and reads
// both ends of every case's channel; blocked, it says what it waits for.
func TestSelect(t *testing.T) {
	const src = `chan (int) a capacity 1;
chan (int) b capacity 1;
chan (int) c capacity 1;
thread fill { send(a, 1); send(b, 2); }
thread sel {
    int x = 0;
    select {
    case recv(a, x):
    case recv(b, x):
    case send(c, 5):
    }
}
thread poll {
    int y = 0;
    select {
    case recv(b, y):
    default:
    }
}`
	p, err := lang.Compile("sel.kb", []byte(src), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	th := func(name string) int {
		for i, x := range p.Threads {
			if x.Name == name {
				return i
			}
		}
		t.Fatalf("no thread %s", name)
		return -1
	}
	fill, sel, poll := th("fill"), th("sel"), th("poll")
	s := p.Initial()
	// Each thread's select is its next step; c has room: sel's send case
	// alone is ready.
	step := func(s ir.State, t0 int, draws []int64) (ir.State, *ir.Event, *ir.Choices) {
		s = append(ir.State(nil), s...)
		ch := &ir.Choices{}
		ch.Reset(draws)
		ev := &ir.Event{}
		p.Step(s, t0, ch, ev)
		if ev.Violation != nil {
			t.Fatalf("step of %s: %v", p.Threads[t0].Name, ev.Violation)
		}
		return s, ev, ch
	}
	for p.Transition(s, sel).EntryNode().Op != ir.OpSelect {
		s, _, _ = step(s, sel, nil)
	}
	for p.Transition(s, poll).EntryNode().Op != ir.OpSelect {
		s, _, _ = step(s, poll, nil)
	}
	if got := p.Status(s, poll); got != ir.Enabled {
		t.Errorf("poll with a default: %v, want enabled", got)
	}
	_, ev, ch := step(s, sel, nil)
	if len(ch.Made) != 0 || ev.Channel < 0 || ev.ChannelOp != ir.OpSend {
		t.Errorf("one ready case: draws %v, channel %d op %v; want no draw, the send", ch.Made, ev.Channel, ev.ChannelOp)
	}
	// Every case's channel is read at both ends.
	reads := 0
	for _, a := range ev.Accesses {
		if k, _ := p.Locate(a.Loc); a.Kind == ir.Read && k == ir.LocChannel {
			reads++
		}
	}
	if reads != 6 {
		t.Errorf("%d reads of channel ends, want 6 (3 channels, 2 ends): %v", reads, ev.Accesses)
	}
	// With messages on a and b, all three cases are ready: a draw picks one.
	s2 := p.Initial()
	for p.Transition(s2, sel).EntryNode().Op != ir.OpSelect {
		s2, _, _ = step(s2, sel, nil)
	}
	s2, _, _ = step(s2, fill, nil)
	s2, _, _ = step(s2, fill, nil)
	if got := p.Status(s2, sel); got != ir.Enabled {
		t.Fatalf("sel with messages on a and b: %v", got)
	}
	got := map[int]bool{}
	var fixed []int64
	for {
		_, ev, ch := step(s2, sel, fixed)
		got[ev.Channel] = ev.ChannelOp == ir.OpRecv
		var more bool
		if fixed, more = ch.Next(nil); !more {
			break
		}
	}
	if len(got) != 3 {
		t.Errorf("the draws performed %v, want the two receives and the send", got)
	}
	// Nothing ready: blocked, waiting for any of the three.
	src2 := `chan (int) a capacity 1;
chan (int) b capacity 1;
thread sel { int x = 0; select { case recv(a, x): case recv(b, x): } }`
	q, err := lang.Compile("block.kb", []byte(src2), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s3 := q.Initial()
	for q.Transition(s3, 0).EntryNode().Op != ir.OpSelect {
		ev := &ir.Event{}
		q.Step(s3, 0, nil, ev)
	}
	if st := q.Status(s3, 0); st != ir.Blocked {
		t.Fatalf("status %v, want blocked", st)
	}
	if w := q.WaitsFor(s3, 0); !strings.Contains(w, "channel a, which is empty, or channel b, which is empty") {
		t.Errorf("waits for %q", w)
	}
}
