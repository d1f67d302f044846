package parser

import (
	"strings"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// keyMember is the member of op's required JSON (else form) body that
// carries the key a lookup takes as its parameter name: a member named
// exactly name whose value is one string (a string, an integer, or an
// enum of either) and never null. "" when there is none. An unsafe call
// takes its value as the call's key, so the key the journal records is
// the key the lookup is sent with.
func keyMember(op *ir.Operation, name string) string {
	if op.Body == nil || !op.Body.Required {
		return ""
	}
	m := bodyMedia(op.Body.Content)
	if m == nil {
		return ""
	}
	if p := property(m.Schema, name); p != nil && keyText(p.Type) {
		return name
	}
	return ""
}

// bodyMedia is the body a generated method sends when it can name a
// member of it: application/json, another JSON type (+json, /json), else a
// form; nil for anything else.
func bodyMedia(content []*ir.MediaType) *ir.MediaType {
	var json, form *ir.MediaType
	for _, m := range content {
		switch {
		case m.Name == "application/json":
			return m
		case json == nil && (strings.HasSuffix(m.Name, "+json") || strings.HasSuffix(m.Name, "/json")):
			json = m
		case form == nil && m.Name == "application/x-www-form-urlencoded":
			form = m
		}
	}
	if json != nil {
		return json
	}
	return form
}

// keyText reports whether a member's value is always one string a key can
// be: a string that is not a date, a time or bytes (whose text depends on
// how it is encoded), an integer, or an enum of either; never null.
func keyText(s *ir.Schema) bool {
	d := s.Deref()
	if d == nil || s.IsNullable() {
		return false
	}
	kind := d.Kind
	if kind == ir.KindEnum {
		kind = d.EnumBase
	}
	switch kind {
	case ir.KindString:
		return d.Kind == ir.KindEnum || !contains([]string{ir.FormatDateTime, ir.FormatDate, ir.FormatByte, ir.FormatBinary}, d.Format)
	case ir.KindInteger:
		return true
	}
	return false
}

// callKey warns on an unsafe operation whose body has no member to take
// the call's key from: each call gets a fresh key, which its lookup is
// never sent with, so every call whose answer is lost ends with a person.
func (r lookupReader) callKey(p *pendingLookup, lk *ir.Lookup) {
	if p.op.Retry.Safety != ir.Unsafe || lk.Member != "" {
		return
	}
	r.sink.warnf(p.at.at("key", "name"), p.op.ID, ruleLookupCallKey,
		"%s's calls carry a fresh key, never their %s: its required JSON or form body has no member %q holding one string, "+
			"so the lookup is never sent with a call's key and every call whose answer is lost ends with a person; "+
			"name the body member like the lookup's %s parameter", p.op.ID, lk.Key.Name, lk.Key.Name, lk.Key.In)
}

// matchIn is where the found value carries the key: match as written, else
// the body member the key comes from when the found value's schema
// declares it; "" when neither can be had. It warns when the match cannot
// be checked against the lookup's answer, since a lookup whose found value
// is not checked takes another intent's result for this one's.
func (r lookupReader) matchIn(p *pendingLookup, lk *ir.Lookup, leaf *ir.Schema) string {
	t := lk.Operation.ID
	if p.match != "" {
		at := p.at.at("match")
		if leaf == nil {
			r.sink.warnf(at, p.op.ID, ruleLookupMatch, "%s has no JSON success response, so match %q cannot be checked against it", t, p.match)
		} else if got, ok, why := resolvePointer(leaf, p.match); !ok {
			r.sink.warnf(at, p.op.ID, ruleLookupMatch, "match %q is not in the value %s finds: %s; every answer would be not found", p.match, t, why)
		} else if got != nil && !keyText(got) && got.Deref() != nil && got.Deref().Kind != ir.KindAny {
			r.sink.warnf(at, p.op.ID, ruleLookupMatch, "match %q leads to %s in the value %s finds, which never equals a key; point it at the string or integer that holds the key", p.match, kindText(got), t)
		}
		return p.match
	}
	if lk.Member == "" {
		r.sink.warnf(p.at, p.op.ID, ruleLookupMatch, "nothing checks that what %s finds is this call's: %s's body has no member %q to take a default match from; "+
			"add match, the JSON pointer into the found value to where it holds the key", t, p.op.ID, lk.Key.Name)
		return ""
	}
	if leaf == nil {
		r.sink.warnf(p.at, p.op.ID, ruleLookupMatch, "nothing checks that what %s finds is this call's: it has no JSON success response to hold the key; "+
			"a lookup whose answer does not carry the key takes any answer for this intent's", t)
		return ""
	}
	if property(leaf, lk.Member) == nil {
		r.sink.warnf(p.at, p.op.ID, ruleLookupMatch, "nothing checks that what %s finds is this call's: the found value declares no member %q (the body member the key comes from); "+
			"add match, the JSON pointer into the found value to where it holds the key", t, lk.Member)
		return ""
	}
	return "/" + jsonpointer.Escape(lk.Member)
}
