package driver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemsrv "github.com/idemgen/idemgen/server"
	stripe "github.com/stripe/stripe-go/v82"

	gen "sdkjudge.test/stripe"
)

// stripeHandler answers the customer operations with the fixtures below
// and counts the creates: the business action a lost answer must not
// repeat.
type stripeHandler struct {
	gen.Handler
	created  atomic.Int32
	create   received[gen.PostCustomersRequest]
	list     received[gen.GetCustomersParams]
	keysMu   sync.Mutex
	keysSeen []string
}

const customerAnswer = `{"id":"cus_1","object":"customer","created":1700000100,"livemode":false,
"email":"ada@example.com","name":"Ada","description":null,"default_source":"card_1",
"metadata":{"order":"42","team":"ops"},"preferred_locales":["en","fr"]}`

const customersAnswer = `{"object":"list","url":"/v1/customers","has_more":false,"data":[
{"id":"cus_2","object":"customer","created":1700000200,"livemode":false,"email":"b@example.com","metadata":{}},
{"id":"cus_3","object":"customer","created":1700000300,"livemode":false,"email":null,"metadata":{"k":"v"}}]}`

func (h *stripeHandler) PostCustomers(ctx context.Context, body *gen.PostCustomersRequest, params gen.PostCustomersParams) (*gen.Customer, error) {
	h.created.Add(1)
	if body != nil {
		h.create.set(*body)
	}
	if id, ok := ledger.KeyOf(ctx); ok {
		h.keysMu.Lock()
		h.keysSeen = append(h.keysSeen, id.Key)
		h.keysMu.Unlock()
	}
	return decodeFixture[gen.Customer](customerAnswer)
}

func (h *stripeHandler) GetCustomers(ctx context.Context, params gen.GetCustomersParams) (*gen.GetCustomersResponse, error) {
	h.list.set(params)
	return decodeFixture[gen.GetCustomersResponse](customersAnswer)
}

// stripeKeys is the driver's SecurityHandler: a secret key, sent as
// stripe-go sends it (bearer) or as Stripe also accepts it (basic, the key
// as the username), names the account the key belongs to.
type stripeKeys struct{}

func (stripeKeys) account(key string) (string, error) {
	if key != "sk_test_sdkjudge" {
		return "", errors.New("unknown API key")
	}
	return "acct_sdkjudge", nil
}

func (k stripeKeys) BearerAuth(_ context.Context, _ string, c idemsrv.BearerCredential) (string, error) {
	return k.account(c.Token)
}

func (k stripeKeys) BasicAuth(_ context.Context, _ string, c idemsrv.BasicCredential) (string, error) {
	return k.account(c.Username)
}

// stripeClient serves h through the generated server with a SQLite ledger
// and stripeKeys, behind wrap when given, and returns stripe-go pointed at it with its
// default two network retries (which make it send an Idempotency-Key on
// every POST).
func stripeClient(t *testing.T, h gen.Handler, wrap func(http.Handler) http.Handler) *stripe.Client {
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := gen.NewServer(h, idemsrv.WithLedger(l), idemsrv.WithSecurity(stripeKeys{}))
	if err != nil {
		t.Fatal(err)
	}
	var root http.Handler = srv
	if wrap != nil {
		root = wrap(srv)
	}
	url := serve(t, "", root)
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(url),
		MaxNetworkRetries: stripe.Int64(2),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	return stripe.NewClient("sk_test_sdkjudge", stripe.WithBackends(backends))
}

func customerParams() *stripe.CustomerCreateParams {
	p := &stripe.CustomerCreateParams{
		Email:            stripe.String("ada@example.com"),
		Name:             stripe.String("Ada"),
		PreferredLocales: []*string{stripe.String("en"), stripe.String("fr")},
		Address:          &stripe.AddressParams{City: stripe.String("London"), Line1: stripe.String("12 St James's Sq")},
	}
	p.AddMetadata("order", "42")
	p.AddMetadata("team", "ops")
	p.AddExpand("default_source")
	return p
}

// checkCustomerReceived: the handler got every member stripe-go encoded.
func checkCustomerReceived(t *testing.T, h *stripeHandler) {
	t.Helper()
	got, _ := h.create.get()
	if got.Email == nil || *got.Email != "ada@example.com" || got.Name == nil || *got.Name != "Ada" {
		t.Errorf("email %v, name %v", got.Email, got.Name)
	}
	if !slices.Equal(got.Expand, []string{"default_source"}) || !slices.Equal(got.PreferredLocales, []string{"en", "fr"}) {
		t.Errorf("expand %q, preferred_locales %q", got.Expand, got.PreferredLocales)
	}
	if got.Metadata == nil || len(got.Metadata.Object) != 2 || got.Metadata.Object["order"] != "42" || got.Metadata.Object["team"] != "ops" {
		t.Errorf("metadata %+v", got.Metadata)
	}
	addr := mustJSON(t, got.Address)
	jsonEqual(t, "address", []byte(`{"city":"London","line1":"12 St James's Sq"}`), addr)
}

func checkCustomerDecoded(t *testing.T, c *stripe.Customer) {
	t.Helper()
	jsonEqual(t, "fixture and decoded customer", []byte(customerAnswer), c.LastResponse.RawJSON)
	if c.ID != "cus_1" || c.Email != "ada@example.com" || c.Metadata["order"] != "42" ||
		c.DefaultSource == nil || c.DefaultSource.ID != "card_1" || !slices.Equal(c.PreferredLocales, []string{"en", "fr"}) {
		t.Errorf("decoded %+v", c)
	}
}

func TestStripeCreateCustomer(t *testing.T) {
	h := &stripeHandler{}
	sc := stripeClient(t, h, nil)
	c, err := sc.V1Customers.Create(context.Background(), customerParams())
	if err != nil {
		t.Fatal(err)
	}
	checkCustomerReceived(t, h)
	checkCustomerDecoded(t, c)
	if h.created.Load() != 1 || c.LastResponse.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("%d creates, Idempotent-Replayed %q", h.created.Load(), c.LastResponse.Header.Get("Idempotent-Replayed"))
	}
}

func TestStripeListCustomers(t *testing.T) {
	h := &stripeHandler{}
	sc := stripeClient(t, h, nil)
	params := &stripe.CustomerListParams{CreatedRange: &stripe.RangeQueryParams{GreaterThan: 1700000000}}
	params.Limit = stripe.Int64(3)
	var ids []string
	for c, err := range sc.V1Customers.List(context.Background(), params) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	got, n := h.list.get()
	if n != 1 || got.Limit == nil || *got.Limit != 3 || got.Created == nil || got.Created.CreatedRangeQuerySpecs == nil ||
		got.Created.CreatedRangeQuerySpecs.Gt == nil || *got.Created.CreatedRangeQuerySpecs.Gt != 1700000000 {
		t.Errorf("received %+v (%d calls)", got, n)
	}
	if !slices.Equal(ids, []string{"cus_2", "cus_3"}) {
		t.Errorf("listed %q", ids)
	}
}

// dropFirst runs the first request to the end (the ledger commits), then
// closes the connection without an answer.
func dropFirst(t *testing.T) func(http.Handler) http.Handler {
	var n atomic.Int32
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) > 1 {
				h.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
		})
	}
}

// TestStripeRetryReplays judges the ledger with stripe-go's own retry: the
// first answer is lost after the ledger committed it; stripe-go retries
// with the same Idempotency-Key and gets the stored answer, and the
// customer was created once.
func TestStripeRetryReplays(t *testing.T) {
	h := &stripeHandler{}
	var sent keysSent
	drop := dropFirst(t)
	sc := stripeClient(t, h, func(next http.Handler) http.Handler { return sent.wrap(drop(next)) })
	c, err := sc.V1Customers.Create(context.Background(), customerParams())
	if err != nil {
		t.Fatal(err)
	}
	checkCustomerDecoded(t, c)
	h.keysMu.Lock()
	keys := h.keysSeen
	h.keysMu.Unlock()
	wire := sent.get()
	if n := h.created.Load(); n != 1 || len(keys) != 1 || len(wire) != 2 || wire[0] == "" || wire[1] != wire[0] || keys[0] != wire[0] {
		t.Errorf("%d creates, the handler's keys %q, the keys stripe-go sent %q", n, keys, wire)
	}
	if got := c.LastResponse.Header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("Idempotent-Replayed %q, want true", got)
	}
	// stripe-go reads the key the answer names, as Stripe's answers do.
	if len(wire) > 0 && c.LastResponse.IdempotencyKey != wire[0] {
		t.Errorf("LastResponse.IdempotencyKey %q, want the key sent, %q", c.LastResponse.IdempotencyKey, wire[0])
	}
	var raw map[string]any
	if err := json.Unmarshal(c.LastResponse.RawJSON, &raw); err != nil || raw["id"] != "cus_1" {
		t.Errorf("replayed body %s", c.LastResponse.RawJSON)
	}
}

// keysSent keeps the Idempotency-Key of every request, in order.
type keysSent struct {
	mu   sync.Mutex
	keys []string
}

func (k *keysSent) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.keys = append(k.keys, r.Header.Get("Idempotency-Key"))
		k.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (k *keysSent) get() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.keys)
}
