package parser

import (
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/ir"
)

const extLookup = "x-lookup"

// The x-lookup rules (docs/extensions.md).
const (
	ruleLookupType      = "lookup-type"
	ruleLookupMember    = "lookup-member"
	ruleLookupPlace     = "lookup-placement"
	ruleLookupOperation = "lookup-operation"
	ruleLookupKey       = "lookup-key"
	ruleLookupFound     = "lookup-found"
	ruleLookupParams    = "lookup-params"
	ruleLookupMatch     = "lookup-match"
	ruleLookupCallKey   = "lookup-call-key"
)

// lookupMembers are the members x-lookup takes besides x- members.
var lookupMembers = []string{"operationId", "key", "found", "match"}

// keyLocations are the places x-lookup's key may travel in.
var keyLocations = []string{"path", "query", "header", "cookie"}

// pendingLookup is one operation's x-lookup as written, resolved against
// its lookup operation once every operation is built.
type pendingLookup struct {
	op           *ir.Operation
	at           loc
	target       string
	keyIn, key   string
	found        string
	foundWritten bool
	match        string
}

// readLookup reads the operation's x-lookup into b.lookups; it is
// resolved by resolveLookups. A value with an error is left out.
func (b *builder) readLookup(r *rawOp, op *ir.Operation) {
	at := r.at.at(extLookup)
	if at.node == nil {
		return
	}
	lr := lookupReader{sink: b.l.sink, op: op}
	n := unalias(at.node)
	if n.Kind != yaml.MappingNode {
		lr.errorf(at, ruleLookupType, "x-lookup must be an object {operationId, key: {in, name}, found, match}, not %s", describe(n))
		return
	}
	if op.Retry.Safety == ir.Idempotent {
		lr.errorf(at, ruleLookupPlace, "x-lookup is for a keyed or unsafe operation; %s is idempotent, and a call whose outcome is unknown is simply sent again", op.ID)
		return
	}
	ok := lr.members(at, n, lookupMembers, "x-lookup")
	p := &pendingLookup{op: op, at: at}
	p.target = lr.str(at, "operationId", ruleLookupOperation, "the operationId of the safe operation that finds the result")
	ok = p.target != "" && ok
	ok = lr.keyOf(at, p) && ok
	ok = lr.foundOf(at, p) && ok
	ok = lr.matchOf(at, p) && ok
	if ok {
		b.lookups = append(b.lookups, p)
	}
}

type lookupReader struct {
	sink *diagSink
	op   *ir.Operation
}

func (r lookupReader) errorf(at loc, rule, format string, args ...any) {
	r.sink.errorf(at, r.op.ID, rule, format, args...)
}

// members refuses a member the object does not take.
func (r lookupReader) members(at loc, n *yaml.Node, allowed []string, what string) bool {
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !strings.HasPrefix(k, "x-") && !contains(allowed, k) {
			r.errorf(at.at(k), ruleLookupMember, "%q is not a member of %s (allowed: %s)", k, what, strings.Join(allowed, ", "))
			ok = false
		}
	}
	return ok
}

// str reads the non-empty string member; "" (reported under rule, when
// rule is set) when it is missing or not one.
func (r lookupReader) str(at loc, member, rule, what string) string {
	v := unalias(at.at(member).node)
	if v != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && strings.TrimSpace(v.Value) != "" {
		return v.Value
	}
	if rule == "" {
		return ""
	}
	if v == nil {
		r.errorf(at, rule, "x-lookup needs %s: %s", member, what)
	} else {
		r.errorf(at.at(member), rule, "%s must be %s, not %s", member, what, describe(v))
	}
	return ""
}

// keyOf reads key: {in, name}, the lookup's parameter that carries the key
// or client reference.
func (r lookupReader) keyOf(at loc, p *pendingLookup) bool {
	kat := at.at("key")
	n := unalias(kat.node)
	switch {
	case n == nil:
		r.errorf(at, ruleLookupKey, "x-lookup needs key: {in: path|query|header|cookie, name: <the lookup's parameter>}")
		return false
	case n.Kind != yaml.MappingNode:
		r.errorf(kat, ruleLookupKey, "key must be an object {in, name}, not %s", describe(n))
		return false
	}
	ok := r.members(kat, n, []string{"in", "name"}, "key")
	p.keyIn = r.str(kat, "in", ruleLookupKey, "where the key travels (path, query, header or cookie)")
	if p.keyIn != "" && !contains(keyLocations, p.keyIn) {
		r.errorf(kat.at("in"), ruleLookupKey, "key.in must be path, query, header or cookie, not %q", p.keyIn)
		p.keyIn = ""
	}
	p.key = r.str(kat, "name", ruleLookupKey, "the name of the lookup's parameter that carries the key")
	return ok && p.keyIn != "" && p.key != ""
}

// foundOf reads found, an RFC 6901 JSON pointer into the lookup's answer.
func (r lookupReader) foundOf(at loc, p *pendingLookup) bool {
	fat := at.at("found")
	v := unalias(fat.node)
	if v == nil {
		return true
	}
	p.foundWritten = true
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || !validPointer(v.Value) {
		r.errorf(fat, ruleLookupFound, "found must be a JSON pointer into the lookup's answer (\"/data/0\"; ~0 and ~1 escape ~ and /), not %s", describe(v))
		return false
	}
	p.found = v.Value
	return true
}

// matchOf reads match, an RFC 6901 JSON pointer into the found value to
// the member that carries the key.
func (r lookupReader) matchOf(at loc, p *pendingLookup) bool {
	mat := at.at("match")
	v := unalias(mat.node)
	if v == nil {
		return true
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || !validPointer(v.Value) {
		r.errorf(mat, ruleLookupMatch, "match must be a JSON pointer into the found value to where it carries the key (\"/reference\"; ~0 and ~1 escape ~ and /), not %s", describe(v))
		return false
	}
	p.match = v.Value
	return true
}

// validPointer reports whether s is a non-empty RFC 6901 pointer: it starts
// with "/" and every "~" is followed by 0 or 1.
func validPointer(s string) bool {
	if !strings.HasPrefix(s, "/") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}
