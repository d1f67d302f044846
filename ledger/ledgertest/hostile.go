package ledgertest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/runtime/problem"
)

// testLateError: a handler that chose a status, perhaps wrote part of its
// body, and then signals a failure (http.Error's superfluous 5xx) did not
// finish. Nothing it wrote may commit, the client gets a 500 rather than
// the broken body, and the key is free for a retry that executes afresh.
func testLateError(t *testing.T, open Opener) {
	cases := map[string]func(w http.ResponseWriter){
		"partial body then http.Error 500": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"ord-`)
			http.Error(w, "downstream failed", http.StatusInternalServerError)
		},
		"201 with a body then 503": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":`)
			w.WriteHeader(http.StatusServiceUnavailable)
		},
		"201 then http.Error 502 before any body": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusCreated)
			http.Error(w, "bad gateway", http.StatusBadGateway)
		},
		"invalid status": func(w http.ResponseWriter) { w.WriteHeader(42) },
	}
	for name, fail := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			f := newFixture(t, open, nil)
			f.handle(func(w http.ResponseWriter, r *http.Request) {
				if _, _, ok := f.insertOrder(w, r); ok {
					fail(w)
				}
			})
			w := f.do("alice", "k1", body1)
			wantStatus(t, w, http.StatusInternalServerError)
			if strings.Contains(w.Body.String(), `"id"`) {
				t.Errorf("the client got the broken body: %s", w.Body.String())
			}
			f.wantCounts(0, 0)
			if rec, ok := f.row("alice", "k1"); ok {
				t.Fatalf("the failed execution left the key %s with status %d", rec.State, rec.Response.Status)
			}
			f.handle(f.createOrder)
			wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
			wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
			f.wantCounts(1, 1)
			if f.calls.Load() != 2 {
				t.Errorf("handler ran %d times, want 2 (the failure, then one retry)", f.calls.Load())
			}
		})
	}
}

// testInformational: a 103 Early Hints goes to the client at once with its
// headers; the final 201 is the status that commits and is stored.
func testInformational(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</app.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		f.createOrder(w, r)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.h.ServeHTTP(w, r) }))
	defer srv.Close()
	var hints []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		hints = append(hints, fmt.Sprintf("%d %s", code, h.Get("Link")))
		return nil
	}}
	post := func() *http.Response {
		r, _ := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodPost, srv.URL+"/orders", strings.NewReader(body1))
		r.Header.Set("X-Caller", "alice")
		r.Header.Set("Idempotency-Key", "k1")
		resp, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := post(); resp.StatusCode != http.StatusCreated {
		t.Fatalf("final status = %d, want 201", resp.StatusCode)
	}
	if len(hints) != 1 || hints[0] != "103 </app.css>; rel=preload" {
		t.Errorf("informational responses = %q, want one 103 with its Link", hints)
	}
	if rec, _ := f.row("alice", "k1"); rec.State != ledger.StateCompleted || rec.Response.Status != http.StatusCreated {
		t.Fatalf("stored %s %d, want completed 201", rec.State, rec.Response.Status)
	}
	if resp := post(); resp.StatusCode != http.StatusCreated || resp.Header.Get(ledger.ReplayedHeader) != "true" {
		t.Errorf("replay = %d (replayed %q), want the stored 201", resp.StatusCode, resp.Header.Get(ledger.ReplayedHeader))
	}
	f.wantCounts(1, 1)
}

// testOversizedResponse: a response above MaxStoredResponse (1 MiB by
// default) is given once, in full, to the request that executed; the key
// completes with a clear, final problem that every repeat receives, and the
// handler never runs again for it.
func testOversizedResponse(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	big := strings.Repeat("x", 2<<20)
	f.handle(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := f.insertOrder(w, r); ok {
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, big)
		}
	})
	first := f.do("alice", "k1", body1)
	wantStatus(t, first, http.StatusCreated)
	if first.Body.Len() != len(big) {
		t.Fatalf("the executing request got %d bytes, want all %d", first.Body.Len(), len(big))
	}
	rec, _ := f.row("alice", "k1")
	if rec.State != ledger.StateCompleted || len(rec.Response.Body) > 1<<20 {
		t.Fatalf("row %s with a %d-byte body, want completed with the small problem", rec.State, len(rec.Response.Body))
	}
	for range 2 {
		again := f.do("alice", "k1", body1)
		wantStatus(t, again, http.StatusInternalServerError)
		if !strings.Contains(again.Body.String(), problem.ResponseNotStored) || again.Header().Get(ledger.ReplayedHeader) != "true" {
			t.Errorf("repeat = %s (replayed %q), want the replayed response-not-stored problem",
				again.Body.String(), again.Header().Get(ledger.ReplayedHeader))
		}
	}
	if f.calls.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", f.calls.Load())
	}
	f.wantCounts(1, 1)
}

// testPoisonCaller: a caller identity no database can store as a text key
// (NUL, invalid UTF-8, longer than an index entry) is a 401, decided before
// the ledger is touched; on PostgreSQL it used to be a 503 "retry" forever.
func testPoisonCaller(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	for name, caller := range map[string]string{
		"NUL": "ali\x00ce", "invalid UTF-8": "\xffalice", "5000 bytes": strings.Repeat("a", 5000),
	} {
		w := f.do(caller, "k1", body1)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), problem.CallerUnknown) {
			t.Errorf("%s caller: %d %s, want a 401 caller problem", name, w.Code, w.Body.String())
		}
	}
	if f.calls.Load() != 0 || f.count("idem_ledger") != 0 {
		t.Errorf("poison callers reached the handler (%d calls) or the ledger (%d rows)", f.calls.Load(), f.count("idem_ledger"))
	}
	f.wantCounts(0, 0)
	wantStatus(t, f.do(strings.Repeat("a", 1024), "k1", body1), http.StatusCreated)
}
