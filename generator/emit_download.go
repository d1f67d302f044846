package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// emitDownload emits a method that hands the answer's bytes to the caller
// as a reader: the main method of an operation whose success bodies are all
// binary, or <Op>Download beside one that also answers JSON or text:
//
//	func (c *Client) GetInvoicePDF(ctx context.Context, params GetInvoicePDFParams,
//		opts ...idemrt.CallOption) (*idemrt.Body, error) {
//		b := wire.NewBuilder(c.server, "GET", "/invoices/{invoice_id}/pdf")
//		b.Path(wire.Param{Name: "invoice_id", Style: wire.StyleSimple}, params.InvoiceID)
//		req, err := b.Build()
//		if err != nil {
//			return nil, idemrt.BuildFailed(&getInvoicePDFOp, "", err)
//		}
//		return idemrt.Download(ctx, c.runner, &getInvoicePDFOp, req, opts...)
//	}
//
// <Op>Download sends Accept with the binary media types, so that a server
// negotiating by Accept answers the bytes.
func (g *generation) emitDownload(op *ir.Operation, name string) jen.Code {
	types := binaryTypes(op)
	accept := strings.Join(appendNew(nil, types...), ", ")
	if name == op.GoName {
		accept = mainAccept(op)
	}
	fail := func(err jen.Code) jen.Code { return jen.List(jen.Nil(), err) }
	body := g.requestStatements(op, accept, fail)
	call := jen.Qual(rtPath, "Download").Call(jen.Id("ctx"), jen.Id("c").Dot("runner"),
		jen.Op("&").Id(g.opNames[op].contract), jen.Id("req"), jen.Id("opts").Op("..."))
	body = append(body, g.returnWithErrorModel(op, "out", call)...)
	ret := downloadResults()
	return downloadDoc(op, name, types).
		Func().Params(jen.Id("c").Op("*").Id("Client")).Id(name).Params(g.methodArgs(op)...).Add(ret).Block(body...)
}

// downloadResults is the result list of a download method:
// (*idemrt.Body, error).
func downloadResults() jen.Code {
	return jen.Params(jen.Op("*").Qual(rtPath, "Body"), jen.Error())
}

// downloadDoc is the doc comment of a download method: what it reads and
// how a dropped download is retried, then the contract and the operation's
// text (for the main method) or the main method's name before the contract.
func downloadDoc(op *ir.Operation, name string, types []string) *jen.Statement {
	media := inlineText(strings.Join(types, ", "))
	where := fmt.Sprintf("%s %s (%s).", op.Method, op.Path, opLabel(op))
	if name == op.GoName {
		what := fmt.Sprintf("The answer (%s) is a reader the caller must close. %s", media, downloadRetry(op))
		return commentLead(true, op.Retry.Summary, what, sentence(op.Summary), op.Description, where, deprecated(op.Deprecated))
	}
	lead := fmt.Sprintf("%s is %s with the answer's bytes (%s) as a reader the caller must close. %s", name, op.GoName, media, op.Retry.Summary)
	return commentLead(true, lead, downloadRetry(op), where, deprecated(op.Deprecated))
}

// downloadRetry says in one sentence what happens when a download drops,
// as the runtime does it (idemrt.Body).
func downloadRetry(op *ir.Operation) string {
	if op.Retry.Safety == ir.Unsafe {
		return "A dropped download is not resumed: the request may have executed."
	}
	return "A dropped download resumes with a Range request when the server allows it (Accept-Ranges, a strong ETag)."
}
