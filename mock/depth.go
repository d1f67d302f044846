package mock

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxUnionNesting bounds how deeply the arrays and objects of a request body
// nest when its schema recurses through a oneOf or anyOf. kin-openapi
// validates a union by visiting its variants, and visits the matching one a
// second time (to apply defaults), so each level of such a body at least
// doubles the work: a body of 167 bytes nested 16 deep took it seconds.
// Nesting 10 deep costs it milliseconds. Bodies of other schemas are not
// limited: without a union on a cycle the work grows with the body's size.
const maxUnionNesting = 10

// nestingExceeds reports whether the JSON text b nests arrays and objects
// deeper than limit, in one pass over the bytes without decoding them.
func nestingExceeds(b []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// unionCycles finds the request body schemas that reach a cycle passing
// through a oneOf or anyOf: the schemas whose bodies kin-openapi takes
// exponential time over. It computes the strongly connected components of
// the schemas (Tarjan's algorithm) once for the whole document, so the work
// is linear in the number of schemas however many bodies share them.
type unionCycles struct {
	index, low map[*openapi3.Schema]int
	onStack    map[*openapi3.Schema]bool
	stack      []*openapi3.Schema
	// reaches says, for each finished schema, whether a union on a cycle
	// is reachable from it.
	reaches map[*openapi3.Schema]bool
}

func newUnionCycles() *unionCycles {
	return &unionCycles{
		index: map[*openapi3.Schema]int{}, low: map[*openapi3.Schema]int{},
		onStack: map[*openapi3.Schema]bool{}, reaches: map[*openapi3.Schema]bool{},
	}
}

// recursive reports whether root reaches a union on a cycle.
func (t *unionCycles) recursive(root *openapi3.Schema) bool {
	if _, seen := t.index[root]; !seen {
		t.visit(root)
	}
	return t.reaches[root]
}

func (t *unionCycles) visit(s *openapi3.Schema) {
	t.index[s] = len(t.index)
	t.low[s] = t.index[s]
	t.stack = append(t.stack, s)
	t.onStack[s] = true
	for _, c := range children(s) {
		if _, seen := t.index[c]; !seen {
			t.visit(c)
			t.low[s] = min(t.low[s], t.low[c])
		} else if t.onStack[c] {
			t.low[s] = min(t.low[s], t.index[c])
		}
	}
	if t.low[s] == t.index[s] {
		t.popComponent(s)
	}
}

// popComponent takes s's component off the stack and decides whether its
// members reach a union on a cycle: the component is such a cycle, or a
// component it leads to (already finished) reaches one.
func (t *unionCycles) popComponent(s *openapi3.Schema) {
	var comp []*openapi3.Schema
	for {
		top := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		t.onStack[top] = false
		comp = append(comp, top)
		if top == s {
			break
		}
	}
	cyclic := len(comp) > 1
	reaches := false
	for _, m := range comp {
		for _, c := range children(m) {
			cyclic = cyclic || c == m
			reaches = reaches || t.reaches[c]
		}
	}
	for _, m := range comp {
		reaches = reaches || cyclic && (len(m.OneOf) > 0 || len(m.AnyOf) > 0)
	}
	for _, m := range comp {
		t.reaches[m] = reaches
	}
}

// children are the schemas s refers to that validation visits.
func children(s *openapi3.Schema) []*openapi3.Schema {
	refs := append(append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...), s.AllOf...)
	refs = append(refs, s.PrefixItems...)
	refs = append(refs, s.Items, s.Not, s.AdditionalProperties.Schema, s.Contains, s.PropertyNames, s.If, s.Then, s.Else)
	for _, m := range []openapi3.Schemas{s.Properties, s.PatternProperties, s.DependentSchemas} {
		for _, k := range sortedKeys(m) {
			refs = append(refs, m[k])
		}
	}
	out := make([]*openapi3.Schema, 0, len(refs))
	for _, r := range refs {
		if r != nil && r.Value != nil {
			out = append(out, r.Value)
		}
	}
	return out
}

// nestingProblem refuses a JSON or form body nested deeper than
// maxUnionNesting when its schema recurses through a union, before
// kin-openapi (or the form coercion, which tries union variants the same
// way) spends exponential time on it.
func (s *Server) nestingProblem(rt *route, media *openapi3.MediaType, mt string, body []byte) *Problem {
	if media.Schema == nil || !s.unionRecursive[media.Schema.Value] {
		return nil
	}
	var deep bool
	switch {
	case isJSON(mt):
		deep = nestingExceeds(body, maxUnionNesting)
	case mt == "application/x-www-form-urlencoded":
		deep = formNestingExceeds(body, maxUnionNesting)
	}
	if !deep {
		return nil
	}
	reason := fmt.Sprintf("the body nests deeper than %d levels, the limit for a schema that recurses through oneOf or anyOf", maxUnionNesting)
	return &Problem{
		Status: http.StatusBadRequest, Type: "body-too-deep", Title: "Request body nested too deeply",
		Detail: rt.id + ": body: " + reason,
		Errors: []FieldError{{In: "body", Reason: reason}},
	}
}

// formNestingExceeds reports whether a form key nests (a[b][c]=v) deeper
// than limit.
func formNestingExceeds(body []byte, limit int) bool {
	for _, pair := range strings.Split(string(body), "&") {
		key, _, _ := strings.Cut(pair, "=")
		if k, err := url.QueryUnescape(key); err == nil && strings.Count(k, "[") >= limit {
			return true
		}
	}
	return false
}

// noteUnionRecursion records, for each request and response body schema of
// op, whether it recurses through a union.
func (s *Server) noteUnionRecursion(op *openapi3.Operation, cycles *unionCycles) {
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		s.noteContent(op.RequestBody.Value.Content, cycles)
	}
	if op.Responses == nil {
		return
	}
	for _, resp := range op.Responses.Map() {
		if resp != nil && resp.Value != nil {
			s.noteContent(resp.Value.Content, cycles)
		}
	}
}

func (s *Server) noteContent(content openapi3.Content, cycles *unionCycles) {
	for _, media := range content {
		if media == nil || media.Schema == nil || media.Schema.Value == nil {
			continue
		}
		s.unionRecursive[media.Schema.Value] = cycles.recursive(media.Schema.Value)
	}
}

// answerTooDeep reports whether an upstream JSON answer of op nests deeper
// than maxUnionNesting while one of op's answers recurses through a union:
// such an answer is forwarded without validation, as a request that deep
// would have been refused.
func (s *Server) answerTooDeep(op *openapi3.Operation, contentType string, body []byte) bool {
	if op == nil || op.Responses == nil || !isJSON(mediaBase(contentType)) || !nestingExceeds(body, maxUnionNesting) {
		return false
	}
	for _, resp := range op.Responses.Map() {
		if resp == nil || resp.Value == nil {
			continue
		}
		for _, media := range resp.Value.Content {
			if media != nil && media.Schema != nil && s.unionRecursive[media.Schema.Value] {
				return true
			}
		}
	}
	return false
}
