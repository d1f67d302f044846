package annotate

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Member is one member of an x-pagination value annotate writes: every value
// is a string ({kind: cursor, param: starting_after, ...}).
type Member struct{ Name, Value string }

// PageEdit is one x-pagination added to one operation: the contract the
// parser inferred (annotate itself never reads schemas; the caller passes
// the inferred contracts as Options.Pagination).
type PageEdit struct {
	Method, Path string
	Line         int
	Members      []Member
	// as in Edit: the operation by position, and its method key.
	pathIndex, opIndex int
	methodKey          string
}

// pageEntry renders `x-pagination: {...}` in the document's syntax. YAML
// gets a flow mapping (also inside a block mapping, on one line), with each
// value plain when YAML reads it back as that string, else double-quoted.
func (s *splicer) pageEntry(ms []Member) string {
	var parts []string
	for _, m := range ms {
		switch {
		case s.json && s.compact:
			parts = append(parts, fmt.Sprintf("%q:%q", m.Name, m.Value))
		case s.json:
			parts = append(parts, fmt.Sprintf("%q: %q", m.Name, m.Value))
		default:
			parts = append(parts, m.Name+": "+yamlString(m.Value))
		}
	}
	sep, name := ", ", "x-pagination: "
	if s.json {
		name = `"x-pagination": `
		if s.compact {
			sep, name = ",", `"x-pagination":`
		}
	}
	return name + "{" + strings.Join(parts, sep) + "}"
}

// yamlString writes v plain when a YAML flow mapping reads it back as the
// same string, else double-quoted.
func yamlString(v string) string {
	var n yaml.Node
	if v != "" && !strings.ContainsAny(v, ",{}[]#&*!|>'\"%@`:") &&
		yaml.Unmarshal([]byte("{k: "+v+"}"), &n) == nil && len(n.Content) == 1 && len(n.Content[0].Content) == 2 &&
		n.Content[0].Content[1].ShortTag() == "!!str" && n.Content[0].Content[1].Value == v {
		return v
	}
	return strconv.Quote(v)
}

// insertPage plans the addition of x-pagination to the operation op.
func (s *splicer) insertPage(key, op *node) func(ms []Member) error {
	return func(ms []Member) error {
		entry := s.pageEntry(ms)
		if op.flow {
			return s.insertFlowText(op, entry)
		}
		return s.insertBlockText(key, op, func(indent string, _ int) string { return indent + entry + s.idx.eol() })
	}
}

// holdsPage reports whether v is the x-pagination value the edit meant to add.
func holdsPage(v *node, e PageEdit) bool {
	if v == nil || v.kind != kindMap || len(v.keys) != len(e.Members) {
		return false
	}
	for i, m := range e.Members {
		if v.keys[i].value != m.Name || v.vals[i].kind != kindScalar || v.vals[i].value != m.Value {
			return false
		}
	}
	return true
}
