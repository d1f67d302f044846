package orders_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/ledger"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// panicky is an echo whose GetHealth panics.
type panicky struct {
	*echo
	runs atomic.Int64
}

func (p *panicky) GetHealth(context.Context) (*orders.GetHealthResponse, error) {
	p.runs.Add(1)
	panic("health: secret internal detail")
}

// TestServerHandlerPanicIsOne500: a safe operation's handler panics. The
// client gets one 500 problem that says nothing of the panic, does not
// retry it (the handler ran once, not three times on a cut connection),
// and WithOnError receives the panic's value.
func TestServerHandlerPanicIsOne500(t *testing.T) {
	h := &panicky{echo: &echo{order: sampleOrder()}}
	var mu sync.Mutex
	var reported []error
	_, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}), idemsrv.WithOnError(func(_ *http.Request, err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err)
	}))
	var log []idemrt.Attempt
	_, err := c.GetHealth(context.Background(), idemrt.WithAttemptLog(&log))
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError || strings.Contains(string(se.Body), "secret") {
		t.Fatalf("err = %v, want a 500 without the panic's text", err)
	}
	if n := h.runs.Load(); n != 1 || len(log) != 1 {
		t.Errorf("the handler ran %d times in %d attempts, want once", n, len(log))
	}
	mu.Lock()
	defer mu.Unlock()
	var pe *ledger.PanicError
	if len(reported) != 1 || !errors.As(reported[0], &pe) || pe.Value != "health: secret internal detail" {
		t.Errorf("WithOnError got %v", reported)
	}
}

// panickyCreate is an echo whose CreateOrder panics.
type panickyCreate struct {
	*echo
	runs atomic.Int64
}

func (p *panickyCreate) CreateOrder(context.Context, orders.CreateOrderRequest, orders.CreateOrderParams) (*orders.CreateOrderResult, error) {
	p.runs.Add(1)
	panic(errors.New("create: secret internal detail"))
}

// TestServerKeyedHandlerPanicReachesOnError: a keyed operation's handler
// panics under the ledger. The client gets one 500 problem without the
// panic's text, and WithOnError receives it as a *ledger.PanicError with
// its value and stack, as it does for any other handler (the ledger
// recovers it to roll back and release the key).
func TestServerKeyedHandlerPanicReachesOnError(t *testing.T) {
	h := &panickyCreate{echo: &echo{order: sampleOrder()}}
	var mu sync.Mutex
	var reported []error
	_, c := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}), idemsrv.WithOnError(func(_ *http.Request, err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err)
	}))
	_, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{IdempotencyKey: "k-panic"})
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusInternalServerError || strings.Contains(string(se.Body), "secret") {
		t.Fatalf("err = %v, want a 500 without the panic's text", err)
	}
	if n := h.runs.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want once", n)
	}
	mu.Lock()
	defer mu.Unlock()
	var pe *ledger.PanicError
	if len(reported) != 1 || !errors.As(reported[0], &pe) || len(pe.Stack) == 0 ||
		!strings.Contains(reported[0].Error(), "create: secret internal detail") {
		t.Fatalf("WithOnError got %v, want one *ledger.PanicError", reported)
	}
	if err, ok := pe.Value.(error); !ok || !errors.Is(reported[0], err) {
		t.Errorf("the panic's error is not reachable with errors.Is: %v", pe.Value)
	}
}
