package webhooktest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/server/webhook"
)

// payment is the payload model of the test's webhooks.
type payment struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Amount int    `json:"amount"`
}

// sink applies deliveries as rows of the applied table, in the ledger's
// transaction; failNext makes the next call fail after writing.
type sink struct {
	db       *sql.DB
	failNext atomic.Bool
	calls    atomic.Int32
}

func (s *sink) apply(which string) func(ctx context.Context, p payment) error {
	return func(ctx context.Context, p payment) error {
		s.calls.Add(1)
		q := `INSERT INTO applied (webhook, amount) VALUES (?, ?)`
		var err error
		if tx := ledger.Tx(ctx); tx != nil {
			_, err = tx.ExecContext(ctx, q, which, p.Amount)
		} else {
			_, err = s.db.ExecContext(ctx, q, which, p.Amount)
		}
		if err == nil && s.failNext.CompareAndSwap(true, false) {
			return errors.New("secret internal failure text")
		}
		return err
	}
}

// wantApplied: the sink applied exactly want, by webhook, and nothing else.
func (s *sink) wantApplied(t *testing.T, want map[string]int) {
	t.Helper()
	got, total := s.applied(t), 0
	for w, n := range want {
		total += n
		if got[w] != n {
			t.Errorf("%s applied %d, want %d (all: %v)", w, got[w], n, got)
		}
	}
	if s.total(t) != total {
		t.Errorf("applied %v, want %v", got, want)
	}
}

func (s *sink) applied(t *testing.T) map[string]int {
	t.Helper()
	rows, err := s.db.Query(`SELECT webhook, COUNT(*) FROM applied GROUP BY webhook`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var w string
		var n int
		if err := rows.Scan(&w, &n); err != nil {
			t.Fatal(err)
		}
		got[w] = n
	}
	return got
}

func (s *sink) total(t *testing.T) int {
	n := 0
	for _, c := range s.applied(t) {
		n += c
	}
	return n
}

var clockNow = time.Unix(1_800_000_000, 0)

// newReceiver serves a receiver with two webhooks on a loopback server,
// its ledger on SQLite in t.TempDir(), at /hooks/.
func newReceiver(t *testing.T, opts ...webhook.Option) (*httptest.Server, *sink) {
	t.Helper()
	return newReceiverOf(t, func(s *sink) []webhook.Route {
		return []webhook.Route{
			webhook.NewRoute("paymentSucceeded", "payment.succeeded", s.apply("paymentSucceeded")),
			webhook.NewRoute("paymentFailed", "", s.apply("paymentFailed")),
		}
	}, opts...)
}

// newReceiverOf is newReceiver with the routes made by routes.
func newReceiverOf(t *testing.T, routes func(*sink) []webhook.Route, opts ...webhook.Option) (*httptest.Server, *sink) {
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
	s := &sink{db: st.DB()}
	opts = append([]webhook.Option{webhook.WithLedger(l), webhook.WithClock(func() time.Time { return clockNow })}, opts...)
	rc, err := webhook.NewReceiver(routes(s), opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/hooks/", rc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, s
}

type answer struct {
	status int
	header http.Header
	body   string
}

func post(t *testing.T, url string, h http.Header, body string) answer {
	t.Helper()
	return postAs(t, url, h, "application/json", body)
}

// postAs delivers body as contentType with the headers h.
func postAs(t *testing.T, url string, h http.Header, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func hmacOf(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// signer signs a delivery the way one sender does.
type signer func(key string, id string, at time.Time, body string) http.Header

func signStandard(key, id string, at time.Time, body string) http.Header {
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(key, "whsec_"))
	ts := strconv.FormatInt(at.Unix(), 10)
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(hmacOf(raw, id+"."+ts+"."+body)))
	return h
}

func signStripe(key, _ string, at time.Time, body string) http.Header {
	ts := strconv.FormatInt(at.Unix(), 10)
	h := http.Header{}
	h.Set("Stripe-Signature", "t="+ts+",v1="+hex.EncodeToString(hmacOf([]byte(key), ts+"."+body)))
	return h
}

func signGitHub(key, id string, _ time.Time, body string) http.Header {
	h := http.Header{}
	h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(hmacOf([]byte(key), body)))
	h.Set("X-GitHub-Delivery", id)
	return h
}

// scheme is one sender under test: its option, its two keys (old, new),
// and whether it signs a timestamp.
type scheme struct {
	name     string
	option   func(secrets ...string) webhook.Option
	sign     signer
	old, new string
	stamped  bool
}

var schemes = []scheme{
	{"standard", webhook.WithStandardWebhooks, signStandard,
		"whsec_" + base64.StdEncoding.EncodeToString([]byte("old key of thirty-two bytes!!!!!")),
		"whsec_" + base64.StdEncoding.EncodeToString([]byte("new key of thirty-two bytes!!!!!")), true},
	{"stripe", webhook.WithStripeSignature, signStripe, "whsec_old", "whsec_new", true},
	{"github", webhook.WithGitHubSignature, signGitHub, "old secret", "new secret", false},
}

// event is a payload whose id member is the delivery id (Stripe's
// scheme reads it there; the others carry it in a header too).
func event(id string) string {
	return `{"id":"` + id + `","type":"payment.succeeded","amount":42}`
}
