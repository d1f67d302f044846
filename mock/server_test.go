package mock_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

func do(t *testing.T, method, url, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func problemOf(t *testing.T, b []byte) idemgenmock.Problem {
	t.Helper()
	var p idemgenmock.Problem
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("not a problem document: %v\n%s", err, b)
	}
	return p
}

const payment = `{"order_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","amount":500,"currency":"EUR"}`

func TestMalformedRequestsAreRejectedNamingParameterAndPointer(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec)
	auth := []string{"Authorization", "Bearer t", "Idempotency-Key", "k"}
	cases := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		in, param, pointer       string
	}{
		{"body member below its minimum", "POST", "/payments",
			`{"order_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","amount":0,"currency":"EUR"}`, auth, 400, "body", "", "/amount"},
		{"nested body member", "POST", "/orders",
			`{"customer_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","items":[{"sku":"a","quantity":0,"unit_price":1}]}`, auth, 400, "body", "", "/items/0/quantity"},
		{"missing required member", "POST", "/payments", `{"amount":5,"currency":"EUR"}`, auth, 400, "body", "", "/order_id"},
		{"query out of range", "GET", "/orders?limit=500", "", auth, 400, "query", "limit", ""},
		{"path format", "GET", "/orders/not-a-uuid", "", auth, 400, "path", "order_id", ""},
		{"enum in deepObject", "GET", "/orders?filter[status]=lost", "", auth, 400, "query", "filter", ""},
		{"missing required header", "PUT", "/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6", `{}`, auth, 400, "header", "If-Match", ""},
		{"no credentials", "GET", "/orders", "", nil, 401, "security", "", ""},
		{"undeclared content type", "POST", "/payments", payment, append([]string{"Content-Type", "text/plain"}, auth...), 415, "header", "Content-Type", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := do(t, tc.method, srv.URL+tc.path, tc.body, tc.header...)
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			p := problemOf(t, b)
			found := false
			for _, e := range p.Errors {
				if e.In == tc.in && e.Name == tc.param && (tc.pointer == "" || e.Pointer == tc.pointer) {
					found = true
				}
			}
			if !found || p.Status != tc.status || !strings.Contains(p.Detail, tc.pointer) {
				t.Errorf("problem %+v: want an error in %s %q at %q", p, tc.in, tc.param, tc.pointer)
			}
		})
	}
	if st := srv.Stats().Operations["createPayment"]; st.Rejected != 3 || st.Executions != 0 {
		t.Errorf("createPayment stats %+v: want 3 rejections, no execution", st)
	}
	resp, b := do(t, "POST", srv.URL+"/payments", strings.Repeat(" ", 2<<20), auth...)
	if resp.StatusCode != 413 {
		t.Errorf("a 2 MiB body: %d %s, want 413", resp.StatusCode, b)
	}
}

func TestKeyedOperationReplaysRejectsReuseAndAnswersTheTwin409(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := idemgenmock.StartWith(t, ordersSpec, idemgenmock.Options{
		// The slow-body fault's wait holds the first execution inside the
		// ledger until the twin has been answered.
		Sleep: func(ctx context.Context, d time.Duration) error {
			select {
			case started <- struct{}{}:
			default:
			}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	var wg sync.WaitGroup
	var first []byte
	var firstStatus int
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp, b := do(t, "POST", srv.URL+"/payments", payment, "Authorization", "Bearer t", "Idempotency-Key", "twin",
			idemgenmock.FaultHeader, "slow-body=16/1ms")
		first, firstStatus = b, resp.StatusCode
	}()
	<-started
	resp, b := do(t, "POST", srv.URL+"/payments", payment, "Authorization", "Bearer t", "Idempotency-Key", "twin")
	close(release)
	wg.Wait()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("concurrent twin: %d %s, want 409", resp.StatusCode, b)
	}
	if firstStatus != http.StatusCreated {
		t.Fatalf("first: %d %s", firstStatus, first)
	}
	resp, b = do(t, "POST", srv.URL+"/payments", payment, "Authorization", "Bearer t", "Idempotency-Key", "twin")
	if resp.StatusCode != http.StatusCreated || !bytes.Equal(b, first) || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("repeat: %d %q replayed=%q, want the first answer byte for byte", resp.StatusCode, b, resp.Header.Get("Idempotent-Replayed"))
	}
	other := strings.Replace(payment, "500", "501", 1)
	resp, b = do(t, "POST", srv.URL+"/payments", other, "Authorization", "Bearer t", "Idempotency-Key", "twin")
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("other payload: %d %s, want 422", resp.StatusCode, b)
	}
	// Keys are scoped by credentials: another caller's "twin" is its own.
	resp, _ = do(t, "POST", srv.URL+"/payments", other, "Authorization", "Bearer other", "Idempotency-Key", "twin")
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("another caller's key: %d, want 201", resp.StatusCode)
	}
	if st := srv.Stats().Operations["createPayment"]; st.Executions != 2 || st.Keys["twin"] != 2 || st.Requests != 5 {
		t.Errorf("stats %+v: want 2 executions (one per caller) of 5 requests", st)
	}
}

func TestStatsEndpoint(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec)
	do(t, "GET", srv.URL+"/health", "")
	do(t, "GET", srv.URL+"/health", "")
	resp, b := do(t, "GET", srv.URL+idemgenmock.StatsPath, "")
	var st idemgenmock.Stats
	if err := json.Unmarshal(b, &st); err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%v: %s", err, b)
	}
	if h := st.Operations["getHealth"]; h == nil || h.Executions != 2 || h.Requests != 2 {
		t.Errorf("stats %s", b)
	}
	do(t, "DELETE", srv.URL+idemgenmock.StatsPath, "")
	if n := srv.Requests("getHealth"); n != 0 {
		t.Errorf("after DELETE: %d requests, want 0", n)
	}
	resp, b = do(t, "GET", srv.URL+"/nowhere", "")
	if resp.StatusCode != 404 || problemOf(t, b).Status != 404 || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("unknown path: %d %v %s, want a nosniff 404 problem (runtime/problem's headers)", resp.StatusCode, resp.Header, b)
	}
	resp, _ = do(t, "PATCH", srv.URL+"/health", "")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET" {
		t.Errorf("unknown method: %d Allow=%q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

const exampleSpec = `openapi: 3.0.3
info: {title: ex, version: "1"}
paths:
  /pets/{id}:
    get:
      operationId: getPet
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: ok
          headers:
            X-Rate-Limit: {schema: {type: integer, minimum: 10}}
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
              examples:
                cat: {value: {id: 1, name: Tom, kind: cat}}
                dog: {value: {id: 2, name: Rex, kind: dog}}
        "404":
          description: missing
          content:
            application/json:
              schema: {type: object, required: [message], properties: {message: {type: string}}}
              example: {message: no such pet}
  /events:
    get:
      operationId: streamEvents
      responses:
        "200":
          description: a stream
          content:
            text/event-stream:
              schema: {$ref: "#/components/schemas/Pet"}
components:
  schemas:
    Pet:
      type: object
      required: [id, name, kind]
      properties:
        id: {type: integer, format: int64, minimum: 1}
        name: {type: string, minLength: 2}
        kind: {type: string, enum: [cat, dog]}
        tag: {type: string, nullable: true, pattern: "^[A-Z]{3}-[0-9]+$"}
        owner: {$ref: "#/components/schemas/Pet"}
`

func startData(t *testing.T, spec string, opts idemgenmock.Options) string {
	t.Helper()
	s, err := idemgenmock.NewData("example.yaml", []byte(spec), opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() { hs.Close(); s.Close() })
	return hs.URL
}

func TestExamplesAndPreferHeaders(t *testing.T) {
	u := startData(t, exampleSpec, idemgenmock.Options{})
	resp, b := do(t, "GET", u+"/pets/1", "")
	if resp.StatusCode != 200 || string(b) != `{"id":1,"kind":"cat","name":"Tom"}` {
		t.Errorf("default: %d %s, want the first named example", resp.StatusCode, b)
	}
	if v := resp.Header.Get("X-Rate-Limit"); v != "10" {
		t.Errorf("declared header X-Rate-Limit = %q, want 10 (its minimum)", v)
	}
	_, b = do(t, "GET", u+"/pets/1", "", "Prefer", "example=dog")
	if string(b) != `{"id":2,"kind":"dog","name":"Rex"}` {
		t.Errorf("Prefer example=dog: %s", b)
	}
	resp, b = do(t, "GET", u+"/pets/1", "", "Prefer", "code=404")
	if resp.StatusCode != 404 || string(b) != `{"message":"no such pet"}` {
		t.Errorf("Prefer code=404: %d %s", resp.StatusCode, b)
	}
	resp, _ = do(t, "GET", u+"/pets/abc", "")
	if resp.StatusCode != 400 {
		t.Errorf("a non-integer id: %d, want 400", resp.StatusCode)
	}
}

func TestDynamicValuesAreSeeded(t *testing.T) {
	get := func(seed uint64) string {
		u := startData(t, exampleSpec, idemgenmock.Options{Dynamic: true, Seed: seed})
		_, b := do(t, "GET", u+"/pets/1", "", "Prefer", "code=200")
		return string(b)
	}
	a, b, c := get(1), get(1), get(2)
	if a != b {
		t.Errorf("same seed, different answers:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 1 and 2 gave the same answer %s", a)
	}
}

func readEvents(t *testing.T, u string, header ...string) (int, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	events := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events++
		}
	}
	return events, sc.Err()
}

func TestStreamCutAfterNEvents(t *testing.T) {
	u := startData(t, exampleSpec, idemgenmock.Options{})
	n, err := readEvents(t, u+"/events")
	if n != 3 || err != nil {
		t.Errorf("whole stream: %d events, %v; want 3 and a clean end", n, err)
	}
	n, err = readEvents(t, u+"/events", idemgenmock.FaultHeader, "cut-stream=2")
	if n != 2 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut stream: %d events, %v; want 2 and an unexpected EOF", n, err)
	}
}

func TestSlowBodyAndLatencyUseTheInjectedSleep(t *testing.T) {
	var mu sync.Mutex
	var waits []time.Duration
	u := startData(t, exampleSpec, idemgenmock.Options{
		Faults: []idemgenmock.Fault{idemgenmock.Latency(7 * time.Millisecond).On("getPet")},
		Sleep: func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			return nil
		},
	})
	_, b := do(t, "GET", u+"/pets/1", "", idemgenmock.FaultHeader, "slow-body=10/3ms")
	if string(b) != `{"id":1,"kind":"cat","name":"Tom"}` {
		t.Errorf("slow body arrived as %s", b)
	}
	mu.Lock()
	defer mu.Unlock()
	// 34 bytes in chunks of 10: three waits between four chunks.
	if len(waits) != 4 || waits[0] != 7*time.Millisecond || waits[1] != 3*time.Millisecond {
		t.Errorf("waits %v, want the latency then 3 chunk intervals", waits)
	}
}

func TestFaultsParseAndPrintBack(t *testing.T) {
	for _, s := range []string{"drop-after-commit", "reset-before-body*2", "503:0.3@createPayment", "retry-after=1",
		"retry-after=Wed, 21 Oct 2015 07:28:00 GMT", "latency=50ms", "slow-body=16/10ms", "cut-stream=2*1@streamEvents"} {
		f, err := idemgenmock.ParseFault(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if f.String() != s {
			t.Errorf("%q prints back as %q", s, f.String())
		}
	}
	fs, err := idemgenmock.ParseFaults("503:1, retry-after=Wed, 21 Oct 2015 07:28:00 GMT, drop-after-commit")
	if err != nil || len(fs) != 3 || fs[1].RetryAfter != "Wed, 21 Oct 2015 07:28:00 GMT" {
		t.Errorf("list: %v %+v", err, fs)
	}
	for _, bad := range []string{"", "503:0", "503:1.5", "99:0.5", "latency=2h", "slow-body=0/1ms", "explode", "503:1@", "drop-after-commit*0"} {
		if _, err := idemgenmock.ParseFault(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	srv := idemgenmock.Start(t, ordersSpec)
	resp, b := do(t, "GET", srv.URL+"/health", "", idemgenmock.FaultHeader, "explode")
	if resp.StatusCode != 400 || !strings.Contains(string(b), "explode") {
		t.Errorf("bad fault header: %d %s", resp.StatusCode, b)
	}
}

func TestStormProbabilityIsSeeded(t *testing.T) {
	count := func(seed uint64) int {
		u := startData(t, exampleSpec, idemgenmock.Options{Seed: seed,
			Faults: []idemgenmock.Fault{idemgenmock.Storm(503, 0.3)}})
		n := 0
		for i := 0; i < 200; i++ {
			resp, _ := do(t, "GET", u+"/pets/1", "")
			if resp.StatusCode == 503 {
				n++
			}
		}
		return n
	}
	a, b := count(3), count(3)
	if a != b || a < 30 || a > 90 {
		t.Errorf("503s in 200 requests: %d and %d with the same seed; want equal and near 60", a, b)
	}
}

func TestProxyValidatesBothWaysAndLogsMismatches(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/pets/2" {
			io.WriteString(w, `{"id":2,"name":"R","kind":"cow"}`) // name too short, kind not in the enum
			return
		}
		io.WriteString(w, `{"id":1,"name":"Tom","kind":"cat"}`)
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	var log syncBuffer
	u := startData(t, exampleSpec, idemgenmock.Options{Proxy: target, Log: &log})
	resp, b := do(t, "GET", u+"/pets/1", "")
	if resp.StatusCode != 200 || string(b) != `{"id":1,"name":"Tom","kind":"cat"}` {
		t.Errorf("proxied: %d %s", resp.StatusCode, b)
	}
	_, b = do(t, "GET", u+"/pets/2", "")
	if string(b) != `{"id":2,"name":"R","kind":"cow"}` {
		t.Errorf("an invalid answer must still be forwarded as is: %s", b)
	}
	do(t, "GET", u+"/pets/x", "")
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want one log line per request:\n%s", log.String())
	}
	if !strings.Contains(lines[0], `validation="ok"`) {
		t.Errorf("valid exchange logged as %s", lines[0])
	}
	if !strings.Contains(lines[1], "response:") || !strings.Contains(lines[1], "kind") {
		t.Errorf("response mismatch not reported: %s", lines[1])
	}
	if !strings.Contains(lines[2], "request:") || !strings.Contains(lines[2], "path id") {
		t.Errorf("request mismatch not reported: %s", lines[2])
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRoutesBelowTheServerBasePath(t *testing.T) {
	srv := idemgenmock.Start(t, ordersSpec)
	for _, p := range []string{"/health", "/v1/health"} {
		if resp, b := do(t, "GET", srv.URL+p, ""); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", p, resp.StatusCode, b)
		}
	}
	if resp, _ := do(t, "GET", srv.URL+"/v2/health", ""); resp.StatusCode != 404 {
		t.Errorf("/v2/health: %d, want 404", resp.StatusCode)
	}
}

const formSpec = `openapi: 3.0.3
info: {title: forms, version: "1"}
paths:
  /v1/charges:
    post:
      operationId: createCharge
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [amount, items]
              properties:
                amount: {type: integer, minimum: 1}
                capture: {type: boolean}
                metadata: {type: object, additionalProperties: {type: string}}
                items:
                  type: array
                  items:
                    type: object
                    required: [price]
                    properties:
                      price: {type: string}
                      quantity: {type: integer, maximum: 10}
                expand: {type: array, items: {type: string}}
      responses:
        "302":
          description: elsewhere
          headers:
            Location: {schema: {type: string, format: uri}}
  /v1/customers:
    get:
      operationId: listCustomers
      parameters:
        - {name: expand, in: query, style: deepObject, explode: true, schema: {type: array, items: {type: string, maxLength: 5}}}
        - name: details
          in: query
          style: deepObject
          explode: true
          schema:
            type: object
            properties:
              tax_ids: {type: array, items: {type: object, required: [type], properties: {type: {type: string, enum: [eu_vat]}}}}
      responses: {"200": {description: ok}}
  /responses:
    post:
      operationId: createResponse
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, required: [beta], properties: {beta: {type: boolean, enum: [false]}}}}}}}
  /responses?beta=true:
    post:
      operationId: createBetaResponse
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, required: [beta], properties: {beta: {type: boolean, enum: [true]}}}}}}}
`

func TestNestedFormsFixedQueriesAndRedirects(t *testing.T) {
	u := startData(t, formSpec, idemgenmock.Options{})
	post := func(path, form string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", u+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// Do not follow the redirect: the Location is the point.
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, b := post("/v1/charges", "amount=5&capture=true&metadata[order]=o1&items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2&expand[]=customer")
	if resp.StatusCode != 302 {
		t.Fatalf("a valid nested form: %d %s", resp.StatusCode, b)
	}
	loc := resp.Header.Get("Location")
	if r2, err := http.Get(loc); err != nil || r2.StatusCode != 200 {
		t.Errorf("Location %q does not lead to an answer on the mock: %v", loc, err)
	} else {
		r2.Body.Close()
	}
	resp, b = post("/v1/charges", "amount=5&items[0][quantity]=20")
	p := problemOf(t, b)
	if resp.StatusCode != 400 || len(p.Errors) != 2 {
		t.Fatalf("an invalid nested form: %d %s", resp.StatusCode, b)
	}
	pointers := p.Errors[0].Pointer + " " + p.Errors[1].Pointer
	if !strings.Contains(pointers, "/items/0/price") || !strings.Contains(pointers, "/items/0/quantity") {
		t.Errorf("pointers %q, want /items/0/price and /items/0/quantity", pointers)
	}
	if resp, b := post("/v1/charges", "amount=x&items[0][price]=p"); resp.StatusCode != 400 || !strings.Contains(string(b), `"/amount"`) {
		t.Errorf("a non-integer amount: %d %s", resp.StatusCode, b)
	}
	// deepObject lists and nested lists of objects, which kin-openapi
	// refuses, are read as forms.
	for q, want := range map[string]int{
		"expand[0]=a&expand[1]=b&details[tax_ids][0][type]=eu_vat": 200,
		"expand[0]=toolong":                    400,
		"details[tax_ids][0][type]=us_ein":     400,
		"details[tax_ids][0][type]=eu_vat&x=1": 200,
	} {
		if resp, b := do(t, "GET", u+"/v1/customers?"+q, ""); resp.StatusCode != want {
			t.Errorf("%s: %d %s, want %d", q, resp.StatusCode, b, want)
		} else if want == 400 && !strings.Contains(string(b), `"name":"`) {
			t.Errorf("%s: the problem does not name the parameter: %s", q, b)
		}
	}
	// A path key with a fixed query is its own operation.
	if _, b := post("/responses?beta=true", ""); string(b) != `{"beta":true}` {
		t.Errorf("/responses?beta=true answered %s", b)
	}
	if _, b := post("/responses", ""); string(b) != `{"beta":false}` {
		t.Errorf("/responses answered %s", b)
	}
}

func TestSwagger2DocumentsAreServed(t *testing.T) {
	srv := idemgenmock.Start(t, "../testdata/specs/swagger2.yaml")
	if srv.Operations() == 0 {
		t.Fatal("no operations")
	}
	// basePath /v1 and the converted apiKey security and array parameter.
	if resp, b := do(t, "GET", srv.URL+"/v1/items?sku=a,b&limit=2", "", "X-API-Key", "k"); resp.StatusCode != 200 || b[0] != '[' {
		t.Errorf("listItems: %d %s", resp.StatusCode, b)
	}
	if resp, b := do(t, "GET", srv.URL+"/v1/items?limit=x", "", "X-API-Key", "k"); resp.StatusCode != 400 || !strings.Contains(string(b), `"name":"limit"`) {
		t.Errorf("a bad limit: %d %s", resp.StatusCode, b)
	}
	if resp, _ := do(t, "GET", srv.URL+"/v1/items", ""); resp.StatusCode != 401 {
		t.Errorf("no API key: %d, want 401", resp.StatusCode)
	}
}

func TestLedgerFileSurvivesARestart(t *testing.T) {
	file := t.TempDir() + "/ledger.db"
	run := func() (*http.Response, []byte, int) {
		m, err := idemgenmock.New(ordersSpec, idemgenmock.Options{Ledger: file})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(m)
		defer func() { hs.Close(); m.Close() }()
		resp, b := do(t, "POST", hs.URL+"/payments", payment, "Authorization", "Bearer t", "Idempotency-Key", "persist")
		return resp, b, m.Executions("createPayment")
	}
	r1, b1, e1 := run()
	r2, b2, e2 := run()
	if r1.StatusCode != 201 || e1 != 1 {
		t.Fatalf("first run: %d, %d executions", r1.StatusCode, e1)
	}
	if r2.StatusCode != 201 || e2 != 0 || !bytes.Equal(b1, b2) || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("after a restart: %d, %d executions, replayed=%q; want the stored answer replayed",
			r2.StatusCode, e2, r2.Header.Get("Idempotent-Replayed"))
	}
}

const multipartSpec = `openapi: 3.0.3
info: {title: upload, version: "1"}
paths:
  /documents:
    post:
      operationId: uploadDocument
      requestBody:
        content:
          multipart/form-data:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
                caption: {type: string}
            encoding:
              caption: {contentType: text/markdown}
      responses: {"204": {description: stored}}
`

// A multipart part in a media type kin-openapi cannot decode is not held
// against the request; the parts it can read are still checked.
func TestMultipartPartsOfUndecodableTypes(t *testing.T) {
	u := startData(t, multipartSpec, idemgenmock.Options{})
	send := func(parts string) int {
		body := strings.ReplaceAll(parts, "\n", "\r\n")
		req, _ := http.NewRequest("POST", u+"/documents", strings.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=XX")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	ok := "--XX\nContent-Disposition: form-data; name=\"name\"\n\nreport\n--XX\nContent-Disposition: form-data; name=\"caption\"\nContent-Type: text/markdown\n\n# Title\n--XX--\n"
	if s := send(ok); s != 204 {
		t.Errorf("valid parts: %d, want 204", s)
	}
	noName := "--XX\nContent-Disposition: form-data; name=\"caption\"\nContent-Type: text/markdown\n\n# Title\n--XX--\n"
	if s := send(noName); s != 400 {
		t.Errorf("without the required name part: %d, want 400", s)
	}
}

// TestBooleanIdempotentOverridesTheKeyHeader: under x-idempotent: true a
// declared Idempotency-Key header is an ordinary one (the generated client
// sends it as any header), so the mock keeps no ledger for it: the same
// value with another payload executes again instead of answering 422.
func TestBooleanIdempotentOverridesTheKeyHeader(t *testing.T) {
	srv := idemgenmock.Start(t, "../testdata/specs/webhooks.yaml")
	for _, body := range []string{`{"amount":1}`, `{"amount":2}`} {
		resp, b := do(t, "POST", srv.URL+"/payments", body, "Idempotency-Key", "same")
		if resp.StatusCode != http.StatusCreated || resp.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("%s: %d %s replayed=%q, want 201 and no replay", body, resp.StatusCode, b, resp.Header.Get("Idempotent-Replayed"))
		}
	}
	if st := srv.Stats().Operations["createPayment"]; st.Executions != 2 {
		t.Errorf("stats %+v: want 2 executions", st)
	}
}
