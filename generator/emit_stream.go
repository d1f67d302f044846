package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// emitAltMethods emits the methods an operation has besides its main one:
// <Op>Stream when it also streams, <Op>Download when it also answers bytes.
func (g *generation) emitAltMethods(op *ir.Operation) []jen.Code {
	var out []jen.Code
	if name := g.opNames[op].stream; name != "" {
		out = append(out, g.emitStream(op, name), jen.Line())
	}
	if name := g.opNames[op].download; name != "" {
		out = append(out, g.emitDownload(op, name), jen.Line())
	}
	return out
}

// emitStream emits a method that opens the operation's event stream: the
// main method of an operation that only streams, or <Op>Stream beside one
// that also answers JSON:
//
//	func (c *Client) CreateCompletionStream(ctx context.Context, body CompletionRequest,
//		opts ...idemrt.CallOption) (*idemrt.Stream[CompletionChunk], error) {
//		b := wire.NewBuilder(c.server, "POST", "/completions")
//		b.Header(wire.Param{Name: "Accept", Style: wire.StyleSimple}, "text/event-stream")
//		b.JSONBody("application/json", body)
//		req, err := b.Build()
//		if err != nil {
//			return nil, idemrt.BuildFailed(&createCompletionOp, "", err)
//		}
//		opts = append(opts[:len(opts):len(opts)], idemrt.WithJSONField("stream", true))
//		s, err := idemrt.OpenStream[CompletionChunk](ctx, c.runner, &createCompletionOp, req, idemrt.FramingSSE, opts...)
//		if err != nil {
//			return nil, idemrt.ErrorModel(err, createCompletionErrorModel)
//		}
//		return s, nil
//	}
func (g *generation) emitStream(op *ir.Operation, name string) jen.Code {
	m := streamMedia(op)
	event := g.eventType(m)
	fail := func(err jen.Code) jen.Code { return jen.List(jen.Nil(), err) }
	// Accept names the stream's type, so that a server negotiating by it
	// answers events (the runtime would only add text/event-stream).
	accept := m.Name
	if !acceptable(accept) {
		accept = "" // no header rather than one net/http refuses (acceptable); SSE gets the runtime's
	}
	body := g.requestStatements(op, accept, fail)
	body = append(body, streamOn(op)...)
	open := jen.Qual(rtPath, "OpenStream").Types(event.Clone()).Call(jen.Id("ctx"), jen.Id("c").Dot("runner"),
		jen.Op("&").Id(g.opNames[op].contract), jen.Id("req"), jen.Qual(rtPath, framingConst(m.Framing)), jen.Id("opts").Op("..."))
	body = append(body, g.returnWithErrorModel(op, "s", open)...)
	ret := streamResults(event)
	return g.streamDoc(op, name, m).
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(name).Params(g.methodArgs(op)...).Add(ret).Block(body...)
}

// streamResults is the result list of a method that opens a stream of
// event: (*idemrt.Stream[event], error).
func streamResults(event jen.Code) jen.Code {
	return jen.Params(jen.Op("*").Qual(rtPath, "Stream").Types(event), jen.Error())
}

// eventType is the Go type of one event: the event schema's, or string when
// the document gives none.
func (g *generation) eventType(m *ir.MediaType) *jen.Statement {
	if m.Event == nil {
		return jen.String()
	}
	return g.goType(m.Event)
}

// framingConst names the runtime constant of a framing.
func framingConst(f ir.Framing) string {
	switch f {
	case ir.FramingJSONLines:
		return "FramingJSONLines"
	case ir.FramingJSONSeq:
		return "FramingJSONSeq"
	}
	return "FramingSSE"
}

// streamOn sets the request body's boolean "stream" member to true when the
// body schema has one (OpenAI's switch between one answer and a stream):
// the member is set on the encoded JSON, whatever Go type the field has, and
// after the caller's options so that it wins.
//
//	opts = append(opts[:len(opts):len(opts)], idemrt.WithJSONField("stream", true))
func streamOn(op *ir.Operation) []jen.Code {
	plan := requestBody(op)
	if plan == nil || plan.kind != bodyJSON || !hasStreamSwitch(plan.media.Schema) {
		return nil
	}
	set := jen.Id("opts").Op("=").Append(jen.Id("opts").Index(jen.Empty(), jen.Len(jen.Id("opts")), jen.Len(jen.Id("opts"))),
		jen.Qual(rtPath, "WithJSONField").Call(jen.Lit("stream"), jen.True()))
	if plan.optional {
		// An absent body has no member to set.
		return []jen.Code{jen.If(jen.Id("body").Op("!=").Nil()).Block(set)}
	}
	return []jen.Code{set}
}

// hasStreamSwitch reports whether an object schema has a boolean member
// named "stream".
func hasStreamSwitch(s *ir.Schema) bool {
	d := s.Deref()
	if d == nil || d.Kind != ir.KindObject {
		return false
	}
	for _, p := range d.Properties {
		if p.Name == "stream" {
			t := p.Type.Deref()
			return t != nil && t.Kind == ir.KindBool
		}
	}
	return false
}

// returnWithErrorModel returns what call gives, with the declared error
// model decoded into the *idemrt.StatusError when the operation has one:
//
//	s, err := call
//	if err != nil {
//		return nil, idemrt.ErrorModel(err, opErrorModel)
//	}
//	return s, nil
func (g *generation) returnWithErrorModel(op *ir.Operation, v string, call jen.Code) []jen.Code {
	if g.opNames[op].errorModel == "" {
		return []jen.Code{jen.Return(call)}
	}
	return []jen.Code{
		jen.List(jen.Id(v), jen.Err()).Op(":=").Add(call),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), g.errorValue(op))),
		jen.Return(jen.Id(v), jen.Nil()),
	}
}

// streamDoc is the doc comment of a stream method: what it streams and how
// a dropped stream is retried, then the contract and the operation's text
// (for the main method) or the main method's name before the contract
// (kept on one line, greppable like every method's).
func (g *generation) streamDoc(op *ir.Operation, name string, m *ir.MediaType) *jen.Statement {
	how := streamRetry(op, m.Framing)
	if hasStreamSwitch(bodySchema(op)) {
		how += " The request body's stream member is sent as true."
	}
	where := fmt.Sprintf("%s %s (%s).", op.Method, op.Path, opLabel(op))
	if name == op.GoName {
		what := fmt.Sprintf("The answer is a stream of events (%s). %s", inlineText(m.Name), how)
		return g.commentLead(true, op.Retry.Summary, what, sentence(op.Summary), op.Description, where, deprecated(op.Deprecated))
	}
	lead := fmt.Sprintf("%s is %s with the answer streamed as events (%s). %s", name, op.GoName, inlineText(m.Name), op.Retry.Summary)
	return g.commentLead(true, lead, how, where, deprecated(op.Deprecated))
}

// bodySchema is the schema of the JSON request body, or nil.
func bodySchema(op *ir.Operation) *ir.Schema {
	if plan := requestBody(op); plan != nil && plan.kind == bodyJSON {
		return plan.media.Schema
	}
	return nil
}

// streamRetry says in one sentence what happens when a stream drops, as
// the runtime does it (idemrt.Stream): an unsafe operation's stream is never
// reopened; a safe one's Server-Sent Events resume after the last event id,
// and JSON lines, which carry no id, only reopen before their first event.
func streamRetry(op *ir.Operation, f ir.Framing) string {
	switch {
	case op.Retry.Safety == ir.Unsafe:
		return "A dropped stream is not resumed: the request may have executed."
	case f == ir.FramingSSE:
		return "A dropped stream resumes with Last-Event-ID."
	}
	return "A dropped stream is reopened only before its first event: its events carry no id to resume from."
}
