package verify_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// thingServer serves testdata/contract.yaml honestly, or broken one way:
// broken names the check its bug should fail.
type thingServer struct {
	broken string

	mu         sync.Mutex
	keys       map[string]*keyed
	executions int
	arrivals   map[string]chan struct{} // broken keyed-concurrent: twins meet here
	things     [][]byte                 // what listThings shows, one per execution
	refused    bool                     // broken retry-after: the first create was refused
}

// keyed is one key's record: the body it was used with and, once
// executed, the stored answer.
type keyed struct {
	body   string
	answer []byte // nil while in progress
}

func newThingServer(t *testing.T, broken string) (*thingServer, string) {
	s := &thingServer{broken: broken, keys: map[string]*keyed{}, arrivals: map[string]chan struct{}{}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL
}

func (s *thingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer tok-secret" && s.broken != "auth-status" {
		http.Error(w, "no credentials", http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/things":
		s.create(w, r)
	case r.Method == "GET" && r.URL.Path == "/things":
		s.list(w)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/things/by-key/"):
		s.byKey(w, strings.TrimPrefix(r.URL.Path, "/things/by-key/"))
	case r.Method == "PUT":
		if r.Header.Get("If-Match") != `"v1"` && r.Header.Get("If-Match") != "*" && s.broken != "if-match-stale" {
			http.Error(w, "stale", http.StatusPreconditionFailed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"t1","name":"a","size":1}`)
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/notify"):
		w.WriteHeader(http.StatusAccepted)
	default:
		http.NotFound(w, r)
	}
}

// create runs createThing through a key ledger kept in memory.
func (s *thingServer) create(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	key, body := r.Header.Get("Idempotency-Key"), string(b)
	s.mu.Lock()
	if s.broken == "retry-after" && !s.refused {
		s.refused = true
		s.mu.Unlock()
		w.Header().Set("Retry-After", "soon")
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	rec := s.keys[key]
	if s.broken == "keyed-concurrent" && rec == nil {
		s.mu.Unlock()
		s.meetTwin(key) // checks, then waits: both twins find the key free
		s.mu.Lock()
		rec = nil
	}
	switch {
	case rec != nil && rec.body != body && s.broken != "keyed-reuse":
		s.mu.Unlock()
		if s.broken == "retryable-mismatch" {
			w.Header().Set("X-Should-Retry", "true")
		}
		http.Error(w, "key reused with another body", http.StatusUnprocessableEntity)
		return
	case rec != nil && rec.answer == nil:
		s.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, "in progress", http.StatusConflict)
		return
	case rec != nil && s.broken == "executes-twice":
		s.executions++ // runs the action again, then answers the stored answer
		s.things = append(s.things, rec.answer)
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, rec.answer)
		return
	case rec != nil && !(s.broken == "keyed-replay" || s.broken == "keyed-reuse"):
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, rec.answer)
		return
	}
	rec = &keyed{body: body}
	s.keys[key] = rec
	s.executions++
	var in map[string]any
	_ = json.Unmarshal(b, &in)
	answer, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("thing-%d", s.executions), "name": in["name"], "size": in["size"]})
	rec.answer = answer
	s.things = append(s.things, answer)
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, answer)
}

// meetTwin waits (briefly, on a real clock: this is a live server) for the
// other request of the same key, so both pass the check before either
// stores: the race a ledger without an atomic reservation loses.
func (s *thingServer) meetTwin(key string) {
	s.mu.Lock()
	ch, ok := s.arrivals[key]
	if !ok {
		ch = make(chan struct{})
		s.arrivals[key] = ch
	}
	s.mu.Unlock()
	if ok {
		close(ch)
		return
	}
	select {
	case <-ch:
	case <-time.After(300 * time.Millisecond):
	}
}

func (s *thingServer) list(w http.ResponseWriter) {
	s.mu.Lock()
	items := make([]json.RawMessage, 0, len(s.things))
	for _, t := range s.things {
		items = append(items, t)
	}
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"data": items})
	writeJSON(w, http.StatusOK, b)
}

func (s *thingServer) byKey(w http.ResponseWriter, key string) {
	s.mu.Lock()
	rec := s.keys[key]
	s.mu.Unlock()
	if rec == nil || rec.answer == nil || s.broken == "lookup" {
		http.NotFound(w, nil)
		return
	}
	writeJSON(w, http.StatusOK, rec.answer)
}

func writeJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
