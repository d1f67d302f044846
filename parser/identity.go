package parser

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// assignIdentities sets each operation's identity (ir.Operation.ID), the
// name its journal entries, attempt records and ledger rows carry. An
// operation keeps its name (opID: the operationId, or the name derived
// from its method and path) when no other operation's name and no
// operation's binding is the same compared without case; any other
// operation is named by its binding, "POST /cluster/nexus/endpoints", and
// reported (rule operation-identity).
//
// The result is unique: bindings are (one operation per method and path
// key), and a name kept differs from every other name and every binding.
// It is stable: it depends on which names the document holds, never on
// the order they come in. Case is ignored because names that differ only
// in it are one name to a person reading a journal (and one Go method
// name, CreateThing and CreateThing2); a name spelled like a binding is
// never kept so that no name can ever take another operation's binding.
func assignIdentities(sink *diagSink, raws []*rawOp) {
	byName := make(map[string][]*rawOp, len(raws))
	byBinding := make(map[string]*rawOp, len(raws))
	for _, r := range raws {
		name := strings.ToLower(opID(r))
		byName[name] = append(byName[name], r)
		byBinding[strings.ToLower(binding(r))] = r
	}
	for _, r := range raws {
		r.id = opID(r)
		key := strings.ToLower(r.id)
		shared, like := byName[key], byBinding[key]
		if len(shared) == 1 && (like == nil || like == r) {
			continue
		}
		r.id = binding(r)
		if like != nil && like != r {
			sink.warnf(r.at.at("operationId"), r.id, ruleOperationIdentity,
				"operationId %q reads like the binding of %s; this operation is named by its own binding, %q, %s",
				opID(r), binding(like), r.id, identityUse)
		} else if like == nil {
			reportSharedName(sink, r, shared)
		}
	}
}

// identityUse says where an identity shows.
const identityUse = "in journals, attempt records and ledgers"

// reportSharedName reports an operation named by its binding because its
// name is another's: a warning for an operationId (OpenAPI requires it
// unique), an info finding for a derived name.
func reportSharedName(sink *diagSink, r *rawOp, shared []*rawOp) {
	var others []string
	folded := false
	for _, o := range shared {
		if o != r {
			others = append(others, binding(o))
			folded = folded || opID(o) != opID(r)
		}
	}
	also := strings.Join(others, ", ")
	if folded {
		also += " (compared without case)"
	}
	if strings.TrimSpace(r.op.OperationID) == "" {
		sink.add(ir.SeverityInfo, r.at, r.id, ruleOperationIdentity, fmt.Sprintf(
			"the name derived for this operation, %q, is also that of %s; it is named by its binding, %q, %s",
			opID(r), also, r.id, identityUse))
		return
	}
	sink.warnf(r.at.at("operationId"), r.id, ruleOperationIdentity,
		"operationId %q is also that of %s; OpenAPI requires it unique, so this operation is named by its binding, %q, %s",
		opID(r), also, r.id, identityUse)
}

// binding is an operation's method and path key as the document writes it
// ("GET /shared_items#app_items"): no two operations have the same.
func binding(r *rawOp) string {
	return r.method + " " + r.key
}
