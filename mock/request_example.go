package mock

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// RequestExample returns a request body for the operation bound to method
// and path (the path key as the document writes it): the media type it is
// sent as (JSON when the operation takes JSON, else a form, else the first
// declared) and a JSON value for it. The value is the media type's example
// or first named example that validates as a request, else one built from
// the schema as answers are (static values, readOnly members left out)
// with the required members only, the smallest body the operation takes.
// ok is false when the operation has no request body.
//
// idemgen verify sends these when its fixtures give no body.
func (s *Server) RequestExample(method, path string) (mediaType string, value any, ok bool) {
	rt := s.routeAt(method, path)
	if rt == nil || rt.op.RequestBody == nil || rt.op.RequestBody.Value == nil {
		return "", nil, false
	}
	content := rt.op.RequestBody.Value.Content
	mt := requestMedia(content)
	if mt == "" {
		return "", nil, false
	}
	media := content[mt]
	if v, found := requestExample(media); found {
		return mt, v, true
	}
	g := &valueBuilder{form: mt == "application/x-www-form-urlencoded"}
	if media.Schema == nil || media.Schema.Value == nil {
		return mt, map[string]any{}, true
	}
	return mt, g.schema(media.Schema.Value, 0, true), true
}

// requestMedia picks the media type a request is sent as: JSON first, then
// a form, then the first declared in name order.
func requestMedia(content openapi3.Content) string {
	keys := sortedKeys(content)
	for _, k := range keys {
		if isJSON(k) && content[k] != nil {
			return k
		}
	}
	if content["application/x-www-form-urlencoded"] != nil {
		return "application/x-www-form-urlencoded"
	}
	for _, k := range keys {
		if content[k] != nil {
			return k
		}
	}
	return ""
}

// requestExample is the media type's example, or its first named example
// in name order, that validates as a request.
func requestExample(media *openapi3.MediaType) (any, bool) {
	valid := func(v any) bool {
		return v != nil && (media.Schema == nil || media.Schema.Value == nil ||
			media.Schema.Value.VisitJSON(v, openapi3.VisitAsRequest()) == nil)
	}
	if valid(media.Example) {
		return media.Example, true
	}
	for _, k := range sortedKeys(media.Examples) {
		if ex := media.Examples[k]; ex != nil && ex.Value != nil && valid(ex.Value.Value) {
			return ex.Value.Value, true
		}
	}
	return nil, false
}

// routeAt is the route of method on the path key path, nil when none.
func (s *Server) routeAt(method, path string) *route {
	for _, r := range s.routes {
		if r.method == method && r.path == path {
			return r
		}
	}
	return nil
}
