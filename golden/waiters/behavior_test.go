package waiters_test

// Behaviour of the generated Wait methods against a loopback server whose
// payments advance as they are read: the business effect asserted is how
// many times the server read (and created) a payment, and how long the
// client paused on its fake clock.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/waiters"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// payment is one payment on the server: the statuses its reads answer, in
// turn (the last one again once they run out); "404" answers Not Found
// (not yet visible), "503" Service Unavailable.
type payment struct {
	states []string
	reads  int
}

// bank serves POST /payments and GET /payments/{id}. The amount of a new
// payment picks its future: 100 succeeds on the third read (after a 404
// and a pending), 666 fails, 0 stays pending, 503 answers a 503 first.
type bank struct {
	mu         sync.Mutex
	payments   map[string]*payment
	created    int
	retryAfter string
}

var futures = map[int64][]string{
	100: {"404", "pending", "succeeded"},
	666: {"pending", "failed"},
	0:   {"pending"},
	503: {"pending", "503", "succeeded"},
}

func (b *bank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		var np waiters.NewPayment
		_ = json.NewDecoder(r.Body).Decode(&np)
		b.created++
		id := "pay_" + strconv.Itoa(b.created)
		b.payments[id] = &payment{states: futures[np.Amount]}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %q, "amount": %d, "status": "pending"}`, id, np.Amount)
		return
	}
	p := b.payments[strings.TrimPrefix(r.URL.Path, "/payments/")]
	if p == nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	state := p.states[min(p.reads, len(p.states)-1)]
	p.reads++
	switch state {
	case "404":
		w.WriteHeader(http.StatusNotFound)
	case "503":
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		if state == "pending" && b.retryAfter != "" {
			w.Header().Set("Retry-After", b.retryAfter)
		}
		fmt.Fprintf(w, `{"id": "x", "status": %q}`, state)
	}
}

// reads reports how many times the server read payment id.
func (b *bank) reads(id string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.payments[id].reads
}

// fakeClock advances only when the client pauses, recording each pause.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	pauses []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pauses = append(c.pauses, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *fakeClock) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var t time.Duration
	for _, d := range c.pauses {
		t += d
	}
	return t
}

// newBank starts the server and a client on a fake clock whose jitter
// always draws 0 (the shortest pause: half the delay).
func newBank(t *testing.T) (*bank, *waiters.Client, *fakeClock) {
	t.Helper()
	b := &bank{payments: map[string]*payment{}}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	clk := &fakeClock{now: time.Unix(1e9, 0)}
	c, err := waiters.NewClient(srv.URL, idemrt.WithClock(clk), idemrt.WithRandom(func() float64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	return b, c, clk
}

// create makes one payment of amount and returns its id.
func create(t *testing.T, c *waiters.Client, amount int64) string {
	t.Helper()
	p, err := c.CreatePayment(context.Background(), waiters.NewPayment{Amount: amount}, waiters.CreatePaymentParams{})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func TestWaitPaymentSucceededAfterPendingAndNotFound(t *testing.T) {
	b, c, clk := newBank(t)
	id := create(t, c, 100)
	p, err := c.WaitPaymentSucceeded(context.Background(), waiters.GetPaymentParams{ID: id})
	if err != nil || p.Status != waiters.PaymentStatusSucceeded {
		t.Fatalf("WaitPaymentSucceeded = %+v, %v; want the succeeded payment", p, err)
	}
	if reads := b.reads(id); reads != 3 || b.created != 1 {
		t.Errorf("server read the payment %d times and created %d; want 3 reads of 1 payment", reads, b.created)
	}
	// 2s base: 1s after the 404, 2s after the pending read.
	if got := clk.total(); got != 3*time.Second {
		t.Errorf("paused %v (%v), want 3s", got, clk.pauses)
	}
}

func TestWaitPaymentFailedIsWaitErrorWithTheLastPayment(t *testing.T) {
	b, c, _ := newBank(t)
	id := create(t, c, 666)
	p, err := c.WaitPaymentSucceeded(context.Background(), waiters.GetPaymentParams{ID: id})
	var we *idemrt.WaitError
	if p != nil || !errors.Is(err, idemrt.ErrWaitFailed) || !errors.As(err, &we) {
		t.Fatalf("WaitPaymentSucceeded = %v, %v; want a *WaitError matching ErrWaitFailed", p, err)
	}
	if last, _ := we.Last.(*waiters.Payment); last == nil || last.Status != waiters.PaymentStatusFailed {
		t.Errorf("Last = %#v, want the failed *waiters.Payment", we.Last)
	}
	if reads := b.reads(id); reads != 2 {
		t.Errorf("server read the payment %d times, want 2", reads)
	}
}

func TestWaitPaymentNeverFinishingTimesOut(t *testing.T) {
	b, c, clk := newBank(t)
	id := create(t, c, 0)
	_, err := c.WaitPaymentSucceeded(context.Background(), waiters.GetPaymentParams{ID: id}, idemrt.WithWaitTimeout(time.Minute))
	if !errors.Is(err, idemrt.ErrWaitTimeout) {
		t.Fatalf("err = %v, want ErrWaitTimeout", err)
	}
	// Pauses 1, 2, 4, 8, 15, 15 s (30s ceiling) reach 45s; the next 15s
	// would end at 60s: 7 reads, and no pause past the minute.
	if reads, paused := b.reads(id), clk.total(); reads != 7 || paused != 45*time.Second {
		t.Errorf("%d reads over %v, want 7 over 45s", reads, paused)
	}
}

func TestWaitPaymentHonoursRetryAfter(t *testing.T) {
	b, c, clk := newBank(t)
	b.retryAfter = "20"
	id := create(t, c, 666)
	if _, err := c.WaitPaymentSucceeded(context.Background(), waiters.GetPaymentParams{ID: id}); !errors.Is(err, idemrt.ErrWaitFailed) {
		t.Fatalf("err = %v, want ErrWaitFailed", err)
	}
	if len(clk.pauses) != 1 || clk.pauses[0] != 20*time.Second {
		t.Errorf("pauses %v, want the server's 20s once", clk.pauses)
	}
}

func TestWaitPaymentRetriesA503InsideThePoll(t *testing.T) {
	b, c, _ := newBank(t)
	id := create(t, c, 503)
	var log []idemrt.Attempt
	p, err := c.WaitPaymentSucceeded(context.Background(), waiters.GetPaymentParams{ID: id},
		idemrt.WithWaitCallOptions(idemrt.WithAttemptLog(&log)))
	if err != nil || p.Status != waiters.PaymentStatusSucceeded {
		t.Fatalf("WaitPaymentSucceeded = %+v, %v", p, err)
	}
	// pending, then the 503 is retried by the call itself: 3 reads, and
	// the last poll's log holds its two attempts.
	if reads := b.reads(id); reads != 3 || len(log) != 2 {
		t.Errorf("%d reads, last poll %d attempts; want 3 reads and 2 attempts", reads, len(log))
	}
}

func TestWaitPaymentContextDeadlineWins(t *testing.T) {
	b, c, clk := newBank(t)
	id := create(t, c, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	_, err := c.WaitPaymentSucceeded(ctx, waiters.GetPaymentParams{ID: id})
	if !errors.Is(err, idemrt.ErrWaitTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrWaitTimeout and context.DeadlineExceeded", err)
	}
	if paused := clk.total(); paused >= 40*time.Second || b.reads(id) == 0 {
		t.Errorf("paused %v over %d reads; want under the context's 40s", paused, b.reads(id))
	}
}

func TestWaitPaymentSettledReadsANestedNumber(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "pay_1", "status": "succeeded", "settlement": {"code": 0, "final": false}}`)
	}))
	defer srv.Close()
	c, err := waiters.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// the integer 0 at /settlement/code is until's "0": the first poll ends the wait.
	p, err := c.WaitPaymentSettled(context.Background(), waiters.GetPaymentParams{ID: "pay_1"})
	if err != nil || p.Settlement == nil || p.Settlement.Code == nil || *p.Settlement.Code != 0 {
		t.Fatalf("WaitPaymentSettled = %+v, %v; want the settled payment", p, err)
	}
}
