package generator

import (
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// journalMethod is the method a journal.Reconciler resends with.
const journalMethod = "ResendIntent"

// journalOps lists the operations a journal records (idemrt.WithJournal):
// the keyed and the unsafe ones. No operation's method is ResendIntent
// (checkIdentities).
func journalOps(ops []*ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	for _, op := range ops {
		if op.Retry.Safety != ir.Idempotent {
			out = append(out, op)
		}
	}
	return out
}

// journalFile emits journal_gen.go: ResendIntent, which maps a journal
// entry's operation id to its contract and resends it:
//
//	func (c *Client) ResendIntent(ctx context.Context, e *idemrt.JournalEntry) (*http.Response, error) {
//		var op *idemrt.Operation
//		server := c.server
//		switch e.Operation {
//		case "createOrder":
//			op = &createOrderOp
//		case "createFile":
//			op, server = &createFileOp, c.servers[ServerFilesExampleCom]
//		}
//		return c.runner.Resend(ctx, op, server, e)
//	}
//
// The server is the one the operation's requests are built on: Resend
// refuses an entry whose URL is not under it, so the client's credentials
// never follow a journal row elsewhere.
func (g *generation) journalFile(ops []*ir.Operation) *jen.File {
	f := g.newFile()
	cases := make([]jen.Code, 0, len(ops))
	for _, op := range ops {
		set := jen.Id("op").Op("=").Op("&").Id(g.opNames[op].contract)
		if opServerURL(g.api, op) != "" {
			set = jen.List(jen.Id("op"), jen.Id("server")).Op("=").Op("&").Id(g.opNames[op].contract).Op(",").Add(g.serverExpr(op))
		}
		cases = append(cases, jen.Case(jen.Lit(op.ID)).Block(set))
	}
	f.Add(g.comment(journalMethod+" sends an entry of a call journal (idemrt.WithJournal) again, with the client's own "+
		"credentials: the entry's method, URL, headers, body and key, as a call of its operation (idemrt.Runner.Resend). "+
		"It is what a journal.Reconciler calls for keyed entries and for entries queued in an application's transaction. "+
		"An entry of an operation this client does not have, whose body was not kept, or whose URL is not under the "+
		"client's server for its operation (its credentials go nowhere else), is refused with idemrt.ErrNotResendable.")).
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(journalMethod).
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("e").Op("*").Qual(rtPath, "JournalEntry")).
		Params(jen.Op("*").Qual("net/http", "Response"), jen.Error()).
		Block(
			jen.Var().Id("op").Op("*").Qual(rtPath, "Operation"),
			jen.Id("server").Op(":=").Id("c").Dot("server"),
			jen.Switch(jen.Id("e").Dot("Operation")).Block(cases...),
			jen.Return(jen.Id("c").Dot("runner").Dot("Resend").Call(jen.Id("ctx"), jen.Id("op"), jen.Id("server"), jen.Id("e"))),
		)
	return f
}

// resendMethod is ResendIntent as the API interface lists it; nil when
// the client has none.
func resendMethod(ops []*ir.Operation) []clientMethod {
	if len(journalOps(ops)) == 0 {
		return nil
	}
	return []clientMethod{{name: journalMethod,
		params:  []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.Id("e").Op("*").Qual(rtPath, "JournalEntry")},
		results: []jen.Code{jen.Params(jen.Op("*").Qual("net/http", "Response"), jen.Error())}}}
}

// durationCode writes d in its largest whole unit: 48 * time.Hour,
// 90 * time.Minute, 1500 * time.Millisecond.
func durationCode(d time.Duration) jen.Code {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}} {
		if d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}
