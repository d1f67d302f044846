package generator

import (
	"fmt"
	"slices"

	"github.com/idemgen/idemgen/ir"
)

// checkIdentities refuses an IR whose operations the client could not tell
// apart: two with one identity (ResendIntent and LookupIntent switch on it,
// and a journal entry names its operation by it), or one whose method is a
// method the client has itself (ir.ClientMethods). The parser never builds
// such an IR; one built by hand gets a reason instead of a package that does
// not compile or silently lacks ResendIntent.
func checkIdentities(ops []*ir.Operation) ir.Diagnostics {
	var out ir.Diagnostics
	bad := func(op *ir.Operation, format string, args ...any) {
		src := op.Source
		out = append(out, ir.Diagnostic{Severity: ir.SeverityError, Rule: "operation-identity", File: src.File, Line: src.Line,
			Column: src.Column, Pointer: src.Pointer, Operation: op.ID, Message: fmt.Sprintf(format, args...)})
	}
	seen := make(map[string]*ir.Operation, len(ops))
	for _, op := range ops {
		if first := seen[op.ID]; first != nil {
			bad(op, "%s %s has the identity %q of %s %s; identities must be unique", op.Method, op.Path, op.ID, first.Method, first.Path)
		}
		seen[op.ID] = op
		if slices.Contains(ir.ClientMethods, op.GoName) {
			bad(op, "the method name %s is the client's own", op.GoName)
		}
	}
	return out
}

// opLabel names an operation in a doc comment: `operation "createOrder"`,
// or, when its identity is not its operationId (another operation shares
// that), both: `operationId "CreateWidget", identity "POST /cluster/widgets"`.
func opLabel(op *ir.Operation) string {
	if op.OperationID != "" && op.OperationID != op.ID {
		return fmt.Sprintf("operationId %q, identity %q", op.OperationID, op.ID)
	}
	return fmt.Sprintf("operation %q", op.ID)
}
