package parser

import (
	"strings"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// referenceNames are the parameter names, lower case without "_" and "-",
// that InferLookups reads as a client reference: a value the client chose
// and sent in the request body, by which the API finds what it created.
var referenceNames = []string{"clientreference", "clientreferenceid", "reference", "referenceid",
	"externalid", "externalreference", "clientrequestid", "merchantreference", "clientorderid"}

// InferLookups proposes an x-lookup for each keyed or unsafe operation
// without one whose result a GET of the same resource finds: a GET on the
// operation's path or below it, idempotent, whose only required parameter
// (if any) is a query or path parameter named like the operation's
// idempotency key (idempotency_key for Idempotency-Key), or like a client
// reference (client_reference, reference, external_id...) that the
// operation's JSON body has a member of the same name for. The GET must
// answer the operation's own result schema (no found pointer), or an
// object with an array of it (found: /<member>/0), and the value found
// must declare a member named like the parameter (the match); an unsafe
// operation's body must have that member (keyMember), since its calls are
// keyed by it. The first GET in document order wins. The result is keyed by "<METHOD> <path>" of the
// operation; idemgen annotate writes it.
func InferLookups(api *ir.API) map[string]*ir.Lookup {
	out := map[string]*ir.Lookup{}
	for _, op := range api.Operations {
		if op.Retry.Safety == ir.Idempotent || op.Lookup != nil || op.Query != "" {
			continue
		}
		for _, get := range api.Operations {
			if lk := inferLookup(op, get); lk != nil {
				out[op.Method+" "+op.Path] = lk
				break
			}
		}
	}
	return out
}

// inferLookup is the x-lookup by get that InferLookups proposes for op,
// or nil.
func inferLookup(op, get *ir.Operation) *ir.Lookup {
	if get.Method != "GET" || get.Retry.Safety != ir.Idempotent || get.Query != "" ||
		(get.Path != op.Path && !strings.HasPrefix(get.Path, op.Path+"/")) {
		return nil
	}
	found, ok := foundPointer(successSchema(op).Deref(), successSchema(get).Deref())
	if !ok {
		return nil
	}
	leaf, _, _ := resolvePointer(successSchema(get), found)
	if found == "" {
		leaf = successSchema(get)
	}
	for _, p := range get.Params {
		if (p.In == ir.InQuery || p.In == ir.InPath) && namesIntent(op, p.Name) {
			if scalarParam(p) && onlyRequired(get, p) {
				if lk := checkedLookup(op, get, p, found, leaf); lk != nil {
					return lk
				}
			}
		}
	}
	return nil
}

// checkedLookup is the lookup of op by get's parameter p when it can
// settle a call: an unsafe call's key must be the body member named like
// p (keyMember), and the found value must declare a member of that name,
// the match that tells this call's result from another's; else nil.
func checkedLookup(op, get *ir.Operation, p *ir.Parameter, found string, leaf *ir.Schema) *ir.Lookup {
	member := keyMember(op, p.Name)
	if (op.Retry.Safety == ir.Unsafe && member == "") || leaf == nil || property(leaf, p.Name) == nil {
		return nil
	}
	return &ir.Lookup{Operation: get, Key: p, Found: found, Member: member, Match: "/" + jsonpointer.Escape(p.Name)}
}

// foundPointer is where the result schema want is in the answer schema
// got: the whole answer (""), or the first element of an array member.
func foundPointer(want, got *ir.Schema) (string, bool) {
	if want == nil || got == nil || want.Name == "" {
		return "", false
	}
	if want == got {
		return "", true
	}
	if got.Kind != ir.KindObject {
		return "", false
	}
	for _, p := range got.Properties {
		if elemOf(p.Type).Deref() == want {
			return "/" + jsonpointer.Escape(p.Name) + "/0", true
		}
	}
	return "", false
}

// namesIntent reports whether a parameter name is op's idempotency key's,
// or a client reference op's JSON body carries.
func namesIntent(op *ir.Operation, name string) bool {
	norm := normalName(name)
	if op.Retry.Safety == ir.Keyed && norm == normalName(op.Retry.KeyName) {
		return true
	}
	if !contains(referenceNames, norm) || op.Body == nil {
		return false
	}
	for _, m := range op.Body.Content {
		if strings.Contains(m.Name, "json") && property(m.Schema, name) != nil {
			return true
		}
	}
	return false
}

// normalName is a name in lower case without "_" and "-".
func normalName(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// scalarParam reports whether a parameter can carry one string.
func scalarParam(p *ir.Parameter) bool {
	d := p.Type.Deref()
	return d == nil || (d.Kind != ir.KindObject && d.Kind != ir.KindArray && d.Kind != ir.KindMap)
}

// onlyRequired reports whether p is the only required input of get.
func onlyRequired(get *ir.Operation, p *ir.Parameter) bool {
	for _, q := range get.Params {
		if q != p && q.Required {
			return false
		}
	}
	return get.Body == nil || !get.Body.Required
}
