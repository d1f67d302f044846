package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// requestMembers is the request's body as an object: JSON, or a form
// given the schema's types; nil for anything else (multipart, a list, no
// body). The body was read and validated before; it is read again here.
func requestMembers(r *http.Request, rt *route) map[string]any {
	if r.Body == nil || rt.op.RequestBody == nil || rt.op.RequestBody.Value == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || len(body) == 0 {
		return nil
	}
	mt := mediaBase(r.Header.Get("Content-Type"))
	media := declared(rt.op.RequestBody.Value.Content, mt)
	switch {
	case isJSON(mt):
		var v map[string]any
		if json.Unmarshal(body, &v) == nil {
			return v
		}
	case mt == "application/x-www-form-urlencoded" && media != nil:
		if form, ok := decodeForm(body); ok {
			v, _ := coerceForm(form, media.Schema, 0).(map[string]any)
			return v
		}
	}
	return nil
}

// mergeMembers sets in dst each member of src that the model declares
// (by modelName) and whose value fits the member's schema,
// the id member aside. patch merges objects member by member (RFC 7396:
// null removes a member the schema does not let be null).
func (s *Server) mergeMembers(dst, src map[string]any, model *openapi3.SchemaRef, idMember string, patch bool) {
	for _, sent := range sortedKeys(src) {
		k := modelName(model, sent)
		if k == "" || k == idMember {
			continue
		}
		prop := memberOf(model, k, 0)
		if prop == nil || prop.Value != nil && prop.Value.WriteOnly {
			continue
		}
		v := src[sent]
		if patch {
			v = mergePatch(dst[k], v)
		}
		switch {
		case s.validMember(prop, v):
			dst[k] = v
		case v == nil && patch:
			delete(dst, k)
		}
	}
}

// modelName is the model's member a request member stands for: the same
// name, else the one that differs only in case, "_" and "-" (Twilio sends
// FriendlyName and answers friendly_name); "" when there is none.
func modelName(model *openapi3.SchemaRef, sent string) string {
	if memberOf(model, sent, 0) != nil {
		return sent
	}
	for _, n := range memberNames(model, 0) {
		if foldName(n) == foldName(sent) {
			return n
		}
	}
	return ""
}

// foldName is a member name without case, "_" and "-".
func foldName(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// mergePatch is RFC 7396 for one member: objects merge, anything else
// replaces.
func mergePatch(old, patch any) any {
	po, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	oo, ok := old.(map[string]any)
	if !ok {
		oo = map[string]any{}
	}
	for k, v := range po {
		if v == nil {
			delete(oo, k)
			continue
		}
		oo[k] = mergePatch(oo[k], v)
	}
	return oo
}

// validMember reports whether v fits the member's schema, as an answer
// holds it (formats included).
func (s *Server) validMember(ref *openapi3.SchemaRef, v any) bool {
	if ref == nil || ref.Value == nil {
		return true
	}
	opts := append([]openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}, formatOpts...)
	if s.doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	return ref.Value.VisitJSON(v, opts...) == nil
}

// freshID makes the n-th candidate id for the id member's schema: a UUID
// for format uuid, n for numbers, "<n>" padded for other strings; when that
// does not fit the schema (a pattern, an enum), a value drawn from it with
// n as the seed; "" when neither fits.
func (s *Server) freshID(idSchema *openapi3.SchemaRef) func(n uint64) string {
	return func(n uint64) string {
		var v any = float64(n)
		if idSchema.Value.Type.Is("string") {
			str := strconv.FormatUint(n, 10)
			switch {
			case idSchema.Value.Format == "uuid":
				str = fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
			case uint64(len(str)) < idSchema.Value.MinLength:
				str = fmt.Sprintf("%0*d", int(idSchema.Value.MinLength), n)
			}
			v = str
		}
		if !s.validMember(idSchema, v) {
			g := &valueBuilder{response: true, rnd: rand.New(rand.NewPCG(n, n>>1|1))}
			if v = g.value(idSchema); !s.validMember(idSchema, v) {
				return ""
			}
		}
		return scalarString(v)
	}
}

// idValue is the id as the model holds it: a number for a numeric id
// member, else the string.
func idValue(idSchema *openapi3.SchemaRef, id string) any {
	if t := idSchema.Value.Type; t.Is("integer") || t.Is("number") {
		if f, err := strconv.ParseFloat(id, 64); err == nil {
			return f
		}
	}
	return id
}
