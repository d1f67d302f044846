package parser

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// numberedReport hears of a type name that carries a number because the
// document gives nothing better: where the schema is, the name, and the
// path of the place it was named after.
type numberedReport func(src ir.Source, name, place string)

// variantNumber matches the names of union variants the document gave no
// title ("…Variant2").
var variantNumber = regexp.MustCompile(`Variant[0-9]`)

// variantSuffix is that number at the end of a member's name.
var variantSuffix = regexp.MustCompile(`Variant[0-9]+$`)

// reportNumbered lists a numbered name as an info finding, with the JSON
// pointer of the schema it names, so that `idemgen lint` shows where a
// title or a component would give it a better one.
func (sb *schemaBuilder) reportNumbered(src ir.Source, name, place string) {
	sb.b.l.sink.list = append(sb.b.l.sink.list, ir.Diagnostic{
		Severity: ir.SeverityInfo, Rule: ruleNumberedName, File: src.File, Line: src.Line, Column: src.Column,
		Pointer: src.Pointer,
		Message: fmt.Sprintf("type %s, for %s, is numbered: nothing in the document tells it apart; a title or a component schema would name it", name, place),
	})
}

// useKey is what a use of an inline declaration is named after: the
// operation's body, response, parameter or webhook payload for a hint of
// one segment, else its member (the last segment). Uses with one key read
// true under one name; uses with different keys need a neutral name or
// aliases.
func useKey(h nameHint) string {
	if len(h.segs) == 1 {
		return "op:" + h.segs[0]
	}
	return h.segs[len(h.segs)-1]
}

// distinctKeys counts the keys of a declaration's uses.
func distinctKeys(uses []nameHint) int {
	seen := map[string]bool{}
	for _, h := range uses {
		seen[useKey(h)] = true
	}
	return len(seen)
}

// shapeName names a union that places of different names share by its
// variants ("StringOrEmpty", "IntOrRangeQuerySpecs", "StringListOrEmpty"),
// when every variant has a neutral name: a scalar, the empty string, a
// component schema, or a list of those. Otherwise "".
func shapeName(s *ir.Schema, uses []nameHint) string {
	if s.Kind != ir.KindUnion || len(s.Variants) < 2 || distinctKeys(uses) < 2 {
		return ""
	}
	words := make([]string, 0, len(s.Variants))
	seen := map[string]bool{}
	for _, v := range s.Variants {
		w := shapeWord(v)
		if w == "" || seen[w] {
			return ""
		}
		seen[w] = true
		words = append(words, w)
	}
	return strings.Join(words, "Or")
}

// membersName names an object that several operations' bodies share by its
// members when it has at most two ("ExpandRequest",
// "ExpandMetadataRequest"; "ObjectRequest" for none), followed by what the
// bodies are: requests, responses, or both ("Body"). Otherwise "".
func membersName(s *ir.Schema, uses []nameHint) string {
	if s.Kind != ir.KindObject || len(s.Properties) > 2 || distinctKeys(uses) < 2 {
		return ""
	}
	words := map[string]bool{}
	suffix := "Body"
	for _, h := range uses {
		_, kind, _ := describeUse(h)
		if len(h.segs) != 1 || kind == "" {
			return ""
		}
		words[kind] = true
		suffix = strings.ToUpper(kind[:1]) + strings.TrimSuffix(kind[1:], " body")
	}
	if len(words) > 1 {
		suffix = "Body"
	}
	name := "Object"
	if len(s.Properties) > 0 {
		name = ""
		for _, p := range s.Properties {
			name += p.GoName
		}
	}
	return name + suffix
}

// shapeWord is the neutral word for one variant, or "".
func shapeWord(v *ir.Schema) string {
	switch v.Kind {
	case ir.KindString:
		return "String"
	case ir.KindInteger:
		return "Int"
	case ir.KindNumber:
		return "Number"
	case ir.KindBool:
		return "Bool"
	case ir.KindArray:
		if w := shapeWord(v.Items); w != "" && v.Items != nil {
			return w + "List"
		}
	case ir.KindRef:
		switch d := v.Ref; {
		case d == nil:
		case d.Kind == ir.KindEnum && len(d.Enum) == 1 && d.Enum[0].Value == "":
			return "Empty"
		case !d.Inline:
			return d.GoName
		}
	}
	return ""
}

// useGroup is the uses of a declaration that share a key, with the names
// they could take, best first.
type useGroup struct {
	key   string
	idx   []int
	cands []string
}

// groups splits a declaration's uses by key, in the order inlineCandidates
// ranks them (the group with the shortest best name first).
func (d *inlineDecl) groups(limit int) []*useGroup {
	byKey := map[string]*useGroup{}
	var out []*useGroup
	for i, h := range d.uses {
		k := useKey(h)
		g := byKey[k]
		if g == nil {
			g = &useGroup{key: k}
			byKey[k] = g
			out = append(out, g)
		}
		g.idx = append(g.idx, i)
		g.cands = append(g.cands, h.candidates(limit)...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].cands, out[j].cands
		if len(a) == 0 || len(b) == 0 {
			return len(a) > len(b)
		}
		return lessName(a[0], b[0])
	})
	return out
}

// aliases gives the uses a shared declaration is not named after names of
// their own: the declaration keeps one definition, named after one group of
// uses (its namesake) or neutrally (a shape, a content or a numbered name:
// then no alias is needed); each use of another group points at an alias
// named after the use itself (its operation's body, or its parent and
// member: "CanceledCancellationReason"). Uses with the same best name share
// one alias. The aliases are returned to be declared.
func (in *inlines) aliases(d *inlineDecl, taken *namer, report numberedReport) []*ir.Schema {
	if len(d.uses) < 2 || distinctKeys(d.uses) < 2 {
		return nil
	}
	groups := d.groups(maxIdentLen - constSuffixLen(d.decl))
	namesake := -1
	for i, g := range groups {
		if containsName(g.cands, d.decl.GoName) || oneValue(d.decl) && contentName(d.decl, g.key) == d.decl.GoName {
			namesake = i
			break
		}
	}
	// A neutral name (a shape, a value, the members) names no member, so
	// members keep it; an operation's body still gets its own name.
	opOnly := namesake < 0
	var out []*ir.Schema
	made := map[string]*ir.Schema{}
	for i, g := range groups {
		if i == namesake || opOnly && !strings.HasPrefix(g.key, "op:") || !opOnly && readsTrue(g.key, groups[namesake].key, d.decl.GoName) {
			continue
		}
		for _, u := range g.idx {
			h := d.uses[u]
			cands := h.candidates(maxIdentLen)
			if oneValue(d.decl) && !strings.HasPrefix(g.key, "op:") {
				cands = append([]string{contentName(d.decl, g.key)}, cands...)
			}
			if len(cands) == 0 {
				cands = []string{truncateIdent(h.String(), maxIdentLen-4)}
			}
			a := made[cands[0]]
			if a == nil {
				a = newAlias(d.decl, cands, taken, report, h)
				made[cands[0]] = a
				out = append(out, a)
			}
			d.refs[u].Ref = a
		}
	}
	describeAliases(d, out)
	return out
}

// readsTrue reports whether a member named key reads true with the type
// name, named after the member named namesake: the member's name ends with
// the type's whole name ("AnnounceMethod" with a type Method). Ending with
// the namesake member alone is not enough when the type's name carries more
// than that member: a type named after an operation's member
// ("PostAccountsAccountPeopleRequestAddress") or a parent's
// ("MandateAmount") reads false at another member ("RegisteredAddress",
// "ApplicationFeeAmount"), which gets an alias of its own.
func readsTrue(key, namesake, name string) bool {
	return !strings.HasPrefix(key, "op:") && !strings.HasPrefix(namesake, "op:") && strings.HasSuffix(key, namesake) &&
		strings.HasSuffix(key, name)
}

// oneValue reports whether a declaration is an enum of one value other than
// the empty string: such a constant is named by its value and its member
// (contentNames).
func oneValue(s *ir.Schema) bool {
	return s.Kind == ir.KindEnum && len(s.Enum) == 1 && s.Enum[0].Value != ""
}

// containsName reports whether name is one of cands.
func containsName(cands []string, name string) bool {
	for _, c := range cands {
		if c == name {
			return true
		}
	}
	return false
}

// newAlias declares another name for decl, the first free of cands.
func newAlias(decl *ir.Schema, cands []string, taken *namer, report numberedReport, h nameHint) *ir.Schema {
	name, numbered := takeFirst(taken, cands)
	a := &ir.Schema{Kind: ir.KindRef, Ref: decl, Name: name, GoName: name, Inline: true, Source: decl.Source}
	if numbered {
		report(decl.Source, name, h.String())
	}
	return a
}

// describeAliases writes into each alias's description the places that
// share its declaration's shape, so that a reader of one sees the others.
func describeAliases(d *inlineDecl, aliases []*ir.Schema) {
	var ops, places []string
	seen := map[string]bool{}
	kinds := map[string]bool{}
	for _, h := range d.uses {
		op, kind, place := describeUse(h)
		if !seen[place] {
			seen[place] = true
			places = append(places, place)
			if op != "" {
				ops = append(ops, op)
				kinds[kind] = true
			}
		}
	}
	text := "This shape serves " + listOf(places) + "."
	if len(ops) == len(places) && len(kinds) == 1 {
		for k := range kinds {
			text = "The operations " + listOf(ops) + " share this " + k + "."
		}
	}
	for _, a := range aliases {
		a.Description = text
	}
}

// describeUse says where a use is: an operation's body ("the request body of
// X") or a member ("Parent.Member").
func describeUse(h nameHint) (op, kind, place string) {
	n := len(h.segs)
	if n > 1 {
		return "", "", h.segs[n-2] + "." + h.segs[n-1]
	}
	for _, k := range [][2]string{{"Request", "request body"}, {"Response", "response body"}, {"Event", "event"}, {"Payload", "payload"}} {
		if op, ok := strings.CutSuffix(h.segs[0], k[0]); ok && op != "" {
			return op, k[1], "the " + k[1] + " of " + op
		}
	}
	return "", "", h.segs[0]
}

// listOf joins names in order, at most a dozen of them.
func listOf(names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	const most = 12
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}
