package parser

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// safeMethods are the methods RFC 9110 calls safe: a lookup with one of
// them reads and changes nothing.
var safeMethods = []string{"GET", "HEAD", "OPTIONS", "TRACE", "QUERY"}

// resolveLookups checks every x-lookup read against the operation it names
// and sets Operation.Lookup on the ones that hold.
func (b *builder) resolveLookups() {
	// x-lookup names its operation by operationId, or by identity where
	// two operations share one (the first by Go name answers otherwise).
	byID := map[string]*ir.Operation{}
	for _, op := range b.api.Operations {
		byID[op.ID] = op
	}
	for _, op := range b.api.Operations {
		if byID[op.OperationID] == nil && op.OperationID != "" {
			byID[op.OperationID] = op
		}
	}
	for _, p := range b.lookups {
		r := lookupReader{sink: b.l.sink, op: p.op}
		if lk := r.resolve(p, byID[p.target]); lk != nil {
			p.op.Lookup = lk
		}
	}
}

// resolve checks one x-lookup against its lookup operation; nil when it
// does not hold (reported).
func (r lookupReader) resolve(p *pendingLookup, target *ir.Operation) *ir.Lookup {
	if !r.safeTarget(p, target) {
		return nil
	}
	key := r.keyParam(p, target)
	ok := key != nil && r.onlyKey(p, target, key)
	leaf, found := r.foundIn(p, target)
	if !ok || !found {
		return nil
	}
	lk := &ir.Lookup{Operation: target, Key: key, Found: p.found, Source: r.sink.source(p.at)}
	lk.Member = keyMember(p.op, key.Name)
	r.callKey(p, lk)
	lk.Match = r.matchIn(p, lk, leaf)
	return lk
}

// safeTarget refuses a lookup that is missing, is the operation itself, or
// could change something: only a safe method, or an operation declared
// x-idempotent: true, may be sent to find out what happened.
func (r lookupReader) safeTarget(p *pendingLookup, t *ir.Operation) bool {
	at := p.at.at("operationId")
	switch {
	case t == nil:
		r.errorf(at, ruleLookupOperation, "operationId %q names no operation of the document", p.target)
	case t == p.op:
		r.errorf(at, ruleLookupOperation, "%s cannot be its own lookup; name the safe operation that finds its result", p.target)
	case t.Retry.Safety != ir.Idempotent:
		r.errorf(at, ruleLookupOperation, "%s is %s; a lookup must be safe (GET, HEAD, or x-idempotent: true), or every lookup would be a new intent", p.target, t.Retry.Safety)
	case !contains(safeMethods, t.Method) && t.Retry.Kind != ir.IdempotencyTrue:
		r.errorf(at, ruleLookupOperation, "%s is a %s: idempotent, but not safe, so a lookup would change what it looks for; declare x-idempotent: true on it if it only reads", p.target, t.Method)
	default:
		return true
	}
	return false
}

// keyParam finds the lookup's parameter named by key; nil when there is
// none (reported) or it cannot carry a string.
func (r lookupReader) keyParam(p *pendingLookup, t *ir.Operation) *ir.Parameter {
	var names []string
	for _, q := range t.Params {
		same := q.Name == p.key || (q.In == ir.InHeader && strings.EqualFold(q.Name, p.key))
		if string(q.In) == p.keyIn && same {
			if !scalarParam(q) {
				r.errorf(p.at.at("key", "name"), ruleLookupKey, "%s's %s parameter %q is %s; a key is one string", t.ID, q.In, q.Name, kindText(q.Type))
				return nil
			}
			return q
		}
		names = append(names, fmt.Sprintf("%s %q", q.In, q.Name))
	}
	has := "it has none"
	if len(names) > 0 {
		has = "it has " + strings.Join(names, ", ")
	}
	r.errorf(p.at.at("key", "name"), ruleLookupKey, "%s has no %s parameter %q (%s)", t.ID, p.keyIn, p.key, has)
	return nil
}

// onlyKey refuses a lookup that needs more than the key: another required
// parameter, or a required body, which x-lookup cannot fill.
func (r lookupReader) onlyKey(p *pendingLookup, t *ir.Operation, key *ir.Parameter) bool {
	for _, q := range t.Params {
		if q != key && q.Required {
			r.errorf(p.at.at("operationId"), ruleLookupParams, "%s also requires the %s parameter %q, which x-lookup cannot fill; a lookup is sent with the key alone", t.ID, q.In, q.Name)
			return false
		}
	}
	if t.Body != nil && t.Body.Required {
		r.errorf(p.at.at("operationId"), ruleLookupParams, "%s requires a request body, which x-lookup cannot fill; a lookup is sent with the key alone", t.ID)
		return false
	}
	return true
}

// foundIn checks found against the lookup's JSON success schema, and warns
// when what is found is not what the operation answers. It returns the
// schema of the found value (nil for none, or one without type
// information) and false when found does not hold (reported).
func (r lookupReader) foundIn(p *pendingLookup, t *ir.Operation) (*ir.Schema, bool) {
	at := p.at.at("found")
	body := successSchema(t)
	leaf := body
	if p.found != "" {
		if body == nil {
			r.errorf(at, ruleLookupFound, "%s has no JSON success response for found %q to point into", t.ID, p.found)
			return nil, false
		}
		var ok bool
		var why string
		if leaf, ok, why = resolvePointer(body, p.found); !ok {
			r.errorf(at, ruleLookupFound, "found %q is not in the answer of %s: %s", p.found, t.ID, why)
			return nil, false
		}
	}
	want, got := successSchema(p.op).Deref(), leaf.Deref()
	if want != nil && got != nil && want.Name != "" && got.Name != "" && want != got {
		where := "the answer of " + t.ID
		if p.found != "" {
			where = fmt.Sprintf("the value at %q in the answer of %s", p.found, t.ID)
		}
		r.sink.warnf(p.at, p.op.ID, ruleLookupFound, "%s is %s, and %s answers %s; Lookup%s decodes the found value as %s", where, got.Name, p.op.ID, want.Name, p.op.GoName, want.Name)
	}
	return leaf, true
}
