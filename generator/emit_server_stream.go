package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// serverStreams reports whether the server serves op as a stream: the
// client's main method returns *idemrt.Stream[T].
func serverStreams(op *ir.Operation) bool { return mainShape(op) == shapeStream }

// streamHandlerMethod is the Handler method of a stream operation: the
// client method's arguments without its options, plus the stream the
// handler sends the events on, and an error:
//
//	WatchEvents(ctx context.Context, params WatchEventsParams, stream *idemsrv.Stream[Event]) error
func (g *gen) streamHandlerMethod(op *ir.Operation) *jen.Statement {
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

// serveStreamCall runs the handler of a stream operation on a Stream, with
// the decoded args:
//
//	idemsrv.ServeStream(s.engine, w, r, &watchEventsRoute, 200, func(stream *idemsrv.Stream[Event]) error {
//		return s.h.WatchEvents(r.Context(), params, stream)
//	})
func (g *gen) serveStreamCall(op *ir.Operation, args []jen.Code) jen.Code {
	event := g.eventType(streamMedia(op))
	call := jen.Id("s").Dot("h").Dot(op.GoName).Call(append(args, jen.Id("stream"))...)
	serve := jen.Func().Params(jen.Id("stream").Op("*").Qual(srvPath, "Stream").Types(event)).Error().Block(jen.Return(call))
	return jen.Qual(srvPath, "ServeStream").Call(jen.Id("s").Dot("engine"), jen.Id("w"), jen.Id("r"),
		jen.Op("&").Id(g.opNames[op].route), jen.Lit(successStatus(op)), serve)
}

// streamHandlerDoc is the paragraph of the Handler's doc comment about its
// stream methods, or "" when it has none.
func streamHandlerDoc(routes []*serverRoute) string {
	var streams bool
	var keyed []string
	for _, rt := range routes {
		if rt.why != "" || !serverStreams(rt.op) {
			continue
		}
		streams = true
		if rt.op.Retry.Safety == ir.Keyed {
			keyed = append(keyed, rt.op.GoName)
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
