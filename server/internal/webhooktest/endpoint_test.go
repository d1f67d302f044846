package webhooktest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	stripewebhook "github.com/stripe/stripe-go/v82/webhook"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/server/webhook"
)

// sharedLedger is one ledger on SQLite in t.TempDir(), with the applied
// table, the sink that writes to it, and its store.
func sharedLedger(t *testing.T) (*ledger.Ledger, *sink, ledger.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.DB().ExecContext(ctx, `CREATE TABLE applied (webhook TEXT, amount INTEGER)`); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "api", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return l, &sink{db: st.DB()}, st
}

// serveEndpoint serves, on loopback at /hooks/, a receiver whose one
// webhook paymentSucceeded applies as the row tag.
func serveEndpoint(t *testing.T, s *sink, tag string, opts ...webhook.Option) string {
	t.Helper()
	opts = append(opts, webhook.WithClock(func() time.Time { return clockNow }))
	rc, err := webhook.NewReceiver([]webhook.Route{
		webhook.NewRoute("paymentSucceeded", "payment.succeeded", s.apply(tag)),
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/hooks/", rc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/hooks/paymentSucceeded"
}

// TestStripeEndpointsShareALedger: Stripe sends one event, with one id, to
// every endpoint subscribed to its type, each signed with the endpoint's
// own secret (by stripe-go's signer, checked by its verifier). Two
// receivers named with WithWebhookEndpoint on one ledger each apply it
// once; each one's redeliveries are replays.
func TestStripeEndpointsShareALedger(t *testing.T) {
	l, s, _ := sharedLedger(t)
	secrets := map[string]string{"shop": "whsec_shop endpoint", "books": "whsec_books endpoint"}
	urls := map[string]string{}
	for name, secret := range secrets {
		urls[name] = serveEndpoint(t, s, name, webhook.WithLedger(l), webhook.WithEndpoint(name),
			webhook.WithStripeSignature(secret))
	}
	body := []byte(`{"id":"evt_1","object":"event","type":"payment.succeeded","amount":42}`)
	for round := 0; round < 3; round++ {
		for name, secret := range secrets {
			signed := stripewebhook.GenerateTestSignedPayload(&stripewebhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: clockNow})
			if err := stripewebhook.ValidatePayloadIgnoringTolerance(body, signed.Header, secret); err != nil {
				t.Fatalf("stripe-go refuses its own signature: %v", err)
			}
			a := post(t, urls[name], http.Header{"Stripe-Signature": {signed.Header}}, string(body))
			if a.status != 204 || (a.header.Get("Idempotent-Replayed") == "true") != (round > 0) {
				t.Errorf("%s, delivery %d: %d %v %s", name, round+1, a.status, a.header, a.body)
			}
		}
	}
	s.wantApplied(t, map[string]int{"shop": 1, "books": 1})
}

// TestStandardEndpointsShareALedger: the same for Standard Webhooks, whose
// sender gives every endpoint one webhook-id: a named receiver and an
// unnamed one on one ledger each apply it.
func TestStandardEndpointsShareALedger(t *testing.T) {
	l, s, _ := sharedLedger(t)
	key := schemes[0].new
	named := serveEndpoint(t, s, "named", webhook.WithLedger(l), webhook.WithEndpoint("audit"), webhook.WithStandardWebhooks(key))
	unnamed := serveEndpoint(t, s, "unnamed", webhook.WithLedger(l), webhook.WithStandardWebhooks(key))
	body := event("evt_2")
	for _, url := range []string{named, unnamed, named, unnamed} {
		if a := post(t, url, signStandard(key, "msg_2", clockNow, body), body); a.status != 204 {
			t.Fatalf("%s: %d %s", url, a.status, a.body)
		}
	}
	s.wantApplied(t, map[string]int{"named": 1, "unnamed": 1})
}

// TestUnnamedReceiverKeepsRecordedDeliveries: an unnamed receiver records
// deliveries under the identity receivers have always used, ("webhook",
// scheme, id), so a delivery recorded before endpoint scopes existed is
// still a replay; the same id under a named endpoint is not.
func TestUnnamedReceiverKeepsRecordedDeliveries(t *testing.T) {
	l, s, _ := sharedLedger(t)
	old := ledger.ID{Caller: "webhook", Operation: "stripe", Key: "evt_old"}
	if done, err := l.Deliver(context.Background(), old, func(context.Context) error { return nil }); err != nil || done != ledger.Applied {
		t.Fatalf("recording the old delivery: %v, %v", done, err)
	}
	unnamed := serveEndpoint(t, s, "unnamed", webhook.WithLedger(l), webhook.WithStripeSignature("whsec_x"))
	named := serveEndpoint(t, s, "named", webhook.WithLedger(l), webhook.WithEndpoint("new"), webhook.WithStripeSignature("whsec_x"))
	body := event("evt_old")
	if a := post(t, unnamed, signStripe("whsec_x", "", clockNow, body), body); a.status != 204 || a.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the recorded delivery to the unnamed receiver: %d %v", a.status, a.header)
	}
	if a := post(t, named, signStripe("whsec_x", "", clockNow, body), body); a.status != 204 || a.header.Get("Idempotent-Replayed") == "true" {
		t.Errorf("the recorded delivery to a named receiver: %d %v", a.status, a.header)
	}
	s.wantApplied(t, map[string]int{"named": 1})
}

// TestEndpointScopeClaimedOnce: two receivers with one scope (both
// unnamed, or one name twice) on one store do not start, whether they
// share the ledger or each has its own on the store; a bad name is refused;
// Close frees the scope for a replacement.
func TestEndpointScopeClaimedOnce(t *testing.T) {
	l, _, st := sharedLedger(t)
	l2, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "api", nil }})
	if err != nil {
		t.Fatal(err)
	}
	build := func(l *ledger.Ledger, opts ...webhook.Option) (*webhook.Receiver, error) {
		return webhook.NewReceiver(nil, append(opts, webhook.WithLedger(l), webhook.WithGitHubSignature("s"))...)
	}
	first, err := build(l)
	if err != nil {
		t.Fatal(err)
	}
	named, err := build(l, webhook.WithEndpoint("ci"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		l    *ledger.Ledger
		opts []webhook.Option
	}{
		"second unnamed":                 {l, nil},
		"second unnamed, another ledger": {l2, nil},
		"same name twice":                {l2, []webhook.Option{webhook.WithEndpoint("ci")}},
	} {
		if _, err := build(c.l, c.opts...); !errors.Is(err, webhook.ErrConfig) || !errors.Is(err, ledger.ErrDeliveryScope) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, bad := range []string{"", "a\x00b", strings.Repeat("n", 248)} {
		if _, err := build(l, webhook.WithEndpoint(bad)); !errors.Is(err, webhook.ErrConfig) {
			t.Errorf("endpoint %q: %v", bad, err)
		}
	}
	first.Close()
	if _, err := build(l2); err != nil {
		t.Errorf("after Close: %v", err)
	}
	named.Close()
}
