package webhooks_test

// Behaviour tests of the generated webhook receiver on a loopback server,
// its ledger on SQLite: deliveries signed as Standard Webhooks, routed by
// path and by payload type, applied once however often they are delivered.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
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
	"github.com/idemgen/idemgen/server/webhook"
)

var key = []byte("a key of the receiver's own, 32b")

// handler applies each webhook as a row in the ledger's transaction.
type handler struct{}

func (handler) insert(ctx context.Context, webhook, paymentID string) error {
	_, err := ledger.Tx(ctx).ExecContext(ctx, `INSERT INTO applied VALUES (?, ?)`, webhook, paymentID)
	return err
}

func (h handler) PaymentFailed(ctx context.Context, body webhooks.PaymentFailedPayload) error {
	return h.insert(ctx, "failed", body.Payment.ID)
}

func (h handler) PaymentSettled(ctx context.Context, body webhooks.SettlementEvent) error {
	return h.insert(ctx, "settled", body.Payment.ID)
}

func (h handler) PaymentSucceeded(ctx context.Context, body webhooks.PaymentSucceededEvent) error {
	return h.insert(ctx, "succeeded", body.Payment.ID)
}

func TestGeneratedReceiver(t *testing.T) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.DB().ExecContext(ctx, `CREATE TABLE applied (webhook TEXT, payment TEXT)`); err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(ledger.Config{Store: st, Caller: func(*http.Request) (string, error) { return "api", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := webhooks.NewWebhookReceiver(handler{}, webhook.WithLedger(l)); err != webhook.ErrNoVerification {
		t.Fatalf("a receiver without a signature scheme: %v", err)
	}
	now := time.Unix(1_800_000_000, 0)
	rc, err := webhooks.NewWebhookReceiver(handler{}, webhook.WithLedger(l),
		webhook.WithStandardWebhooks("whsec_"+base64.StdEncoding.EncodeToString(key)),
		webhook.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.StripPrefix("/hooks", rc))
	defer srv.Close()
	deliveries := []struct {
		path, id, body string
		status         int
	}{
		{"/hooks/paymentSettled", "m1", `{"id":"e1","payment":{"id":"p1","amount":5}}`, 204},
		{"/hooks/", "m2", `{"id":"e2","type":"payment.succeeded","payment":{"id":"p2","amount":5}}`, 204},
		{"/hooks/", "m2", `{"id":"e2","type":"payment.succeeded","payment":{"id":"p2","amount":5}}`, 204},
		{"/hooks/payment_failed", "m3", `{"id":"e3","type":"payment.failed","payment":{"id":"p3","amount":5}}`, 204},
		{"/hooks/payment_failed", "m3", `{"id":"e3","type":"payment.failed","payment":{"id":"p3","amount":5}}`, 204},
		{"/hooks/", "m4", `{"id":"e4","type":"payment.refunded","payment":{"id":"p4","amount":5}}`, 404},
		{"/hooks/paymentSettled", "m5", `{"id":"e5","payment":"not an object"}`, 400},
	}
	for _, d := range deliveries {
		if got := deliver(t, srv.URL+d.path, d.id, now, d.body); got != d.status {
			t.Errorf("%s %s: %d, want %d", d.path, d.body, got, d.status)
		}
	}
	var rows []string
	r, err := st.DB().Query(`SELECT webhook || ':' || payment FROM applied ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		var s string
		r.Scan(&s)
		rows = append(rows, s)
	}
	if got := strings.Join(rows, " "); got != "failed:p3 settled:p1 succeeded:p2" {
		t.Fatalf("applied %q", got)
	}
}

func deliver(t *testing.T, url, id string, at time.Time, body string) int {
	t.Helper()
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "." + body))
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
