package parser

import "strings"

// assignIdentities sets each operation's identity (ir.Operation.ID), the
// name its journal entries, attempt records and ledger rows carry. An
// operation keeps its name (opID: the operationId, or the name derived
// from its method and path) when no other operation's name and no
// operation's binding is the same compared without case; any other
// operation is named by its binding, "POST /cluster/nexus/endpoints".
//
// The result is unique: bindings are (one operation per method and path
// key), and a name kept differs from every other name and every binding.
// It is stable: it depends on which names the document holds, never on
// the order they come in. Case is ignored because names that differ only
// in it are one name to a person reading a journal (and one Go method
// name, CreateThing and CreateThing2); a name spelled like a binding is
// never kept so that no name can ever take another operation's binding.
func assignIdentities(raws []*rawOp) {
	uses := make(map[string]int, 2*len(raws))
	for _, r := range raws {
		uses[strings.ToLower(opID(r))]++
		uses[strings.ToLower(binding(r))]++
	}
	for _, r := range raws {
		r.id = opID(r)
		if uses[strings.ToLower(r.id)] > 1 {
			r.id = binding(r)
		}
	}
}

// binding is an operation's method and path key as the document writes it
// ("GET /shared_items#app_items"): no two operations have the same.
func binding(r *rawOp) string {
	return r.method + " " + r.key
}
