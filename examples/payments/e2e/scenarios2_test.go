package e2e

import (
	"bytes"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/idemgen/idemgen/examples/payments/client"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// serverDefaultTTL is the payments server's default -ttl.
const serverDefaultTTL = 24 * time.Hour

// Scenario 5: a key resent just after it expired executes again (the
// documented behaviour: an expired key is an absent key), and the client
// never resends a key after its own total deadline, which is shorter than
// the server's TTL, so a retry can never land after expiry.
func TestScenario5KeyResentAfterExpiry(t *testing.T) {
	for _, c := range []idemrt.Class{idemrt.Interactive, idemrt.Background} {
		if d := idemrt.DefaultPolicy(c).Timeout; d <= 0 || d >= serverDefaultTTL {
			t.Errorf("%s client deadline %v is not shorter than the server TTL %v", c, d, serverDefaultTTL)
		}
	}
	forEachBackend(t, func(t *testing.T, b *backend) {
		const ttl = 2 * time.Second
		p := startServer(t, b, nil, "-ttl", ttl.String(), "-lease", ttl.String())
		resendAfterExpiry(t, b, p)
		noResendAfterDeadline(t, b, p, ttl)
	})
}

// resendAfterExpiry: once the key's TTL has passed, the same key and body
// execute again (a second order), as documented in docs/ledger.md.
func resendAfterExpiry(t *testing.T, b *backend, p *proc) {
	c := newClient(t, p, "alice")
	first, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s5-key"})
	if err != nil {
		t.Fatal(err)
	}
	var expires int64
	b.db.QueryRow(`SELECT expires_at FROM idem_ledger WHERE idem_key = 's5-key'`).Scan(&expires)
	time.Sleep(time.Until(time.Unix(0, expires)) + 20*time.Millisecond)
	second, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s5-key"})
	if err != nil || second.ID == first.ID {
		t.Fatalf("after expiry: %+v, %v; want a new order (documented: an expired key is absent)", second, err)
	}
	b.wantRows(t, "alice", 2, 2, 2)
}

// noResendAfterDeadline: a client whose deadline (700ms) is shorter than
// the TTL, facing a server that keeps failing, sends every attempt of its
// key inside its deadline, and nothing arrives after the call returned.
func noResendAfterDeadline(t *testing.T, b *backend, p *proc, ttl time.Duration) {
	pol := idemrt.Policy{MaxAttempts: 100, BaseDelay: 20 * time.Millisecond, MaxDelay: 80 * time.Millisecond,
		Timeout: 700 * time.Millisecond, MinAttempt: 10 * time.Millisecond}
	// The deadline alone must stop this call: neither the budget nor the
	// adaptive throttle (which a hundred failures would set off) is on.
	short := newClient(t, p, "alice", idemrt.WithPolicy(idemrt.Interactive, pol),
		idemrt.WithBudget(idemrt.Interactive, idemrt.Budget{Unlimited: true}), idemrt.WithoutAdaptiveThrottle())
	p.unavailable(t, time.Minute, "")
	start := time.Now()
	_, err := short.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s5-deadline"})
	ended := time.Now()
	if !errors.Is(err, idemrt.ErrDeadline) {
		t.Fatalf("got %v, want the call to stop at its deadline", err)
	}
	time.Sleep(200 * time.Millisecond)
	arr := p.arrivals(t)
	if len(arr) < 2 {
		t.Fatalf("%d attempts arrived; the deadline test needs retries", len(arr))
	}
	for _, a := range arr {
		// Arrival times are server-side, so a loaded machine adds latency;
		// what must hold is that nothing arrives after the call gave up,
		// and so never after the key's TTL.
		if a.After(ended) || a.Sub(start) >= ttl {
			t.Errorf("an attempt arrived %v after the call started (call ended after %v; TTL %v)",
				a.Sub(start), ended.Sub(start), ttl)
		}
	}
	t.Logf("%s: %d attempts within the %v deadline, last %v after the start", b.name, len(arr), pol.Timeout, arr[len(arr)-1].Sub(start))
}

// Scenario 6: Retry-After longer than the time left stops the client at
// once, without sleeping; the server saw one request.
func TestScenario6RetryAfterBeyondDeadline(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		p := startServer(t, b, nil)
		pol := idemrt.DefaultPolicy(idemrt.Interactive)
		pol.Timeout, pol.MaxRetryAfter = 5*time.Second, 0 // only the deadline limits the hint
		c := newClient(t, p, "alice", idemrt.WithPolicy(idemrt.Interactive, pol))
		p.unavailable(t, time.Minute, "30")
		var log []idemrt.Attempt
		start := time.Now()
		_, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s6-key"}, idemrt.WithAttemptLog(&log))
		elapsed := time.Since(start)
		var se *idemrt.StatusError
		if !errors.Is(err, idemrt.ErrRetryAfterTooLong) || !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("got %v, want a 503 stopped by ErrRetryAfterTooLong", err)
		}
		if len(log) != 1 || log[0].Wait != 0 {
			t.Fatalf("attempts = %+v, want one attempt and no wait", log)
		}
		if n := len(p.arrivals(t)); n != 1 {
			t.Fatalf("the server saw %d requests, want 1", n)
		}
		if elapsed > 20*time.Second {
			t.Fatalf("the call took %v: it slept on a hint it could not honour", elapsed)
		}
		b.wantRows(t, "alice", 0, 0, 0)
	})
}

// Scenario 8: one caller using another caller's key gets no access to the
// other's stored response: keys are scoped per caller.
func TestScenario8CallerCannotReadAnotherCallersKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		p := startServer(t, b, nil)
		alice, bob := newClient(t, p, "alice"), newClient(t, p, "bob")
		a, err := alice.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "shared-key"})
		if err != nil {
			t.Fatal(err)
		}
		// Same key, same body: bob gets his own order, not alice's.
		bo, err := bob.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "shared-key"})
		if err != nil || bo.ID == a.ID || bo.ChargeID == a.ChargeID {
			t.Fatalf("bob got %+v, %v; alice's order is %s", bo, err, a.ID)
		}
		// Same key, other body: judged against bob's own row; the error
		// carries nothing of alice's.
		_, err = bob.CreateOrder(bg(), client.NewOrder{Item: "pen", AmountCents: 1, Currency: "EUR"}, client.CreateOrderParams{IdempotencyKey: "shared-key"})
		var se *idemrt.StatusError
		if !errors.Is(err, idemrt.ErrKeyReuse) || !errors.As(err, &se) || bytes.Contains(se.Body, []byte(a.ID)) {
			t.Fatalf("bob reusing his key: %v", err)
		}
		// Reading alice's order by id is not found for bob.
		if _, err := bob.GetOrder(bg(), client.GetOrderParams{OrderID: a.ID}); !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
			t.Fatalf("bob reading alice's order: %v, want 404", err)
		}
		// Alice tops up her order; bob replaying her payment key on her order
		// gets a 404 of his own, never her payment.
		pay, err := alice.CreatePayment(bg(), client.NewPayment{AmountCents: 500}, client.CreatePaymentParams{OrderID: a.ID, IdempotencyKey: "pay-key"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = bob.CreatePayment(bg(), client.NewPayment{AmountCents: 500}, client.CreatePaymentParams{OrderID: a.ID, IdempotencyKey: "pay-key"})
		if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || bytes.Contains(se.Body, []byte(pay.ID)) {
			t.Fatalf("bob paying alice's order with her key: %v, want 404 without her payment", err)
		}
		b.wantRows(t, "alice", 1, 2, 1)
		if n := b.count(t, `SELECT COUNT(*) FROM idem_outbox WHERE topic = 'payment.created'`); n != 1 {
			t.Fatalf("%d payment events, want alice's one", n)
		}
		b.wantRows(t, "bob", 1, 1, 1)
		if n := b.count(t, `SELECT COUNT(*) FROM idem_ledger WHERE idem_key = 'shared-key'`); n != 2 {
			t.Fatalf("%d ledger rows for the shared key, want one per caller", n)
		}
	})
}
