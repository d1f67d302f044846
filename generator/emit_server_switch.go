package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// withStreamSwitch appends the stream switch to a stream form's route when
// op's JSON body has a boolean "stream" member, the member the client's
// <Op>Stream method sets to true (streamOn): a request that sets it gets
// the stream whatever its Accept says, as OpenAI's SDKs expect.
//
//	createCompletionRoute.WithStream(idemrt.FramingSSE, "text/event-stream").WithStreamSwitch("stream")
func withStreamSwitch(op *ir.Operation, route *jen.Statement) *jen.Statement {
	plan := requestBody(op)
	if plan == nil || plan.kind != bodyJSON || !hasStreamSwitch(plan.media.Schema) {
		return route
	}
	return route.Dot("WithStreamSwitch").Call(jen.Lit("stream"))
}
