package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// outcomeUnknownServer answers every request 503 with the ledger's
// outcome-unknown problem (its COMMIT's connection died: the request may
// have executed) and Retry-After: 5, and counts the requests.
func outcomeUnknownServer(t *testing.T, hits *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"type":"https://idemgen.dev/problems/outcome-unknown","title":"the outcome of the request is unknown","status":503}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestServerSaysOutcomeUnknown: a 503 whose problem type is outcome-unknown
// (a server whose own COMMIT was lost) ends a keyed call that cannot wait
// for its Retry-After as an unknown outcome, never a refusal, and its
// journal entry stays unresolved for the reconciler; an unsafe call that
// gets it is an unknown outcome too, sent once.
func TestServerSaysOutcomeUnknown(t *testing.T) {
	var hits atomic.Int32
	srv := outcomeUnknownServer(t, &hits)
	for _, op := range []*Operation{&keyedOp, &unsafeOp} {
		hits.Store(0)
		j := NewMemoryJournal()
		r, _ := loopRunner(t, quickPolicy(), WithJournal(j))
		req := &Request{Method: "POST", URL: mustURL(t, srv.URL+op.Path), Body: []byte(`{}`), Key: "intent-1"}
		_, err := r.Do(context.Background(), op, req, WithTimeout(time.Second))
		if !errors.Is(err, ErrOutcomeUnknown) {
			t.Fatalf("%s: %v, want ErrOutcomeUnknown", op.ID, err)
		}
		es := j.Entries()
		if len(es) != 1 {
			t.Fatalf("%s: %d entries", op.ID, len(es))
		}
		if _, resolved := j.Attempts(es[0].ID); resolved {
			t.Fatalf("%s: the entry was resolved; the reconciler would never settle it", op.ID)
		}
		if hits.Load() != 1 {
			t.Fatalf("%s: %d requests, want 1", op.ID, hits.Load())
		}
	}
}
