//go:build cgo && !noz3

package z3

/*
#cgo pkg-config: z3
#include <stdlib.h>
#include <z3.h>

// Z3's default error handler prints the message and exits the process.
// This one does nothing: every call is followed by a look at the error code,
// which the Go side turns into an error value.
static void kbmc_ignore_error(Z3_context c, Z3_error_code e) { (void)c; (void)e; }

static Z3_context kbmc_mk_context(void) {
	Z3_config cfg = Z3_mk_config();
	Z3_set_param_value(cfg, "model", "true");
	Z3_context ctx = Z3_mk_context_rc(cfg);
	Z3_del_config(cfg);
	if (ctx != NULL) {
		Z3_set_error_handler(ctx, kbmc_ignore_error);
	}
	return ctx;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	"kbmc/solver"
)

// z3AST names Z3's expression type outside cgo's namespace, for the
// package's tests (test files cannot use cgo).
type z3AST = C.Z3_ast

// Available reports whether the z3 backend is compiled in.
func Available() bool { return true }

// Version returns the version of the libz3 kbmc is linked with.
func Version() string { return C.GoString(C.Z3_get_full_version()) }

// backend implements solver.Backend on one Z3 context and solver.
type backend struct {
	b   *solver.Builder
	ctx C.Z3_context
	slv C.Z3_solver

	// memo holds the translation of each term, by ID, with a reference
	// owned by the backend; nil until the term is translated.
	memo  []C.Z3_ast
	sorts map[int]C.Z3_sort // by width, 0 for Bool; each holds a reference
	// proxies are fresh propositions standing for assumptions that are not
	// literals, each asserted to imply its term once, by term ID.
	proxies map[int]C.Z3_ast

	// asserted holds every formula given to the solver, each with a
	// reference, so that a new solver can be given them all: after an
	// interrupted check (stale) Z3 4.8's solver can lose or misread later
	// assertions, and is replaced before its next use.
	asserted []C.Z3_ast
	stale    bool

	status  solver.Status
	model   C.Z3_model
	assumed map[C.Z3_ast][]*solver.Term // the last Check's assumption literals
	core    []*solver.Term
	hasCore bool

	stats    solver.Stats
	renewals int64 // solvers replaced after an interrupted check

	// contextInterrupted is set by a check's watcher when it has called
	// Z3_interrupt (watch), and read once the watcher is gone;
	// contextClears counts those checks.
	contextInterrupted bool
	contextClears      int64
	closed             bool
}

// New returns a Z3 backend for formulas built by b. It must be closed to
// release Z3's memory.
func New(b *solver.Builder) (solver.Backend, error) {
	if b == nil {
		return nil, errors.New("z3: nil Builder")
	}
	ctx := C.kbmc_mk_context()
	if ctx == nil {
		return nil, errors.New("z3: cannot create a context")
	}
	s := &backend{
		b:       b,
		ctx:     ctx,
		sorts:   make(map[int]C.Z3_sort),
		proxies: make(map[int]C.Z3_ast),
	}
	slv, err := s.newSolver()
	if err != nil {
		C.Z3_del_context(ctx)
		return nil, err
	}
	s.slv = slv
	return s, nil
}

// newSolver returns a new solver of the backend's context, with a reference.
//
// The simple solver is Z3's incremental SMT core, which keeps its state
// (bit-blasted atoms, learned clauses) between checks. Z3_mk_solver's combined
// solver re-solves checks without assumptions from scratch with its
// non-incremental tactic, which on 10^4 repeated checks was two hundred times
// slower and grew its memory by about 100 bytes per check; a QF_BV logic
// solver re-runs its tactics on every check too.
func (s *backend) newSolver() (C.Z3_solver, error) {
	slv := C.Z3_mk_simple_solver(s.ctx)
	if err := s.err("create solver"); err != nil {
		return nil, err
	}
	C.Z3_solver_inc_ref(s.ctx, slv)
	return slv, nil
}

// assert gives the solver a formula and records it for a replacement solver.
func (s *backend) assert(a C.Z3_ast, what string) error {
	s.incRef(a)
	s.asserted = append(s.asserted, a)
	if s.stale {
		return nil // the replacement will have it
	}
	C.Z3_solver_assert(s.ctx, s.slv, a)
	return s.err(what)
}

// renew replaces a solver whose last check was interrupted by a new one with
// every assertion so far. Z3 4.8.12's solver, interrupted in a check, went on to
// answer sat for unsatisfiable assertions in later checks, in kbmc's
// incremental use (solver/z3's TestInterruptedChecksStaySound; pushing and
// popping a scope after the interrupt did not help). The portfolio interrupts
// the losing solver on nearly every check, so this costs Z3 its incremental
// state there; a time limit ends the run, so there it costs nothing.
func (s *backend) renew() error {
	if !s.stale {
		return nil
	}
	slv, err := s.newSolver()
	if err != nil {
		return err
	}
	for _, a := range s.asserted {
		C.Z3_solver_assert(s.ctx, slv, a)
		if err := s.err("assert again"); err != nil {
			C.Z3_solver_dec_ref(s.ctx, slv)
			return err
		}
	}
	C.Z3_solver_dec_ref(s.ctx, s.slv)
	s.slv, s.stale = slv, false
	s.renewals++
	return nil
}

// LimitMemory bounds the memory Z3 may allocate to bytes (0 or less: no
// bound), for the contexts created after the call. Past it Z3 fails the call
// that allocates, which the backend reports as solver.ErrOutOfMemory. Z3 keeps
// the bound for the whole process (the global parameter memory_max_size, in
// MB), not per context: kbmc runs one check at a time, and each check sets it
// from its own limit.
func LimitMemory(bytes int64) {
	mb := int64(0)
	if bytes > 0 {
		mb = max(bytes>>20, 1)
	}
	name, value := C.CString("memory_max_size"), C.CString(fmt.Sprint(mb))
	defer C.free(unsafe.Pointer(name))
	defer C.free(unsafe.Pointer(value))
	C.Z3_global_param_set(name, value)
}

// err returns the error of the last Z3 call, if any: one wrapping
// solver.ErrOutOfMemory when Z3 ran out of memory (its limit or the
// machine's).
func (s *backend) err(what string) error {
	code := C.Z3_get_error_code(s.ctx)
	if code == C.Z3_OK {
		return nil
	}
	msg := C.GoString(C.Z3_get_error_msg(s.ctx, code))
	if code == C.Z3_MEMOUT_FAIL {
		return fmt.Errorf("z3: %s: %w (%s)", what, solver.ErrOutOfMemory, msg)
	}
	return fmt.Errorf("z3: %s: %s (error code %d)", what, msg, int(code))
}

func (s *backend) incRef(a C.Z3_ast) { C.Z3_inc_ref(s.ctx, a) }
func (s *backend) decRef(a C.Z3_ast) { C.Z3_dec_ref(s.ctx, a) }

func (s *backend) sort(t *solver.Term) (C.Z3_sort, error) {
	w := t.Width()
	if srt, ok := s.sorts[w]; ok {
		return srt, nil
	}
	var srt C.Z3_sort
	if w == 0 {
		srt = C.Z3_mk_bool_sort(s.ctx)
	} else {
		srt = C.Z3_mk_bv_sort(s.ctx, C.uint(w))
	}
	if err := s.err("make sort"); err != nil {
		return nil, err
	}
	s.incRef(C.Z3_sort_to_ast(s.ctx, srt))
	s.sorts[w] = srt
	return srt, nil
}

// ast returns the translation of t, translating and memoising its
// subterms first.
func (s *backend) ast(t *solver.Term) (C.Z3_ast, error) {
	id := t.ID()
	if id < len(s.memo) && s.memo[id] != nil {
		return s.memo[id], nil
	}
	args := make([]C.Z3_ast, t.NumArgs())
	for i := range args {
		a, err := s.ast(t.Arg(i))
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	a, err := s.mk(t, args)
	if err != nil {
		return nil, err
	}
	s.incRef(a)
	if id >= len(s.memo) {
		s.memo = append(s.memo, make([]C.Z3_ast, id+1-len(s.memo))...)
	}
	s.memo[id] = a
	return a, nil
}

// mk builds the Z3 application of t's operator to the translated operands.
func (s *backend) mk(t *solver.Term, args []C.Z3_ast) (C.Z3_ast, error) {
	c := s.ctx
	var a C.Z3_ast
	switch t.Op() {
	case solver.OpConst:
		if t.IsBool() {
			if t.IsTrue() {
				a = C.Z3_mk_true(c)
			} else {
				a = C.Z3_mk_false(c)
			}
			break
		}
		srt, err := s.sort(t)
		if err != nil {
			return nil, err
		}
		a = C.Z3_mk_unsigned_int64(c, C.uint64_t(t.Value()), srt)
	case solver.OpVar:
		srt, err := s.sort(t)
		if err != nil {
			return nil, err
		}
		name := C.CString(t.Name())
		sym := C.Z3_mk_string_symbol(c, name)
		C.free(unsafe.Pointer(name))
		a = C.Z3_mk_const(c, sym, srt)
	case solver.OpNot:
		a = C.Z3_mk_not(c, args[0])
	case solver.OpAnd:
		a = C.Z3_mk_and(c, C.uint(len(args)), &args[0])
	case solver.OpOr:
		a = C.Z3_mk_or(c, C.uint(len(args)), &args[0])
	case solver.OpXor:
		a = C.Z3_mk_xor(c, args[0], args[1])
	case solver.OpIte:
		a = C.Z3_mk_ite(c, args[0], args[1], args[2])
	case solver.OpEq:
		a = C.Z3_mk_eq(c, args[0], args[1])
	case solver.OpBVNot:
		a = C.Z3_mk_bvnot(c, args[0])
	case solver.OpBVAnd:
		a = C.Z3_mk_bvand(c, args[0], args[1])
	case solver.OpBVOr:
		a = C.Z3_mk_bvor(c, args[0], args[1])
	case solver.OpBVXor:
		a = C.Z3_mk_bvxor(c, args[0], args[1])
	case solver.OpNeg:
		a = C.Z3_mk_bvneg(c, args[0])
	case solver.OpAdd:
		a = C.Z3_mk_bvadd(c, args[0], args[1])
	case solver.OpSub:
		a = C.Z3_mk_bvsub(c, args[0], args[1])
	case solver.OpMul:
		a = C.Z3_mk_bvmul(c, args[0], args[1])
	case solver.OpUDiv:
		a = C.Z3_mk_bvudiv(c, args[0], args[1])
	case solver.OpURem:
		a = C.Z3_mk_bvurem(c, args[0], args[1])
	case solver.OpSDiv:
		a = C.Z3_mk_bvsdiv(c, args[0], args[1])
	case solver.OpSRem:
		a = C.Z3_mk_bvsrem(c, args[0], args[1])
	case solver.OpShl:
		a = C.Z3_mk_bvshl(c, args[0], args[1])
	case solver.OpLShr:
		a = C.Z3_mk_bvlshr(c, args[0], args[1])
	case solver.OpAShr:
		a = C.Z3_mk_bvashr(c, args[0], args[1])
	case solver.OpUlt:
		a = C.Z3_mk_bvult(c, args[0], args[1])
	case solver.OpUle:
		a = C.Z3_mk_bvule(c, args[0], args[1])
	case solver.OpSlt:
		a = C.Z3_mk_bvslt(c, args[0], args[1])
	case solver.OpSle:
		a = C.Z3_mk_bvsle(c, args[0], args[1])
	case solver.OpExtract:
		hi, lo := t.ExtractRange()
		a = C.Z3_mk_extract(c, C.uint(hi), C.uint(lo), args[0])
	case solver.OpZeroExt:
		a = C.Z3_mk_zero_ext(c, C.uint(t.Width()-t.Arg(0).Width()), args[0])
	case solver.OpSignExt:
		a = C.Z3_mk_sign_ext(c, C.uint(t.Width()-t.Arg(0).Width()), args[0])
	case solver.OpConcat:
		a = C.Z3_mk_concat(c, args[0], args[1])
	default:
		return nil, fmt.Errorf("z3: no translation for operator %s", t.Op())
	}
	if err := s.err("translate " + t.Op().String()); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("z3: translate %s: no result", t.Op())
	}
	return a, nil
}

// Assert implements solver.Backend.
func (s *backend) Assert(t *solver.Term) error {
	if s.closed {
		return solver.ErrClosed
	}
	if err := solver.CheckTerm(s.b, t, true); err != nil {
		return fmt.Errorf("z3: assert: %w", err)
	}
	a, err := s.ast(t)
	if err != nil {
		return err
	}
	if err := s.assert(a, "assert"); err != nil {
		return err
	}
	s.stats.Assertions++
	return nil
}

// literal returns the Z3 proposition to assume for t: t itself when it is
// a variable or a negated one, otherwise a proxy variable p asserted once
// to satisfy p → t. Z3 reports unsat cores in terms of the literals
// assumed, and with proxies every core element maps back to a term.
func (s *backend) literal(t *solver.Term) (C.Z3_ast, error) {
	if t.Op() == solver.OpVar || (t.Op() == solver.OpNot && t.Arg(0).Op() == solver.OpVar) {
		return s.ast(t)
	}
	if p, ok := s.proxies[t.ID()]; ok {
		return p, nil
	}
	body, err := s.ast(t)
	if err != nil {
		return nil, err
	}
	srt, err := s.sort(t)
	if err != nil {
		return nil, err
	}
	// Integer symbols cannot clash with the string-named variables.
	p := C.Z3_mk_const(s.ctx, C.Z3_mk_int_symbol(s.ctx, C.int(t.ID())), srt)
	if err := s.err("make assumption proxy"); err != nil {
		return nil, err
	}
	s.incRef(p)
	s.proxies[t.ID()] = p
	implies := C.Z3_mk_implies(s.ctx, p, body)
	if err := s.err("make assumption proxy"); err != nil {
		return nil, err
	}
	if err := s.assert(implies, "assert assumption proxy"); err != nil {
		return nil, err
	}
	return p, nil
}

// Check implements solver.Backend.
func (s *backend) Check(ctx context.Context, assumptions ...*solver.Term) (solver.Status, error) {
	if s.closed {
		return solver.Unknown, solver.ErrClosed
	}
	s.resetResult()
	if err := s.renew(); err != nil {
		return solver.Unknown, err
	}
	lits := make([]C.Z3_ast, len(assumptions))
	s.assumed = make(map[C.Z3_ast][]*solver.Term, len(assumptions))
	for i, t := range assumptions {
		if err := solver.CheckTerm(s.b, t, true); err != nil {
			return solver.Unknown, fmt.Errorf("z3: check: assumption: %w", err)
		}
		lit, err := s.literal(t)
		if err != nil {
			return solver.Unknown, err
		}
		lits[i] = lit
		s.assumed[lit] = append(s.assumed[lit], t)
	}
	s.stats.Checks++
	if ctx.Err() != nil {
		return solver.Unknown, nil
	}

	start := time.Now()
	stop := s.watch(ctx)
	var ptr *C.Z3_ast
	if len(lits) > 0 {
		ptr = &lits[0]
	}
	r := C.Z3_solver_check_assumptions(s.ctx, s.slv, C.uint(len(lits)), ptr)
	stop()
	s.stats.SolveTime += time.Since(start)
	if ctx.Err() != nil {
		// The check may have been interrupted, or the interrupt may have
		// reached Z3 just after it: neither its answer nor the solver is
		// trusted any more (renew).
		s.stale = true
		return solver.Unknown, nil
	}
	if err := s.err("check"); err != nil {
		return solver.Unknown, err
	}

	switch r {
	case C.Z3_L_TRUE:
		m := C.Z3_solver_get_model(s.ctx, s.slv)
		if err := s.err("get model"); err != nil {
			return solver.Unknown, err
		}
		C.Z3_model_inc_ref(s.ctx, m)
		s.model = m
		s.status = solver.Sat
	case C.Z3_L_FALSE:
		s.status = solver.Unsat
	default:
		reason := C.GoString(C.Z3_solver_get_reason_unknown(s.ctx, s.slv))
		if strings.Contains(reason, "memory") || strings.Contains(reason, "memout") {
			return solver.Unknown, fmt.Errorf("z3: check: %w (%s)", solver.ErrOutOfMemory, reason)
		}
		return solver.Unknown, fmt.Errorf("z3: check gave up: %s", reason)
	}
	return s.status, nil
}

// watch interrupts the running check when ctx ends, and returns a function
// that stops watching; it returns only once the watcher is gone, so no
// interrupt outlives the check.
//
// The solver's timeout parameter is not used: the context's deadline ends
// ctx.Done() too, so one mechanism serves time limits and cancellation.
//
// Z3_solver_interrupt stops a check in progress and is a no-op otherwise,
// but in Z3 4.8.12 it can be lost: a check registers its interrupt handler
// before it resets the context's cancel count (Z3_solver_check_assumptions
// opens a resource-limit scope, which sets the count to zero), and the
// handler acts only once per check. An interrupt in between is forgotten,
// every later one ignored, and the check runs to its end: a portfolio's
// losing Z3, interrupted as it starts, ran for ten minutes. So when the check
// has not stopped after interruptEscalation, the watcher also calls
// Z3_interrupt, which raises the context's cancel count itself on every call.
// That count outlives the check (clearCancel).
func (s *backend) watch(ctx context.Context) (stop func()) {
	done := ctx.Done()
	if done == nil {
		return func() {}
	}
	finished := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-finished:
			return
		case <-done:
		}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		escalate := time.Now().Add(interruptEscalation)
		for {
			C.Z3_solver_interrupt(s.ctx, s.slv)
			if time.Now().After(escalate) {
				C.Z3_interrupt(s.ctx)
				s.contextInterrupted = true
			}
			select {
			case <-finished:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(finished)
		wg.Wait()
		if s.contextInterrupted {
			s.clearCancel()
		}
	}
}

// interruptEscalation is how long the watcher relies on the solver's own
// interrupt before it interrupts the whole context: well above the
// milliseconds an interrupted check takes to stop.
const interruptEscalation = 100 * time.Millisecond

// clearCancel resets the cancel count Z3_interrupt left in the context, which
// would make the next assertion or evaluation fail as cancelled. A check
// resets the count when it starts and when it ends, so a check of an empty
// solver clears it.
func (s *backend) clearCancel() {
	s.contextInterrupted = false
	s.contextClears++
	slv := C.Z3_mk_simple_solver(s.ctx)
	C.Z3_solver_inc_ref(s.ctx, slv)
	C.Z3_solver_check(s.ctx, slv)
	C.Z3_solver_dec_ref(s.ctx, slv)
}

func (s *backend) resetResult() {
	if s.model != nil {
		C.Z3_model_dec_ref(s.ctx, s.model)
		s.model = nil
	}
	s.status = solver.Unknown
	s.assumed = nil
	s.core = nil
	s.hasCore = false
}

// eval evaluates t in the model, completing it for variables the model
// leaves open, and returns the result with a reference the caller must
// drop.
func (s *backend) eval(t *solver.Term, wantBool bool) (C.Z3_ast, error) {
	switch {
	case s.closed:
		return nil, solver.ErrClosed
	case s.status != solver.Sat:
		return nil, solver.ErrNoModel
	}
	if err := solver.CheckTerm(s.b, t, wantBool); err != nil {
		return nil, fmt.Errorf("z3: value: %w", err)
	}
	a, err := s.ast(t)
	if err != nil {
		return nil, err
	}
	var out C.Z3_ast
	ok := C.Z3_model_eval(s.ctx, s.model, a, true, &out)
	if err := s.err("evaluate"); err != nil {
		return nil, err
	}
	if !ok || out == nil {
		return nil, fmt.Errorf("z3: cannot evaluate %v in the model", t)
	}
	s.incRef(out)
	return out, nil
}

// BoolValue implements solver.Backend.
func (s *backend) BoolValue(t *solver.Term) (bool, error) {
	out, err := s.eval(t, true)
	if err != nil {
		return false, err
	}
	defer s.decRef(out)
	switch C.Z3_get_bool_value(s.ctx, out) {
	case C.Z3_L_TRUE:
		return true, nil
	case C.Z3_L_FALSE:
		return false, nil
	}
	return false, fmt.Errorf("z3: %v has no truth value in the model", t)
}

// BVValue implements solver.Backend.
func (s *backend) BVValue(t *solver.Term) (uint64, error) {
	out, err := s.eval(t, false)
	if err != nil {
		return 0, err
	}
	defer s.decRef(out)
	var v C.uint64_t
	if !C.Z3_get_numeral_uint64(s.ctx, out, &v) {
		return 0, fmt.Errorf("z3: %v is not a numeral in the model", t)
	}
	if err := s.err("read numeral"); err != nil {
		return 0, err
	}
	return uint64(v), nil
}

// FailedAssumptions implements solver.Backend.
func (s *backend) FailedAssumptions() ([]*solver.Term, error) {
	switch {
	case s.closed:
		return nil, solver.ErrClosed
	case s.status != solver.Unsat:
		return nil, solver.ErrNoCore
	case s.hasCore:
		return s.core, nil
	}
	v := C.Z3_solver_get_unsat_core(s.ctx, s.slv)
	if err := s.err("get unsat core"); err != nil {
		return nil, err
	}
	C.Z3_ast_vector_inc_ref(s.ctx, v)
	defer C.Z3_ast_vector_dec_ref(s.ctx, v)
	var core []*solver.Term
	n := C.Z3_ast_vector_size(s.ctx, v)
	for i := C.uint(0); i < n; i++ {
		core = append(core, s.assumed[C.Z3_ast_vector_get(s.ctx, v, i)]...)
	}
	s.core, s.hasCore = core, true
	return core, nil
}

// Stats implements solver.Backend. Z3's counters go to Counters under
// Z3's names; Vars, Clauses and Conflicts are taken from those of its SMT
// core ("mk bool var", "mk clause", "conflicts") or, when a SAT-based
// tactic did the work, its SAT solver's.
func (s *backend) Stats() solver.Stats {
	st := s.stats
	if s.closed {
		return st
	}
	raw := C.Z3_solver_get_statistics(s.ctx, s.slv)
	if s.err("get statistics") != nil {
		return st
	}
	C.Z3_stats_inc_ref(s.ctx, raw)
	defer C.Z3_stats_dec_ref(s.ctx, raw)
	st.Counters = make(map[string]float64)
	n := C.Z3_stats_size(s.ctx, raw)
	for i := C.uint(0); i < n; i++ {
		key := C.GoString(C.Z3_stats_get_key(s.ctx, raw, i))
		if C.Z3_stats_is_uint(s.ctx, raw, i) {
			st.Counters[key] = float64(C.Z3_stats_get_uint_value(s.ctx, raw, i))
		} else {
			st.Counters[key] = float64(C.Z3_stats_get_double_value(s.ctx, raw, i))
		}
	}
	first := func(keys ...string) int64 {
		for _, k := range keys {
			if v, ok := st.Counters[k]; ok {
				return int64(v)
			}
		}
		return 0
	}
	st.Vars = first("mk bool var", "sat mk var")
	st.Clauses = first("mk clause", "sat mk clause")
	st.Conflicts = first("conflicts", "sat conflicts")
	st.Counters["kbmc solver renewals"] = float64(s.renewals)
	st.Counters["kbmc context interrupts"] = float64(s.contextClears)
	return st
}

// Close implements solver.Backend: it drops every reference the backend
// holds and deletes the context.
func (s *backend) Close() error {
	if s.closed {
		return nil
	}
	s.stats = s.Stats()
	s.resetResult()
	for _, a := range s.memo {
		if a != nil {
			s.decRef(a)
		}
	}
	for _, p := range s.proxies {
		s.decRef(p)
	}
	for _, a := range s.asserted {
		s.decRef(a)
	}
	for _, srt := range s.sorts {
		s.decRef(C.Z3_sort_to_ast(s.ctx, srt))
	}
	C.Z3_solver_dec_ref(s.ctx, s.slv)
	C.Z3_del_context(s.ctx)
	s.memo, s.proxies, s.sorts, s.asserted = nil, nil, nil, nil
	s.closed = true
	return nil
}
