package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// serverStreams reports whether the server serves op as a stream: the
// client's main method returns *idemrt.Stream[T].
func serverStreams(op *ir.Operation) bool { return mainReturn(op) == returnStream }

// streamHandlerMethod is the Handler method of a stream operation: the
// client method's arguments without its options, plus the stream the
// handler sends the events on, and an error:
//
//	WatchEvents(ctx context.Context, params WatchEventsParams, stream *idemsrv.Stream[Event]) error
func (g *generation) streamHandlerMethod(op *ir.Operation) *jen.Statement {
	args := g.methodArgs(op)
	args = append(args[:len(args)-1], jen.Id("stream").Op("*").Qual(srvPath, "Stream").Types(g.eventType(streamMedia(op))))
	return jen.Id(op.GoName).Params(args...).Error()
}

// streamFormat is the Route's Stream value of a stream operation:
//
//	&idemsrv.StreamFormat{Framing: idemrt.FramingSSE, MediaType: "text/event-stream"}
func streamFormat(op *ir.Operation) jen.Code {
	m := streamMedia(op)
	return jen.Op("&").Qual(srvPath, "StreamFormat").Values(
		jen.Id("Framing").Op(":").Qual(rtPath, framingConst(m.Framing)),
		jen.Id("MediaType").Op(":").Lit(m.Name))
}

// serveStreamCall runs the handler method of a stream (op's own, or its
// <Op>Stream form) on a Stream, with the decoded args:
//
//	idemsrv.ServeStream(s.engine, w, r, &watchEventsRoute, 200, func(stream *idemsrv.Stream[Event]) error {
//		return s.h.WatchEvents(stream.Context(), params, stream)
//	})
//
// The handler's context is the stream's, which also ends when the server
// drains its streams (idemsrv.WithStreamDrain); args[0] is the request's.
func (g *generation) serveStreamCall(op *ir.Operation, method, route string, args []jen.Code) jen.Code {
	event := g.eventType(streamMedia(op))
	args = append([]jen.Code{jen.Id("stream").Dot("Context").Call()}, args[1:]...)
	call := jen.Id("s").Dot("h").Dot(method).Call(append(args, jen.Id("stream"))...)
	serve := jen.Func().Params(jen.Id("stream").Op("*").Qual(srvPath, "Stream").Types(event)).Error().Block(jen.Return(call))
	return jen.Qual(srvPath, "ServeStream").Call(jen.Id("s").Dot("engine"), jen.Id("w"), jen.Id("r"),
		jen.Op("&").Id(route), jen.Lit(streamStatus(op)), serve)
}

// streamStatus is the status of the success response that declares the
// streamed media type.
func streamStatus(op *ir.Operation) int {
	m := streamMedia(op)
	for _, r := range successResponses(op) {
		for _, c := range r.Content {
			if c == m && r.Status > 0 {
				return r.Status
			}
		}
	}
	return successStatus(op)
}

// serverStreamForm reports whether the server serves op's <Op>Stream
// method beside its plain answer (HandleEither).
func (g *generation) serverStreamForm(rt *serverRoute) bool {
	return rt.unrouted == "" && g.opNames[rt.op].stream != "" && g.opNames[rt.op].streamRoute != ""
}

// emitStreamForm emits the route and the serve method of op's <Op>Stream
// form:
//
//	var createCompletionStreamRoute = createCompletionRoute.WithStream(idemrt.FramingSSE, "text/event-stream")
//
//	func (s *Server) serveCreateCompletionStream(w http.ResponseWriter, r *http.Request) {
//		var body CompletionRequest
//		... (decoded as for CreateCompletion)
//		idemsrv.ServeStream(s.engine, w, r, &createCompletionStreamRoute, 200, func(stream *idemsrv.Stream[CompletionChunk]) error {
//			return s.h.CreateCompletionStream(stream.Context(), body, stream)
//		})
//	}
func (g *generation) emitStreamForm(rt *serverRoute) jen.Code {
	op, ids := rt.op, g.opNames[rt.op]
	m := streamMedia(op)
	route := jen.Commentf("%s is what the server checks for %s before its handler runs.", ids.streamRoute, ids.stream).Line().
		Var().Id(ids.streamRoute).Op("=").Add(withStreamSwitch(op, jen.Id(ids.route).Dot("WithStream").Call(jen.Qual(rtPath, framingConst(m.Framing)), jen.Lit(m.Name))))
	body, args := g.serveDecodes(rt)
	body = append(body, g.serveStreamCall(op, ids.stream, ids.streamRoute, args))
	serve := jen.Commentf("serve%s decodes a %s request, calls the handler and streams its answer.", ids.stream, ids.stream).Line().
		Func().Params(jen.Id("s").Op("*").Id("Server")).Id("serve"+ids.stream).
		Params(jen.Id("w").Qual("net/http", "ResponseWriter"), jen.Id("r").Op("*").Qual("net/http", "Request")).Block(body...)
	return jen.Add(route).Line().Line().Add(serve)
}

// streamFormMethod is the Handler method of op's <Op>Stream form:
//
//	CreateCompletionStream(ctx context.Context, body CompletionRequest, stream *idemsrv.Stream[CompletionChunk]) error
func (g *generation) streamFormMethod(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	args := g.methodArgs(op)
	args = append(args[:len(args)-1], jen.Id("stream").Op("*").Qual(srvPath, "Stream").Types(g.eventType(streamMedia(op))))
	return jen.Comment(fmt.Sprintf("%s serves %s %s (%s) when the request asks for %s.", ids.stream, op.Method,
		inlineText(requestPath(op)), opLabel(op), streamMedia(op).Name)).Line().Id(ids.stream).Params(args...).Error()
}

// handleEither registers op's two forms:
//
//	if err := e.HandleEither(createCompletionRoute, s.serveCreateCompletion,
//		createCompletionStreamRoute, s.serveCreateCompletionStream); err != nil {
//		return nil, err
//	}
func (g *generation) handleEither(rt *serverRoute) jen.Code {
	ids := g.opNames[rt.op]
	return jen.If(jen.Err().Op(":=").Id("e").Dot("HandleEither").Call(
		jen.Id(ids.route), jen.Id("s").Dot("serve"+rt.op.GoName), jen.Id(ids.streamRoute), jen.Id("s").Dot("serve"+ids.stream)),
		jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
}

// streamHandlerDoc is the paragraph of the Handler's doc comment about its
// stream methods, or "" when it has none.
func (g *generation) streamHandlerDoc(routes []*serverRoute) string {
	var streams bool
	var keyed []string
	for _, rt := range routes {
		name := rt.op.GoName
		if g.serverStreamForm(rt) {
			name = g.opNames[rt.op].stream
		} else if rt.unrouted != "" || !serverStreams(rt.op) {
			continue
		}
		streams = true
		if rt.op.Retry.Safety == ir.Keyed {
			keyed = append(keyed, name)
		}
	}
	if !streams {
		return ""
	}
	doc := "A method whose client method returns an *idemrt.Stream[T] takes an *idemsrv.Stream[T] instead and sends " +
		"the events on it (each is flushed); an SSE event's id, set with SendEvent, is what a reconnecting client " +
		"sends back, read with LastEventID. It returns when the stream is over; an error returned before the first " +
		"event is answered as a status, one returned after it cuts the connection."
	if len(keyed) > 0 {
		verb := " is"
		if len(keyed) > 1 {
			verb = " are"
		}
		doc += " " + strings.Join(keyed, ", ") + verb + " never run through the ledger, which cannot replay a stream: " +
			"the handler receives the key, which a resuming client sends again, and keeps the key contract itself."
	}
	return doc
}
