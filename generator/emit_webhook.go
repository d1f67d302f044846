package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// srvPath is the runtime of generated servers (idemsrv).
const srvPath = "github.com/idemgen/idemgen/server"

// webhookPath is the runtime of generated webhook receivers.
const webhookPath = "github.com/idemgen/idemgen/server/webhook"

// webhookNames are the identifiers webhook_receiver_gen.go declares.
var webhookNames = []string{"WebhookHandler", "WebhookReceiver", "NewWebhookReceiver"}

// wantsWebhooks reports whether the output has a webhook receiver: a server
// was asked for and the document declares webhooks.
func (g *generation) wantsWebhooks() bool {
	return g.cfg.Server && len(g.api.Webhooks) > 0
}

// reserveWebhooks claims the receiver's names before the models claim
// theirs, so a schema of the same name is the one renamed.
func (g *generation) reserveWebhooks() {
	if g.wantsWebhooks() {
		for _, n := range webhookNames {
			g.ns.claim(n, "")
		}
	}
}

// webhooksFile is webhook_receiver_gen.go: the WebhookHandler interface, the
// WebhookReceiver type and NewWebhookReceiver.
func (g *generation) webhooksFile() *jen.File {
	f := g.newFile()
	f.ImportName(webhookPath, "webhook")
	f.Add(g.emitWebhookHandler())
	f.Line().Add(emitWebhookReceiver(g.api.Webhooks))
	return f
}

// emitWebhookHandler emits the interface a receiver's author implements:
//
//	type WebhookHandler interface {
//		// PaymentSucceeded receives the paymentSucceeded webhook ...
//		PaymentSucceeded(ctx context.Context, body Payment) error
//	}
func (g *generation) emitWebhookHandler() jen.Code {
	methods := make([]jen.Code, 0, len(g.api.Webhooks))
	for _, w := range g.api.Webhooks {
		methods = append(methods, g.webhookDoc(w).
			Id(w.GoName).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("body").Add(g.goType(w.Payload))).Error())
	}
	return comment("WebhookHandler receives the webhooks the API sends, one method per webhook, " +
		"given its verified and decoded payload. A method that returns an error (or panics) is answered 500 " +
		"and the sender delivers again; under webhook.WithLedger, its writes in ledger.Tx(ctx) roll back, and a " +
		"delivery it applied is never applied again.").
		Type().Id("WebhookHandler").Interface(methods...)
}

// webhookDoc is a handler method's comment: what it receives, then the
// document's summary and description.
func (g *generation) webhookDoc(w *ir.Webhook) *jen.Statement {
	lead := fmt.Sprintf("%s receives the %s webhook", w.GoName, inlineText(w.Name))
	if w.EventType != "" && w.EventType != w.Name {
		lead += fmt.Sprintf(" (payload type %s)", inlineText(w.EventType))
	}
	paras := []string{lead + "."}
	paras = append(paras, w.Summary, w.Description)
	if w.Deprecated {
		paras = append(paras, "Deprecated: the document marks this webhook deprecated.")
	}
	return g.commentLead(true, paras...)
}

// emitWebhookReceiver emits the receiver's type and constructor:
//
//	type WebhookReceiver = webhook.Receiver
//
//	func NewWebhookReceiver(h WebhookHandler, opts ...webhook.Option) (*WebhookReceiver, error) {
//		return webhook.NewReceiver([]webhook.Route{
//			webhook.NewRoute("paymentSucceeded", "payment.succeeded", h.PaymentSucceeded),
//		}, opts...)
//	}
func emitWebhookReceiver(hooks []*ir.Webhook) jen.Code {
	routes := make([]jen.Code, 0, len(hooks))
	for _, w := range hooks {
		routes = append(routes, jen.Line().Qual(webhookPath, "NewRoute").Call(
			jen.Lit(w.Name), jen.Lit(w.EventType), jen.Id("h").Dot(w.GoName)))
	}
	routes = append(routes, jen.Line())
	return jen.Add(comment("WebhookReceiver is the http.Handler that receives the API's webhooks: "+
		"it verifies each delivery's signature on the raw body, routes it by the last path segment "+
		"(the webhook's name) or, on the receiver's root, by X-GitHub-Event or the payload's type, "+
		"decodes it and runs its WebhookHandler method at most once per delivery id.")).
		Type().Id("WebhookReceiver").Op("=").Qual(webhookPath, "Receiver").Line().Line().
		Add(comment("NewWebhookReceiver returns the receiver of h's webhooks. It refuses to start without "+
			"a signature option (webhook.WithStandardWebhooks, WithStripeSignature, WithGitHubSignature) or "+
			"a ledger (webhook.WithLedger) unless webhook.WithoutVerification or WithoutDedupe "+
			"says so.")).
		Func().Id("NewWebhookReceiver").Params(jen.Id("h").Id("WebhookHandler"), jen.Id("opts").Op("...").Qual(webhookPath, "Option")).
		Params(jen.Op("*").Id("WebhookReceiver"), jen.Error()).Block(
		jen.Return(jen.Qual(webhookPath, "NewReceiver").Call(
			jen.Index().Qual(webhookPath, "Route").Values(routes...), jen.Id("opts").Op("..."))),
	)
}
