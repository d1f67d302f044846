package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// sleepRecorder is an injected Options.Sleep that waits for nothing and
// keeps every wait asked for.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return nil
}

func (s *sleepRecorder) total() (time.Duration, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum time.Duration
	for _, d := range s.waits {
		sum += d
	}
	n := len(s.waits)
	s.waits = nil
	return sum, n
}

func TestFaultWaitsAddUpToTheCap(t *testing.T) {
	rec := &sleepRecorder{}
	u := startData(t, exampleSpec, idemgenmock.Options{Sleep: rec.sleep})
	// Stacked latencies, then a slow body whose 3 intervals would add 3s
	// more: the request waits one minute in all.
	_, b := do(t, "GET", u+"/pets/1", "", idemgenmock.FaultHeader,
		"latency=1m, latency=1m, latency=1m, latency=1m, slow-body=10/1s")
	if string(b) != `{"id":1,"kind":"cat","name":"Tom"}` {
		t.Errorf("body %s", b)
	}
	if sum, _ := rec.total(); sum != time.Minute {
		t.Errorf("waited %v in all, want the 1m cap", sum)
	}
	// A configured fault is capped too: Latency takes any duration.
	u = startData(t, exampleSpec, idemgenmock.Options{Sleep: rec.sleep,
		Faults: []idemgenmock.Fault{idemgenmock.Latency(3 * time.Hour)}})
	do(t, "GET", u+"/pets/1", "")
	if sum, _ := rec.total(); sum != time.Minute {
		t.Errorf("Latency(3h) waited %v, want the 1m cap", sum)
	}
	// An event stream's waits count against the same budget.
	do(t, "GET", u+"/events", "", idemgenmock.FaultHeader, "slow-body=1/1s")
	if sum, _ := rec.total(); sum != time.Minute {
		t.Errorf("stream waited %v, want the 1m cap", sum)
	}
}

func TestFaultHeaderIsBoundedInEntriesAndLength(t *testing.T) {
	rec := &sleepRecorder{}
	u := startData(t, exampleSpec, idemgenmock.Options{Sleep: rec.sleep})
	stacked := strings.TrimSuffix(strings.Repeat("latency=1m,", 600), ",")
	long := "latency=1ms@" + strings.Repeat("x", 2000)
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"600 stacked latencies", []string{stacked}, "at most 1024 bytes"},
		{"17 stacked latencies", []string{stacked[:len("latency=1m,")*17-1]}, "at most 16"},
		{"17 header lines", strings.Split(strings.Repeat("latency=1ms,", 17), ",")[:17], "at most 16"},
		{"2 KB header", []string{long}, "at most 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", u+"/pets/1", nil)
			for _, v := range tc.values {
				req.Header.Add(idemgenmock.FaultHeader, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b := readAll(t, resp)
			p := problemOf(t, b)
			if resp.StatusCode != 400 || !strings.HasSuffix(p.Type, "#bad-fault") || !strings.Contains(p.Detail, tc.want) {
				t.Errorf("%d %s: want 400 bad-fault saying %q", resp.StatusCode, b, tc.want)
			}
			if sum, n := rec.total(); n != 0 {
				t.Errorf("waited %v (%d waits) before refusing", sum, n)
			}
		})
	}
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// credSpec has keyed operations whose callers are told apart by an API key
// in a header (the document's security), a cookie or a query parameter.
const credSpec = `openapi: 3.0.3
info: {title: creds, version: "1"}
security: [{token: []}]
paths:
  /sessions:
    post:
      operationId: createSession
      parameters: [{name: Idempotency-Key, in: header, required: true, schema: {type: string}}]
      responses:
        "201": {$ref: "#/components/responses/Created"}
  /carts:
    post:
      operationId: createCart
      security: [{session: []}, {qkey: []}]
      parameters: [{name: Idempotency-Key, in: header, required: true, schema: {type: string}}]
      responses:
        "201": {$ref: "#/components/responses/Created"}
components:
  responses:
    Created:
      description: created
      headers:
        Set-Cookie: {schema: {type: string}}
      content:
        application/json:
          schema: {type: object, properties: {id: {type: string}}}
  securitySchemes:
    token: {type: apiKey, in: header, name: X-Token}
    session: {type: apiKey, in: cookie, name: sid}
    qkey: {type: apiKey, in: query, name: api_key}
`

func TestLedgerScopesKeysByEveryDeclaredCredential(t *testing.T) {
	// Dynamic answers: every execution draws a new Set-Cookie, so a replay
	// of another caller's answer shows.
	u := startData(t, credSpec, idemgenmock.Options{Dynamic: true, Seed: 7})
	for _, tc := range []struct {
		name, path string
		alice, bob []string
	}{
		{"X-Token header (document security)", "/sessions", []string{"X-Token", "alice"}, []string{"X-Token", "bob"}},
		{"cookie", "/carts", []string{"Cookie", "sid=alice"}, []string{"Cookie", "sid=bob"}},
		{"query key", "/carts?api_key=", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "k-" + strings.Fields(tc.name)[0]
			pathA, pathB := tc.path, tc.path
			if strings.HasSuffix(tc.path, "=") {
				pathA, pathB = tc.path+"alice", tc.path+"bob"
			}
			first, _ := do(t, "POST", u+pathA, "{}", append([]string{"Idempotency-Key", key}, tc.alice...)...)
			other, b := do(t, "POST", u+pathB, "{}", append([]string{"Idempotency-Key", key}, tc.bob...)...)
			if first.StatusCode != 201 || other.StatusCode != 201 {
				t.Fatalf("statuses %d, %d %s: want 201 twice", first.StatusCode, other.StatusCode, b)
			}
			if other.Header.Get("Idempotent-Replayed") != "" || other.Header.Get("Set-Cookie") == first.Header.Get("Set-Cookie") {
				t.Errorf("the second caller got the first one's answer (Set-Cookie %q)", other.Header.Get("Set-Cookie"))
			}
			again, _ := do(t, "POST", u+pathA, "{}", append([]string{"Idempotency-Key", key}, tc.alice...)...)
			if again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("Set-Cookie") != first.Header.Get("Set-Cookie") {
				t.Errorf("the first caller's repeat was not a replay of its own answer")
			}
		})
	}
	_, b := do(t, "GET", u+idemgenmock.StatsPath, "")
	var st idemgenmock.Stats
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if s, c := st.Operations["createSession"], st.Operations["createCart"]; s == nil || c == nil || s.Executions != 2 || c.Executions != 4 {
		t.Errorf("stats %s: want 2 executions of createSession and 4 of createCart, one per caller", b)
	}
}

// nested is a body of testdata/recursive.yaml: a leaf inside n "child"
// wrappers, nesting n+1 deep.
func nested(n int) string {
	return strings.Repeat(`{"child":`, n) + `{"v":1}` + strings.Repeat("}", n)
}

func TestBodiesOfUnionRecursiveSchemasAreBoundedInDepth(t *testing.T) {
	srv := idemgenmock.Start(t, "testdata/recursive.yaml")
	for _, path := range []string{"/trees", "/choices"} {
		// kin-openapi visits a union's variants again and again at every
		// level: at 16 levels this body took it 1.8 s, and each level more
		// doubles that.
		resp, b := do(t, "POST", srv.URL+path, nested(15))
		if resp.StatusCode != 400 {
			t.Errorf("%s nested 16 deep: %d %s, want 400", path, resp.StatusCode, b)
		} else if p := problemOf(t, b); !strings.HasSuffix(p.Type, "#body-too-deep") || !strings.Contains(p.Detail, "10") {
			t.Errorf("%s nested 16 deep: %d %s, want 400 body-too-deep naming the limit", path, resp.StatusCode, b)
		}
		if resp, b := do(t, "POST", srv.URL+path, nested(9)); resp.StatusCode != 204 {
			t.Errorf("%s nested 10 deep: %d %s, want 204", path, resp.StatusCode, b)
		}
	}
	// A form body nests by its keys: child[child][v]=1 is 3 deep.
	form := func(wrappers int) string { return "child" + strings.Repeat("[child]", wrappers-1) + "[v]=1" }
	for _, tc := range []struct {
		body   string
		status int
	}{{form(15), 400}, {form(9), 204}} {
		resp, b := do(t, "POST", srv.URL+"/trees", tc.body, "Content-Type", "application/x-www-form-urlencoded")
		if resp.StatusCode != tc.status {
			t.Errorf("form %s: %d %s, want %d", tc.body, resp.StatusCode, b, tc.status)
		}
	}
	if st := srv.Stats().Operations["createTree"]; st.Rejected != 2 || st.Executions != 2 {
		t.Errorf("createTree stats %+v: want 2 rejections, 2 executions", st)
	}
}

// BenchmarkRecursiveBody times one request of testdata/recursive.yaml's
// createTree, nested 10 deep (the most that is validated) and 16 deep.
func BenchmarkRecursiveBody(b *testing.B) {
	s, err := idemgenmock.New("testdata/recursive.yaml", idemgenmock.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, wrappers := range []int{9, 15, 19} {
		body := nested(wrappers)
		b.Run(fmt.Sprintf("nesting=%d/bytes=%d", wrappers+1, len(body)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("POST", "/trees", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				s.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

func TestProxyForwardsAnAnswerTooLargeToValidateWhole(t *testing.T) {
	big := `{"id":1,"name":"` + strings.Repeat("x", 5000) + `","kind":"cat"}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, big)
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	var log syncBuffer
	// MaxBody 64: answers are validated up to 1024 bytes.
	u := startData(t, exampleSpec, idemgenmock.Options{Proxy: target, Log: &log, MaxBody: 64})
	resp, b := do(t, "GET", u+"/pets/1", "")
	if resp.StatusCode != 200 || string(b) != big {
		t.Errorf("proxied %d: %d of %d bytes arrived", resp.StatusCode, len(b), len(big))
	}
	if !strings.Contains(log.String(), "not validated") {
		t.Errorf("log %s: want the unvalidated body noted", log.String())
	}
}

// TestProxyBoundsTheDepthOfUnionRecursiveAnswers: an upstream answer nested
// deeper than the request bound under a schema that recurses through a
// union is forwarded unvalidated (kin-openapi would take time exponential
// in its depth), and the log says so.
func TestProxyBoundsTheDepthOfUnionRecursiveAnswers(t *testing.T) {
	deep := nested(40)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, deep)
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	spec, err := os.ReadFile("testdata/recursive.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	u := startData(t, string(spec), idemgenmock.Options{Proxy: target, Log: &log})
	start := time.Now()
	resp, b := do(t, "GET", u+"/trees/latest", "")
	if resp.StatusCode != 200 || string(b) != deep {
		t.Errorf("proxied %d %q", resp.StatusCode, b)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the deep answer took %v", d)
	}
	if !strings.Contains(log.String(), "not validated") {
		t.Errorf("log %s: want the unvalidated answer noted", log.String())
	}
}

// placeholderSpec's answer merges an allOf whose first member only lists
// required names and whose second declares them, optional there.
const placeholderSpec = `openapi: 3.0.3
info: {title: placeholders, version: "1"}
paths:
  /things:
    get:
      operationId: getThing
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                allOf:
                  - {type: object, required: [a, b, c, d, e, f, g, h]}
                  - type: object
                    properties:
                      a: {type: string}
                      b: {type: string}
                      c: {type: string}
                      d: {type: string}
                      e: {type: string}
                      f: {type: string}
                      g: {type: string}
                      h: {type: string}
`

func TestDynamicAllOfPlaceholdersFollowTheSeed(t *testing.T) {
	first := ""
	for i := 0; i < 8; i++ {
		u := startData(t, placeholderSpec, idemgenmock.Options{Dynamic: true, Seed: 3})
		_, b := do(t, "GET", u+"/things", "")
		if i == 0 {
			first = string(b)
		} else if string(b) != first {
			t.Fatalf("seed 3 answered\n%s\nthen\n%s", first, b)
		}
	}
}

func TestReferencesStayInTheDocumentsFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := "openapi: 3.0.3\ninfo: {title: s, version: \"1\"}\npaths: {}\ncomponents: {schemas: {S: {type: string}}}\n"
	spec := `openapi: 3.0.3
info: {title: refs, version: "1"}
paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "../secret.yaml#/components/schemas/S"}
`
	for name, data := range map[string]string{"secret.yaml": secret, "api/spec.yaml": spec} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := idemgenmock.New(filepath.Join(dir, "api/spec.yaml"), idemgenmock.Options{})
	if err == nil || !strings.Contains(err.Error(), "leaves the folder") {
		t.Errorf("New: %v, want the reference refused", err)
	}
}
