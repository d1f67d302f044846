package parser

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// framingOf returns the framing of a streamed media type (a name as
// mediaName returns it: lower case, no parameters), or "" for one whose
// body is one document.
func framingOf(name string) ir.Framing {
	switch name {
	case "text/event-stream":
		return ir.FramingSSE
	case "application/jsonl", "application/x-ndjson", "application/x-jsonlines", "application/jsonlines":
		return ir.FramingJSONLines
	case "application/json-seq":
		return ir.FramingJSONSeq
	}
	return ""
}

// binaryTypes are the media types whose bodies are downloads whatever
// their schema says; image/, audio/, video/ and font/ types are too.
var binaryTypes = map[string]bool{
	"application/octet-stream": true, "application/pdf": true, "application/zip": true,
	"application/gzip": true, "application/x-gzip": true, "application/x-tar": true,
	"application/x-7z-compressed": true, "application/vnd.rar": true,
}

// isBinaryMedia reports whether a response body of this media type and
// schema is handed to the caller as a reader: a binary type (unless its
// schema says it is something a program decodes, an object say), or a
// string schema of format binary under any type but JSON and text/*
// (which decode into a value and a string).
func isBinaryMedia(name string, s *ir.Schema) bool {
	if framingOf(name) != "" || isJSON(name) || strings.HasSuffix(name, "/json") || strings.HasPrefix(name, "text/") {
		return false
	}
	d := s.Deref()
	if d != nil && d.Kind == ir.KindString && d.Format == ir.FormatBinary {
		return true
	}
	if d != nil && d.Kind != ir.KindString && d.Kind != ir.KindAny {
		return false
	}
	if binaryTypes[name] {
		return true
	}
	for _, family := range []string{"image/", "audio/", "video/", "font/"} {
		if strings.HasPrefix(name, family) {
			return true
		}
	}
	return false
}

// classifyResponse marks the streamed and binary media types of a response
// that may describe success (a 2xx or the default), and gives each stream
// its event schema (an inline one named after hint, the response's). Media
// types are matched as content() merged them: the first key of a name wins.
func (b *builder) classifyResponse(c openapi3.Content, at loc, resp *ir.Response, hint string) {
	if !resp.IsSuccess() && !resp.Default {
		return
	}
	done := map[string]bool{}
	for _, key := range sortedMapKeys(c) {
		name := mediaName(key)
		mt := c[key]
		if mt == nil || done[name] {
			continue
		}
		done[name] = true
		m := mediaNamed(resp.Content, name)
		if m == nil {
			continue
		}
		if m.Framing = framingOf(name); m.Framing != "" {
			m.Event = b.eventSchema(mt, m, at.at("content", key), mediaHint(name, hint))
			continue
		}
		m.Binary = isBinaryMedia(name, m.Schema)
	}
}

// mediaHint names an inline schema of a media type: a stream's events are
// <Op>Event (CreateCompletionEvent beside CreateCompletionResponse), like
// an itemSchema's; any other body takes the content's hint.
func mediaHint(name, hint string) string {
	if framingOf(name) == "" {
		return hint
	}
	return strings.TrimSuffix(hint, "Response") + "Event"
}

// mediaNamed returns the media type of that name, or nil.
func mediaNamed(content []*ir.MediaType, name string) *ir.MediaType {
	for _, m := range content {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// eventSchema is the schema of one event of a stream: OpenAPI 3.2's
// itemSchema when given, else the media type's schema (its items, for a
// 3.2 JSON Lines array). A text/event-stream
// itemSchema that describes the whole event (data, event, id, retry) gives
// its data's schema: the generated stream yields the data, the runtime
// keeps the rest (Stream.Event). Nil means plain strings.
func (b *builder) eventSchema(mt *openapi3.MediaType, m *ir.MediaType, at loc, hint string) *ir.Schema {
	if mt.ItemSchema == nil {
		return b.wholeStreamItems(m)
	}
	itemAt := b.follow(at.at("itemSchema"))
	if m.Framing == ir.FramingSSE && isEventEnvelope(mt.ItemSchema.Value) {
		data := mt.ItemSchema.Value.Properties["data"]
		dataAt := b.follow(itemAt.at("properties", "data"))
		switch {
		case data.Value.ContentSchema != nil:
			return b.schemas.use(data.Value.ContentSchema, dataAt.at("contentSchema"), hint)
		case data.Value.Type.Is(openapi3.TypeString) || data.Value.Type == nil:
			return nil
		}
		return b.schemas.use(data, dataAt, hint)
	}
	return b.schemas.use(mt.ItemSchema, at.at("itemSchema"), hint)
}

// wholeStreamItems is the event schema given by a media type's schema. In
// OpenAPI 3.2 the schema of a JSON Lines or JSON text sequence body
// describes the whole stream, an array: its items are the events. Before
// 3.2 the schema is the event's, as documents wrote it.
func (b *builder) wholeStreamItems(m *ir.MediaType) *ir.Schema {
	d := m.Schema.Deref()
	if m.Framing != ir.FramingSSE && since32(b.api.OpenAPI) && d != nil && d.Kind == ir.KindArray {
		return d.Items
	}
	return m.Schema
}

// since32 reports whether a document's version is 3.2 or later.
func since32(version string) bool {
	return since31(version) && !strings.HasPrefix(version, "3.1")
}

// isEventEnvelope reports whether a Server-Sent Events item schema
// describes the whole event: an object with a data member and no member
// an event does not have.
func isEventEnvelope(s *openapi3.Schema) bool {
	if s == nil || s.Properties["data"] == nil || s.Properties["data"].Value == nil {
		return false
	}
	for name := range s.Properties {
		switch name {
		case "data", "event", "id", "retry":
		default:
			return false
		}
	}
	return true
}
