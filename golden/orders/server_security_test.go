package orders_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
	idemsrv "github.com/idemgen/idemgen/server"
)

// tokens is the SecurityHandler of the orders tests: it maps credentials to
// principals as a token verifier would. "secret" and its refreshed forms
// "secret-2", "secret-3" are alice's; "readonly" may read but not create.
type tokens struct{}

var _ orders.SecurityHandler = tokens{}

func (tokens) BearerAuth(_ context.Context, op string, c idemsrv.BearerCredential) (string, error) {
	switch c.Token {
	case "secret", "secret-2", "secret-3":
		return "alice", nil
	case "other", "another secret":
		return "bob", nil
	case "readonly":
		if op == "createOrder" {
			return "", fmt.Errorf("token readonly may not %s: %w", op, idemsrv.ErrForbidden)
		}
		return "carol", nil
	case "nul":
		return "a\x00b", nil
	case "long":
		return strings.Repeat("x", idemsrv.MaxPrincipalLen+1), nil
	}
	return "", errors.New("signature does not verify with key kid-7")
}

func (tokens) BasicAuth(_ context.Context, _ string, c idemsrv.BasicCredential) (string, error) {
	if c.Username == "alice" && c.Password == "pw" {
		return "alice", nil
	}
	return "", errors.New("wrong password")
}

func (tokens) APIKeyAuth(_ context.Context, _ string, c idemsrv.APIKeyCredential) (string, error) {
	if c.Value == "k1" {
		return "alice", nil
	}
	return "", errors.New("unknown key")
}

// refreshing is a bearer credential source that hands out alice's token,
// refreshed at every call: "secret", "secret-2", "secret-3"...
func refreshing(n *atomic.Int64) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		if i := n.Add(1); i > 1 {
			return fmt.Sprintf("secret-%d", i), nil
		}
		return "secret", nil
	}
}

// TestServerRefreshedTokenExecutesOnce: one intent, its answer lost after
// the ledger committed, and the bearer token refreshed before the retry
// (the client's credential source is called for every attempt): with
// WithSecurity the keys are scoped by the principal, so the retry finds the
// stored answer and the order is created once. With
// WithCredentialScopedKeys the refreshed token is another scope and the
// order is created twice: the caveat docs/server.md states.
func TestServerRefreshedTokenExecutesOnce(t *testing.T) {
	for _, tc := range []struct {
		opt  idemsrv.Option
		want int64
	}{{idemsrv.WithSecurity(tokens{}), 1}, {idemsrv.WithCredentialScopedKeys(), 2}} {
		h := &echo{order: sampleOrder()}
		url, _ := serveOrders(t, h, dropFirst(t), idemsrv.WithLedger(sqliteLedger(t)), tc.opt)
		var calls atomic.Int64
		c, err := orders.NewClient(url, orders.WithBearerAuthSource(refreshing(&calls)))
		if err != nil {
			t.Fatal(err)
		}
		var log []idemrt.Attempt
		if _, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}, idemrt.WithAttemptLog(&log)); err != nil {
			t.Fatal(err)
		}
		if len(log) != 2 || log[1].Reason != idemrt.ReasonUnknownOutcome || calls.Load() != 2 {
			t.Fatalf("attempts %+v, credential source called %d times; want a retry with a refreshed token", log, calls.Load())
		}
		if n := h.executions.Load(); n != tc.want {
			t.Errorf("executions %d, want %d", n, tc.want)
		}
	}
}

// problemOf sends a raw create with the given Authorization headers and
// returns the answer's status, WWW-Authenticate and problem type.
func problemOf(t *testing.T, url string, auth ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/orders", strings.NewReader(rawOrder))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "k1")
	for _, a := range auth {
		req.Header.Add("Authorization", a)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct{ Type, Detail string }
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%v: Content-Type %q", auth, ct)
		}
		json.NewDecoder(resp.Body).Decode(&p)
		if strings.Contains(p.Detail, "kid-7") || strings.Contains(p.Detail, "readonly") {
			t.Errorf("%v: the SecurityHandler's error reached the client: %q", auth, p.Detail)
		}
	}
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), p.Type
}

// TestServerSecurityRefusals: without credentials a secured create is 401
// with the challenges of its schemes; a refused token is 401 saying so
// (invalid_token), a token the SecurityHandler forbids the operation is 403,
// two Authorization headers are no credentials; none reaches the ledger or
// the handler, and no answer repeats the SecurityHandler's error.
func TestServerSecurityRefusals(t *testing.T) {
	h := &echo{order: sampleOrder()}
	var mu sync.Mutex
	var reported []string
	onError := idemsrv.WithOnError(func(_ *http.Request, err error) {
		mu.Lock()
		reported = append(reported, err.Error())
		mu.Unlock()
	})
	url, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}), onError)
	for _, tc := range []struct {
		auth        []string
		status      int
		challenge   string
		problemType string
	}{
		{nil, 401, `Bearer, Basic realm="api", charset="UTF-8"`, problem.Unauthorized},
		{[]string{"Bearer forged"}, 401, `Bearer error="invalid_token"`, problem.CredentialsRefused},
		{[]string{"Basic " + "YWxpY2U6d3Jvbmc="}, 401, `Basic realm="api", charset="UTF-8"`, problem.CredentialsRefused},
		{[]string{"Bearer readonly"}, 403, "", problem.Forbidden},
		{[]string{"Bearer secret", "Bearer other"}, 401, `Bearer, Basic realm="api", charset="UTF-8"`, problem.Unauthorized},
		{[]string{"Bearer nul"}, 500, "", problem.Internal},
		{[]string{"Bearer long"}, 500, "", problem.Internal},
	} {
		status, challenge, typ := problemOf(t, url, tc.auth...)
		if status != tc.status || challenge != tc.challenge || typ != tc.problemType {
			t.Errorf("%v: %d %q %s; want %d %q %s", tc.auth, status, challenge, typ, tc.status, tc.challenge, tc.problemType)
		}
	}
	if n := h.executions.Load(); n != 0 {
		t.Errorf("executions %d, want 0", n)
	}
	mu.Lock()
	if len(reported) != 2 || !strings.Contains(reported[0], "NUL") || !strings.Contains(reported[1], "longer") {
		t.Errorf("WithOnError got %q, want the two principals the ledger cannot keep", reported)
	}
	mu.Unlock()
	// The generated client reports 401 and 403 as ErrUnauthorized.
	for _, tok := range []string{"forged", "readonly"} {
		bad, _ := orders.NewClient(url, orders.WithBearerAuth(tok))
		if _, err := bad.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}); !errors.Is(err, idemrt.ErrUnauthorized) {
			t.Errorf("token %s: %v, want ErrUnauthorized", tok, err)
		}
	}
	if _, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{}); err != nil || h.executions.Load() != 1 {
		t.Errorf("alice: %v, executions %d", err, h.executions.Load())
	}
}

// principals is an orders.Handler that records idemsrv.Principal(ctx).
type principals struct {
	*echo
	mu   sync.Mutex
	seen []string
}

func (p *principals) note(ctx context.Context) {
	p.mu.Lock()
	p.seen = append(p.seen, idemsrv.Principal(ctx))
	p.mu.Unlock()
}

func (p *principals) CreateOrder(ctx context.Context, body orders.CreateOrderRequest, params orders.CreateOrderParams) (*orders.CreateOrderResult, error) {
	p.note(ctx)
	return p.echo.CreateOrder(ctx, body, params)
}

func (p *principals) GetPayment(ctx context.Context, params orders.GetPaymentParams) (*orders.Payment, error) {
	p.note(ctx)
	return p.echo.GetPayment(ctx, params)
}

func (p *principals) GetHealth(ctx context.Context) (*orders.GetHealthResponse, error) {
	p.note(ctx)
	return p.echo.GetHealth(ctx)
}

// TestServerPrincipalReachesTheHandler: the handler of a keyed create, of
// an unkeyed read (by bearer token, by basic pair, by API key: one
// principal) and of the anonymous health check sees idemsrv.Principal.
func TestServerPrincipalReachesTheHandler(t *testing.T) {
	h := &principals{echo: &echo{order: sampleOrder()}}
	url, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	ctx := context.Background()
	if _, err := c.CreateOrder(ctx, orderBody, orders.CreateOrderParams{}); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []idemrt.Option{orders.WithBearerAuth("other"), orders.WithBasicAuth("alice", "pw"), orders.WithAPIKeyAuth("k1")} {
		c2, _ := orders.NewClient(url, opt)
		if _, err := c2.GetPayment(ctx, orders.GetPaymentParams{PaymentID: "p1"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetHealth(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"alice", "bob", "alice", "alice", ""}
	if strings.Join(h.seen, ",") != strings.Join(want, ",") {
		t.Errorf("principals %q, want %q", h.seen, want)
	}
}

// TestNewServerRefusesSecuredKeysWithoutSecurity: with a ledger, the keyed
// operations under a security requirement need WithSecurity, or
// WithCredentialScopedKeys to keep the per-credential scope; the error names
// them. Without a ledger no key is scoped by the server, and nothing is
// needed. A WithSecurity value that is not the package's SecurityHandler,
// or given with WithCredentialScopedKeys, is refused.
func TestNewServerRefusesSecuredKeysWithoutSecurity(t *testing.T) {
	l := sqliteLedger(t)
	_, err := orders.NewServer(&echo{}, idemsrv.WithLedger(l))
	if !errors.Is(err, idemsrv.ErrNoSecurity) || !strings.Contains(err.Error(), "createOrder, createPayment") {
		t.Errorf("no security: %v", err)
	}
	for _, opts := range [][]idemsrv.Option{
		{idemsrv.WithLedger(l), idemsrv.WithSecurity(tokens{})},
		{idemsrv.WithLedger(l), idemsrv.WithCredentialScopedKeys()},
		{idemsrv.WithoutLedger()},
	} {
		if _, err := orders.NewServer(&echo{}, opts...); err != nil {
			t.Errorf("%v", err)
		}
	}
	for _, opts := range [][]idemsrv.Option{
		{idemsrv.WithLedger(l), idemsrv.WithSecurity(&echo{})},
		{idemsrv.WithLedger(l), idemsrv.WithSecurity(tokens{}), idemsrv.WithCredentialScopedKeys()},
	} {
		if _, err := orders.NewServer(&echo{}, opts...); err == nil || errors.Is(err, idemsrv.ErrNoSecurity) {
			t.Errorf("want a configuration error, got %v", err)
		}
	}
}
