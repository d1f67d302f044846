package webhooks_test

// Behaviour tests of the generated receiver against the replays and
// misroutes of issue 28: two receivers (endpoints) on one ledger each
// apply the event both are sent; a captured GitHub delivery resent with a
// new X-GitHub-Delivery is a replay; a signed payload posted to another
// webhook's route is refused before its handler runs.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/webhooks"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
	"github.com/idemgen/idemgen/server/webhook"
)

// endpointHandler applies each webhook as a row naming its endpoint.
type endpointHandler struct{ endpoint string }

func (h endpointHandler) insert(ctx context.Context, webhook, paymentID string) error {
	_, err := ledger.Tx(ctx).ExecContext(ctx, `INSERT INTO applied VALUES (?, ?)`, h.endpoint+"/"+webhook, paymentID)
	return err
}

func (h endpointHandler) PaymentFailed(ctx context.Context, body webhooks.PaymentFailedPayload) error {
	return h.insert(ctx, "failed", body.Payment.ID)
}

func (h endpointHandler) PaymentSettled(ctx context.Context, body webhooks.SettlementEvent) error {
	return h.insert(ctx, "settled", body.Payment.ID)
}

func (h endpointHandler) PaymentSucceeded(ctx context.Context, body webhooks.PaymentSucceededEvent) error {
	return h.insert(ctx, "succeeded", body.Payment.ID)
}

var hardenedNow = time.Unix(1_800_000_000, 0)

// openLedger is a ledger on SQLite in t.TempDir() with the applied table.
func openLedger(t *testing.T) (*ledger.Ledger, *sqlstore.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.DB().ExecContext(ctx, `CREATE TABLE applied (webhook TEXT, payment TEXT)`); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "api", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return l, st
}

// serve mounts a generated receiver for endpoint at /hooks on loopback.
func serve(t *testing.T, endpoint string, opts ...webhook.Option) *httptest.Server {
	t.Helper()
	opts = append(opts, webhook.WithClock(func() time.Time { return hardenedNow }))
	rc, err := webhooks.NewWebhookReceiver(endpointHandler{endpoint}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.StripPrefix("/hooks", rc))
	t.Cleanup(srv.Close)
	return srv
}

// appliedRows lists the applied rows as "endpoint/webhook:payment", sorted.
func appliedRows(t *testing.T, st *sqlstore.Store) string {
	t.Helper()
	r, err := st.DB().Query(`SELECT webhook || ':' || payment FROM applied ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rows []string
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, s)
	}
	return strings.Join(rows, " ")
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// standardHeaders signs body as Standard Webhooks with the raw key.
func standardHeaders(key []byte, id, body string) http.Header {
	ts := strconv.FormatInt(hardenedNow.Unix(), 10)
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(hmacSHA256(key, id+"."+ts+"."+body)))
	return h
}

// githubHeaders signs body as GitHub does: the body alone, the delivery
// id and the event beside the signature, unsigned.
func githubHeaders(secret, delivery, event, body string) http.Header {
	h := http.Header{}
	h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(hmacSHA256([]byte(secret), body)))
	h.Set("X-GitHub-Delivery", delivery)
	h.Set("X-GitHub-Event", event)
	return h
}

type reply struct {
	status   int
	replayed bool
}

func send(t *testing.T, url string, h http.Header, body string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return reply{resp.StatusCode, resp.Header.Get("Idempotent-Replayed") == "true"}
}

// TestGeneratedReceiversShareALedger: a sender sends one event, with one
// webhook-id, to each endpoint subscribed to it. Two receivers, each
// named with WithWebhookEndpoint, on one ledger: each applies it once,
// and each answers its own redelivery as a replay. A second unnamed
// receiver on the same ledger does not start.
func TestGeneratedReceiversShareALedger(t *testing.T) {
	l, st := openLedger(t)
	keys := map[string][]byte{"orders": []byte("the orders endpoint's own key!!!"), "billing": []byte("the billing endpoint's own key!!")}
	urls := map[string]string{}
	for _, name := range []string{"orders", "billing"} {
		urls[name] = serve(t, name, webhook.WithLedger(l), webhook.WithEndpoint(name),
			webhook.WithStandardWebhooks("whsec_"+base64.StdEncoding.EncodeToString(keys[name]))).URL
	}
	body := `{"id":"evt_1","type":"payment.succeeded","payment":{"id":"p1","amount":5}}`
	for round := 0; round < 2; round++ {
		for _, name := range []string{"orders", "billing"} {
			got := send(t, urls[name]+"/hooks/paymentSucceeded", standardHeaders(keys[name], "msg_1", body), body)
			if got.status != 204 || got.replayed != (round > 0) {
				t.Errorf("%s, delivery %d: %+v, want 204, replayed %v", name, round+1, got, round > 0)
			}
		}
	}
	if got := appliedRows(t, st); got != "billing/succeeded:p1 orders/succeeded:p1" {
		t.Fatalf("applied %q, want the event once per endpoint", got)
	}
	kept, first := webhooks.NewWebhookReceiver(endpointHandler{"a"}, webhook.WithLedger(l), webhook.WithGitHubSignature("s"))
	_, second := webhooks.NewWebhookReceiver(endpointHandler{"b"}, webhook.WithLedger(l), webhook.WithGitHubSignature("s"))
	if first != nil || !errors.Is(second, webhook.ErrConfig) || !errors.Is(second, ledger.ErrDeliveryScope) {
		t.Fatalf("two unnamed receivers on one ledger: %v, then %v", first, second)
	}
	// The first holds its scope while it is reachable, until closed.
	kept.Close()
	if _, err := webhooks.NewWebhookReceiver(endpointHandler{"b"}, webhook.WithLedger(l), webhook.WithGitHubSignature("s")); err != nil {
		t.Fatalf("after the first receiver's Close: %v", err)
	}
}

// TestGeneratedGitHubCaptureResent: GitHub's delivery id is not signed, so
// a captured delivery can be resent with a new X-GitHub-Delivery; the same
// signed body is the same delivery, applied once. A new body is applied.
func TestGeneratedGitHubCaptureResent(t *testing.T) {
	l, st := openLedger(t)
	url := serve(t, "", webhook.WithLedger(l), webhook.WithGitHubSignature("gh secret")).URL + "/hooks/paymentSettled"
	body := `{"id":"e1","payment":{"id":"p1","amount":5}}`
	steps := []struct {
		delivery, body string
		replayed       bool
	}{
		{"d-1", body, false},
		{"d-2", body, true},
		{"d-3", body, true},
		{"d-1", body, true},
		{"d-4", `{"id":"e2","payment":{"id":"p2","amount":5}}`, false},
	}
	for _, s := range steps {
		got := send(t, url, githubHeaders("gh secret", s.delivery, "paymentSettled", s.body), s.body)
		if got.status != 204 || got.replayed != s.replayed {
			t.Errorf("%s: %+v, want 204, replayed %v", s.delivery, got, s.replayed)
		}
	}
	if got := appliedRows(t, st); got != "/settled:p1 /settled:p2" {
		t.Fatalf("applied %q, want p1 and p2 once each", got)
	}
}

// TestGeneratedReceiverWrongRoute: a signed payload posted to another
// webhook's path, or with another X-GitHub-Event, is 400 and no handler
// runs; nothing is recorded, so the same delivery on its own route is
// applied.
func TestGeneratedReceiverWrongRoute(t *testing.T) {
	l, st := openLedger(t)
	key := []byte("a key of the receiver's own, 32b")
	url := serve(t, "", webhook.WithLedger(l), webhook.WithStandardWebhooks("whsec_"+base64.StdEncoding.EncodeToString(key))).URL
	succeeded := `{"id":"e1","type":"payment.succeeded","payment":{"id":"p1","amount":5}}`
	for _, path := range []string{"/hooks/payment_failed", "/hooks/paymentSettled"} {
		if got := send(t, url+path, standardHeaders(key, "m1", succeeded), succeeded); got.status != 400 {
			t.Errorf("payment.succeeded to %s: %+v, want 400", path, got)
		}
	}
	if got := appliedRows(t, st); got != "" {
		t.Fatalf("misrouted deliveries applied %q", got)
	}
	if got := send(t, url+"/hooks/paymentSucceeded", standardHeaders(key, "m1", succeeded), succeeded); got.status != 204 || got.replayed {
		t.Errorf("the same delivery on its route: %+v, want 204 applied", got)
	}

	gl, gst := openLedger(t)
	gh := serve(t, "", webhook.WithLedger(gl), webhook.WithGitHubSignature("gh secret")).URL
	settled := `{"id":"e2","payment":{"id":"p2","amount":5}}`
	for _, c := range []struct{ path, event string }{
		{"/hooks/paymentSettled", "payment_failed"},
		{"/hooks/payment_failed", "paymentSettled"},
	} {
		if got := send(t, gh+c.path, githubHeaders("gh secret", "d1", c.event, settled), settled); got.status != 400 {
			t.Errorf("%s with X-GitHub-Event %s: %+v, want 400", c.path, c.event, got)
		}
	}
	if got := send(t, gh+"/hooks/paymentSettled", githubHeaders("gh secret", "d1", "paymentSettled", settled), settled); got.status != 204 || got.replayed {
		t.Errorf("the GitHub delivery on its route: %+v, want 204 applied", got)
	}
	if got := appliedRows(t, st) + " " + appliedRows(t, gst); got != "/succeeded:p1 /settled:p2" {
		t.Fatalf("applied %q, want each delivery once, on its own route", got)
	}
}
