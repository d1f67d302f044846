package annotate

import (
	"fmt"
	"strings"
)

// Waiter is one waiter annotate writes into x-waiters: its name, the
// field it reads and the states that end it (annotate never reads
// schemas; the caller passes the inferred waiters as Options.Waiters).
type Waiter struct {
	Name, Field   string
	Until, FailOn []string
}

// WaiterEdit is one x-waiters added to one operation.
type WaiterEdit struct {
	Method, Path string
	Line         int
	Waiters      []Waiter
	// as in Edit: the operation by position, and its method key.
	pathIndex, opIndex int
	methodKey          string
}

// waitersEntry renders `x-waiters: [{name: ..., until: {field: ..., in:
// [...]}, failOn: {...}}]` in the document's syntax, on one line.
func (s *splicer) waitersEntry(ws []Waiter) string {
	str, colon, sep := yamlString, ": ", ", "
	if s.json {
		str = func(v string) string { return fmt.Sprintf("%q", v) }
		if s.compact {
			colon, sep = ":", ","
		}
	}
	member := func(name, value string) string {
		if s.json {
			name = fmt.Sprintf("%q", name)
		}
		return name + colon + value
	}
	cond := func(field string, in []string) string {
		vals := make([]string, len(in))
		for i, v := range in {
			vals[i] = str(v)
		}
		return "{" + member("field", str(field)) + sep + member("in", "["+strings.Join(vals, sep)+"]") + "}"
	}
	items := make([]string, len(ws))
	for i, w := range ws {
		parts := []string{member("name", str(w.Name)), member("until", cond(w.Field, w.Until))}
		if len(w.FailOn) > 0 {
			parts = append(parts, member("failOn", cond(w.Field, w.FailOn)))
		}
		items[i] = "{" + strings.Join(parts, sep) + "}"
	}
	return member("x-waiters", "["+strings.Join(items, sep)+"]")
}

// insertWaiters plans the addition of x-waiters to the operation op.
func (s *splicer) insertWaiters(key, op *node, ws []Waiter) error {
	entry := s.waitersEntry(ws)
	if op.flow {
		return s.insertFlowText(op, entry)
	}
	return s.insertBlockText(key, op, func(indent string, _ int) string { return indent + entry + s.idx.eol() })
}

// holdsWaiters reports whether v is the x-waiters value the edit meant to
// add: one waiter of each name, reading the field until its states.
func holdsWaiters(v *node, e WaiterEdit) bool {
	if v == nil || v.kind != kindSeq || len(v.items) != len(e.Waiters) {
		return false
	}
	for i, w := range e.Waiters {
		item := v.items[i]
		until := item.get("until")
		if item.kind != kindMap || item.str("name") != w.Name || until == nil || until.str("field") != w.Field ||
			until.get("in") == nil || len(until.get("in").items) != len(w.Until) {
			return false
		}
	}
	return true
}

// overlayWaiters writes the update actions of the waiters added.
func overlayWaiters(b *strings.Builder, edits []WaiterEdit) {
	for _, e := range edits {
		fmt.Fprintf(b, "  - target: %s\n    update:\n      x-waiters:\n", quote(Target(e.Path, e.methodKey)))
		for _, w := range e.Waiters {
			fmt.Fprintf(b, "        - name: %s\n", quote(w.Name))
			overlayCond(b, "until", w.Field, w.Until)
			if len(w.FailOn) > 0 {
				overlayCond(b, "failOn", w.Field, w.FailOn)
			}
		}
	}
}

func overlayCond(b *strings.Builder, name, field string, in []string) {
	vals := make([]string, len(in))
	for i, v := range in {
		vals[i] = quote(v)
	}
	fmt.Fprintf(b, "          %s: {field: %s, in: [%s]}\n", name, quote(field), strings.Join(vals, ", "))
}
