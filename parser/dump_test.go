package parser

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// dumpAPI renders an API as indented text for the IR golden files: every
// decision the parser made, in IR order, one fact per line.
func dumpAPI(api *ir.API) string {
	var b strings.Builder
	fmt.Fprintf(&b, "api %q %q openapi=%s\n", api.Title, api.Version, api.OpenAPI)
	for _, s := range api.Servers {
		fmt.Fprintf(&b, "server %s\n", s.URL)
	}
	for _, s := range api.SecuritySchemes {
		fmt.Fprintf(&b, "security-scheme %s (%s) type=%s scheme=%s in=%s name=%s\n", s.GoName, s.Name, s.Type, s.Scheme, s.In, s.ParamName)
		if f := s.ClientCredentials; f != nil {
			fmt.Fprintf(&b, "  client-credentials tokenUrl=%s scopes=%v\n", f.TokenURL, f.Scopes)
		}
	}
	for _, op := range api.Operations {
		dumpOperation(&b, op)
	}
	for _, w := range api.Webhooks {
		fmt.Fprintf(&b, "webhook %s name=%q id=%s type=%q payload=%s @%s:%d\n",
			w.GoName, w.Name, w.ID, w.EventType, schemaText(w.Payload, false), w.Source.Pointer, w.Source.Line)
	}
	for _, s := range api.Schemas {
		fmt.Fprintf(&b, "schema %s (%s) %s @%s:%d\n", s.GoName, s.Name, schemaText(s, true), s.Source.Pointer, s.Source.Line)
		dumpSchemaBody(&b, s, "  ")
	}
	return b.String()
}

func dumpOperation(b *strings.Builder, op *ir.Operation) {
	r := op.Retry
	fmt.Fprintf(b, "op %s id=%s %s %s", op.GoName, op.ID, op.Method, op.Path)
	if op.Query != "" {
		fmt.Fprintf(b, "?%s", op.Query)
	}
	fmt.Fprintf(b, " tag=%s @%s:%d\n", op.Tag, op.Source.Pointer, op.Source.Line)
	fmt.Fprintf(b, "  retry safety=%s kind=%s level=%s key=%s:%s retryable=%v/%v from %s\n",
		r.Safety, r.Kind, r.IdempotencyLevel, r.KeyIn, r.KeyName, r.Retryable.Codes, r.Retryable.Classes, r.RetryableLevel)
	if pg := op.Pagination; pg != nil {
		fmt.Fprintf(b, "  pagination %s level=%s param=%s cursor=%s lastItem=%s next=%s items=%s limit=%s hasMore=%s total=%s stop=%s @%s:%d\n",
			pg.Kind, pg.Level, pg.Param, fieldText(pg.Cursor), fieldText(pg.LastItem), fieldText(pg.Next), pg.Items, pg.Limit,
			fieldText(pg.HasMore), fieldText(pg.Total), pg.Stop, pg.Source.Pointer, pg.Source.Line)
	}
	for _, w := range op.Waiters {
		fmt.Fprintf(b, "  waiter %s until=%s%v", w.GoName, w.Until.Pointer, w.Until.In)
		if w.FailOn != nil {
			fmt.Fprintf(b, " failOn=%s%v", w.FailOn.Pointer, w.FailOn.In)
		}
		fmt.Fprintf(b, " pending=%v delay=%v/%v timeout=%v @%s:%d\n", w.PendingStatus, w.Delay, w.MaxDelay, w.Timeout, w.Source.Pointer, w.Source.Line)
	}
	if lk := op.Lookup; lk != nil {
		fmt.Fprintf(b, "  lookup %s key=%s:%s found=%q @%s:%d\n", lk.Operation.ID, lk.Key.In, lk.Key.Name, lk.Found, lk.Source.Pointer, lk.Source.Line)
	}
	for _, p := range op.Params {
		fmt.Fprintf(b, "  param %s %s %q style=%s explode=%v required=%v %s\n", p.GoName, p.In, p.Name, p.Style, p.Explode, p.Required, schemaText(p.Type, false))
	}
	if op.Body != nil {
		fmt.Fprintf(b, "  body required=%v\n", op.Body.Required)
		for _, m := range op.Body.Content {
			fmt.Fprintf(b, "    %s %s\n", m.Name, schemaText(m.Schema, false))
		}
	}
	for _, r := range op.Responses {
		fmt.Fprintf(b, "  response status=%d class=%d default=%v\n", r.Status, r.Class, r.Default)
		for _, m := range r.Content {
			fmt.Fprintf(b, "    %s %s%s\n", m.Name, schemaText(m.Schema, false), mediaRole(m))
		}
		for _, h := range r.Headers {
			fmt.Fprintf(b, "    header %s %q required=%v %s\n", h.GoName, h.Name, h.Required, schemaText(h.Type, false))
		}
	}
	for _, s := range op.Security {
		fmt.Fprintf(b, "  security %v\n", s.Schemes)
	}
}

func dumpSchemaBody(b *strings.Builder, s *ir.Schema, indent string) {
	for _, p := range s.Properties {
		ro := ""
		if p.ReadOnly {
			ro = " readOnly"
		}
		fmt.Fprintf(b, "%sprop %s %q required=%v%s %s\n", indent, p.GoName, p.Name, p.Required, ro, schemaText(p.Type, false))
	}
	if s.AdditionalProperties != nil && s.Kind == ir.KindObject {
		fmt.Fprintf(b, "%sextra %s\n", indent, schemaText(s.AdditionalProperties, false))
	}
	for _, e := range s.Enum {
		fmt.Fprintf(b, "%svalue %s %q\n", indent, e.GoName, e.Value)
	}
	for _, v := range s.Variants {
		fmt.Fprintf(b, "%svariant %s\n", indent, schemaText(v, false))
	}
	if d := s.Discriminator; d != nil {
		fmt.Fprintf(b, "%sdiscriminator %s\n", indent, d.Property)
		for _, m := range d.Mapping {
			fmt.Fprintf(b, "%s  %q -> %s\n", indent, m.Value, m.Schema.GoName)
		}
	}
}

// schemaText is a one-line summary of a schema; a declaration's members are
// printed separately (decl), a use's inline.
func schemaText(s *ir.Schema, decl bool) string {
	if s == nil {
		return "<nil>"
	}
	var t string
	switch s.Kind {
	case ir.KindRef:
		t = "ref:" + s.Ref.GoName
	case ir.KindArray:
		t = "[]" + schemaText(s.Items, false)
	case ir.KindMap:
		t = "map[" + schemaText(s.AdditionalProperties, false) + "]"
	case ir.KindEnum:
		t = "enum(" + s.EnumBase.String() + ")"
	case ir.KindUnion:
		t = map[ir.UnionKind]string{ir.OneOf: "oneOf", ir.AnyOf: "anyOf"}[s.Union]
	default:
		t = s.Kind.String()
	}
	if s.Format != "" {
		t += "<" + s.Format + ">"
	}
	if s.Nullable {
		t += "?"
	}
	if !decl && s.GoName == "" && (s.Kind == ir.KindObject || s.Kind == ir.KindEnum || s.Kind == ir.KindUnion) {
		t += " (UNNAMED)"
	}
	return t
}

// fieldText prints an unset field as "-" (ir.Field prints nil as ".", the body).
func fieldText(f ir.Field) string {
	if f == nil {
		return "-"
	}
	return f.String()
}

// mediaRole renders how a response media type is handed over: a stream's
// framing and event type, or a download.
func mediaRole(m *ir.MediaType) string {
	switch {
	case m.Framing != "":
		return fmt.Sprintf(" stream=%s event=%s", m.Framing, schemaText(m.Event, false))
	case m.Binary:
		return " download"
	}
	return ""
}
