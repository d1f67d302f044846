package generator

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// waiterIdents are the identifiers of one waiter: the client's Wait<Name>
// method ("" when another method has that name) and its idemrt.Waiter
// variable.
type waiterIdents struct {
	method, contract string
}

// reserveWaiters names every waiter's method and variable, after every
// other method of the client is named; a method name already taken leaves
// the waiter without a method (emitWaiters says so in a comment).
func (g *generation) reserveWaiters(ops []*ir.Operation) {
	methods := map[string]bool{}
	for _, op := range ops {
		ids := g.opNames[op]
		for _, m := range []string{op.GoName, ids.iter, ids.pages, ids.stream, ids.download} {
			methods[m] = true
		}
	}
	g.waiterNames = map[*ir.Waiter]waiterIdents{}
	for _, op := range ops {
		for _, w := range op.Waiters {
			name := "Wait" + w.GoName
			if methods[name] {
				name = ""
			}
			methods[name] = true
			g.waiterNames[w] = waiterIdents{method: name, contract: g.ns.claim(lowerFirst(w.GoName)+"Waiter", "")}
		}
	}
}

// emitWaiters emits each waiter of op, or a comment saying why it has no
// method: the operation's method must return its JSON body.
func (g *generation) emitWaiters(op *ir.Operation) jen.Code {
	if len(op.Waiters) == 0 {
		return nil
	}
	ret, _ := g.returns(op)
	why := g.noWaitMethod(op)
	code := jen.Null()
	for _, w := range op.Waiters {
		ids := g.waiterNames[w]
		switch {
		case why != "":
			code.Add(g.comment(fmt.Sprintf("Waiter %s of %s has no method: %s.", strconv.Quote(w.Name), op.GoName, why))).Line().Line()
		case ids.method == "":
			code.Add(g.comment(fmt.Sprintf("Waiter %s of %s has no method: Wait%s is the name of another method.", strconv.Quote(w.Name), op.GoName, w.GoName))).Line().Line()
		default:
			code.Add(g.emitWaiterContract(op, w)).Line().Line().Add(g.emitWaitMethod(op, w, ret)).Line().Line()
		}
	}
	return code
}

// noWaitMethod says why op's waiters get no Wait method, or "": the
// operation's method must return its JSON body.
func (g *generation) noWaitMethod(op *ir.Operation) string {
	switch {
	case mainReturn(op) != returnDecoded || !g.returnsValue(op):
		return "its method returns no decoded body"
	case g.opNames[op].result != "":
		return fmt.Sprintf("its method returns %s, not the JSON body the waiters read", g.opNames[op].result)
	}
	return ""
}

// waitParams are the parameters of a Wait method: ctx, the operation's
// body and params, opts.
func (g *generation) waitParams(op *ir.Operation) []jen.Code {
	args := append([]jen.Code{jen.Id("ctx").Qual("context", "Context")}, g.pagerArgs(op)...)
	return append(args, jen.Id("opts").Op("...").Qual(rtPath, "WaitOption"))
}

// emitWaiterContract emits the waiter's visible contract:
//
//	var paymentSucceededWaiter = idemrt.Waiter{Name: "PaymentSucceeded",
//		Until:  idemrt.Match{Pointer: "/status", In: []string{"succeeded"}},
//		FailOn: idemrt.Match{Pointer: "/status", In: []string{"failed", "canceled"}},
//		Delay:  2 * time.Second, MaxDelay: 30 * time.Second, Timeout: 10 * time.Minute}
func (g *generation) emitWaiterContract(op *ir.Operation, w *ir.Waiter) jen.Code {
	vals := []jen.Code{
		jen.Line().Id("Name").Op(":").Lit(w.Name),
		jen.Line().Id("Until").Op(":").Add(waitMatch(w.Until)),
	}
	if w.FailOn != nil {
		vals = append(vals, jen.Line().Id("FailOn").Op(":").Add(waitMatch(*w.FailOn)))
	}
	if len(w.PendingStatus) > 0 {
		vals = append(vals, jen.Line().Id("PendingStatus").Op(":").Index().Int().Values(intLits(w.PendingStatus)...))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Delay", w.Delay}, {"MaxDelay", w.MaxDelay}, {"Timeout", w.Timeout}} {
		if d.v > 0 {
			vals = append(vals, jen.Line().Id(d.name).Op(":").Add(durationLit(d.v)))
		}
	}
	doc := fmt.Sprintf("%s is the contract of %s: the polls of %s and the conditions that end them.",
		g.waiterNames[w].contract, g.waiterNames[w].method, op.GoName)
	return g.comment(doc).Var().Id(g.waiterNames[w].contract).Op("=").Qual(rtPath, "Waiter").Values(append(vals, jen.Line())...)
}

// waitMatch is an idemrt.Match literal.
func waitMatch(m ir.WaitMatch) jen.Code {
	in := make([]jen.Code, len(m.In))
	for i, v := range m.In {
		in[i] = jen.Lit(v)
	}
	return jen.Qual(rtPath, "Match").Values(jen.Id("Pointer").Op(":").Lit(m.Pointer), jen.Id("In").Op(":").Index().String().Values(in...))
}

// durationLit writes d in the largest unit that divides it
// (10 * time.Minute, 1500 * time.Millisecond).
func durationLit(d time.Duration) jen.Code {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}} {
		if d%u.unit == 0 {
			return jen.Lit(int(d/u.unit)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}

// emitWaitMethod emits Wait<Name>, which hands the poll loop to idemrt.Wait:
//
//	func (c *Client) WaitPaymentSucceeded(ctx context.Context, params GetPaymentParams,
//		opts ...idemrt.WaitOption) (*Payment, error) {
//		return idemrt.Wait(ctx, c.runner, &paymentSucceededWaiter,
//			func(ctx context.Context, callOpts []idemrt.CallOption) (*Payment, error) {
//				return c.GetPayment(ctx, params, callOpts...)
//			}, opts...)
//	}
func (g *generation) emitWaitMethod(op *ir.Operation, w *ir.Waiter, ret jen.Code) jen.Code {
	ids := g.waiterNames[w]
	args := g.waitParams(op)
	callArgs := []jen.Code{jen.Id("ctx")}
	if requestBody(op) != nil {
		callArgs = append(callArgs, jen.Id("body"))
	}
	if g.opNames[op].params != "" {
		callArgs = append(callArgs, jen.Id("params"))
	}
	fetch := jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("callOpts").Index().Qual(rtPath, "CallOption")).
		Add(ret).Block(jen.Return(jen.Id("c").Dot(op.GoName).Call(append(callArgs, jen.Id("callOpts").Op("..."))...)))
	return g.commentLead(true, fmt.Sprintf("%s calls %s until its result reaches the waiter's until state, and returns that result.", ids.method, op.GoName),
		waitDoc(op, w)).
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(ids.method).Params(args...).Add(ret).Block(
		jen.Return(jen.Qual(rtPath, "Wait").Call(jen.Id("ctx"), jen.Id("c").Dot("runner"), jen.Op("&").Id(ids.contract), fetch, jen.Id("opts").Op("..."))))
}

// waitDoc states what a Wait method does in the words of its waiter.
func waitDoc(op *ir.Operation, w *ir.Waiter) string {
	s := fmt.Sprintf("It ends when the result's %s is %s.", strconv.Quote(w.Until.Pointer), orList(w.Until.In))
	if w.FailOn != nil {
		s += fmt.Sprintf(" When its %s is %s, it returns an *idemrt.WaitError matching idemrt.ErrWaitFailed, with the result in Last.", strconv.Quote(w.FailOn.Pointer), orList(w.FailOn.In))
	}
	if len(w.PendingStatus) > 0 {
		codes := make([]string, len(w.PendingStatus))
		for i, c := range w.PendingStatus {
			codes[i] = strconv.Itoa(c)
		}
		s += " A poll answered " + strings.Join(codes, " or ") + " means not there yet: the wait goes on."
	}
	return s + " Polls pause with jittered exponential delays (or the server's longer Retry-After), each under " + op.GoName +
		"'s retry contract and the client's retry budget; the wait ends with an error matching idemrt.ErrWaitTimeout when the next poll cannot start before its timeout or ctx's deadline (idemrt.WithWaitTimeout, idemrt.WithWaitDelay change the pace)."
}

// orList quotes values and joins them with "or".
func orList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, " or ")
}
