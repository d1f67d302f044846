package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// tagger is a middleware that records, per attempt, its name and the key
// and credentials the request carries when it runs.
type tagger struct {
	mu   sync.Mutex
	seen []string
}

func (g *tagger) mw(name string) Middleware {
	return func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		g.mu.Lock()
		g.seen = append(g.seen, name+" "+req.Header.Get("Idempotency-Key")+" "+req.Header.Get("Authorization"))
		g.mu.Unlock()
		req.Header.Add("X-Via", name)
		resp, err := next(req)
		if err == nil {
			resp.Header.Add("X-Back", name)
		}
		return resp, err
	}
}

// TestMiddlewareRunsPerAttemptClientOutside: client and call middleware
// run on every attempt, after the key and the credentials are set, the
// client's outside the call's, on the way in and on the way out.
func TestMiddlewareRunsPerAttemptClientOutside(t *testing.T) {
	g := &tagger{}
	d := &fakeDoer{script: []step{answer(503), answer(503), ok200}}
	auth := WithRequestEditor(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer t")
		return nil
	})
	r := newTestRunner(d, newFakeClock(), auth, WithMiddleware(g.mw("client")))
	var resp *http.Response
	body, err, log := doCall(t, r, &keyedOp, "k-1", WithMiddleware(g.mw("call")), WithResponse(&resp))
	if err != nil || body != "ok" || len(log) != 3 {
		t.Fatalf("body %q err %v after %d attempts", body, err, len(log))
	}
	want := strings.Repeat("client k-1 Bearer t,call k-1 Bearer t,", 3)
	if got := strings.Join(g.seen, ",") + ","; got != want {
		t.Fatalf("middleware ran as %q; want %q", got, want)
	}
	for i, req := range d.reqs {
		if via := req.Header.Values("X-Via"); strings.Join(via, ",") != "client,call" {
			t.Fatalf("attempt %d reached the server via %v", i+1, via)
		}
	}
	if back := resp.Header.Values("X-Back"); strings.Join(back, ",") != "call,client" {
		t.Fatalf("the response came back through %v; want call, then client", back)
	}
}

// TestMiddlewareErrorIsATransportError: a middleware's error is judged as
// a transport error. Returned before next, nothing was sent: even an
// unsafe operation is sent again. Returned after next, the request may have
// been executed: an unsafe operation stops with ErrOutcomeUnknown.
func TestMiddlewareErrorIsATransportError(t *testing.T) {
	var calls atomic.Int32
	refuseFirst := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		if calls.Add(1) == 1 {
			return nil, errors.New("circuit open")
		}
		return next(req)
	}
	d := &fakeDoer{script: []step{ok200}}
	body, err, log := doCall(t, newTestRunner(d, newFakeClock()), &unsafeOp, "", WithMiddleware(refuseFirst))
	if err != nil || body != "ok" || d.count() != 1 || len(log) != 2 || log[1].Reason != ReasonConnection {
		t.Fatalf("refused before next: body %q err %v, %d sends, records %+v", body, err, d.count(), log)
	}
	failAfter := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err == nil {
			resp.Body.Close()
		}
		return nil, errors.New("response rejected by middleware")
	}
	d = &fakeDoer{script: []step{ok200}}
	_, err, _ = doCall(t, newTestRunner(d, newFakeClock()), &unsafeOp, "", WithMiddleware(failAfter))
	if !errors.Is(err, ErrOutcomeUnknown) || d.count() != 1 {
		t.Fatalf("failed after next: %v after %d sends; want ErrOutcomeUnknown after 1", err, d.count())
	}
}

// TestMiddlewareDroppingTheTraceIsUnknown: a middleware that sends the
// request under a context of its own hides the attempt's trace from a real
// Transport. The server executes the unsafe call and drops the connection:
// the engine cannot tell that the request was written, so it reads the
// failure as an unknown outcome and does not send it again.
func TestMiddlewareDroppingTheTraceIsUnknown(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	ownContext := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		return next(req.WithContext(context.Background()))
	}
	r, _ := loopRunner(t, quickPolicy(), WithMiddleware(ownContext))
	_, err, _ := post(t, r, &unsafeOp, srv.URL, "")
	s.waitExecuted(t, 1)
	if !errors.Is(err, ErrOutcomeUnknown) || s.executions.Load() != 1 || s.hits.Load() != 1 {
		t.Fatalf("%v after %d executions, %d requests; want ErrOutcomeUnknown after 1", err, s.executions.Load(), s.hits.Load())
	}
}

// TestLoopbackMiddlewareReplacesTheResponse: on a real connection, a
// middleware changes the request the server gets and replaces the answer
// the caller reads; the server executed the keyed call once.
func TestLoopbackMiddlewareReplacesTheResponse(t *testing.T) {
	var executions atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		executions.Add(1)
		_, _ = io.WriteString(w, "tenant="+r.Header.Get("X-Tenant"))
	}))
	t.Cleanup(srv.Close)
	rewrite := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		req.Header.Set("X-Tenant", "acme")
		resp, err := next(req)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(strings.ToUpper(string(b))))
		return resp, nil
	}
	r, _ := loopRunner(t, quickPolicy(), WithMiddleware(rewrite))
	body, err, _ := post(t, r, &keyedOp, srv.URL, "")
	if err != nil || body != "TENANT=ACME" || executions.Load() != 1 {
		t.Fatalf("body %q err %v, %d executions", body, err, executions.Load())
	}
}
