package webhooktest

import (
	"net/http"
	"net/url"
	"testing"

	stripewebhook "github.com/stripe/stripe-go/v82/webhook"

	"github.com/idemgen/idemgen/server/webhook"
)

// TestGitHubCaptureResentWithNewDeliveryID: X-GitHub-Delivery is not
// signed; a captured delivery resent under new ids, as JSON or as the
// form GitHub can send, is applied once: the receiver also records the
// SHA-256 of the signed body.
func TestGitHubCaptureResentWithNewDeliveryID(t *testing.T) {
	srv, s := newReceiver(t, webhook.WithGitHubSignature("gh"))
	target := srv.URL + "/hooks/paymentSucceeded"
	body := event("g1")
	form := "payload=" + url.QueryEscape(event("g2"))
	for i, id := range []string{"d1", "d2", "d3"} {
		a := post(t, target, signGitHub("gh", id, clockNow, body), body)
		f := postAs(t, target, signGitHub("gh", "f"+id, clockNow, form), "application/x-www-form-urlencoded", form)
		for _, got := range []answer{a, f} {
			if got.status != 204 || (got.header.Get("Idempotent-Replayed") == "true") != (i > 0) {
				t.Errorf("delivery %s: %d %v %s", id, got.status, got.header, got.body)
			}
		}
	}
	s.wantApplied(t, map[string]int{"paymentSucceeded": 2})
}

// TestSignedPayloadOnAnotherRoute: a genuine Stripe event (signed by
// stripe-go) of one type posted to another webhook's path, or a GitHub
// delivery whose X-GitHub-Event names another webhook than its path, is
// 400 and nothing runs; the same delivery on its own route is applied.
func TestSignedPayloadOnAnotherRoute(t *testing.T) {
	srv, s := newReceiver(t, webhook.WithStripeSignature("whsec_route"))
	failed := []byte(`{"id":"evt_f","object":"event","type":"payment.failed","amount":1}`)
	signed := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: failed, Secret: "whsec_route", Timestamp: clockNow})
	h := http.Header{"Stripe-Signature": {signed.Header}}
	if a := post(t, srv.URL+"/hooks/paymentSucceeded", h, string(failed)); a.status != 400 || a.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("payment.failed to paymentSucceeded: %d %s", a.status, a.body)
	}
	if s.calls.Load() != 0 {
		t.Fatalf("a misrouted delivery ran a handler %d times", s.calls.Load())
	}
	if a := post(t, srv.URL+"/hooks/paymentFailed", h, string(failed)); a.status != 204 || a.header.Get("Idempotent-Replayed") == "true" {
		t.Errorf("payment.failed to paymentFailed: %d %v %s", a.status, a.header, a.body)
	}

	gh, g := newReceiverOf(t, githubRoutes, webhook.WithGitHubSignature("gh"))
	opened := `{"action":"opened","number":7}`
	for _, c := range []struct{ path, event string }{
		{"/hooks/issues", "pull_request"},
		{"/hooks/pull-request-opened", "issues"},
		{"/hooks/push", "pull_request"},
		{"/hooks/pull-request-opened", "made_up"},
	} {
		hh := signGitHub("gh", "d-"+c.event, clockNow, opened)
		hh.Set("X-GitHub-Event", c.event)
		if a := post(t, gh.URL+c.path, hh, opened); a.status != 400 {
			t.Errorf("%s with X-GitHub-Event %s: %d %s, want 400", c.path, c.event, a.status, a.body)
		}
	}
	hh := signGitHub("gh", "d-ok", clockNow, opened)
	hh.Set("X-GitHub-Event", "pull_request")
	if a := post(t, gh.URL+"/hooks/pull-request-opened", hh, opened); a.status != 204 {
		t.Errorf("on its own path: %d %s", a.status, a.body)
	}
	s.wantApplied(t, map[string]int{"paymentFailed": 1})
	g.wantApplied(t, map[string]int{"pull-request-opened": 1})
}
