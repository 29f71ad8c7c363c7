package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"kbmc/ir"
)

// A property is one thing kbmc checks, as CBMC lists them: an assertion, a
// run-time check at a source position (array bounds, division by zero, shift
// amount, unlock of a mutex not held, relock), or the absence of deadlock. Its id
// is its kind and its number among the properties of that kind in source order:
// assertion.1, bounds.2, deadlock.
type property struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Pos  string `json:"pos,omitempty"`
	Text string `json:"text,omitempty"`
	Msg  string `json:"message,omitempty"`
	at   ir.Pos // where the check is
	kind ir.ViolationKind
}

// properties lists the program's properties. Nodes inlined into several
// templates, or run by several instances, are one property: they share a
// source position.
func properties(l *loaded) []property {
	type site struct {
		kind ir.ViolationKind
		pos  ir.Pos
	}
	seen := map[site]bool{}
	var props []property
	add := func(k ir.ViolationKind, pos ir.Pos, text, msg string) {
		if seen[site{k, pos}] {
			return
		}
		seen[site{k, pos}] = true
		props = append(props, property{Kind: k.String(), Pos: fmt.Sprintf("%s:%d:%d", l.path, pos.Line, pos.Col),
			Text: text, Msg: msg, at: pos, kind: k})
	}
	for _, t := range l.prog.Templates {
		for _, n := range t.Nodes {
			switch n.Op {
			case ir.OpAssert:
				add(ir.Assertion, n.Pos, n.Text, n.Msg)
			case ir.OpLock:
				add(ir.Relock, n.Pos, n.Text, "")
			case ir.OpUnlock:
				add(ir.BadUnlock, n.Pos, n.Text, "")
			}
			for e := range n.Exprs() {
				ir.Inspect(e, func(x *ir.Expr) bool {
					switch x.Op {
					case ir.EIndex:
						add(ir.Bounds, x.Pos, n.Text, "")
					case ir.EDiv, ir.ERem:
						add(ir.DivisionByZero, x.Pos, n.Text, "")
					case ir.EShl, ir.EShr:
						add(ir.Shift, x.Pos, n.Text, "")
					}
					return true
				})
			}
			for lv := range n.LValues() {
				if lv.Index != nil {
					add(ir.Bounds, lv.Pos, n.Text, "")
				}
			}
			for _, ix := range []*ir.Expr{n.MIndex, n.JIndex, n.CIndex} {
				if ix != nil {
					add(ir.Bounds, n.Pos, n.Text, "")
				}
			}
		}
	}
	slices.SortStableFunc(props, func(a, b property) int {
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.at.Line, b.at.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.at.Col, b.at.Col)
	})
	count := map[ir.ViolationKind]int{}
	for i := range props {
		count[props[i].kind]++
		props[i].ID = fmt.Sprintf("%s.%d", props[i].Kind, count[props[i].kind])
	}
	return append(props, property{ID: "deadlock", Kind: "deadlock", Text: "no reachable state where no thread can move",
		kind: ir.Deadlock})
}

func showProperties(w io.Writer, l *loaded, asJSON bool) error {
	props := properties(l)
	if asJSON {
		return writeJSONValue(w, struct {
			File       string     `json:"file"`
			Properties []property `json:"properties"`
		}{l.path, props})
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, p := range props {
		desc := p.Text
		if p.Msg != "" && !strings.Contains(desc, p.Msg) {
			desc += "  // " + p.Msg
		}
		fmt.Fprintln(tw, strings.TrimRight(fmt.Sprintf("%s\t%s\t%s", p.ID, shortPos(p.Pos), desc), " \t"))
	}
	return tw.Flush()
}

// selectProperty keeps only the property id: every other assertion becomes a
// no-op, and deadlocks are not reported unless id is "deadlock". A run-time error
// elsewhere (an out-of-bounds index, say) still ends an execution: the semantics
// cannot go on past it.
func (l *loaded) selectProperty(id string) error {
	var chosen *property
	props := properties(l)
	var ids []string
	for i := range props {
		ids = append(ids, props[i].ID)
		if props[i].ID == id {
			chosen = &props[i]
		}
	}
	if chosen == nil {
		hint := ""
		if s := closest(id, ids); s != "" {
			hint = fmt.Sprintf("; did you mean %s?", s)
		}
		return usageErr("--property %s: no such property in %s%s (list them with --show-properties)", id, l.path, hint)
	}
	l.property = chosen
	for _, t := range l.prog.Templates {
		for _, n := range t.Nodes {
			if n.Op == ir.OpAssert && !(chosen.kind == ir.Assertion && n.Pos == chosen.at) {
				n.X = &ir.Expr{Op: ir.EConst, Type: ir.Bool, Val: 1, Pos: n.Pos}
			}
		}
	}
	return nil
}
