package lookup_test

// Behaviour of the generated Lookup methods against a loopback shop whose
// answers to creates can be lost: the business effect asserted is how many
// payments and refunds the shop executed, and that a lookup, found or not,
// never sends the create again.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/lookup"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// shop serves the lookup API. lose makes the next creates execute and then
// drop the connection without an answer; refuse drops it before executing.
// listAnswer, when set, is the raw body of every GET /payments (a hostile
// or odd lookup answer), with listStatus. anyRefund, when set, makes GET
// /refunds/by-reference/{reference} ignore the reference and answer the
// refund held under anyRefund (a lookup that finds someone else's intent).
type shop struct {
	mu               sync.Mutex
	payments         map[string]lookup.Payment
	refunds          map[string]lookup.Refund
	executed         int
	lose, refuse     bool
	listAnswer       string
	listStatus       int
	anyRefund        string
	lookups, queries []string
}

func newShop(t *testing.T) (*shop, *httptest.Server) {
	s := &shop{payments: map[string]lookup.Payment{}, refunds: map[string]lookup.Refund{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /payments", s.createPayment)
	mux.HandleFunc("GET /payments", s.listPayments)
	mux.HandleFunc("POST /refunds", s.createRefund)
	mux.HandleFunc("GET /refunds/by-reference/{reference}", s.getRefund)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.lookups = append(s.lookups, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return s, srv
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func (s *shop) createPayment(w http.ResponseWriter, r *http.Request) {
	var np lookup.NewPayment
	_ = json.NewDecoder(r.Body).Decode(&np)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		drop(w)
		return
	}
	s.executed++
	p := lookup.Payment{ID: "pay_" + np.ClientReference, Amount: np.Amount, ClientReference: &np.ClientReference}
	s.payments[np.ClientReference] = p
	if s.lose {
		drop(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(p)
}

func (s *shop) listPayments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ref := r.URL.Query().Get("client_reference")
	s.lookups = append(s.lookups, "GET /payments")
	s.queries = append(s.queries, ref)
	w.Header().Set("Content-Type", "application/json")
	if s.listAnswer != "" {
		w.WriteHeader(s.listStatus)
		_, _ = w.Write([]byte(s.listAnswer))
		return
	}
	list := lookup.PaymentList{Data: []lookup.Payment{}}
	if p, ok := s.payments[ref]; ok {
		list.Data = append(list.Data, p)
	}
	_ = json.NewEncoder(w).Encode(list)
}

func (s *shop) createRefund(w http.ResponseWriter, r *http.Request) {
	var nr lookup.NewRefund
	_ = json.NewDecoder(r.Body).Decode(&nr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		drop(w)
		return
	}
	s.executed++
	rf := lookup.Refund{ID: "re_" + nr.Reference, Payment: nr.Payment, Reference: &nr.Reference}
	s.refunds[nr.Reference] = rf
	if s.lose {
		drop(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(rf)
}

func (s *shop) getRefund(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lookups = append(s.lookups, "GET "+r.URL.EscapedPath())
	ref := r.PathValue("reference")
	if s.anyRefund != "" {
		ref = s.anyRefund
	}
	rf, ok := s.refunds[ref]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rf)
}

func (s *shop) executions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.executed
}

func client(t *testing.T, url string, opts ...idemrt.Option) *lookup.Client {
	c, err := lookup.NewClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLookupFindsALostRefund: an unsafe create executes, its answer is
// lost (outcome unknown, not resent); the path lookup finds the refund
// the shop holds, and LookupIntent finds the same JSON. One execution.
func TestLookupFindsALostRefund(t *testing.T) {
	s, srv := newShop(t)
	c := client(t, srv.URL)
	ctx := context.Background()
	s.lose = true
	_, err := c.CreateRefund(ctx, lookup.NewRefund{Payment: "pay_1", Reference: "ref 1/a"})
	if !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("CreateRefund with its answer lost: %v, want ErrOutcomeUnknown", err)
	}
	rf, found, err := c.LookupCreateRefund(ctx, "ref 1/a")
	if err != nil || !found || rf == nil || rf.ID != "re_ref 1/a" || rf.Payment != "pay_1" {
		t.Fatalf("LookupCreateRefund = %+v, %v, %v; want the refund re_ref 1/a", rf, found, err)
	}
	res, err := c.LookupIntent(ctx, "createRefund", "ref 1/a")
	var got lookup.Refund
	if err != nil || !res.Found || res.Status != 200 || json.Unmarshal(res.Body, &got) != nil || got.ID != rf.ID {
		t.Fatalf("LookupIntent = %+v (%s), %v; want found, 200, the refund", res, res.Body, err)
	}
	if n := s.executions(); n != 1 {
		t.Errorf("the shop executed %d refunds, want 1: a lookup never resends the create", n)
	}
	if want := "GET /refunds/by-reference/ref%201%2Fa"; s.lookups[0] != want {
		t.Errorf("lookup sent %q, want %q (the key escaped in the path)", s.lookups[0], want)
	}
}

// TestLookupNotFoundIsA404: the create's connection drops before the shop
// executes it; the lookup's 404 is not found, without an error, and no
// refund was executed or sent again.
func TestLookupNotFoundIsA404(t *testing.T) {
	s, srv := newShop(t)
	c := client(t, srv.URL)
	ctx := context.Background()
	s.refuse = true
	if _, err := c.CreateRefund(ctx, lookup.NewRefund{Payment: "pay_1", Reference: "r2"}); err == nil {
		t.Fatal("CreateRefund on a dropped connection succeeded")
	}
	rf, found, err := c.LookupCreateRefund(ctx, "r2")
	if err != nil || found || rf != nil {
		t.Fatalf("LookupCreateRefund = %+v, %v, %v; want nil, false, nil", rf, found, err)
	}
	res, err := c.LookupIntent(ctx, "createRefund", "r2")
	if err != nil || res.Found || res.Status != http.StatusNotFound || res.Body != nil {
		t.Fatalf("LookupIntent = %+v, %v; want not found with status 404", res, err)
	}
	if n := s.executions(); n != 0 {
		t.Errorf("the shop executed %d refunds, want 0", n)
	}
}

// TestLookupByQueryAndPointer: a keyed create whose only attempt loses
// its answer is found by its client reference in the list's /data/0; a
// reference the shop never saw leaves the list empty: not found.
func TestLookupByQueryAndPointer(t *testing.T) {
	s, srv := newShop(t)
	c := client(t, srv.URL)
	ctx := context.Background()
	s.lose = true
	_, err := c.CreatePayment(ctx, lookup.NewPayment{Amount: 500, ClientReference: "order-7"}, lookup.CreatePaymentParams{},
		idemrt.WithMaxAttempts(1))
	if !errors.Is(err, idemrt.ErrOutcomeUnknown) {
		t.Fatalf("CreatePayment with its answer lost: %v, want ErrOutcomeUnknown", err)
	}
	p, found, err := c.LookupCreatePayment(ctx, "order-7")
	if err != nil || !found || p == nil || p.ID != "pay_order-7" || p.Amount != 500 {
		t.Fatalf("LookupCreatePayment = %+v, %v, %v; want pay_order-7 of 500", p, found, err)
	}
	p, found, err = c.LookupCreatePayment(ctx, "order-8")
	if err != nil || found || p != nil {
		t.Fatalf("LookupCreatePayment of an unknown reference = %+v, %v, %v; want nil, false, nil", p, found, err)
	}
	if n := s.executions(); n != 1 {
		t.Errorf("the shop executed %d payments, want 1", n)
	}
	if strings.Join(s.queries, ",") != "order-7,order-8" {
		t.Errorf("lookups asked for %v, want [order-7 order-8]", s.queries)
	}
}

// TestLookupAnswers: what each lookup answer means. Absent and null are
// not found (the pointer is read as RFC 6901 says, without the schema); an
// answer the client cannot read (not JSON, a scalar where
// the pointer goes on, a value that is not a Payment, a body over the
// limit, a status other than 2xx and 404) is an error, never not found.
func TestLookupAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		found      bool
		want       error
	}{
		{"found", `{"data":[{"id":"pay_1","amount":5,"client_reference":"ref"}]}`, 200, true, nil},
		{"empty list", `{"data":[]}`, 200, false, nil},
		{"null element", `{"data":[null]}`, 200, false, nil},
		{"no data member", `{}`, 200, false, nil},
		{"null data", `{"data":null}`, 200, false, nil},
		{"404", `{"error":"no such list"}`, 404, false, nil},
		{"not JSON", `<html>oops</html>`, 200, false, idemrt.ErrLookupAnswer},
		{"data is a string", `{"data":"pay_1"}`, 200, false, idemrt.ErrLookupAnswer},
		// RFC 6901: "0" is a member name in an object, and this one has none.
		{"data is an object", `{"data":{"id":"pay_1"}}`, 200, false, nil},
		{"element is a string", `{"data":["pay_1"]}`, 200, false, idemrt.ErrLookupAnswer},
		{"amount is a string", `{"data":[{"id":"pay_1","amount":"five","client_reference":"ref"}]}`, 200, false, idemrt.ErrLookupAnswer},
		{"oversized", `{"data":[{"id":"` + strings.Repeat("x", 4096) + `","amount":1,"client_reference":"ref"}]}`, 200, false, idemrt.ErrBodyTooLarge},
		{"410", `{}`, 410, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := newShop(t)
			s.listAnswer, s.listStatus = tc.body, tc.status
			c := client(t, srv.URL, idemrt.WithMaxBody(1024))
			p, found, err := c.LookupCreatePayment(context.Background(), "ref")
			switch {
			case tc.status == 410:
				var se *idemrt.StatusError
				if !errors.As(err, &se) || se.StatusCode != 410 || found {
					t.Fatalf("a 410: %v, found %v; want a *StatusError of 410", err, found)
				}
			case tc.want != nil:
				if !errors.Is(err, tc.want) || found || p != nil {
					t.Fatalf("got %+v, %v, %v; want an error matching %v", p, found, err, tc.want)
				}
				t.Logf("error: %v", err)
			case err != nil || found != tc.found || (p != nil) != tc.found:
				t.Fatalf("got %+v, %v, %v; want found=%v without an error", p, found, err, tc.found)
			}
		})
	}
}

// TestLookupIntentWithoutLookup: LookupIntent answers idemrt.ErrNoLookup
// for an operation that declares no x-lookup and for a name that is no
// operation, and sends nothing.
func TestLookupIntentWithoutLookup(t *testing.T) {
	s, srv := newShop(t)
	var looker idemrt.IntentLooker = client(t, srv.URL)
	for _, op := range []string{"capturePayment", "listPayments", "nope"} {
		if _, err := looker.LookupIntent(context.Background(), op, "k"); !errors.Is(err, idemrt.ErrNoLookup) {
			t.Errorf("LookupIntent(%q) = %v, want ErrNoLookup", op, err)
		}
	}
	if len(s.lookups) != 0 {
		t.Errorf("LookupIntent sent %v", s.lookups)
	}
}

// TestLookupRefusesAnUnsendableKey: a key that cannot be a path segment
// ("..") is refused before anything is sent.
func TestLookupRefusesAnUnsendableKey(t *testing.T) {
	s, srv := newShop(t)
	c := client(t, srv.URL)
	if _, found, err := c.LookupCreateRefund(context.Background(), ".."); err == nil || found {
		t.Fatalf("LookupCreateRefund(\"..\") = %v, %v; want a build error", found, err)
	}
	if len(s.lookups) != 0 {
		t.Errorf("a lookup was sent: %v", s.lookups)
	}
}
