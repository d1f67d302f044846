package orders_test

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// credentials records the credentials each request path arrived with.
type credentials struct {
	mu     sync.Mutex
	bearer map[string]string
	apiKey map[string]string
}

// securedClient serves canned answers on 127.0.0.1 and returns a client
// configured with the given options.
func securedClient(t *testing.T, opts ...idemrt.Option) (*orders.Client, *credentials) {
	t.Helper()
	seen := &credentials{bearer: map[string]string{}, apiKey: map[string]string{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.mu.Lock()
		seen.bearer[r.URL.Path] = r.Header.Get("Authorization")
		seen.apiKey[r.URL.Path] = r.Header.Get("X-API-Key")
		seen.mu.Unlock()
		switch r.URL.Path {
		case "/health":
			writeJSON(w, http.StatusOK, map[string]string{"status": "up"})
		default:
			writeJSON(w, http.StatusOK, orders.Payment{ID: "p1", OrderID: "o1", Amount: 1, Currency: "EUR", Status: orders.PaymentStatusCaptured})
		}
	}))
	t.Cleanup(ts.Close)
	c, err := orders.NewClient(ts.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, seen
}

// TestCredentialsOnlyWhereTheOperationNeedsThem: `security: []` sends no
// credentials; an operation whose alternatives list bearerAuth and
// apiKeyAuth gets every configured one; the others get the root's bearer.
func TestCredentialsOnlyWhereTheOperationNeedsThem(t *testing.T) {
	c, seen := securedClient(t, orders.WithBearerAuth("tok"), orders.WithAPIKeyAuth("k1"))
	ctx := context.Background()
	if h, err := c.GetHealth(ctx); err != nil || h.Status != "up" {
		t.Fatalf("GetHealth: %v %v", h, err)
	}
	if _, err := c.GetPayment(ctx, orders.GetPaymentParams{PaymentID: "p1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CapturePayment(ctx, nil, orders.CapturePaymentParams{PaymentID: "p1"}); err != nil {
		t.Fatal(err)
	}
	want := []struct{ path, bearer, key string }{
		{"/health", "", ""},
		{"/payments/p1", "Bearer tok", "k1"},
		{"/payments/p1/capture", "Bearer tok", ""},
	}
	for _, w := range want {
		if seen.bearer[w.path] != w.bearer || seen.apiKey[w.path] != w.key {
			t.Errorf("%s: Authorization %q, X-API-Key %q; want %q, %q", w.path, seen.bearer[w.path], seen.apiKey[w.path], w.bearer, w.key)
		}
	}
}

// TestAlternativeSchemesApplyWhatIsConfigured: with only the API key
// configured, the operation that accepts it sends it and nothing else.
func TestAlternativeSchemesApplyWhatIsConfigured(t *testing.T) {
	c, seen := securedClient(t, orders.WithAPIKeyAuth("k2"))
	if _, err := c.GetPayment(context.Background(), orders.GetPaymentParams{PaymentID: "p1"}); err != nil {
		t.Fatal(err)
	}
	if seen.bearer["/payments/p1"] != "" || seen.apiKey["/payments/p1"] != "k2" {
		t.Fatalf("Authorization %q, X-API-Key %q", seen.bearer["/payments/p1"], seen.apiKey["/payments/p1"])
	}
}

// cannedDoer answers every request with 200 and a small JSON body, without
// a network, so allocations can be counted.
type cannedDoer struct{}

func (cannedDoer) Do(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"status":"up"}`)), Request: r}, nil
}

// TestSkippedCredentialsCostNoAllocation: an authentication option that
// skips an operation outside its scheme adds no allocation to the call.
//
// The counts are averages over many calls compared within half an
// allocation, not testing.AllocsPerRun's truncated integers: under the race
// detector sync.Pool drops a random quarter of what is put back (the JSON
// codec pools its buffers), so the mean count is fractional and two equal
// paths could truncate to different integers. One allocation more per call
// still shows.
func TestSkippedCredentialsCostNoAllocation(t *testing.T) {
	allocs := func(opts ...idemrt.Option) float64 {
		c, err := orders.NewClient("http://127.0.0.1:1", append(opts, idemrt.WithHTTPClient(cannedDoer{}))...)
		if err != nil {
			t.Fatal(err)
		}
		call := func() {
			if _, err := c.GetHealth(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		call() // warm up
		const runs = 2000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			call()
		}
		runtime.ReadMemStats(&after)
		return float64(after.Mallocs-before.Mallocs) / runs
	}
	plain, withAuth := allocs(), allocs(orders.WithBearerAuth("tok"), orders.WithAPIKeyAuth("k"))
	t.Logf("GetHealth: %.2f allocations per call without credentials, %.2f with skipped ones", plain, withAuth)
	if math.Abs(withAuth-plain) >= 0.5 {
		t.Fatalf("GetHealth: %.2f allocations with skipped credentials, %.2f without", withAuth, plain)
	}
}
