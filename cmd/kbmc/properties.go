package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"kbmc/cfront"
	"kbmc/ir"
)

// A property is one thing kbmc checks, as CBMC lists them: an assertion, a
// run-time check at a source position (array bounds, division by zero, shift
// amount, unlock of a mutex not held, relock, C's pointer checks), a global
// invariant, or the absence of deadlock (and, with --local-deadlock, of local
// deadlock). Its id is its kind and its number among the properties of that
// kind in source order, or an invariant's name: assertion.1, bounds.2,
// invariant.one_leader, deadlock, local-deadlock, no-data-race.
type property struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Pos  string `json:"pos,omitempty"`
	Text string `json:"text,omitempty"`
	Msg  string `json:"message,omitempty"`
	at   ir.Pos // where the check is
	kind ir.ViolationKind
}

// properties lists the program's properties: every check ir makes
// (ir.Node.Checks), deadlock, when the run looks for local deadlocks
// (--local-deadlock) local-deadlock, and, for a program of several threads,
// no-data-race (SV-COMP's name), which only --property selects. Nodes inlined into several templates, or
// run by several instances, are one property: they share a source position.
func properties(l *loaded, localDeadlock bool) []property {
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
		props = append(props, property{Kind: k.String(), Pos: posText(l, pos),
			Text: text, Msg: msg, at: pos, kind: k})
	}
	for _, t := range l.prog.Templates {
		for _, n := range t.Nodes {
			for _, c := range n.Checks() {
				text, msg := n.Text, ""
				if n.Op == ir.OpAssert {
					msg = n.Msg
				}
				add(c.Kind, c.Pos, text, msg)
			}
		}
	}
	slices.SortStableFunc(props, func(a, b property) int {
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		return a.at.Compare(b.at)
	})
	count := map[ir.ViolationKind]int{}
	for i := range props {
		count[props[i].kind]++
		props[i].ID = fmt.Sprintf("%s.%d", props[i].Kind, count[props[i].kind])
	}
	for _, inv := range l.prog.Invariants {
		// Named by the program, not numbered: invariant.NAME.
		props = append(props, property{ID: "invariant." + inv.Name, Kind: ir.InvariantViolation.String(),
			Pos: posText(l, inv.Pos), Text: inv.Text,
			at: inv.Pos, kind: ir.InvariantViolation})
	}
	props = append(props, property{ID: "deadlock", Kind: "deadlock", Text: "no reachable state where no thread can move",
		kind: ir.Deadlock})
	if l.prog.Entry != nil {
		// A Go program: a deadlocked end state after the entry goroutine
		// returned is a leak (ir.Program.End). Selecting either of the two
		// checks both: they are one search for deadlocked end states.
		props = append(props, property{ID: "leak", Kind: ir.Leak.String(),
			Text: "no reachable state where " + l.prog.Entry.Name + " returned and other goroutines wait for ever", kind: ir.Leak})
	}
	// Checked only when selected: programs of the .kb language race by
	// design (docs/decisions.md, "Data races"). A program of one thread
	// has it too, and holds it, as SV-COMP answers it.
	props = append(props, property{ID: noDataRace, Kind: ir.DataRace.String(),
		Text: "no reachable state with a data race: two threads about to access one location, one writing",
		kind: ir.DataRace})
	if cfront.IsC(l.path) {
		// Checked only when selected. C's signed overflow is undefined;
		// .kb's arithmetic wraps by definition (ir/overflow.go).
		props = append(props, property{ID: noOverflow, Kind: ir.Overflow.String(),
			Text: "no signed integer operation overflows its type", kind: ir.Overflow})
	}
	if localDeadlock {
		props = append(props, property{ID: "local-deadlock", Kind: "local-deadlock",
			Text: "no reachable state where a process can never move again", kind: ir.LocalDeadlock})
	}
	return props
}

// noDataRace is the id of the data-race property, SV-COMP's name for it.
const noDataRace = "no-data-race"

// noOverflow is the id of the signed-overflow property, SV-COMP's name for it.
const noOverflow = "no-overflow"

func showProperties(w io.Writer, l *loaded, asJSON, localDeadlock bool) error {
	props := properties(l, localDeadlock)
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
// no-op, every other invariant is dropped, deadlocks are not reported unless
// id is "deadlock", and local deadlocks not unless it is "local-deadlock"
// (runEngine turns the checks off).
// A run-time error elsewhere (an out-of-bounds index, say) still ends an
// execution: the semantics cannot go on past it.
func (l *loaded) selectProperty(id string, localDeadlock bool) error {
	var chosen *property
	props := properties(l, localDeadlock)
	var ids []string
	for i := range props {
		ids = append(ids, props[i].ID)
		if props[i].ID == id {
			chosen = &props[i]
		}
	}
	if chosen == nil && id == "local-deadlock" {
		return usageErr("--property local-deadlock: local deadlocks are looked for only with --local-deadlock")
	}
	if chosen == nil {
		hint := ""
		if s := closest(id, ids); s != "" {
			hint = fmt.Sprintf("; did you mean %s?", s)
		}
		return usageErr("--property %s: no such property in %s%s (list them with --show-properties)", id, l.path, hint)
	}
	l.property = chosen
	// Data races and signed overflow are looked for only when chosen;
	// failing assertions then stop their thread instead.
	l.prog.SelectProperty(chosen.kind)
	// The chosen invariant alone, or none when another property is chosen.
	var keep []string
	if name, ok := strings.CutPrefix(chosen.ID, "invariant."); ok && chosen.kind == ir.InvariantViolation {
		keep = []string{name}
	}
	if err := l.prog.SelectInvariants(keep); err != nil {
		return usageErr("--property %s: %v", id, err)
	}
	for _, t := range l.prog.Templates {
		for _, n := range t.Nodes {
			// Not a bound of the model (Unsupported: what lies past it is
			// not modelled), nor a Go panic, which stops its goroutine
			// (under no-data-race and no-overflow, as C's assert does) where
			// the operation after it would fail.
			if n.Kind == ir.Unsupported || n.Kind == ir.Panic {
				continue
			}
			if n.Op == ir.OpAssert && !(n.Pos == chosen.at && slices.Contains(n.Checks(), ir.Check{Kind: chosen.kind, Pos: n.Pos})) {
				n.X = &ir.Expr{Op: ir.EConst, Type: ir.Bool, Val: 1, Pos: n.Pos}
			}
		}
	}
	return nil
}
