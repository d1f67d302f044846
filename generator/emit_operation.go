package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// operationsFile emits one <tag>_gen.go: for each operation its contract,
// params and result types, method and error-model function.
func (g *generation) operationsFile(ops []*ir.Operation) *jen.File {
	return g.fileOf(g.opPieces(ops))
}

// opsPerChunk is how many operations one goroutine of renderChunks emits
// and renders (an operation is several declarations).
const opsPerChunk = 32

// opPieces emits the declarations of each operation, one piece each.
func (g *generation) opPieces(ops []*ir.Operation) []piece {
	out := make([]piece, len(ops))
	for i, op := range ops {
		out[i] = g.opPiece(op)
	}
	return out
}

// opPiece emits an operation's declarations, each followed by a blank line.
func (g *generation) opPiece(op *ir.Operation) piece {
	ids := g.opNames[op]
	p := piece{jen.Add(g.emitContract(op)).Line()}
	if ids.params != "" {
		p = append(p, jen.Add(g.emitParams(op)).Line())
	}
	if ids.result != "" {
		p = append(p, jen.Add(g.emitResult(op)).Line())
	}
	p = append(p, jen.Add(g.emitMethod(op)).Line())
	if code := g.emitPager(op); code != nil {
		p = append(p, jen.Add(code).Line())
	}
	if code := g.emitWaiters(op); code != nil {
		p = append(p, code)
	}
	if code := g.emitLookup(op); code != nil {
		p = append(p, code)
	}
	if alt := g.emitAltMethods(op); len(alt) > 0 {
		p = append(p, jen.Add(alt...))
	}
	if ids.errorModel != "" {
		p = append(p, jen.Add(g.emitErrorModel(op)).Line())
	}
	return p
}

// emitContract emits the operation's visible retry contract:
//
//	var createPaymentOp = idemrt.Operation{ID: "createPayment", Method: "POST", Path: "/payments",
//		Safety: idemrt.Keyed, KeyHeader: "Idempotency-Key",
//		Retryable: idemrt.StatusSet{Codes: []int{408, 429, 502, 503, 504}},
//		HeaderParams: []string{"Idempotency-Key"}, QueryParams: []string{"expand"}}
func (g *generation) emitContract(op *ir.Operation) jen.Code {
	r := op.Retry
	vals := []jen.Code{
		jen.Line().Id("ID").Op(":").Lit(op.ID),
		jen.Line().Id("Method").Op(":").Lit(op.Method),
		jen.Line().Id("Path").Op(":").Lit(op.Path),
		jen.Line().Id("Safety").Op(":").Qual(rtPath, safetyName(r.Safety)),
	}
	if r.Safety == ir.Keyed {
		vals = append(vals, jen.Line().Id("KeyHeader").Op(":").Lit(r.KeyName))
		if r.KeyTTL > 0 {
			vals = append(vals, jen.Line().Id("KeyTTL").Op(":").Add(durationCode(r.KeyTTL)))
		}
	}
	vals = append(vals, jen.Line().Id("Retryable").Op(":").Add(statusSet(r.Retryable)))
	if rs := redirectSet(op); len(rs.Codes)+len(rs.Classes) > 0 {
		vals = append(vals, jen.Line().Id("Redirects").Op(":").Add(statusSet(rs)))
	}
	if schemes := opSchemes(op); len(schemes) > 0 {
		vals = append(vals, jen.Line().Id("Security").Op(":").Index().String().ValuesFunc(func(grp *jen.Group) {
			for _, s := range schemes {
				grp.Lit(s)
			}
		}))
	}
	vals = append(vals, g.contractParams(op)...)
	vals = append(vals, jen.Line())
	return jen.Commentf("%s is the retry contract of %s (safety from the %s level, retryable statuses from the %s level).",
		g.opNames[op].contract, op.GoName, r.IdempotencyLevel, r.RetryableLevel).Line().
		Var().Id(g.opNames[op].contract).Op("=").Qual(rtPath, "Operation").Values(vals...)
}

// opSchemes lists, sorted and once each, the security schemes any of the
// operation's alternative requirements names: the credentials it may send.
// An operation with no requirement (or only the empty one) sends none.
func opSchemes(op *ir.Operation) []string {
	var out []string
	for _, req := range op.Security {
		out = append(out, req.Schemes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// safetyName is the runtime constant of a safety level.
func safetyName(s ir.Safety) string {
	switch s {
	case ir.Keyed:
		return "Keyed"
	case ir.Idempotent:
		return "Idempotent"
	}
	return "Unsafe"
}

// statusSet renders an idemrt.StatusSet literal.
func statusSet(s ir.StatusSet) jen.Code {
	var vals []jen.Code
	if len(s.Codes) > 0 {
		vals = append(vals, jen.Id("Codes").Op(":").Index().Int().Values(intLits(s.Codes)...))
	}
	if len(s.Classes) > 0 {
		vals = append(vals, jen.Id("Classes").Op(":").Index().Int().Values(intLits(s.Classes)...))
	}
	return jen.Qual(rtPath, "StatusSet").Values(vals...)
}

// intLits renders ints as literals.
func intLits(ns []int) []jen.Code {
	out := make([]jen.Code, len(ns))
	for i, n := range ns {
		out[i] = jen.Lit(n)
	}
	return out
}

// emitMethod emits the client method of an operation:
//
//	func (c *Client) CreatePayment(ctx context.Context, body PaymentRequest,
//		params CreatePaymentParams, opts ...idemrt.CallOption) (*Payment, error)
//
// It builds the request once (so every attempt sends the same bytes), runs
// it through the runner, and decodes the answer. An operation that only
// streams or only answers bytes returns the stream or the reader instead
// (method_return.go).
func (g *generation) emitMethod(op *ir.Operation) jen.Code {
	switch mainReturn(op) {
	case returnStream:
		return g.emitStream(op, op.GoName)
	case returnDownload:
		return g.emitDownload(op, op.GoName)
	}
	ids := g.opNames[op]
	ret, fail := g.returns(op)
	body := g.requestStatements(op, mainAccept(op), fail)
	body = append(body,
		jen.List(jen.Id("resp"), jen.Err()).Op(":=").Id("c").Dot("runner").Dot("Do").Call(
			jen.Id("ctx"), jen.Op("&").Id(ids.contract), jen.Id("req"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(fail(g.errorValue(op)))),
	)
	body = append(body, g.emitDecode(op)...)
	return g.methodDoc(op).
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(op.GoName).Params(g.methodArgs(op)...).Add(ret).Block(body...)
}

// methodArgs is the parameter list of an operation's methods: the context,
// the body, the params struct, the call options.
func (g *generation) methodArgs(op *ir.Operation) []jen.Code {
	args := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	if plan := requestBody(op); plan != nil {
		args = append(args, jen.Id("body").Add(g.bodyType(plan)))
	}
	if ids := g.opNames[op]; ids.params != "" {
		args = append(args, jen.Id("params").Id(ids.params))
	}
	return append(args, jen.Id("opts").Op("...").Qual(rtPath, "CallOption"))
}

// requestStatements build the request, once, and return the build error
// through fail:
//
//	b := wire.NewBuilder(c.server, "POST", "/completions")
//	b.Header(wire.Param{Name: "Accept", Style: wire.StyleSimple}, "application/json") // when accept is set
//	b.JSONBody("application/json", body)
//	req, err := b.Build()
//	if err != nil {
//		return nil, idemrt.BuildFailed(&createCompletionOp, "", err)
//	}
func (g *generation) requestStatements(op *ir.Operation, accept string, fail func(jen.Code) jen.Code) []jen.Code {
	ids := g.opNames[op]
	body := []jen.Code{jen.Id("b").Op(":=").Qual(wirePath, "NewBuilder").Call(g.serverExpr(op), jen.Lit(op.Method), jen.Lit(requestPath(op)))}
	if accept != "" {
		// Before the parameters: a declared Accept parameter, when set, wins.
		body = append(body, jen.Id("b").Dot("Header").Call(
			jen.Qual(wirePath, "Param").Values(jen.Id("Name").Op(":").Lit("Accept"), jen.Id("Style").Op(":").Qual(wirePath, "StyleSimple")),
			jen.Lit(accept)))
	}
	body = append(body, g.emitParamCalls(op)...)
	if plan := requestBody(op); plan != nil {
		body = append(body, g.emitBodyCall(plan))
		if key := g.lookupKeyCall(op, plan); key != nil {
			body = append(body, key)
		}
	}
	return append(body,
		jen.List(jen.Id("req"), jen.Err()).Op(":=").Id("b").Dot("Build").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(fail(buildFailed(op, ids.contract)))),
	)
}

// buildFailed is the error of a request that could not be built, with the
// caller's key on a keyed operation:
//
//	idemrt.BuildFailed(&createOrderOp, params.IdempotencyKey, err)
func buildFailed(op *ir.Operation, contract string) jen.Code {
	key := jen.Lit("")
	if op.Retry.Safety == ir.Keyed {
		key = jen.Id("params").Dot("IdempotencyKey")
	}
	return jen.Qual(rtPath, "BuildFailed").Call(jen.Op("&").Id(contract), key, jen.Err())
}

// methodDoc is the contract sentence followed by the operation's own text.
func (g *generation) methodDoc(op *ir.Operation) *jen.Statement {
	where := fmt.Sprintf("%s %s (%s).", op.Method, op.Path, opLabel(op))
	return g.commentLead(true, op.Retry.Summary, sentence(op.Summary), op.Description, where, deprecated(op.Deprecated))
}

// sentence ends a one-line summary with a period, so that gofmt does not
// read "Create an order" as a doc-comment heading.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:;") {
		return s
	}
	return s + "."
}

// errorValue is the error a failed call returns: the runner's error with
// the declared error model decoded into StatusError.Model.
func (g *generation) errorValue(op *ir.Operation) jen.Code {
	ids := g.opNames[op]
	if ids.errorModel == "" {
		return jen.Err()
	}
	return jen.Qual(rtPath, "ErrorModel").Call(jen.Err(), jen.Id(ids.errorModel))
}

// requestPath is the path template with the fixed query string some
// documents put in path keys ("/responses?beta=true"); the runtime's
// Builder sends that query before the parameters.
func requestPath(op *ir.Operation) string {
	if op.Query == "" {
		return op.Path
	}
	return op.Path + "?" + op.Query
}
