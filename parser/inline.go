package parser

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// maxIdentLen bounds the Go identifiers made from inline schemas, their
// enum constants included: longer names are unreadable in code and in
// compiler errors.
const maxIdentLen = 80

// nameHint is where an inline schema sits, as the words that could name it:
// the context (an operation's request or response, a parameter, a component)
// then one segment per member on the way down. "Item", "Value" and
// "VariantN" are glued to the segment before them, since they name nothing
// alone.
type nameHint struct {
	segs []string
	// op is set when the first segment is an operation's request,
	// response or parameter rather than a component: a member directly
	// under it is named by its own name alone ("Metadata"), where a
	// component's member keeps the component's ("PaymentStatus").
	op bool
}

// rootHint is the hint of a component schema: one segment.
func rootHint(s string) nameHint { return nameHint{segs: []string{goNameOf(s)}} }

// opHint is the hint of a schema an operation uses directly.
func opHint(s string) nameHint { return nameHint{segs: []string{goNameOf(s)}, op: true} }

// member returns the hint of a member named seg.
func (h nameHint) member(seg string) nameHint {
	segs := make([]string, len(h.segs), len(h.segs)+1)
	copy(segs, h.segs)
	return nameHint{segs: append(segs, seg), op: h.op}
}

// glue returns the hint with word appended to its last segment.
func (h nameHint) glue(word string) nameHint {
	segs := append([]string(nil), h.segs...)
	if len(segs) == 0 {
		return nameHint{segs: []string{word}, op: h.op}
	}
	segs[len(segs)-1] += word
	return nameHint{segs: segs, op: h.op}
}

// String is the full path name ("PostCustomersRequestShippingAddress").
func (h nameHint) String() string { return strings.Join(h.segs, "") }

// candidates lists the names an inline schema at h may take, best first:
// the member with its parent member or component (the member alone right
// under an operation), then more of the path, then the context with the
// last segments, then the full path. Names over limit are left out.
func (h nameHint) candidates(limit int) []string {
	n := len(h.segs)
	var out []string
	seen := map[string]bool{}
	add := func(parts ...string) {
		c := strings.Join(parts, "")
		if c != "" && len(c) <= limit && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	first := 2
	if h.op && n == 2 {
		first = 1
	}
	for k := first; k < n; k++ {
		add(h.segs[n-k:]...)
	}
	for k := 1; k < n-1; k++ {
		add(append([]string{h.segs[0]}, h.segs[n-k:]...)...)
	}
	add(h.segs...)
	return out
}

// inlineDecl is a declaration made for an inline schema and every use site
// that has its shape: where each is (uses) and the KindRef that stands
// there (refs, in the same order), which an alias may take over.
type inlineDecl struct {
	decl *ir.Schema
	uses []nameHint
	refs []*ir.Schema
}

// inlines deduplicates inline declarations by shape and names them once
// the whole document is read.
type inlines struct {
	byHash map[string]*inlineDecl
	bySch  map[*ir.Schema]*inlineDecl
	hashes map[*ir.Schema]string
	order  []*inlineDecl
}

func newInlines() *inlines {
	return &inlines{byHash: map[string]*inlineDecl{}, bySch: map[*ir.Schema]*inlineDecl{}, hashes: map[*ir.Schema]string{}}
}

// intern returns the declaration already made for a schema of s's shape,
// recording h and its KindRef use as one more use of it, or registers s as
// a new declaration (reported by fresh). The caller points use at the
// declaration returned.
func (in *inlines) intern(s *ir.Schema, h nameHint, use *ir.Schema) (decl *ir.Schema, fresh bool) {
	key := in.hash(s)
	if d := in.byHash[key]; d != nil {
		d.uses, d.refs = append(d.uses, h), append(d.refs, use)
		return d.decl, false
	}
	d := &inlineDecl{decl: s, uses: []nameHint{h}, refs: []*ir.Schema{use}}
	in.byHash[key], in.bySch[s], in.hashes[s] = d, d, key
	in.order = append(in.order, d)
	return s, true
}

// hash is the structural hash of an inline declaration: what its Go type
// says (kind, members and their names, types, required and read-only
// flags, enum values, variants), not its prose (descriptions, titles) nor
// where it was written. A use of another inline declaration hashes as that
// declaration's hash; a use of a named one as its name.
func (in *inlines) hash(s *ir.Schema) string {
	var b strings.Builder
	in.writeShape(&b, s)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16])
}

func (in *inlines) writeShape(b *strings.Builder, s *ir.Schema) {
	if s == nil {
		b.WriteString("nil;")
		return
	}
	if s.Kind == ir.KindRef {
		b.WriteString("ref(")
		if h, ok := in.hashes[s.Ref]; ok {
			b.WriteString(h)
		} else if s.Ref != nil {
			b.WriteString("decl:" + s.Ref.GoName)
		}
		b.WriteString(")")
	}
	b.WriteString(s.Kind.String() + "|" + s.Format + "|" + strconv.Itoa(int(s.EnumBase)) + "|" + strconv.Itoa(int(s.Union)))
	b.WriteString("|" + flags(s.Nullable, s.ReadOnly, s.WriteOnly) + "{")
	for _, p := range s.Properties {
		b.WriteString(strconv.Quote(p.Name) + " " + p.GoName + " " + flags(p.Required, p.ReadOnly, false) + ":")
		in.writeShape(b, p.Type)
	}
	if s.Items != nil {
		b.WriteString("items:")
		in.writeShape(b, s.Items)
	}
	if s.AdditionalProperties != nil {
		b.WriteString("addl:")
		in.writeShape(b, s.AdditionalProperties)
	}
	for _, e := range s.Enum {
		b.WriteString(strconv.Quote(e.Value) + " " + e.GoName + ",")
	}
	for _, v := range s.Variants {
		b.WriteString("variant:")
		in.writeShape(b, v)
	}
	if d := s.Discriminator; d != nil {
		b.WriteString("disc:" + strconv.Quote(d.Property))
		for _, m := range d.Mapping {
			b.WriteString(strconv.Quote(m.Value) + "=")
			in.writeShape(b, &ir.Schema{Kind: ir.KindRef, Ref: m.Schema})
		}
	}
	b.WriteString("};")
}

func flags(fs ...bool) string {
	out := make([]byte, len(fs))
	for i, f := range fs {
		out[i] = '0'
		if f {
			out[i] = '1'
		}
	}
	return string(out)
}

// name gives every inline declaration its final GoName, unique among
// taken: each takes the first free name among its candidates, and
// declarations choose in the order of their best candidate (then of their
// first use's full path), so a name moves only when a better claim to it
// appears, not when operations are added elsewhere. A declaration with no
// free candidate takes its first one with a number. Then the uses a shared
// declaration is not named after get aliases (aliases), which name returns;
// report hears of every name with a number the document could not avoid.
func (in *inlines) name(taken *namer, report numberedReport) []*ir.Schema {
	type pick struct {
		d     *inlineDecl
		cands []string
		full  string
	}
	picks := make([]pick, 0, len(in.order))
	for _, d := range in.order {
		p := pick{d: d, full: d.uses[0].String()}
		p.cands = inlineCandidates(d.decl, d.uses)
		picks = append(picks, p)
	}
	sort.SliceStable(picks, func(i, j int) bool {
		a, b := picks[i], picks[j]
		if a.cands[0] != b.cands[0] {
			return lessName(a.cands[0], b.cands[0])
		}
		return a.full < b.full
	})
	for _, p := range picks {
		name, numbered := takeFirst(taken, p.cands)
		p.d.decl.GoName, p.d.decl.Name = name, name
		if numbered || variantNumber.MatchString(name) {
			report(p.d.decl.Source, name, p.full)
		}
	}
	var aliases []*ir.Schema
	for _, p := range picks {
		aliases = append(aliases, in.aliases(p.d, taken, report)...)
	}
	return aliases
}

// lessName orders names shortest first, then alphabetically.
func lessName(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// inlineCandidates lists the candidates of every use, after the names its
// content suggests: the use with the shortest first candidate comes first,
// and each use's candidates keep their order. The list is never empty.
func inlineCandidates(s *ir.Schema, uses []nameHint) []string {
	limit := maxIdentLen - constSuffixLen(s)
	var all []string
	seen := map[string]bool{}
	add := func(c string) {
		if c != "" && len(c) <= limit && !seen[c] {
			seen[c] = true
			all = append(all, c)
		}
	}
	for _, c := range append(contentNames(s, uses), shapeName(s, uses), membersName(s, uses)) {
		add(c)
	}
	lists := make([][]string, 0, len(uses))
	for _, h := range uses {
		if cs := h.candidates(limit); len(cs) > 0 {
			lists = append(lists, cs)
		}
	}
	sort.SliceStable(lists, func(i, j int) bool { return lessName(lists[i][0], lists[j][0]) })
	for _, cs := range lists {
		for _, c := range cs {
			add(c)
		}
	}
	if len(all) == 0 {
		last := uses[0].segs[len(uses[0].segs)-1]
		all = []string{truncateIdent(last, max(limit-4, 8))}
	}
	return all
}

// contentNames are the names a one-value enum takes before its place's:
// the same constant is used in many places (Stripe's `object: enum [list]`
// in every list, `enum: [""]` beside every field that can be cleared), so
// the first place's name would mislead at the others. The value names it,
// followed by the member it sits in ("ListObject", "CardType"); the
// empty-string value is "EmptyString".
func contentNames(s *ir.Schema, uses []nameHint) []string {
	if s.Kind != ir.KindEnum || len(s.Enum) != 1 {
		return nil
	}
	if s.Enum[0].Value == "" {
		return []string{"EmptyString"}
	}
	var out []string
	for _, h := range uses {
		if len(h.segs) > 1 {
			out = append(out, contentName(s, useKey(h)))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lessName(out[i], out[j]) })
	return out
}

// contentName is a one-value enum's name at a member: the value, then the
// member's name without the number an untitled union variant has
// ("NowEndDate" for "now" in EndDate's second variant).
func contentName(s *ir.Schema, member string) string {
	return s.Enum[0].GoName + variantSuffix.ReplaceAllString(member, "")
}

// unionSuffixLen is the room a union's name leaves for its constructors'
// (New<Union>From<Variant>): "New", "From" and a short variant name.
const unionSuffixLen = len("NewFrom") + len("Variant9")

// constSuffixLen is how much longer than the type's own name its longest
// derived identifier is: an enum's constants append the value's name, a
// union's constructors wrap it.
func constSuffixLen(s *ir.Schema) int {
	if s.Kind == ir.KindUnion {
		return unionSuffixLen
	}
	n := 0
	for _, e := range s.Enum {
		n = max(n, len(e.GoName))
	}
	return n
}

// takeFirst claims the first free candidate, or the first with the
// smallest number that makes it free (numbered).
func takeFirst(taken *namer, cands []string) (name string, numbered bool) {
	for _, c := range cands {
		if !taken.used[c] {
			taken.used[c] = true
			return c, false
		}
	}
	return taken.unique(cands[0]), true
}

// truncateIdent cuts an identifier to at most n bytes.
func truncateIdent(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// shortName fits a document's own schema name into limit bytes by
// dropping the words it repeats (Stripe's
// customer_balance_resource_cash_balance_transaction_resource_… says
// "resource" and "balance" several times), from the left, only as many as
// needed; then, if still too long, its leading words. Names that fit are
// returned as they are.
func shortName(name string, limit int) string {
	if len(name) <= limit {
		return name
	}
	words := splitWords(name)
	size := len(name)
	seen := map[string]bool{}
	keep := make([]bool, len(words))
	for i, w := range words {
		lw := strings.ToLower(w)
		keep[i] = !seen[lw] || size <= limit
		if !keep[i] {
			size -= len(w)
		}
		seen[lw] = true
	}
	var kept []string
	for i, w := range words {
		if keep[i] {
			kept = append(kept, w)
		}
	}
	for len(kept) > 1 && size > limit {
		size -= len(kept[0])
		kept = kept[1:]
	}
	return truncateIdent(strings.Join(kept, ""), limit)
}

// enumSuffixLen is constSuffixLen for a schema not yet converted: the
// longest constant suffix its enum values would take, or a union's.
func enumSuffixLen(v *openapi3.Schema) int {
	if v == nil {
		return 0
	}
	if len(v.OneOf)+len(v.AnyOf) > 0 {
		return unionSuffixLen
	}
	n := 0
	for _, e := range v.Enum {
		n = max(n, len(enumGoName(enumText(e))))
	}
	return n
}
