package orders_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/ledger"
	idemsrv "github.com/idemgen/idemgen/server"
)

// keyOfHandler records what ledger.KeyOf and ledger.Tx give CreateOrder.
type keyOfHandler struct {
	*echo
	mu  sync.Mutex
	ids []ledger.ID
	txs int
}

func (h *keyOfHandler) CreateOrder(ctx context.Context, body orders.CreateOrderRequest, p orders.CreateOrderParams) (*orders.CreateOrderResult, error) {
	id, ok := ledger.KeyOf(ctx)
	h.mu.Lock()
	if ok {
		h.ids = append(h.ids, id)
	}
	if ledger.Tx(ctx) != nil {
		h.txs++
	}
	h.mu.Unlock()
	return h.echo.CreateOrder(ctx, body, p)
}

// TestServerHandlerGetsItsLedgerIdentity: behind the ledger a keyed
// handler runs in the ledger's transaction and ledger.KeyOf gives it the
// key the client sent, the operation and the caller's scope (the principal
// the SecurityHandler named), the stable id for its downstream calls; two
// principals sending the same key get two scopes. Without the ledger there
// is neither.
func TestServerHandlerGetsItsLedgerIdentity(t *testing.T) {
	h := &keyOfHandler{echo: &echo{order: sampleOrder()}}
	url, alice := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	bob, err := orders.NewClient(url, orders.WithBearerAuth("another secret"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*orders.Client{alice, bob} {
		if _, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{IdempotencyKey: "order-7"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.ids) != 2 || h.txs != 2 {
		t.Fatalf("KeyOf gave %+v, %d transactions; want two identities in two transactions", h.ids, h.txs)
	}
	for _, id := range h.ids {
		if id.Key != "order-7" || id.Operation != "createOrder" || id.Caller == "" {
			t.Errorf("identity %+v: want key order-7 of createOrder with a caller scope", id)
		}
		if strings.Contains(id.Caller, "secret") {
			t.Errorf("the caller scope %q holds the credential, not its principal", id.Caller)
		}
	}
	if h.ids[0].Caller == h.ids[1].Caller {
		t.Errorf("two principals share the scope %q", h.ids[0].Caller)
	}
	plain := &keyOfHandler{echo: &echo{order: sampleOrder()}}
	_, c := serveOrders(t, plain, nil, idemsrv.WithoutLedger())
	if _, err := c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{IdempotencyKey: "order-8"}); err != nil {
		t.Fatal(err)
	}
	if len(plain.ids) != 0 || plain.txs != 0 {
		t.Errorf("without a ledger: KeyOf %+v, %d transactions", plain.ids, plain.txs)
	}
}
