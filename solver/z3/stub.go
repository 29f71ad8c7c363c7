//go:build !cgo || noz3

package z3

import (
	"errors"

	"kbmc/solver"
)

// ErrUnavailable is returned by New in a build without the Z3 binding.
var ErrUnavailable = errors.New("z3 backend unavailable: kbmc was built without cgo/libz3 (CGO_ENABLED=0 or the noz3 build tag); rebuild with cgo and libz3-dev installed, or use the gini solver")

// Available reports whether the z3 backend is compiled in.
func Available() bool { return false }

// Version returns the version of the libz3 kbmc is linked with; this build
// has none.
func Version() string { return "" }

// New fails with ErrUnavailable: this build has no Z3 binding.
func New(b *solver.Builder) (solver.Backend, error) { return nil, ErrUnavailable }

// LimitMemory does nothing: this build has no Z3 to limit.
func LimitMemory(bytes int64) {}
