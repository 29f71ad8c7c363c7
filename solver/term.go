package solver

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// MaxWidth is the largest bit-vector width; values are carried in a uint64.
const MaxWidth = 64

// Sort is the type of a term: Bool, or a bit-vector of a fixed width. Its
// value is the width, 0 for Bool.
type Sort uint8

// BoolSort is the sort of propositions.
const BoolSort Sort = 0

// BVSort returns the sort of bit-vectors of the given width.
// It panics if width is outside 1..MaxWidth.
func BVSort(width int) Sort {
	checkWidth(width)
	return Sort(width)
}

// IsBool reports whether s is the Boolean sort.
func (s Sort) IsBool() bool { return s == BoolSort }

// Width returns the bit-vector width of s, or 0 for Bool.
func (s Sort) Width() int { return int(s) }

func (s Sort) String() string {
	if s.IsBool() {
		return "Bool"
	}
	return fmt.Sprintf("(_ BitVec %d)", uint8(s))
}

func checkWidth(width int) {
	if width < 1 || width > MaxWidth {
		panic(fmt.Sprintf("solver: bit-vector width %d outside 1..%d", width, MaxWidth))
	}
}

// Mask returns the value with the low width bits set, for width in 1..64.
func Mask(width int) uint64 {
	if width >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(width) - 1
}

// Signed interprets the low width bits of v as a two's-complement number.
func Signed(v uint64, width int) int64 {
	shift := uint(64 - width)
	return int64(v<<shift) >> shift
}

// Term is a node of the hash-consed term graph. Terms are immutable and are
// only created by a Builder; two terms of one Builder are structurally equal
// exactly when they are the same pointer.
type Term struct {
	id   int
	op   Op
	sort Sort
	args []*Term
	val  uint64 // OpConst: the value (Bool: 0 or 1); OpExtract: lo
	name string // OpVar: the variable's name
	b    *Builder
}

// ID returns the term's number, unique within its Builder and dense from 0,
// so backends can memoise translations in slices indexed by it.
func (t *Term) ID() int { return t.id }

// Op returns the operator at the root of t.
func (t *Term) Op() Op { return t.op }

// Sort returns the sort of t.
func (t *Term) Sort() Sort { return t.sort }

// IsBool reports whether t is a proposition.
func (t *Term) IsBool() bool { return t.sort.IsBool() }

// Width returns the bit-vector width of t, or 0 if t is Boolean.
func (t *Term) Width() int { return t.sort.Width() }

// NumArgs returns the number of operands of t.
func (t *Term) NumArgs() int { return len(t.args) }

// Arg returns the i'th operand of t.
func (t *Term) Arg(i int) *Term { return t.args[i] }

// Args returns a copy of the operands of t.
func (t *Term) Args() []*Term { return append([]*Term(nil), t.args...) }

// Name returns the name of a variable, and "" for any other term.
func (t *Term) Name() string { return t.name }

// Value returns the value of a constant (0 or 1 for Bool constants, the
// zero-extended bits for bit-vectors); it is meaningless for other terms.
func (t *Term) Value() uint64 {
	if t.op != OpConst {
		return 0
	}
	return t.val
}

// ExtractRange returns the bit range hi..lo of an OpExtract term.
func (t *Term) ExtractRange() (hi, lo int) {
	if t.op != OpExtract {
		return 0, 0
	}
	return int(t.val) + t.Width() - 1, int(t.val)
}

// IsConst reports whether t is a constant.
func (t *Term) IsConst() bool { return t.op == OpConst }

// IsTrue reports whether t is the Boolean constant true.
func (t *Term) IsTrue() bool { return t.op == OpConst && t.sort.IsBool() && t.val == 1 }

// IsFalse reports whether t is the Boolean constant false.
func (t *Term) IsFalse() bool { return t.op == OpConst && t.sort.IsBool() && t.val == 0 }

// Builder returns the Builder that owns t.
func (t *Term) Builder() *Builder { return t.b }

// maxPrint bounds String's output: a DAG with much sharing prints as an
// exponentially large tree.
const maxPrint = 4096

// String prints t in SMT-LIB syntax. Shared subterms are printed at each use,
// and output beyond a few kilobytes is cut off with "...".
func (t *Term) String() string {
	var sb strings.Builder
	t.write(&sb)
	s := sb.String()
	if len(s) > maxPrint {
		s = s[:maxPrint] + "..."
	}
	return s
}

func (t *Term) write(sb *strings.Builder) {
	if sb.Len() > maxPrint {
		return
	}
	switch t.op {
	case OpConst:
		if t.IsBool() {
			if t.val == 1 {
				sb.WriteString("true")
			} else {
				sb.WriteString("false")
			}
			return
		}
		fmt.Fprintf(sb, "(_ bv%d %d)", t.val, t.Width())
		return
	case OpVar:
		sb.WriteString(t.name)
		return
	}
	sb.WriteByte('(')
	switch t.op {
	case OpExtract:
		hi, lo := t.ExtractRange()
		fmt.Fprintf(sb, "(_ extract %d %d)", hi, lo)
	case OpZeroExt, OpSignExt:
		fmt.Fprintf(sb, "(_ %s %d)", t.op, t.Width()-t.args[0].Width())
	default:
		sb.WriteString(t.op.String())
	}
	for _, a := range t.args {
		sb.WriteByte(' ')
		a.write(sb)
	}
	sb.WriteByte(')')
}

// Builder creates terms and owns the hash-cons table that makes structurally
// equal terms identical. A Builder is not safe for concurrent use; each
// goroutine that builds formulas needs its own, or must serialise access.
type Builder struct {
	terms []*Term
	table map[key]*Term
	vars  map[string]*Term
	t, f  *Term
}

// key identifies a term structurally. Up to three operands are held inline;
// n-ary conjunctions and disjunctions with more operands are packed into s
// as varints, which cannot be confused with a variable's name because the
// operator differs.
type key struct {
	op   Op
	sort Sort
	a    [3]int32
	val  uint64
	s    string
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	b := &Builder{
		table: make(map[key]*Term),
		vars:  make(map[string]*Term),
	}
	b.f = b.intern(OpConst, BoolSort, 0, "", nil)
	b.t = b.intern(OpConst, BoolSort, 1, "", nil)
	return b
}

// Len returns the number of distinct terms created so far; every term's ID
// is below it.
func (b *Builder) Len() int { return len(b.terms) }

// intern returns the unique term with the given structure, creating it if
// needed. args must already be in canonical order.
func (b *Builder) intern(op Op, sort Sort, val uint64, name string, args []*Term) *Term {
	k := key{op: op, sort: sort, val: val, s: name, a: [3]int32{-1, -1, -1}}
	if len(args) <= 3 {
		for i, a := range args {
			k.a[i] = int32(a.id)
		}
	} else {
		buf := make([]byte, 0, 4*len(args))
		for _, a := range args {
			buf = binary.AppendUvarint(buf, uint64(a.id))
		}
		k.s = string(buf)
	}
	if t, ok := b.table[k]; ok {
		return t
	}
	t := &Term{
		id:   len(b.terms),
		op:   op,
		sort: sort,
		args: append([]*Term(nil), args...),
		val:  val,
		name: name,
		b:    b,
	}
	b.terms = append(b.terms, t)
	b.table[k] = t
	return t
}

// own panics unless every term belongs to b.
func (b *Builder) own(ts ...*Term) {
	for _, t := range ts {
		if t == nil {
			panic("solver: nil term")
		}
		if t.b != b {
			panic(fmt.Sprintf("solver: term %d belongs to another Builder", t.id))
		}
	}
}

func (b *Builder) wantBool(op string, ts ...*Term) {
	b.own(ts...)
	for _, t := range ts {
		if !t.IsBool() {
			panic(fmt.Sprintf("solver: %s: operand of sort %s, want Bool", op, t.sort))
		}
	}
}

// wantBV checks that all operands are bit-vectors of one width and returns it.
func (b *Builder) wantBV(op string, ts ...*Term) int {
	b.own(ts...)
	w := 0
	for _, t := range ts {
		if t.IsBool() {
			panic(fmt.Sprintf("solver: %s: Bool operand, want a bit-vector", op))
		}
		if w == 0 {
			w = t.Width()
		} else if t.Width() != w {
			panic(fmt.Sprintf("solver: %s: operand widths %d and %d differ", op, w, t.Width()))
		}
	}
	return w
}
