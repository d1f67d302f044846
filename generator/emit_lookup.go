package generator

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// lookupIntent is the method of every client that runs an operation's
// x-lookup by operationId (idemrt.IntentLooker).
const lookupIntent = "LookupIntent"

// lookupIdents are the identifiers of one operation's x-lookup: the
// unexported method that sends it, and the exported Lookup<Op> ("" when
// the operation's result is not a JSON body, or the name is taken).
type lookupIdents struct {
	send, method string
}

// reserveLookups names the lookup methods of the operations whose x-lookup
// names an operation the client has, after every other method is named;
// a name already taken leaves the operation without Lookup<Op>. No
// operation's method is LookupIntent (the parser numbers it apart,
// checkIdentities refuses an IR that does not), so intentLooker holds
// unless another generated method took the name.
func (g *generation) reserveLookups(ops []*ir.Operation) {
	methods := map[string]bool{}
	for _, op := range ops {
		ids := g.opNames[op]
		for _, m := range []string{op.GoName, ids.iter, ids.pages, ids.stream, ids.download} {
			methods[m] = true
		}
		for _, w := range op.Waiters {
			methods[g.waiterNames[w].method] = true
		}
	}
	g.intentLooker = !methods[lookupIntent]
	// Lookup<Op> never takes a method the client has itself (an operation
	// "intent" would make LookupIntent).
	for _, m := range ir.ClientMethods {
		methods[m] = true
	}
	g.lookupNames = map[*ir.Operation]lookupIdents{}
	for _, op := range ops {
		if lk := op.Lookup; lk == nil || g.opNames[lk.Operation] == nil {
			continue
		}
		ids := lookupIdents{send: "lookup" + op.GoName}
		if name := "Lookup" + op.GoName; !methods[name] && g.lookupResult(op) != nil {
			ids.method = name
			methods[name] = true
		}
		g.lookupOps = append(g.lookupOps, op)
		g.lookupNames[op] = ids
	}
}

// lookupResult is the type Lookup<Op> returns, the operation's own JSON
// result (*Payment; a slice or a map by value); nil when the operation's
// method returns something else.
func (g *generation) lookupResult(op *ir.Operation) *jen.Statement {
	elem, byVal := g.lookupElem(op)
	if elem == nil || byVal {
		return elem
	}
	return jen.Op("*").Add(elem)
}

// lookupElem is the Go type of op's JSON result and whether the method
// returns it by value; nil when the method returns no JSON body alone.
func (g *generation) lookupElem(op *ir.Operation) (*jen.Statement, bool) {
	bodies := successBodies(op)
	if mainReturn(op) != returnDecoded || g.opNames[op].result != "" || len(bodies) == 0 || bodies[0].kind != bodyJSON {
		return nil, false
	}
	return g.bodyGoType(bodies[0]), byValue(bodies[0])
}

// lookupMethods are op's Lookup<Op>, as emitLookup emits it.
func (g *generation) lookupMethods(op *ir.Operation) []clientMethod {
	ids, ok := g.lookupNames[op]
	if !ok || ids.method == "" {
		return nil
	}
	return []clientMethod{{name: ids.method, params: lookupParams(), results: []jen.Code{g.lookupResults(op)}}}
}

// lookupParams are the parameters of Lookup<Op>.
func lookupParams() []jen.Code {
	return []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.Id("key").String(), jen.Id("opts").Op("...").Qual(rtPath, "CallOption")}
}

// lookupResults is (*Result, bool, error).
func (g *generation) lookupResults(op *ir.Operation) jen.Code {
	return jen.Params(g.lookupResult(op), jen.Bool(), jen.Error())
}

// emitLookup emits the sender of op's x-lookup and Lookup<Op>, or nil.
func (g *generation) emitLookup(op *ir.Operation) jen.Code {
	ids, ok := g.lookupNames[op]
	if !ok {
		return nil
	}
	code := jen.Add(g.emitLookupSend(op, ids)).Line().Line()
	if ids.method == "" {
		return code.Add(g.comment(fmt.Sprintf("%s has no Lookup%s method: its method returns no JSON body to decode what the lookup finds "+
			"(or the name is taken); %s(ctx, %q, key) still runs the lookup.", op.GoName, op.GoName, lookupIntent, op.ID))).Line().Line()
	}
	return code.Add(g.emitLookupMethod(op, ids)).Line().Line()
}

// emitLookupSend emits the unexported method that sends op's x-lookup; an
// empty key, which names no intent (and as a query parameter would ask for
// every one), is refused before anything is built:
//
//	func (c *Client) lookupCreatePayment(ctx context.Context, key string, opts []idemrt.CallOption) (idemrt.LookupResult, error) {
//		if key == "" {
//			return idemrt.LookupResult{}, idemrt.ErrEmptyLookupKey
//		}
//		b := wire.NewBuilder(c.server, "GET", "/payments")
//		b.Query(wire.Param{Name: "client_reference", Style: wire.StyleForm, Explode: true}, key)
//		req, err := b.Build()
//		if err != nil {
//			return idemrt.LookupResult{}, idemrt.BuildFailed(&listPaymentsOp, "", err)
//		}
//		return idemrt.Lookup(ctx, c.runner, &listPaymentsOp, req, idemrt.LookupQuery{Key: key, Found: "/data/0", Match: "/client_reference"}, opts...)
//	}
func (g *generation) emitLookupSend(op *ir.Operation, ids lookupIdents) jen.Code {
	lk := op.Lookup
	t := lk.Operation
	contract := g.opNames[t].contract
	method := map[ir.ParamLocation]string{ir.InPath: "Path", ir.InQuery: "Query", ir.InHeader: "Header", ir.InCookie: "Cookie"}[lk.Key.In]
	zero := jen.Qual(rtPath, "LookupResult").Values()
	doc := fmt.Sprintf("%s sends the x-lookup of %s: %s with the key as its %s parameter %q.", ids.send, op.GoName, t.GoName, lk.Key.In, lk.Key.Name)
	return g.comment(doc).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(ids.send).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("key").String(), jen.Id("opts").Index().Qual(rtPath, "CallOption")).
		Params(jen.Qual(rtPath, "LookupResult"), jen.Error()).Block(
		jen.If(jen.Id("key").Op("==").Lit("")).Block(jen.Return(zero.Clone(), jen.Qual(rtPath, "ErrEmptyLookupKey"))),
		jen.Id("b").Op(":=").Qual(wirePath, "NewBuilder").Call(g.serverExpr(t), jen.Lit(t.Method), jen.Lit(requestPath(t))),
		jen.Id("b").Dot(method).Call(paramLiteral(lk.Key), jen.Id("key")),
		jen.List(jen.Id("req"), jen.Err()).Op(":=").Id("b").Dot("Build").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Qual(rtPath, "BuildFailed").Call(jen.Op("&").Id(contract), jen.Lit(""), jen.Err()))),
		jen.Return(jen.Qual(rtPath, "Lookup").Call(jen.Id("ctx"), jen.Id("c").Dot("runner"), jen.Op("&").Id(contract), jen.Id("req"),
			lookupQuery(lk), jen.Id("opts").Op("..."))))
}

// lookupQuery is the idemrt.LookupQuery of lk, its empty members left out:
//
//	idemrt.LookupQuery{Key: key, Found: "/data/0", Match: "/client_reference"}
func lookupQuery(lk *ir.Lookup) jen.Code {
	fields := []jen.Code{jen.Id("Key").Op(":").Id("key")}
	if lk.Found != "" {
		fields = append(fields, jen.Id("Found").Op(":").Lit(lk.Found))
	}
	if lk.Match != "" {
		fields = append(fields, jen.Id("Match").Op(":").Lit(lk.Match))
	}
	return jen.Qual(rtPath, "LookupQuery").Values(fields...)
}

// emitLookupMethod emits Lookup<Op>:
//
//	func (c *Client) LookupCreatePayment(ctx context.Context, key string, opts ...idemrt.CallOption) (*Payment, bool, error) {
//		res, err := c.lookupCreatePayment(ctx, key, opts)
//		if err != nil || !res.Found {
//			return nil, false, err
//		}
//		out := new(Payment)
//		if err := idemrt.DecodeFound(&listPaymentsOp, res, out); err != nil {
//			return nil, false, err
//		}
//		return out, true, nil
//	}
func (g *generation) emitLookupMethod(op *ir.Operation, ids lookupIdents) jen.Code {
	elem, byVal := g.lookupElem(op)
	contract := g.opNames[op.Lookup.Operation].contract
	decl, ptr := jen.Id("out").Op(":=").New(elem), jen.Id("out")
	if byVal {
		decl, ptr = jen.Var().Id("out").Add(elem), jen.Op("&").Id("out")
	}
	zero := jen.Nil()
	return g.commentLead(true, fmt.Sprintf("%s finds the result of a %s call by its key or client reference, without sending the call again.", ids.method, op.GoName),
		g.lookupDoc(op)).
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(ids.method).Params(lookupParams()...).Add(g.lookupResults(op)).Block(
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot(ids.send).Call(jen.Id("ctx"), jen.Id("key"), jen.Id("opts")),
		jen.If(jen.Err().Op("!=").Nil().Op("||").Op("!").Id("res").Dot("Found")).Block(jen.Return(zero, jen.False(), jen.Err())),
		decl,
		jen.If(jen.Err().Op(":=").Qual(rtPath, "DecodeFound").Call(jen.Op("&").Id(contract), jen.Id("res"), ptr), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.False(), jen.Err())),
		jen.Return(jen.Id("out"), jen.True(), jen.Nil()))
}

// lookupDoc states what Lookup<Op> sends, what counts as found, and,
// for an unsafe operation whose calls carry a fresh key, that no
// reconciler runs it.
func (g *generation) lookupDoc(op *ir.Operation) string {
	lk := op.Lookup
	s := fmt.Sprintf("It calls %s (%s %s) with key as its %s parameter %q, under that operation's retry contract. ",
		lk.Operation.GoName, lk.Operation.Method, lk.Operation.Path, lk.Key.In, lk.Key.Name)
	s += foundDoc(lk)
	s += " An answer of the wrong shape is an error matching idemrt.ErrLookupAnswer, never not found."
	if !g.intentNamed(op) {
		s += fmt.Sprintf(" %s's calls carry a fresh key, not this %s, so %s does not run this lookup and a reconciler hands a call "+
			"whose answer is lost to a person.", op.GoName, lk.Key.Name, lookupIntent)
	}
	return s
}

// foundDoc says which answer of lk is found, and what is not.
func foundDoc(lk *ir.Lookup) string {
	found, match := strconv.Quote(lk.Found), strconv.Quote(lk.Match)
	switch {
	case lk.Found == "" && lk.Match == "":
		return "A 2xx answer is found, and is the result; a 404 is not found (false, nil)."
	case lk.Found == "":
		return fmt.Sprintf("A 2xx answer that holds key at %s is found, and is the result; one that holds another value there "+
			"(another intent's), or a 404, is not found (false, nil).", match)
	case lk.Match == "":
		return fmt.Sprintf("A 2xx answer with a value at %s is found, and that value is the result; no value there (or null), "+
			"or a 404, is not found (false, nil).", found)
	}
	return fmt.Sprintf("A 2xx answer with a value at %s that holds key at %s is found, and that value is the result (when %s is "+
		"an element of an array, the first element that holds key); no such value, or a 404, is not found (false, nil).", found, match, found)
}

// emitLookupIntent emits LookupIntent, which every client has so that a
// reconciler can take any client, and the assertion that *Client is an
// idemrt.IntentLooker:
//
//	func (c *Client) LookupIntent(ctx context.Context, operation, key string) (idemrt.LookupResult, error) {
//		switch operation {
//		case "createPayment":
//			return c.lookupCreatePayment(ctx, key, nil)
//		}
//		return idemrt.LookupResult{}, idemrt.ErrNoLookup
//	}
//
//	var _ idemrt.IntentLooker = (*Client)(nil)
func (g *generation) emitLookupIntent() jen.Code {
	if !g.intentLooker {
		return g.comment("Client has no LookupIntent method: an operation has the name, so Client is no idemrt.IntentLooker.")
	}
	var cases []jen.Code
	for _, op := range g.lookupOps {
		if !g.intentNamed(op) {
			continue
		}
		cases = append(cases, jen.Case(jen.Lit(op.ID)).Block(jen.Return(jen.Id("c").Dot(g.lookupNames[op].send).Call(jen.Id("ctx"), jen.Id("key"), jen.Nil()))))
	}
	body := []jen.Code{}
	if len(cases) > 0 {
		body = append(body, jen.Switch(jen.Id("operation")).Block(cases...))
	}
	body = append(body, jen.Return(jen.Qual(rtPath, "LookupResult").Values(), jen.Qual(rtPath, "ErrNoLookup")))
	doc := "LookupIntent runs the x-lookup of the operation whose identity (its idemrt.Operation's ID, a journal entry's Operation) is operation, for an intent's key or client " +
		"reference, and reports whether the API holds its result (idemrt.IntentLooker: a reconciler learns whether a call " +
		"whose outcome is unknown was executed, without sending it again). It returns idemrt.ErrNoLookup for an operation " +
		"that declares no x-lookup."
	if len(g.lookupOps) == 0 {
		doc += " No operation of this API declares one."
	}
	return g.comment(doc).Func().Params(jen.Id("c").Op("*").Id("Client")).Id(lookupIntent).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("operation"), jen.Id("key")).String()).
		Params(jen.Qual(rtPath, "LookupResult"), jen.Error()).Block(body...).Line().Line().
		Var().Id("_").Qual(rtPath, "IntentLooker").Op("=").Parens(jen.Op("*").Id("Client")).Parens(jen.Nil())
}

// intentNamed reports whether op's calls carry the key its lookup finds:
// a keyed operation's idempotency key, or an unsafe operation's body
// reference (lookupKeyCall). An unsafe call named by a fresh key would be
// looked up by that key and reported not found although it executed, so
// LookupIntent leaves such an operation out (ErrNoLookup: a reconciler
// hands it to a person); Lookup<Op> stays for a caller who knows the
// reference.
func (g *generation) intentNamed(op *ir.Operation) bool {
	if op.Retry.Safety == ir.Keyed {
		return true
	}
	plan := requestBody(op)
	return plan != nil && g.lookupKeyCall(op, plan) != nil
}

// intentMethod is LookupIntent as the API interface lists it; nil when
// the client has none.
func (g *generation) intentMethod() []clientMethod {
	if !g.intentLooker {
		return nil
	}
	return []clientMethod{{name: lookupIntent,
		params:  []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("operation"), jen.Id("key")).String()},
		results: []jen.Code{jen.Params(jen.Qual(rtPath, "LookupResult"), jen.Error())}}}
}
