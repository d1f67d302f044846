package orders_test

// Behaviour tests of the SDK surface of issue 12 on loopback: response
// metadata and request ids, credential sources refreshed once on 401, call
// options over client defaults, and the default User-Agent.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// instantClock is a fake clock: waits take no time.
type instantClock struct{}

func (instantClock) Now() time.Time                                   { return time.Unix(1e9, 0) }
func (instantClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// seenRequest is one request as the server read it.
type seenRequest struct {
	path, query, auth, userAgent string
	body                         []byte
}

// surfaceServer serves h on 127.0.0.1, records every request, and returns
// a client made with opts (and an instant clock).
func surfaceServer(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request), opts ...idemrt.Option) (*orders.Client, string, func() []seenRequest) {
	t.Helper()
	var mu sync.Mutex
	var seen []seenRequest
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, seenRequest{r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("User-Agent"), body})
		n := len(seen)
		mu.Unlock()
		h(n, w, r)
	}))
	t.Cleanup(ts.Close)
	opts = append([]idemrt.Option{idemrt.WithClock(instantClock{}), idemrt.WithRandom(func() float64 { return 0 })}, opts...)
	c, err := orders.NewClient(ts.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, ts.URL, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

func payment(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, orders.Payment{ID: "p1", OrderID: "o1", Amount: 1, Currency: "EUR", Status: orders.PaymentStatusCaptured})
}

// TestResponseMetadataAndRequestID: WithResponse gives the final status and
// headers on success and failure; the StatusError carries the request id,
// its message shows it, and a GET's message names no key it never sent.
func TestResponseMetadataAndRequestID(t *testing.T) {
	c, _, _ := surfaceServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/payments/p1" {
			w.Header().Set("X-Request-Id", "req-ok")
			w.Header().Set("X-RateLimit-Remaining", "41")
			payment(w)
			return
		}
		w.Header().Set("Request-Id", "req-404")
		writeJSON(w, http.StatusNotFound, map[string]string{"code": "not_found", "message": "no"})
	}, orders.WithBearerAuth("tok"))
	ctx := context.Background()
	var resp *http.Response
	if p, err := c.GetPayment(ctx, orders.GetPaymentParams{PaymentID: "p1"}, idemrt.WithResponse(&resp)); err != nil || p.ID != "p1" {
		t.Fatalf("%v %v", p, err)
	}
	if resp == nil || resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "41" || resp.Header.Get("X-Request-Id") != "req-ok" {
		t.Fatalf("success metadata %+v", resp)
	}
	_, err := c.GetPayment(ctx, orders.GetPaymentParams{PaymentID: "nope"}, idemrt.WithResponse(&resp))
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.RequestID != "req-404" || resp == nil || resp.StatusCode != 404 || resp.Header.Get("Request-Id") != "req-404" {
		t.Fatalf("err %v resp %+v", err, resp)
	}
	if msg := err.Error(); !strings.Contains(msg, "request id req-404") || strings.Contains(msg, "idempotency key") {
		t.Fatalf("message %q", msg)
	}
	if idemrt.KeyOf(err) == "" {
		t.Fatal("KeyOf lost the reconciliation key")
	}
}

// tokenSource returns "t1", "t2"... and counts its calls and refreshes.
type tokenSource struct {
	mu               sync.Mutex
	calls, refreshes int
}

func (s *tokenSource) get(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if idemrt.CredentialRefresh(ctx) {
		s.refreshes++
	}
	return "t" + string(rune('0'+s.calls)), nil
}

// TestCredentialSourceRefreshesOnce: a 401 makes the client ask the source
// again and resend once (two requests, success); when the fresh token is
// refused too, the call ends with ErrUnauthorized after exactly two.
func TestCredentialSourceRefreshesOnce(t *testing.T) {
	for _, accept := range []string{"Bearer t2", "never"} {
		src := &tokenSource{}
		c, _, seen := surfaceServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != accept {
				writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "expired", "message": "token expired"})
				return
			}
			payment(w)
		}, orders.WithBearerAuthSource(src.get))
		var log []idemrt.Attempt
		_, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"}, idemrt.WithAttemptLog(&log))
		reqs := seen()
		if len(reqs) != 2 || src.calls != 2 || src.refreshes != 1 || reqs[0].auth != "Bearer t1" || reqs[1].auth != "Bearer t2" {
			t.Fatalf("accept %q: %d requests, %d source calls, %d refreshes", accept, len(reqs), src.calls, src.refreshes)
		}
		if len(log) != 2 || log[1].Reason != idemrt.ReasonCredentialRefresh {
			t.Fatalf("accept %q: attempts %+v", accept, log)
		}
		if accept == "never" {
			if !errors.Is(err, idemrt.ErrUnauthorized) {
				t.Fatalf("second 401: %v", err)
			}
		} else if err != nil {
			t.Fatalf("refreshed call: %v", err)
		}
	}
}

// TestBasicCredentialSourceRefreshesOnce: the basic-auth source is asked
// per attempt, its pair is sent per RFC 7617, and a 401 makes the client
// ask again and resend once with the fresh password.
func TestBasicCredentialSourceRefreshesOnce(t *testing.T) {
	var calls int
	source := func(ctx context.Context) (string, string, error) {
		calls++
		if idemrt.CredentialRefresh(ctx) {
			return "ada", "fresh:pw", nil
		}
		return "ada", "stale", nil
	}
	c, _, seen := surfaceServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "ada" || pass != "fresh:pw" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "expired", "message": "password rotated"})
			return
		}
		payment(w)
	}, orders.WithBasicAuthSource(source))
	if _, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"}); err != nil {
		t.Fatalf("refreshed call: %v", err)
	}
	reqs := seen()
	stale := "Basic " + base64.StdEncoding.EncodeToString([]byte("ada:stale"))
	if len(reqs) != 2 || calls != 2 || reqs[0].auth != stale {
		t.Fatalf("%d requests, %d source calls, first Authorization %q", len(reqs), calls, reqs[0].auth)
	}
}

// TestStaticCredentialsFailFastOn401: a static token is never resent.
func TestStaticCredentialsFailFastOn401(t *testing.T) {
	c, _, seen := surfaceServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"code": "expired", "message": "no"})
	}, orders.WithBearerAuth("tok"))
	_, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"})
	if !errors.Is(err, idemrt.ErrUnauthorized) || len(seen()) != 1 {
		t.Fatalf("err %v, %d requests", err, len(seen()))
	}
}

// TestCallOptionsOverrideClientDefaults: the client's WithMaxAttempts and
// WithQuery are the defaults; a call's options override them, add query
// parameters, send elsewhere (WithBaseURL), add JSON members and replace
// the default User-Agent.
func TestCallOptionsOverrideClientDefaults(t *testing.T) {
	c, base, seen := surfaceServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			writeJSON(w, http.StatusCreated, orders.Order{ID: "o1", CustomerID: "c1", Status: orders.OrderStatusPending})
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}, idemrt.WithMaxAttempts(2), idemrt.WithQuery("tier", "client"))
	ctx := context.Background()
	_, _ = c.GetPayment(ctx, orders.GetPaymentParams{PaymentID: "p1"})
	reqs := seen()
	if len(reqs) != 2 || reqs[0].query != "tier=client" || reqs[0].userAgent != idemrt.UserAgent("orders") ||
		!strings.HasPrefix(reqs[0].userAgent, "idemgen/"+idemrt.Version+" (orders)") {
		t.Fatalf("client defaults: %+v", reqs)
	}
	_, _ = c.GetPayment(ctx, orders.GetPaymentParams{PaymentID: "p1"}, idemrt.WithMaxAttempts(3),
		idemrt.WithBaseURL(base+"/v2"), idemrt.WithQuery("beta", "true"), idemrt.WithHeader("User-Agent", "mine/1"))
	reqs = seen()[2:]
	if len(reqs) != 3 || reqs[0].path != "/v2/payments/p1" || reqs[0].query != "tier=client&beta=true" || reqs[0].userAgent != "mine/1" {
		t.Fatalf("call options: %+v", reqs)
	}
	_, err := c.CreateOrder(ctx, orders.CreateOrderRequest{CustomerID: "c1", Items: []orders.LineItem{}},
		orders.CreateOrderParams{}, idemrt.WithJSONField("gift_wrap", true))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	last := seen()[5]
	if json.Unmarshal(last.body, &body) != nil || body["gift_wrap"] != true || body["customer_id"] != "c1" {
		t.Fatalf("JSON body %s", last.body)
	}
}

// TestWithTimeoutOverridesPolicy: a call's WithTimeout replaces the
// policy's total deadline.
func TestWithTimeoutOverridesPolicy(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c, _, _ := surfaceServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}, orders.WithBearerAuth("tok"))
	_, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"}, idemrt.WithTimeout(50*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, idemrt.ErrDeadline) {
		t.Fatalf("err %v", err)
	}
}
