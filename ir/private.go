package ir

import "fmt"

// PrivateVars returns the process memory that one thread alone reads or
// writes: variables of a process (Var.Process) every access to which (a name
// or an index in an expression, an assignment, a recv's or cas's destination)
// is in the nodes of one template, the template having one instance, and that
// no pointer, pool or allocation can reach (not addressable, no heap block, no
// thread's start cells, no pool's overflow, no allocation's status).
//
// Only process memory: in a program without processes every shared access
// stays a step, as in its C form, whose front end folds none (the dual-form
// tests, internal/kb2c, compare the steps of both forms). A front end may mark them Private
// (Var.Private): their accesses are then not visible steps. Other engines'
// views of the program do not change: the variables keep their cells, names
// and accesses (Event.Accesses), and no other thread's access can conflict
// with theirs.
//
// It reads the templates' nodes only, so a front end may call it before
// Finish: on a lowered program, to lower it again with the variables marked.
func (p *Program) PrivateVars() map[*Var]bool {
	special := map[*Var]bool{}
	for _, pool := range p.Pools {
		for _, t := range pool.Slots {
			special[t.Start] = true
		}
		special[pool.Overflow] = true
	}
	for _, a := range p.Allocs {
		special[a.Status] = true
		for _, b := range a.Blocks {
			special[b] = true
		}
	}
	by := map[*Var]*Template{}
	shared := map[*Var]bool{} // accessed by more than one template
	note := func(v *Var, t *Template) {
		if v == nil || !v.Shared {
			return
		}
		if u, ok := by[v]; ok && u != t {
			shared[v] = true
		}
		by[v] = t
	}
	for _, t := range p.Templates {
		for _, n := range t.Nodes {
			for e := range n.Exprs() {
				Inspect(e, func(x *Expr) bool {
					if x.Op == EVar || x.Op == EIndex {
						note(x.Var, t)
					}
					return true
				})
			}
			for lv := range n.LValues() {
				if lv.Ptr == nil {
					note(lv.Var, t)
				}
			}
		}
	}
	for v := range p.InvariantVars() {
		shared[v] = true // an invariant observes every value it takes
	}
	out := map[*Var]bool{}
	for v, t := range by {
		if !shared[v] && v.Process != nil && t.Instances() == 1 && !v.Addressable && v.Block == nil && !special[v] {
			out[v] = true
		}
	}
	return out
}

// checkPrivate refuses a variable marked Private that is not one of
// PrivateVars: folding its accesses could hide an interleaving another thread
// observes.
func (p *Program) checkPrivate() error {
	var ok map[*Var]bool
	for _, v := range p.Shared {
		if !v.Private {
			continue
		}
		if ok == nil {
			ok = p.PrivateVars()
		}
		if !ok[v] {
			return fmt.Errorf("variable %s is marked private, but more than one thread (or a pointer) may access it", v.Name)
		}
	}
	return nil
}
