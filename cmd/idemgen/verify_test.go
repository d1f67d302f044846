package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/mock"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
	"github.com/idemgen/idemgen/verify"
)

const ordersSpec = "../../testdata/specs/orders.yaml"

// verifyRun runs idemgen verify with args and returns the exit code and
// both outputs.
func verifyRun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(append([]string{"verify"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// jsonReport decodes a --format json report.
func jsonReport(t *testing.T, out string) verify.Report {
	t.Helper()
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return rep
}

// notPassed lists the results that are neither pass nor info.
func notPassed(rep verify.Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Verdict != verify.Pass && r.Verdict != verify.Info {
			out = append(out, fmt.Sprintf("%s %s %s: %s", r.Verdict, r.Operation, r.Check, r.Message))
		}
	}
	return out
}

// orderStore is a Handler of the generated orders server that keeps what
// it creates and counts what it executes.
type orderStore struct {
	mu       sync.Mutex
	created  map[string]int // operation -> executions
	updates  int
	versions map[string]int // order id -> version
	orders   []orders.Order // what listOrders shows
}

const seededOrder = "0b1c0000-0000-4000-8000-000000000001"

func newOrderStore() *orderStore {
	return &orderStore{created: map[string]int{}, versions: map[string]int{seededOrder: 1}}
}

func (s *orderStore) execute(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created[op]++
	return s.created[op]
}

func (s *orderStore) CapturePayment(_ context.Context, _ *orders.CapturePaymentRequest, p orders.CapturePaymentParams) (*orders.Payment, error) {
	return &orders.Payment{ID: p.PaymentID, Amount: 1, Currency: "EUR", Status: orders.PaymentStatusCaptured}, nil
}

func (s *orderStore) CreateOrder(_ context.Context, body orders.CreateOrderRequest, _ orders.CreateOrderParams) (*orders.CreateOrderResult, error) {
	n := s.execute("createOrder")
	id := fmt.Sprintf("0b1c0000-0000-4000-8000-%012d", n+1)
	o := orders.Order{ID: id, CustomerID: body.CustomerID, Items: body.Items, Status: orders.OrderStatusPending}
	s.mu.Lock()
	s.orders = append(s.orders, o)
	s.mu.Unlock()
	return &orders.CreateOrderResult{Body: o, Location: "/orders/" + id}, nil
}

func (s *orderStore) CreatePayment(_ context.Context, body orders.PaymentRequest, _ orders.CreatePaymentParams) (*orders.Payment, error) {
	n := s.execute("createPayment")
	return &orders.Payment{ID: fmt.Sprintf("pay_%d", n), OrderID: body.OrderID, Amount: body.Amount, Currency: body.Currency,
		Status: orders.PaymentStatusAuthorized}, nil
}

func (s *orderStore) DeleteOrder(context.Context, orders.DeleteOrderParams) error { return nil }

func (s *orderStore) GetHealth(context.Context) (*orders.GetHealthResponse, error) {
	return &orders.GetHealthResponse{Status: "ok"}, nil
}

func (s *orderStore) GetOrder(_ context.Context, p orders.GetOrderParams) (*orders.GetOrderResult, error) {
	return &orders.GetOrderResult{Body: orders.Order{ID: p.OrderID}, ETag: `"v1"`}, nil
}

func (s *orderStore) GetPayment(_ context.Context, p orders.GetPaymentParams) (*orders.Payment, error) {
	return &orders.Payment{ID: p.PaymentID}, nil
}

func (s *orderStore) ListOrders(context.Context, orders.ListOrdersParams) (*orders.OrderList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &orders.OrderList{Data: append([]orders.Order{}, s.orders...)}, nil
}

func (s *orderStore) SendReceipt(context.Context, orders.SendReceiptParams) error { return nil }

// UpdateOrder replaces an order when If-Match names its version (or is *).
func (s *orderStore) UpdateOrder(_ context.Context, _ orders.OrderUpdate, p orders.UpdateOrderParams) (*orders.UpdateOrderResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.versions[p.OrderID]
	if !ok {
		return nil, &idemrt.StatusError{StatusCode: http.StatusNotFound, Model: &orders.Error{Code: "not_found", Message: "no such order"}}
	}
	if p.IfMatch != "*" && p.IfMatch != fmt.Sprintf(`"v%d"`, v) {
		return nil, idemsrv.PreconditionFailed(&orders.Error{Code: "stale", Message: "read the order again"})
	}
	s.versions[p.OrderID] = v + 1
	s.updates++
	return &orders.UpdateOrderResult{Body: orders.Order{ID: p.OrderID}, ETag: fmt.Sprintf(`"v%d"`, v+1)}, nil
}

// bearerOnly accepts one token.
type bearerOnly struct{}

func (bearerOnly) BearerAuth(_ context.Context, _ string, c idemsrv.BearerCredential) (string, error) {
	if c.Token != "tok-secret" {
		return "", fmt.Errorf("unknown token")
	}
	return "alice", nil
}

func (bearerOnly) BasicAuth(context.Context, string, idemsrv.BasicCredential) (string, error) {
	return "", fmt.Errorf("no basic")
}

func (bearerOnly) APIKeyAuth(context.Context, string, idemsrv.APIKeyCredential) (string, error) {
	return "", fmt.Errorf("no api keys")
}

// TestVerifyGeneratedServer: the generated orders server with its ledger
// on SQLite passes every check, and verify's writes executed each keyed
// create twice (keyed-replay's call and the concurrent twins' one: the
// repeat, the reused key and the twin were answered by the ledger) and
// overwrote no order with a stale ETag.
func TestVerifyGeneratedServer(t *testing.T) {
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h := newOrderStore()
	srv, err := orders.NewServer(h, idemsrv.WithLedger(l), idemsrv.WithSecurity(bearerOnly{}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.StripPrefix("/v1", srv))
	t.Cleanup(ts.Close)
	fixtures := filepath.Join(t.TempDir(), "fixtures.yaml")
	writeFile(t, fixtures, "updateOrder:\n  params: {order_id: "+seededOrder+"}\n  body: {note: verified}\n")
	t.Setenv(envVerifyBearer, "tok-secret")
	code, out, errOut := verifyRun(ordersSpec, "--server", ts.URL+"/v1", "--allow-writes", "--fixtures", fixtures, "--format", "json")
	rep := jsonReport(t, out)
	if code != exitOK || len(notPassed(rep)) > 0 {
		t.Fatalf("exit %d, %v\n%s", code, notPassed(rep), errOut)
	}
	if len(rep.Results) != 23 {
		t.Errorf("%d results, want 23:\n%s", len(rep.Results), out)
	}
	for _, r := range rep.Results {
		if r.Operation == "createOrder" && r.Check == verify.CheckKeyedReplay && !strings.HasSuffix(r.Message, "; listOrders shows one new item") {
			t.Errorf("keyed-replay does not count listOrders: %s", r.Message)
		}
	}
	if h.created["createOrder"] != 2 || h.created["createPayment"] != 2 || h.updates != 0 {
		t.Errorf("executions %v, updates %d; want 2 per create and no update", h.created, h.updates)
	}
}

// TestVerifyMock: idemgen mock (its ledger answers keys, its versions
// If-Match) passes every check, stateless and stateful; it ran each keyed
// create twice. Stateful, listOrders shows keyed-replay's one new order.
func TestVerifyMock(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateful=%v", stateful), func(t *testing.T) {
			m, err := mock.New(ordersSpec, mock.Options{Stateful: stateful})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			ts := httptest.NewServer(m)
			t.Cleanup(ts.Close)
			code, out, errOut := verifyRun(ordersSpec, "--server", ts.URL+"/v1", "--allow-writes", "--bearer", "tok", "--format", "json")
			rep := jsonReport(t, out)
			if code != exitOK || len(notPassed(rep)) > 0 {
				t.Fatalf("exit %d, %v\n%s", code, notPassed(rep), errOut)
			}
			if n, k := m.Executions("createPayment"), m.Executions("createOrder"); n != 2 || k != 2 {
				t.Errorf("executions createPayment %d, createOrder %d; want 2 each", n, k)
			}
			for _, r := range rep.Results {
				if stateful && r.Operation == "createOrder" && r.Check == verify.CheckKeyedReplay && !strings.HasSuffix(r.Message, "; listOrders shows one new item") {
					t.Errorf("keyed-replay: %s", r.Message)
				}
			}
		})
	}
}

func TestVerifyUsage(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    post:\n      operationId: x\n      x-retryable-status: [401]\n      responses: {'200': {description: ok}}\n")
	fixtures := filepath.Join(t.TempDir(), "f.yaml")
	writeFile(t, fixtures, "createOrder:\n  parmas: {}\n")
	cases := []struct {
		name string
		args []string
		says string
	}{
		{"no --allow-writes", []string{ordersSpec, "--server", "http://127.0.0.1:1"}, "--allow-writes"},
		{"no --server", []string{ordersSpec, "--allow-writes"}, "--server URL is required"},
		{"bad server", []string{ordersSpec, "--allow-writes", "--server", "ftp://x"}, "http or https URL"},
		{"bad format", []string{ordersSpec, "--allow-writes", "--server", "http://127.0.0.1:1", "--format", "sarif"}, "--format must be"},
		{"unknown operation", []string{ordersSpec, "--allow-writes", "--server", "http://127.0.0.1:1", "--operations", "createOrder,nope"}, "unknown operation: nope"},
		{"spec errors", []string{bad, "--allow-writes", "--server", "http://127.0.0.1:1"}, "nothing verified"},
		{"bad fixtures", []string{ordersSpec, "--allow-writes", "--server", "http://127.0.0.1:1", "--fixtures", fixtures}, "parmas"},
	}
	for _, c := range cases {
		code, _, errOut := verifyRun(c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.says) {
			t.Errorf("%s: exit %d, %q", c.name, code, errOut)
		}
	}
}

// TestVerifyNeverPrintsCredentials: a server that echoes every credential
// into its answers (bodies that differ, so messages quote them), a server
// that is not there, and a malformed --header: no output of any format
// holds a credential, whole or cut.
func TestVerifyNeverPrintsCredentials(t *testing.T) {
	secrets := []string{"tok-secret-1", "key-secret-2", "hdr-secret-3", "pw-secret-4"}
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := "echo: " + r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key") + fmt.Sprintf(" #%d", n.Add(1))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", seen)
		status := http.StatusCreated
		if r.Header.Get("Authorization") == "" {
			status = http.StatusServiceUnavailable
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"a_seen": seen, "message": "your key " + seen})
	}))
	t.Cleanup(ts.Close)
	t.Setenv(envVerifyHeaders, "X-Api-Key: key-secret-2")
	var all strings.Builder
	for _, format := range []string{"text", "json", "github"} {
		code, out, errOut := verifyRun(ordersSpec, "--server", ts.URL+"/v1", "--allow-writes", "--bearer", "tok-secret-1",
			"--operations", "createPayment,getOrder", "--format", format)
		if code != exitProblem {
			t.Errorf("%s: exit %d, want 1 (the echo server fails checks)", format, code)
		}
		all.WriteString(out + errOut)
	}
	if !strings.Contains(all.String(), "[redacted]") {
		t.Errorf("no echoed credential was quoted, the test proves nothing:\n%s", all.String())
	}
	_, out, errOut := verifyRun(ordersSpec, "--server", "http://127.0.0.1:1/v1", "--allow-writes", "--bearer", "tok-secret-1")
	all.WriteString(out + errOut)
	withPassword := strings.Replace(ts.URL, "http://", "http://user:pw-secret-4@", 1) + "/v1"
	for _, format := range []string{"text", "json"} {
		_, out, errOut = verifyRun(ordersSpec, "--server", withPassword, "--allow-writes", "--operations", "createPayment", "--format", format)
		all.WriteString(out + errOut)
	}
	code, out, errOut := verifyRun(ordersSpec, "--server", ts.URL, "--allow-writes", "--header", "X-Token hdr-secret-3")
	if code != exitUsage {
		t.Errorf("malformed --header: exit %d, want 2", code)
	}
	all.WriteString(out + errOut)
	for _, s := range secrets {
		for cut := 6; cut <= len(s); cut++ {
			if strings.Contains(all.String(), s[:cut]) {
				t.Fatalf("%q (of %q) printed:\n%s", s[:cut], s, all.String())
			}
		}
	}
}

// TestVerifyEscapesServerText: a server's text reaches the report (a body
// excerpt, a differing member) without a terminal escape, a C1 control or a
// bidi override, in text and JSON.
func TestVerifyEscapesServerText(t *testing.T) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": fmt.Sprintf("\x1b[2J\u009b31m\u202eevil\n::error::x #%d", n.Add(1))})
	}))
	t.Cleanup(ts.Close)
	for _, format := range []string{"text", "json", "github"} {
		code, out, _ := verifyRun(ordersSpec, "--server", ts.URL+"/v1", "--allow-writes", "--operations", "createPayment", "--format", format)
		if code != exitProblem || !strings.Contains(out, "evil") {
			t.Fatalf("%s: exit %d, the server's text is not quoted:\n%s", format, code, out)
		}
		for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\n::error::x"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: output holds %q:\n%s", format, bad, out)
			}
		}
	}
}

// TestVerifyWithoutExamples: a document the parser repairs (a dangling
// $ref) but the mock cannot load gets its bodies from the fixtures alone,
// with a note; a server that is not there fails the checks, never passes
// them by skipping.
func TestVerifyWithoutExamples(t *testing.T) {
	dir := t.TempDir()
	spec, fixtures := filepath.Join(dir, "dangling.yaml"), filepath.Join(dir, "f.yaml")
	writeFile(t, spec, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /things:
    post:
      operationId: createThing
      parameters:
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string}
                extra: {$ref: "#/components/schemas/Missing"}
      responses:
        "201": {description: created}
`)
	writeFile(t, fixtures, "createThing:\n  body: {name: from-fixture}\n")
	var mu sync.Mutex
	var bodies []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(ts.Close)
	_, _, errOut := verifyRun(spec, "--server", ts.URL, "--allow-writes", "--fixtures", fixtures)
	if !strings.Contains(errOut, "note: no example bodies") || len(bodies) == 0 || bodies[0] != `application/json {"name":"from-fixture"}` {
		t.Errorf("stderr %q, bodies %q", errOut, bodies)
	}
	code, out, _ := verifyRun(spec, "--server", "http://127.0.0.1:1", "--allow-writes", "--fixtures", fixtures)
	if code != exitProblem || !strings.Contains(out, "FAIL  createThing  keyed-replay: the first request got no answer") {
		t.Errorf("no server: exit %d\n%s", code, out)
	}
}
