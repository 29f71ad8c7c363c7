package kb2c_test

import (
	"slices"

	"kbmc/ir"
)

// sameKind compares violation kinds across the forms: a failed .kb assert is
// a call of reach_error() in C.
func sameKind(a, b ir.ViolationKind) bool { return canonical(a) == canonical(b) }

func canonical(k ir.ViolationKind) ir.ViolationKind {
	if k == ir.ReachError {
		return ir.Assertion
	}
	return k
}

// canonicalKinds maps a set of kinds with canonical.
func canonicalKinds(ks []ir.ViolationKind) []ir.ViolationKind {
	out := make([]ir.ViolationKind, 0, len(ks))
	for _, k := range ks {
		out = append(out, canonical(k))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
