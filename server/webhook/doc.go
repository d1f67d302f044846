// Package webhook is the runtime of generated webhook receivers: a
// Receiver verifies each delivery's signature on the raw body (Standard
// Webhooks, Stripe, GitHub), routes it to its webhook, decodes it and runs
// its handler at most once per delivery id through the ledger.
//
// Generated code calls NewReceiver with one NewRoute per webhook; a
// receiver's author meets only the options:
//
//	rc, err := payments.NewWebhookReceiver(h, webhook.WithStandardWebhooks(secret), webhook.WithLedger(l))
//
// It is a package of its own, not part of idemsrv, because it is a product
// of its own: its own options, errors and callers, tied to the generated
// server by nothing but the problem vocabulary (runtime/problem) and the
// ledger. See docs/webhooks.md.
//
// Files: receiver.go, Route, Receiver, NewReceiver and routing a delivery;
// options.go, Option and the errors of NewReceiver; verify.go, the
// signature schemes and their errors; body.go, reading a delivery's body
// and running its handler once; match.go, the route agreeing with the
// payload.
package webhook
