package idemsrv

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

func TestNewRefusesKeyedOperationsWithoutALedgerChoice(t *testing.T) {
	_, err := New([]string{"createOrder", "createPayment"})
	if !errors.Is(err, ErrNoLedger) || !strings.Contains(err.Error(), "createOrder, createPayment") {
		t.Fatalf("err = %v, want ErrNoLedger naming the operations", err)
	}
	if _, err := New([]string{"createOrder"}, WithoutLedger()); err != nil {
		t.Errorf("WithoutLedger: %v", err)
	}
	if _, err := New(nil); err != nil {
		t.Errorf("no keyed operations: %v", err)
	}
}

var updateOp = &idemrt.Operation{ID: "updateOrder", Method: "PUT", Path: "/orders/{id}", Safety: idemrt.Idempotent}

func TestMissingPreconditionIs428BeforeTheHandler(t *testing.T) {
	e, _ := New(nil)
	ran := 0
	rt := Route{Op: updateOp, Preconditions: []string{"If-Match"}}
	if err := e.Handle(rt, func(w http.ResponseWriter, r *http.Request) { ran++ }); err != nil {
		t.Fatal(err)
	}
	mux := e.Root()
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("PUT", "/orders/1", nil))
	if w.Code != http.StatusPreconditionRequired || ran != 0 || w.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("without If-Match: %d, handler ran %d times", w.Code, ran)
	}
	r := httptest.NewRequest("PUT", "/orders/1", nil)
	r.Header.Set("If-Match", `"v1"`)
	mux.ServeHTTP(httptest.NewRecorder(), r)
	if ran != 1 {
		t.Errorf("with If-Match the handler ran %d times", ran)
	}
}

// TestHandleReportsDuplicateTemplates: overlapping templates are routed,
// but a template another operation has with the same method, up to
// parameter names, is a RouteError naming both, not a panic.
func TestHandleReportsDuplicateTemplates(t *testing.T) {
	e, _ := New(nil)
	nop := func(http.ResponseWriter, *http.Request) {}
	for _, op := range []*idemrt.Operation{
		{ID: "a", Method: "GET", Path: "/a/{x}/c"},
		{ID: "b", Method: "GET", Path: "/a/b/{y}"},
		{ID: "c", Method: "POST", Path: "/a/{z}/c"},
	} {
		if err := e.Handle(Route{Op: op}, nop); err != nil {
			t.Fatalf("%s: %v", op.ID, err)
		}
	}
	err := e.Handle(Route{Op: &idemrt.Operation{ID: "d", Method: "GET", Path: "/a/{z}/c"}}, nop)
	var re *RouteError
	if !errors.Is(err, ErrDuplicateRoute) || !errors.As(err, &re) || re.Op != "d" || !strings.Contains(err.Error(), "routed to a as GET /a/{x}/c") {
		t.Errorf("duplicate template: %v", err)
	}
	err = e.Unserved(Route{Op: &idemrt.Operation{ID: "e", Method: "GET", Path: "/a/{x}{y}"}})
	if !errors.Is(err, ErrPathTemplate) {
		t.Errorf("adjacent parameters: %v", err)
	}
}

type model struct {
	Code string `json:"code"`
}

func TestWriteErrorLeaksNothingUndeclared(t *testing.T) {
	var logged []error
	e, _ := New(nil, WithOnError(func(_ *http.Request, err error) { logged = append(logged, err) }))
	rt := &Route{Op: updateOp, Declared: idemrt.StatusSet{Codes: []int{404}}, Preconditions: []string{"If-Match"}}
	for _, tc := range []struct {
		err    error
		status int
		body   string
	}{
		{&idemrt.StatusError{StatusCode: 404, Model: &model{Code: "gone"}}, 404, `{"code":"gone"}`},
		{PreconditionFailed(&model{Code: "stale"}), 412, `{"code":"stale"}`},
		{&idemrt.StatusError{StatusCode: 409, Model: &model{Code: "undeclared"}}, 500, "the server failed"},
		{errors.New("pq: password authentication failed for user admin"), 500, "the server failed"},
	} {
		w := httptest.NewRecorder()
		e.WriteError(w, httptest.NewRequest("PUT", "/orders/1", nil), rt, tc.err)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.body) || strings.Contains(w.Body.String(), "password") {
			t.Errorf("%v: %d %s, want %d with %s", tc.err, w.Code, w.Body.String(), tc.status, tc.body)
		}
	}
	if len(logged) != 2 {
		t.Errorf("OnError got %d errors, want the 2 answered 500", len(logged))
	}
}

// TestShedSpreadsRetryAfter: with 2 slots busy, refused requests are told to
// come back in waves of 2 per service time, not all after the same wait.
func TestShedSpreadsRetryAfter(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, _ := New(nil, WithMaxInFlight(2), WithClock(func() time.Time { return clock }))
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	slow := func(w http.ResponseWriter, r *http.Request) {
		started.Done()
		<-release
	}
	if err := e.Handle(Route{Op: &idemrt.Operation{ID: "slow", Method: "GET", Path: "/slow"}}, slow); err != nil {
		t.Fatal(err)
	}
	if err := e.Handle(Route{Op: &idemrt.Operation{ID: "root", Method: "GET", Path: "/"}}, func(http.ResponseWriter, *http.Request) {}); err != nil {
		t.Fatal(err)
	}
	h := e.Root()
	var done sync.WaitGroup
	for range 2 {
		done.Add(1)
		go func() {
			defer done.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/slow", nil))
		}()
	}
	started.Wait()
	var waits []string
	for range 6 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.Code != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", w.Code)
		}
		waits = append(waits, w.Header().Get("Retry-After"))
	}
	close(release)
	done.Wait()
	// Service time 1s (none measured yet), 2 slots: a place every 0.5s.
	if got := strings.Join(waits, ","); got != "1,1,2,2,3,3" {
		t.Errorf("Retry-After = %s, want 1,1,2,2,3,3", got)
	}
	clock = clock.Add(10 * time.Second)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusOK {
		t.Errorf("after the backlog drained: %d", w.Code)
	}
}

// TestUnroutedRequestsAreProblems: the router's own 404 and 405 are
// answered as problem+json, the 405 with its Allow header.
func TestUnroutedRequestsAreProblems(t *testing.T) {
	e, _ := New(nil)
	nop := func(http.ResponseWriter, *http.Request) {}
	if err := e.Handle(Route{Op: &idemrt.Operation{ID: "list", Method: "GET", Path: "/orders"}}, nop); err != nil {
		t.Fatal(err)
	}
	h := e.Root()
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{{"GET", "/nope", 404, ""}, {"DELETE", "/orders", 405, "GET, HEAD, OPTIONS"}, {"GET", "/orders", 200, ""}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		isProblem := w.Header().Get("Content-Type") == "application/problem+json"
		if w.Code != tc.status || isProblem != (tc.status != 200) || w.Header().Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d %v, want %d (Allow %q)", tc.method, tc.path, w.Code, w.Header(), tc.status, tc.allow)
		}
	}
}

// TestWriteErrorSendsTheDeclaredMediaType: a handler's declared error is
// sent with the media type the spec declares for that status (exact, then
// class, then default), application/json where it declares none.
func TestWriteErrorSendsTheDeclaredMediaType(t *testing.T) {
	e, _ := New(nil)
	rt := &Route{Op: updateOp, Declared: idemrt.StatusSet{Codes: []int{404, 409}, Classes: []int{4}}, Default: true,
		ErrorMediaTypes: map[int]string{404: "application/problem+json", 4: "application/vnd.err+json", 0: "application/default+json"}}
	for status, want := range map[int]string{404: "application/problem+json", 409: "application/vnd.err+json", 503: "application/default+json"} {
		w := httptest.NewRecorder()
		e.WriteError(w, httptest.NewRequest("PUT", "/orders/1", nil), rt, &idemrt.StatusError{StatusCode: status, Model: &model{Code: "x"}})
		if got := w.Header().Get("Content-Type"); w.Code != status || got != want {
			t.Errorf("%d: answered %d as %q, want %q", status, w.Code, got, want)
		}
	}
	w := httptest.NewRecorder()
	e.WriteError(w, httptest.NewRequest("PUT", "/orders/1", nil), &Route{Op: updateOp, Declared: idemrt.StatusSet{Codes: []int{404}}},
		&idemrt.StatusError{StatusCode: 404, Model: &model{Code: "x"}})
	if got := w.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("no declared media type: %q, want application/json", got)
	}
}
