package annotate

import (
	"fmt"
	"strings"
)

// Lookup is the x-lookup annotate writes into an operation: the safe
// operation that finds its result, the parameter that carries the key, and
// the found pointer and the match pointer ("" for none). Annotate never
// reads schemas; the caller passes the inferred lookups as Options.Lookup.
type Lookup struct {
	OperationID, In, Name, Found, Match string
}

// LookupEdit is one x-lookup added to one operation.
type LookupEdit struct {
	Method, Path string
	Line         int
	Lookup       Lookup
	// as in Edit: the operation by position, and its method key.
	pathIndex, opIndex int
	methodKey          string
}

// lookupEntry renders `x-lookup: {operationId: ..., key: {in: ..., name:
// ...}, found: ..., match: ...}` in the document's syntax, on one line.
func (s *splicer) lookupEntry(l Lookup) string {
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
	parts := []string{member("operationId", str(l.OperationID)),
		member("key", "{"+member("in", str(l.In))+sep+member("name", str(l.Name))+"}")}
	if l.Found != "" {
		parts = append(parts, member("found", str(l.Found)))
	}
	if l.Match != "" {
		parts = append(parts, member("match", str(l.Match)))
	}
	return member("x-lookup", "{"+strings.Join(parts, sep)+"}")
}

// insertLookup plans the addition of x-lookup to the operation op.
func (s *splicer) insertLookup(key, op *node, l Lookup) error {
	entry := s.lookupEntry(l)
	if op.flow {
		return s.insertFlowText(op, entry)
	}
	return s.insertBlockText(key, op, func(indent string, _ int) string { return indent + entry + s.idx.eol() })
}

// addLookup plans the x-lookup of one operation, or notes why not.
func (w *walker) addLookup(e LookupEdit, key, op *node, ptr string) {
	if err := w.sp.insertLookup(key, op, e.Lookup); err != nil {
		w.note(op, ptr, "%v; add its x-lookup by hand", err)
		return
	}
	w.lookups = append(w.lookups, e)
}

// holdsLookup reports whether v is the x-lookup value the edit meant to
// add.
func holdsLookup(v *node, e LookupEdit) bool {
	if v == nil || v.kind != kindMap {
		return false
	}
	key := v.get("key")
	return v.str("operationId") == e.Lookup.OperationID && key != nil && key.str("in") == e.Lookup.In &&
		key.str("name") == e.Lookup.Name && v.str("found") == e.Lookup.Found && v.str("match") == e.Lookup.Match
}

// overlayLookups writes the update actions of the lookups added.
func overlayLookups(b *strings.Builder, edits []LookupEdit) {
	for _, e := range edits {
		l := e.Lookup
		fmt.Fprintf(b, "  - target: %s\n    update:\n      x-lookup:\n        operationId: %s\n        key: {in: %s, name: %s}\n",
			quote(Target(e.Path, e.methodKey)), quote(l.OperationID), quote(l.In), quote(l.Name))
		if l.Found != "" {
			fmt.Fprintf(b, "        found: %s\n", quote(l.Found))
		}
		if l.Match != "" {
			fmt.Fprintf(b, "        match: %s\n", quote(l.Match))
		}
	}
}
