package mock

// The echo check's plan for the answers that are not one decoded value:
// streams (the events the echo handler sends), downloads (the bytes and
// media type it serves) and multipart bodies (the part type the client
// sends for a file that names none).

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// echoEvents is how many events the echo handler sends on a stream.
const echoEvents = 3

// successMedia returns the media types of op's 2xx responses with content,
// in the order the document declares them, paired with the kin-openapi
// media type of the same name.
func successMedia(op *ir.Operation, rt *route) (ms []*ir.MediaType, kms []*openapi3.MediaType) {
	for _, r := range op.Responses {
		if r.Status < 200 || r.Status > 299 {
			continue
		}
		kr := rt.op.Responses.Status(r.Status)
		if kr == nil || kr.Value == nil {
			continue
		}
		for _, m := range r.Content {
			for name, km := range kr.Value.Content {
				if strings.EqualFold(mediaBase(name), m.Name) && km != nil {
					ms, kms = append(ms, m), append(kms, km)
				}
			}
		}
	}
	return ms, kms
}

// echoStream plans the events of a streaming operation: echoEvents values
// built from the event schema, and whether they carry SSE ids. An
// operation that also answers one document gets its stream form's name
// (the Handler and the client have both methods).
func echoStream(c *confCall, op *ir.Operation, rt *route, served map[string]bool) {
	ms, kms := successMedia(op, rt)
	for i, m := range ms {
		if m.Framing == "" {
			continue
		}
		g := &valueBuilder{response: true}
		schema := eventSchema(kms[i], m)
		for n := range echoEvents {
			var v any = fmt.Sprintf("echo event %d", n+1)
			if schema != nil {
				v = g.value(schema)
			}
			raw, _ := json.Marshal(v)
			c.Events = append(c.Events, raw)
		}
		c.SSE = m.Framing == ir.FramingSSE
		if name := op.GoName + "Stream"; served[name] {
			c.StreamMethod = name
			c.Body = streamOff(c.Body)
		}
		return
	}
}

// streamOff sets the planned body's "stream" member, when it has one, to
// false: the caller of the plain method asks for the plain answer, as
// OpenAI's API needs, since a body's "stream": true picks the stream form
// (idemsrv.Route.WithStreamSwitch) whatever Accept says.
func streamOff(body json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return body
	}
	if _, ok := obj["stream"]; !ok {
		return body
	}
	obj["stream"] = json.RawMessage("false")
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

// eventSchema is the kin-openapi schema of one event, chosen as the parser
// chooses it (parser/media.go, eventSchema): OpenAPI 3.2's itemSchema (the
// data member of an SSE envelope), the items of a 3.2 JSON Lines array, or
// the media type's schema. Nil means plain string events.
func eventSchema(km *openapi3.MediaType, m *ir.MediaType) *openapi3.SchemaRef {
	if m.Event == nil {
		return nil
	}
	item := km.ItemSchema
	if item == nil {
		if d := m.Schema.Deref(); d != nil && d.Kind == ir.KindArray && d.Items == m.Event && km.Schema.Value != nil {
			return km.Schema.Value.Items
		}
		return km.Schema
	}
	if m.Framing == ir.FramingSSE && eventEnvelope(item.Value) {
		if data := item.Value.Properties["data"]; data.Value.ContentSchema != nil {
			return data.Value.ContentSchema
		}
		return item.Value.Properties["data"]
	}
	return item
}

// eventEnvelope reports whether an SSE item schema describes the whole
// event: a data member and no member an event does not have.
func eventEnvelope(s *openapi3.Schema) bool {
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

// echoDownload plans the answer of an operation whose client method is a
// download: the first binary media type the operation declares (a
// wildcard made concrete); the harness makes the bytes (echoDownloadBytes).
func echoDownload(c *confCall, op *ir.Operation, rt *route) {
	ms, _ := successMedia(op, rt)
	for _, m := range ms {
		if !m.Binary || m.Framing != "" {
			continue
		}
		c.DownloadType = concreteType(m.Name)
		return
	}
}

// concreteType is a media type a server can send for a declared one:
// "image/*" is sent as image/png, "*/*" as application/octet-stream.
func concreteType(mt string) string {
	switch {
	case mt == "*/*" || mt == "":
		return "application/octet-stream"
	case strings.HasSuffix(mt, "/*"):
		if strings.HasPrefix(mt, "image/") {
			return "image/png"
		}
		return "application/octet-stream"
	}
	return mt
}

// echoParts records, for a multipart body, the Content-Type the spec's
// encoding declares for each property ("" for none): the harness sends
// files with that type (text/plain when none is declared), and the type
// the client sends for a file that names none is the declared one, or
// application/octet-stream.
func echoParts(c *confCall, op *ir.Operation) {
	if op.Body == nil {
		return
	}
	for _, m := range op.Body.Content {
		if m.Name != "multipart/form-data" {
			continue
		}
		c.PartTypes = map[string]string{}
		for _, e := range m.Encoding {
			first, _, _ := strings.Cut(e.ContentType, ",")
			if first = strings.TrimSpace(first); first != "" && !strings.Contains(first, "*") {
				c.PartTypes[e.Property] = first
			}
		}
	}
}

// markBareFile picks the one call whose first file goes without a
// Content-Type: the first multipart call of the document.
func markBareFile(calls []confCall) {
	for i := range calls {
		if calls[i].Echo && calls[i].PartTypes != nil {
			calls[i].BareFile = true
			return
		}
	}
}
