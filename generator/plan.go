package generator

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// bodyKind is how a request or response body is encoded.
type bodyKind int

const (
	bodyJSON bodyKind = iota
	bodyForm
	bodyMultipart
	bodyText
	bodyRaw
)

// bodyPlan is the media type chosen for an operation's request body.
type bodyPlan struct {
	media    *ir.MediaType
	kind     bodyKind
	optional bool
}

// requestBody picks the media type the client sends, preferring JSON, then a
// form, multipart, text and finally raw bytes (an io.Reader) for anything
// else, so every declared body can be sent. Forms and multipart need an
// object schema; without one they are sent raw too. A JSON or form body
// whose schema is an object that must stay empty (no properties,
// additionalProperties false: Stripe's DELETEs) has nothing to say: the
// method takes no body argument and sends no body (nil).
func requestBody(op *ir.Operation) *bodyPlan {
	if op.Body == nil || len(op.Body.Content) == 0 {
		return nil
	}
	opt := !op.Body.Required
	if m := pickJSON(op.Body.Content); m != nil {
		if isEmptyObject(m.Schema) {
			return nil
		}
		return &bodyPlan{m, bodyJSON, opt}
	}
	for _, m := range op.Body.Content {
		if m.Name == "application/x-www-form-urlencoded" && isEmptyObject(m.Schema) {
			return nil
		}
	}
	for _, want := range []struct {
		name string
		kind bodyKind
	}{{"application/x-www-form-urlencoded", bodyForm}, {"multipart/form-data", bodyMultipart}} {
		for _, m := range op.Body.Content {
			if m.Name == want.name && isObject(m.Schema) {
				return &bodyPlan{m, want.kind, opt}
			}
		}
	}
	for _, m := range op.Body.Content {
		if strings.HasPrefix(m.Name, "text/") {
			return &bodyPlan{m, bodyText, opt}
		}
	}
	return &bodyPlan{op.Body.Content[0], bodyRaw, opt}
}

// pickJSON returns application/json when listed, else the first +json type.
func pickJSON(content []*ir.MediaType) *ir.MediaType {
	var plusJSON *ir.MediaType
	for _, m := range content {
		if m.Name == "application/json" {
			return m
		}
		if plusJSON == nil && isJSONMedia(m.Name) {
			plusJSON = m
		}
	}
	return plusJSON
}

// isObject reports whether a schema is a struct-shaped object.
func isObject(s *ir.Schema) bool {
	d := s.Deref()
	return d != nil && d.Kind == ir.KindObject && len(d.Properties) > 0
}

// isEmptyObject reports whether a schema is an object that can hold no
// member: no properties and additionalProperties false.
func isEmptyObject(s *ir.Schema) bool {
	d := s.Deref()
	return d != nil && d.Kind == ir.KindObject && len(d.Properties) == 0 && d.AdditionalProperties == nil
}

// contentType is the Content-Type a plan sends.
func (p *bodyPlan) contentType() string {
	if p.media.Name == "" || strings.Contains(p.media.Name, "*") {
		return "application/octet-stream"
	}
	return p.media.Name
}

// respBody is how one success response's body of one kind is decoded.
type respBody struct {
	resp *ir.Response
	kind bodyKind // bodyJSON, bodyText or bodyRaw
	// schema is the JSON schema (nil: untyped); unused for text and raw.
	schema *ir.Schema
	// key identifies the Go type, to tell whether responses share one.
	key string
	// types are the declared media types this kind decodes.
	types []string
	// multi: the response declares media types of several kinds, so the
	// answer's Content-Type picks one.
	multi bool
}

// successResponses lists the responses that describe success: the 2xx
// ones, or, when the document declares none, the default response (which
// then describes every answer, success included).
func successResponses(op *ir.Operation) []*ir.Response {
	var out, def []*ir.Response
	for _, r := range op.Responses {
		switch {
		case r.IsSuccess():
			out = append(out, r)
		case r.Default:
			def = append(def, r)
		}
	}
	if len(out) == 0 && len(redirectResponses(op)) == 0 {
		// default describes the success only when nothing else does: with
		// a 2xx or a 3xx declared, it is the error model.
		return def
	}
	return out
}

// redirectResponses lists the declared 3xx responses (exact or 3XX): the
// runner hands them back unfollowed (Operation.Redirects) and the method
// returns them as its result, status and Location, undecoded.
func redirectResponses(op *ir.Operation) []*ir.Response {
	var out []*ir.Response
	for _, r := range op.Responses {
		if (r.Status >= 300 && r.Status < 400) || r.Class == 3 {
			out = append(out, r)
		}
	}
	return out
}

// redirectSet is the contract's Redirects: the declared 3xx statuses.
func redirectSet(op *ir.Operation) ir.StatusSet {
	var s ir.StatusSet
	for _, r := range redirectResponses(op) {
		if r.Class == 3 {
			s.Classes = append(s.Classes, 3)
			continue
		}
		s.Codes = append(s.Codes, r.Status)
	}
	return s
}

// successBodies lists the bodies of the success responses, in IR order, and
// within a response in order of preference: JSON, text, bytes.
func successBodies(op *ir.Operation) []respBody {
	var out []respBody
	for _, r := range successResponses(op) {
		out = append(out, responseBodies(r)...)
	}
	return out
}

// resultBodies are the bodies an <Op>Result holds: the success bodies, then
// those the declared redirects carry (a 307 whose JSON body names where to
// go, say). A redirect is handed back unfollowed, so its body is the
// caller's to read.
func resultBodies(op *ir.Operation) []respBody {
	out := successBodies(op)
	for _, r := range redirectResponses(op) {
		if bs := responseBodies(r); len(bs) > 0 {
			// One kind (JSON first): a redirect's media type is not
			// negotiated.
			b := bs[0]
			b.multi = false
			out = append(out, b)
		}
	}
	return out
}

// bodilessRedirects lists the declared redirects that carry no body.
func bodilessRedirects(op *ir.Operation) []*ir.Response {
	var out []*ir.Response
	for _, r := range redirectResponses(op) {
		if len(responseBodies(r)) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// responseBodies groups a response's media types by how they decode: JSON
// into the model (application/json preferred over other +json types), text/*
// into a string, anything else into bytes. A response without content has
// none. Streamed media types are never decoded whole: their events have a
// method of their own (emit_stream.go).
func responseBodies(r *ir.Response) []respBody {
	var out []respBody
	if m := pickJSON(r.Content); m != nil {
		out = append(out, respBody{resp: r, kind: bodyJSON, schema: m.Schema, key: "json:" + typeKey(m.Schema), types: []string{m.Name}})
	}
	var text, raw []string
	for _, m := range r.Content {
		switch {
		case m.Framing != "" || isJSONMedia(m.Name):
		case strings.HasPrefix(m.Name, "text/"):
			text = append(text, m.Name)
		default:
			raw = append(raw, m.Name)
		}
	}
	if len(text) > 0 {
		out = append(out, respBody{resp: r, kind: bodyText, key: "text", types: text})
	}
	if len(raw) > 0 {
		out = append(out, respBody{resp: r, kind: bodyRaw, key: "raw", types: raw})
	}
	for i := range out {
		out[i].multi = len(out) > 1
	}
	return out
}

// isJSONMedia reports whether pickJSON would take a media type.
func isJSONMedia(name string) bool {
	return name == "application/json" || strings.HasSuffix(name, "+json") || strings.HasSuffix(name, "/json")
}

// multiMedia reports whether any success response is decoded by the
// Content-Type of the answer.
func multiMedia(op *ir.Operation) bool {
	for _, b := range successBodies(op) {
		if b.multi {
			return true
		}
	}
	return false
}

// typeKey identifies the Go type of a schema without rendering it.
func typeKey(s *ir.Schema) string {
	switch {
	case s == nil:
		return "any"
	case s.Kind == ir.KindRef:
		return fmt.Sprintf("ref:%p", s.Ref)
	case s.Kind == ir.KindArray:
		return "[]" + typeKey(s.Items)
	case s.Kind == ir.KindMap:
		return "map:" + typeKey(s.AdditionalProperties)
	case s.Kind == ir.KindObject || s.Kind == ir.KindUnion:
		return fmt.Sprintf("anon:%p", s)
	}
	return fmt.Sprintf("%d:%s:%d", s.Kind, s.Format, s.EnumBase)
}

// distinctBodies returns the success bodies with distinct Go types.
func distinctBodies(bodies []respBody) []respBody {
	var out []respBody
	seen := map[string]bool{}
	for _, b := range bodies {
		if !seen[b.key] {
			seen[b.key] = true
			out = append(out, b)
		}
	}
	return out
}

// successHeaders lists the headers declared on success responses, first
// declaration winning for a name (compared case-insensitively).
func successHeaders(op *ir.Operation) []*ir.Header {
	var out []*ir.Header
	seen := map[string]bool{}
	redirects := redirectResponses(op)
	for _, r := range append(successResponses(op), redirects...) {
		for _, h := range r.Headers {
			k := strings.ToLower(h.Name)
			if !seen[k] && h.GoName != "" {
				seen[k] = true
				out = append(out, h)
			}
		}
	}
	if len(redirects) > 0 && !seen["location"] {
		// A redirect's point is its Location (RFC 9110 10.2.2), declared
		// or not.
		out = append(out, &ir.Header{Name: "Location", GoName: "Location", Type: &ir.Schema{Kind: ir.KindString}})
	}
	return out
}

// needsResult reports whether an operation returns an <Op>Result struct:
// when its main method decodes the answer and it declares success headers
// or success bodies of different types.
func needsResult(op *ir.Operation) bool {
	return mainReturn(op) == returnDecoded && (len(successHeaders(op)) > 0 || len(distinctBodies(resultBodies(op))) > 1 ||
		len(redirectResponses(op)) > 0)
}

// errorResponses lists the non-success responses with a JSON body, whose
// decoded body becomes StatusError.Model.
func errorResponses(op *ir.Operation) []respBody {
	var out []respBody
	for _, r := range op.Responses {
		if r.IsSuccess() || isRedirect(r) {
			continue
		}
		if m := pickJSON(r.Content); m != nil {
			out = append(out, respBody{resp: r, kind: bodyJSON, schema: m.Schema, key: typeKey(m.Schema)})
		}
	}
	return out
}

// isRedirect reports whether a response is 1xx or 3xx, which the runner
// hands back as a response, never as a *StatusError.
func isRedirect(r *ir.Response) bool {
	return (r.Status > 0 && r.Status < 400) || r.Class == 1 || r.Class == 3
}

// keyParam reports whether p is the idempotency key header of a keyed
// operation: the engine sends it, so it is not a params field of its own.
func keyParam(op *ir.Operation, p *ir.Parameter) bool {
	return op.Retry.Safety == ir.Keyed && p.In == ir.InHeader && strings.EqualFold(p.Name, op.Retry.KeyName)
}

// needsParams reports whether an operation takes a params struct.
func needsParams(op *ir.Operation) bool {
	if op.Retry.Safety == ir.Keyed {
		return true
	}
	for _, p := range op.Params {
		if !keyParam(op, p) {
			return true
		}
	}
	return false
}
