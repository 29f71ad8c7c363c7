package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var browser = flag.Bool("browser", false, "TestMSCBrowser: render a message sequence chart in headless Chromium")

// A protocol whose counterexample has messages received, one still in flight
// and a failing assertion: the client's second request overtakes nothing, but
// the server answers the first with a wrong value.
const mscProgram = `chan (int) req capacity 2;
chan (int, int) resp capacity 2;
process client {
    thread main {
        send(req, 1);
        send(req, 2);
        int id; int v;
        recv(resp, id, v);
        assert(v == id * 10, "wrong answer");
    }
}
process server {
    thread main {
        int x;
        recv(req, x);
        send(resp, x, x * 10 + 1);
    }
}
`

// svgElement is an element of an SVG document with its attributes and
// children, as the test reads it.
type svgElement struct {
	name     string
	attrs    map[string]string
	children []*svgElement
	text     string
}

// parseSVG decodes the whole document: it must be well-formed XML.
func parseSVG(t *testing.T, doc string) *svgElement {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	var stack []*svgElement
	var root *svgElement
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &svgElement{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.children = append(top.children, e)
			} else if root == nil {
				root = e
			} else {
				t.Fatal("two root elements")
			}
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if root == nil {
		t.Fatal("no root element")
	}
	return root
}

// find lists the elements below e (e included) for which keep holds.
func (e *svgElement) find(keep func(*svgElement) bool) []*svgElement {
	var out []*svgElement
	if keep(e) {
		out = append(out, e)
	}
	for _, c := range e.children {
		out = append(out, c.find(keep)...)
	}
	return out
}

func (e *svgElement) int(t *testing.T, attr string) int {
	t.Helper()
	v, err := strconv.Atoi(e.attrs[attr])
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", e.name, attr, e.attrs[attr], err)
	}
	return v
}

func withClass(class string) func(*svgElement) bool {
	return func(e *svgElement) bool { return e.name == "g" && e.attrs["class"] == class }
}

// expectedMessage is a message of a JSON trace: the steps and threads that
// sent and received it, matched as a test independent of the chart: the
// oldest message in flight on the channel with the same contents.
type expectedMessage struct {
	sendStep, recvStep     int
	sendThread, recvThread int
}

func expectedMessages(t *testing.T, path string, args ...string) (msgs []expectedMessage, threads []int, steps int) {
	t.Helper()
	_, out, _ := kbmc(t, append(append([]string{"check", "--json"}, args...), path)...)
	var j struct {
		Trace []traceStep `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	type sent struct {
		step, thread int
		fields       string
	}
	queues := map[string][]sent{}
	for _, st := range j.Trace {
		threads = append(threads, st.ThreadID)
		if st.Sent != nil {
			queues[st.Sent.Channel] = append(queues[st.Sent.Channel], sent{st.Step, st.ThreadID, st.Sent.String()})
		}
		if r := st.Received; r != nil {
			q := queues[r.Channel]
			if len(q) == 0 || q[0].fields != r.String() {
				t.Fatalf("step %d receives %s from %s, which is not the oldest message sent on it", st.Step, r, r.Channel)
			}
			msgs = append(msgs, expectedMessage{q[0].step, st.Step, q[0].thread, st.ThreadID})
			queues[r.Channel] = q[1:]
		}
	}
	slices.Sort(threads)
	return msgs, slices.Compact(threads), len(j.Trace)
}

func TestMSCSVG(t *testing.T) {
	path := writeProgram(t, mscProgram)
	for _, args := range [][]string{nil, {"--shortest"}} {
		t.Run(strings.Join(append([]string{"default"}, args...), " "), func(t *testing.T) {
			code, out, stderr := kbmc(t, append(append([]string{"check", "--trace", "msc"}, args...), path)...)
			if code != exitUnsafe {
				t.Fatalf("exit %d, want %d\n%s%s", code, exitUnsafe, out, stderr)
			}
			root := parseSVG(t, out)
			if root.name != "svg" {
				t.Fatalf("root element <%s>, want <svg>", root.name)
			}
			w, h := root.int(t, "width"), root.int(t, "height")
			if vb := root.attrs["viewBox"]; vb != fmt.Sprintf("0 0 %d %d", w, h) {
				t.Errorf("viewBox %q for width %d and height %d", vb, w, h)
			}
			want, threads, steps := expectedMessages(t, path, args...)
			if len(want) == 0 {
				t.Fatal("the counterexample receives no message: nothing to check")
			}
			var c chart
			lane := func(thread int) int { return slices.Index(threads, thread) }
			got := root.find(withClass("message"))
			if len(got) != len(want) {
				t.Fatalf("%d messages drawn, want %d", len(got), len(want))
			}
			for i, g := range got {
				lines := g.find(func(e *svgElement) bool { return e.name == "line" || e.name == "path" })
				if len(lines) != 1 {
					t.Fatalf("message %d is drawn with %d lines or paths, want 1", i, len(lines))
				}
				m, ln := want[i], lines[0]
				x1, y1 := c.laneX(lane(m.sendThread)), c.rowY(m.sendStep-1)
				x2, y2 := c.laneX(lane(m.recvThread)), c.rowY(m.recvStep-1)
				if ln.int(t, "x1") != x1 || ln.int(t, "y1") != y1 || ln.int(t, "x2") != x2 || ln.int(t, "y2") != y2 {
					t.Errorf("message %d (steps %d → %d) drawn from (%s, %s) to (%s, %s), want (%d, %d) to (%d, %d)", i, m.sendStep, m.recvStep,
						ln.attrs["x1"], ln.attrs["y1"], ln.attrs["x2"], ln.attrs["y2"], x1, y1, x2, y2)
				}
				if x2 > w || y2 > h {
					t.Errorf("message %d ends outside the drawing", i)
				}
			}
			if n := len(root.find(withClass("lifeline"))); n != len(threads) {
				t.Errorf("%d lifelines, want %d", n, len(threads))
			}
			if n := len(root.find(withClass("step"))) + len(root.find(withClass("failed"))); n != steps {
				t.Errorf("%d marks, want one per step: %d", n, steps)
			}
			failed := root.find(withClass("failed"))
			if len(failed) != 1 {
				t.Fatalf("%d failing marks, want 1", len(failed))
			}
			texts := failed[0].find(func(e *svgElement) bool { return e.name == "text" })
			if last := texts[len(texts)-1].text; !strings.Contains(last, "fails: assert") {
				t.Errorf("the failing mark says %q", last)
			}
		})
	}
}

func TestMSCDeadlockAndSafe(t *testing.T) {
	deadlock := writeProgram(t, "chan (int) a capacity 1;\nchan (int) b capacity 1;\n"+
		"process p { thread main { int x; recv(a, x); send(b, 1); } }\nprocess q { thread main { int y; recv(b, y); send(a, 1); } }\n")
	_, out, _ := kbmc(t, "check", "--trace", "msc", deadlock)
	root := parseSVG(t, out)
	if n := len(root.find(withClass("failed"))); n != 2 {
		t.Errorf("%d threads marked as stuck, want both", n)
	}
	safe := writeProgram(t, "shared int x;\nthread a { x = 1; }\n")
	_, out, _ = kbmc(t, "check", "--trace", "msc", safe)
	root = parseSVG(t, out)
	if root.name != "svg" || len(root.find(withClass("lifeline"))) != 0 {
		t.Errorf("a safe program's chart has lifelines or is no SVG:\n%s", out)
	}
}

func TestMSCMermaid(t *testing.T) {
	path := writeProgram(t, mscProgram)
	code, out, _ := kbmc(t, "check", "--trace", "mermaid", path)
	if code != exitUnsafe {
		t.Fatalf("exit %d\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "sequenceDiagram" {
		t.Fatalf("first line %q", lines[0])
	}
	want, threads, _ := expectedMessages(t, path)
	var arrows, participants, failed int
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "participant "):
			participants++
		case strings.Contains(l, "->>"):
			m := want[arrows]
			if w := fmt.Sprintf("(sent at %d, received at %d)", m.sendStep, m.recvStep); !strings.HasSuffix(l, w) {
				t.Errorf("arrow %q, want it to end in %q", l, w)
			}
			arrows++
		case strings.HasPrefix(l, "Note over") && strings.Contains(l, "✗"):
			failed++
		}
		if strings.ContainsAny(l, ";") {
			t.Errorf("line %q has a ';', which ends a Mermaid statement", l)
		}
	}
	if participants != len(threads) || arrows != len(want) || failed != 1 {
		t.Errorf("%d participants, %d arrows, %d failures; want %d, %d, 1\n%s", participants, arrows, failed, len(threads), len(want), out)
	}
}

// TestMSCBrowser renders a chart in headless Chromium and checks that the
// screenshot is not blank: go test ./cmd/kbmc -run TestMSCBrowser -browser.
// It needs chromium on the PATH (apt-get install -y chromium).
func TestMSCBrowser(t *testing.T) {
	if !*browser {
		t.Skip("renders in a browser only with -browser (go test ./cmd/kbmc -run TestMSCBrowser -browser)")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("-browser needs chromium on the PATH: %v", err)
	}
	path := writeProgram(t, mscProgram)
	_, out, _ := kbmc(t, "check", "--trace", "msc", path)
	root := parseSVG(t, out)
	dir := t.TempDir()
	svg, shot := filepath.Join(dir, "chart.svg"), filepath.Join(dir, "chart.png")
	if err := os.WriteFile(svg, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	size := fmt.Sprintf("--window-size=%s,%s", root.attrs["width"], root.attrs["height"])
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--screenshot="+shot, size, "file://"+svg)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Not blank: a good share of the pixels differ from the background, and
	// some are the failing mark's red.
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	inked, red := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.At(x, y)
			if c != bg {
				inked++
			}
			if r, g, bl, _ := c.RGBA(); r > 0xb000 && g < 0x6000 && bl < 0x6000 {
				red++
			}
		}
	}
	if total := b.Dx() * b.Dy(); inked*100 < total {
		t.Errorf("%d of %d pixels drawn: the screenshot is blank", inked, total)
	}
	if red == 0 {
		t.Error("no red pixel: the failing step is not drawn")
	}
	if keep := os.Getenv("KBMC_MSC_PNG"); keep != "" {
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%dx%d screenshot, %d pixels drawn, %d red", b.Dx(), b.Dy(), inked, red)
}

// TestMSCLostMessage: a message a lossy channel lost is drawn as lost, never
// as in flight or received.
func TestMSCLostMessage(t *testing.T) {
	path := writeProgram(t, `chan (int) req capacity 1 lossy;
chan (int) resp capacity 1;
thread client { int r = 0; send(req, 5); recv(resp, r); }
thread server { int x = 0; recv(req, x); send(resp, x + 1); }
`)
	code, out, _ := kbmc(t, "check", "--trace", "mermaid", path)
	if code != exitUnsafe || !strings.Contains(out, "send(req, 5) (lost)") || strings.Contains(out, "->>") {
		t.Errorf("exit %d, want the deadlock with the request lost and no arrow:\n%s", code, out)
	}
	code, out, _ = kbmc(t, "check", "--trace", "msc", path)
	if code != exitUnsafe || !strings.Contains(out, "(5) on req (lost)") {
		t.Errorf("exit %d, want the SVG to mark the request lost:\n%s", code, out)
	}
}
