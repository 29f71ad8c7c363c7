package encode

import (
	"context"
	"fmt"
)

// pollEvery is how much encoding work passes between two looks at the
// context, in units of about one term built (a few hundred nanoseconds; an
// assertion handed to the backend, which gini bit-blasts and Z3 translates,
// counts as 16): a fraction of a millisecond of work, so a stop is seen within
// milliseconds, while a look per term would be a lock per small step.
const pollEvery = 2048

// stopper lets a long encoding step end early when its context ends: the
// public methods that do the work (ExtendTo, Grow, Seal) install the context
// with watch, the inner loops count their work with stopped, and the method
// returns the error that stopped records. After such an error the encoding is
// half-built and must not be queried again.
type stopper struct {
	ctx  context.Context
	work int
	err  error
}

// watch installs ctx for the duration of one public call; the returned
// function removes it. A stop seen before stays recorded.
func (s *stopper) watch(ctx context.Context) (done func()) {
	s.ctx = ctx
	return func() { s.ctx = nil }
}

// stopped counts work units of work about to be done (see pollEvery) and
// reports whether the context has ended, looking at it every pollEvery units.
func (s *stopper) stopped(work int) bool {
	if s.err != nil {
		return true
	}
	s.work += work
	if s.work < pollEvery || s.ctx == nil {
		return false
	}
	s.work = 0
	if err := s.ctx.Err(); err != nil {
		s.err = fmt.Errorf("encode: stopped: %w", err)
	}
	return s.err != nil
}

// stopErr is the error that ended the encoding early, or nil.
func (s *stopper) stopErr() error { return s.err }
