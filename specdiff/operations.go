package specdiff

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// endpoint identifies an operation across versions by what the wire sees:
// the method and the path template with its parameter names blanked
// ("/orders/{id}" and "/orders/{order_id}" are one endpoint), plus a fixed
// query string.
func endpoint(op *ir.Operation) string {
	var b strings.Builder
	b.WriteString(op.Method)
	b.WriteByte(' ')
	path := op.Path
	for {
		i := strings.IndexByte(path, '{')
		j := strings.IndexByte(path[i+1:], '}')
		if i < 0 || j < 0 {
			break
		}
		b.WriteString(path[:i+1])
		b.WriteByte('}')
		path = path[i+1+j+1:]
	}
	b.WriteString(path)
	if op.Query != "" {
		b.WriteString("?" + op.Query)
	}
	return b.String()
}

// operations compares the operations of both versions, matched by endpoint.
func (d *differ) operations() {
	olds := map[string]*ir.Operation{}
	for _, op := range d.old.Operations {
		olds[endpoint(op)] = op
	}
	byPath := map[string]*ir.Operation{}
	for _, op := range d.new.Operations {
		byPath[op.Path] = op
	}
	for _, op := range d.new.Operations {
		key := endpoint(op)
		if was, ok := olds[key]; ok {
			d.operation(was, op)
			delete(olds, key)
			continue
		}
		d.add(Change{Rule: "operation-added", Area: AreaSurface, Operation: op.ID, Pointer: op.Source.Pointer, At: op.Source,
			Message: fmt.Sprintf("%s (%s %s) is new", op.GoName, op.Method, op.Path)})
	}
	for _, was := range d.old.Operations {
		if _, gone := olds[endpoint(was)]; !gone {
			continue
		}
		// Located at an operation NEW still has on the same path, when there
		// is one: the place a reviewer looks for the one that went.
		var at ir.Source
		if near := byPath[was.Path]; near != nil {
			at = near.Source
		}
		d.add(Change{Rule: "operation-removed", Area: AreaSurface, Breaking: true, Operation: was.ID,
			Pointer: was.Source.Pointer, At: at, Was: was.Source,
			Message: fmt.Sprintf("%s (%s %s) is gone: the method %s no longer exists", was.GoName, was.Method, was.Path, was.GoName)})
	}
}

// operation compares one operation present in both versions.
func (d *differ) operation(was, op *ir.Operation) {
	if was.GoName != op.GoName {
		d.add(Change{Rule: "operation-renamed", Area: AreaSurface, Breaking: true, Operation: op.ID,
			Pointer: op.Source.Pointer, At: op.Source, Was: was.Source,
			Message: fmt.Sprintf("the method %s is now %s (operationId %q, was %q)", was.GoName, op.GoName, writtenName(op), writtenName(was))})
	}
	if was.ID != op.ID {
		// Journals and ledgers name the operation by its identity: an entry
		// of the old one is no longer resent, and a key sent before the
		// change is scoped anew by a regenerated server.
		d.add(Change{Rule: "identity-changed", Area: AreaSurface, Breaking: true, Operation: op.ID,
			Pointer: op.Source.Pointer, At: op.Source, Was: was.Source,
			Message: fmt.Sprintf("%s %s is named %q, was %q: journal entries and ledger keys of %q no longer match it",
				op.Method, op.Path, op.ID, was.ID, was.ID)})
	}
	d.contract(was, op)
	d.params(was, op)
	d.body(was, op)
	d.responses(was, op)
}

// writtenName is the operationId as the document writes it, or the
// operation's identity when it has none.
func writtenName(op *ir.Operation) string {
	if op.OperationID != "" {
		return op.OperationID
	}
	return op.ID
}
