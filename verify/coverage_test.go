package verify

import (
	"fmt"
	"slices"
	"testing"

	"kbmc/lang"
)

// TestStatements: nodes become statements per template and position, the
// instances of a process's thread are one template, a statement counts as
// executed when any of its nodes in any instance is, and nodes without text
// are no statements.
func TestStatements(t *testing.T) {
	const src = `process node[2] {
    shared int x = 0;
    thread a {
        for (int i = 0; i < 2; i++) {
            x = x + 1;
        }
    }
}
process lone {
    thread b { int y = 1; }
}
`
	p, err := lang.Compile("st.kb", []byte(src), lang.Config{})
	if err != nil {
		t.Fatal(err)
	}
	show := func(c *Coverage) []string {
		var out []string
		for _, st := range c.Statements(p) {
			out = append(out, fmt.Sprintf("%s %s %s %v", st.Template, st.Pos, st.Text, st.Executed))
		}
		return out
	}
	c := NewCoverage(p)
	all := []string{
		"node.a 4:9 for (int i = 0; i < 2; i++) false", "node.a 4:14 int i = 0 false", "node.a 4:32 i++ false",
		"node.a 5:13 x = x + 1 false", "lone.b 10:16 int y = 1 false",
	}
	if got := show(c); !slices.Equal(got, all) {
		t.Fatalf("nothing executed: %q, want %q", got, all)
	}
	// Execute x = x + 1 in node[1]'s instance only, and every node of lone.b.
	for i, tm := range p.Templates {
		for n, node := range tm.Nodes {
			if tm.Name == "node[1].a" && node.Text == "x = x + 1" || tm.Name == "lone.b" {
				c.Executed[i][n] = true
			}
		}
	}
	want := slices.Clone(all)
	want[3] = "node.a 5:13 x = x + 1 true"
	want[4] = "lone.b 10:16 int y = 1 true"
	if got := show(c); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if c.Distinct != -1 || c.Generated != 0 {
		t.Errorf("a new coverage: distinct %d, generated %d", c.Distinct, c.Generated)
	}
}
