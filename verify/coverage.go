package verify

import (
	"cmp"
	"slices"
	"strings"

	"kbmc/ir"
)

// Coverage is what a search executed (kbmc check --coverage): which of the
// program's statements its steps ran, how many states it generated and how many
// of them were distinct, and how deep it went. It describes the search, not the
// program: a search that stopped (at a violation, at a time limit) or was cut by
// the depth bound may have left reachable statements unexecuted.
type Coverage struct {
	// Executed[i][n] says that some step of the search executed node n of
	// template i (Program.Templates).
	Executed [][]bool
	// Generated counts the initial state and the target of every step the
	// search explored, repeats included; Distinct the distinct states it
	// stored, or -1 when the search does not know it: WhyNoDistinct says
	// why.
	Generated     int64
	Distinct      int64
	WhyNoDistinct string
	// Diameter is the greatest number of steps of a path the search explored
	// from the initial state (docs/decisions.md, "Coverage's diameter").
	Diameter int64
}

// NewCoverage returns an empty coverage of p: nothing executed, nothing generated.
func NewCoverage(p *ir.Program) *Coverage {
	c := &Coverage{Executed: make([][]bool, len(p.Templates)), Distinct: -1}
	for i, tm := range p.Templates {
		c.Executed[i] = make([]bool, len(tm.Nodes))
	}
	return c
}

// A CoveredStatement is one source statement of a thread template and whether
// the search executed it.
type CoveredStatement struct {
	// Template is the thread template the statement belongs to, as declared:
	// "reader", or "node.listener" for every instance of process node.
	Template string
	Pos      ir.Pos
	Text     string
	Executed bool
}

// Statements lists p's statements by template (in declaration order) and
// position, each once: a statement that several nodes make (a for loop's
// header, a hoisted read) or that several instances of a process share counts
// as executed when any of them executed. Nodes without source text (control
// flow only) are no statements.
func (c *Coverage) Statements(p *ir.Program) []CoveredStatement {
	type key struct {
		template string
		pos      ir.Pos
	}
	index := map[key]int{}
	order := map[string]int{}
	var list []CoveredStatement
	for i, tm := range p.Templates {
		name := TemplateName(tm)
		if _, ok := order[name]; !ok {
			order[name] = len(order)
		}
		for n, node := range tm.Nodes {
			if node.Text == "" {
				continue
			}
			k := key{name, node.Pos}
			j, ok := index[k]
			if !ok {
				j = len(list)
				index[k] = j
				list = append(list, CoveredStatement{Template: name, Pos: node.Pos, Text: node.Text})
			}
			list[j].Executed = list[j].Executed || c.Executed[i][n]
		}
	}
	slices.SortStableFunc(list, func(a, b CoveredStatement) int {
		return cmp.Or(cmp.Compare(order[a.Template], order[b.Template]), a.Pos.Compare(b.Pos))
	})
	return list
}

// TemplateName is a thread template's name as the program declares it: the
// template's, or for a template of a process instance ("node[1].listener") the
// process template's and the thread's ("node.listener").
func TemplateName(tm *ir.Template) string {
	if tm.Process == nil {
		return tm.Name
	}
	return tm.Process.Template + strings.TrimPrefix(tm.Name, tm.Process.Name)
}
