package ledger

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rowStore is a Store holding rows by ID; it counts the reads.
type rowStore struct {
	Store
	rows  map[ID]Record
	reads int
}

func (s *rowStore) Get(_ context.Context, id ID) (Record, bool, error) {
	s.reads++
	rec, ok := s.rows[id]
	return rec, ok, nil
}

// TestReplayCacheServesRepeats: the first repeat of a completed key reads
// the store, the next ones do not, and each gets the stored answer; a
// repeat with another body is still a 422. A minute before the key's TTL
// ends the store is read again, and the row a store no longer holds is not
// replayed from memory.
func TestReplayCacheServesRepeats(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	id := ID{Caller: "c", Operation: "createOrder", Key: "k1"}
	st := &rowStore{rows: map[ID]Record{id: {ID: id, Fingerprint: "fp", State: StateCompleted, ExpiresAt: now.Add(time.Hour),
		Response: Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}}}}
	l, err := New(Config{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		out, rec := l.peek(context.Background(), id, "fp", now, true)
		if out != Replay || string(rec.Response.Body) != `{"id":1}` {
			t.Fatalf("repeat %d: %v %+v", i, out, rec)
		}
	}
	if out, _ := l.peek(context.Background(), id, "other", now, true); out != Mismatch {
		t.Errorf("another body: %v, want Mismatch", out)
	}
	if st.reads != 1 {
		t.Errorf("%d store reads for four repeats, want 1", st.reads)
	}
	delete(st.rows, id)
	late := now.Add(time.Hour - replayCacheMargin)
	if out, _ := l.peek(context.Background(), id, "fp", late, true); out != 0 || st.reads != 2 {
		t.Errorf("a minute before expiry: %v after %d reads, want the store read (no row: 0)", out, st.reads)
	}
}

// TestReplayCacheBounds: the cache keeps at most its size (the oldest
// goes first), never an answer over 16 KiB or a row still in progress,
// and a negative ReplayCache turns it off.
func TestReplayCacheBounds(t *testing.T) {
	now := time.Now()
	row := func(key string, body int, state State) Record {
		return Record{ID: ID{Key: key}, State: state, ExpiresAt: now.Add(time.Hour),
			Response: Response{Status: 200, Body: []byte(strings.Repeat("x", body))}}
	}
	c := newReplayCache(2)
	c.put(row("a", 1, StateCompleted))
	c.put(row("b", 1, StateCompleted))
	c.put(row("c", 1, StateCompleted))
	c.put(row("big", replayCacheMaxBytes+1, StateCompleted))
	c.put(row("busy", 1, StateInProgress))
	for key, want := range map[string]bool{"a": false, "b": true, "c": true, "big": false, "busy": false} {
		if _, ok := c.get(ID{Key: key}, now); ok != want {
			t.Errorf("%s cached: %v, want %v", key, ok, want)
		}
	}
	if len(c.rows) != 2 {
		t.Errorf("%d rows kept, want 2", len(c.rows))
	}
	l, err := New(Config{Store: &rowStore{}, ReplayCache: -1})
	if err != nil || l.replays != nil {
		t.Errorf("ReplayCache -1: cache %v, %v", l.replays, err)
	}
}

// TestReplayCacheAnswersByteForByte: a replay from memory sends the stored
// status, headers and body, marked replayed, and leaves the cached row as
// it was for the next repeat.
func TestReplayCacheAnswersByteForByte(t *testing.T) {
	rec := Record{State: StateCompleted, ExpiresAt: time.Now().Add(time.Hour),
		Response: Response{Status: 201, Header: http.Header{"Location": {"/orders/1"}}, Body: []byte("ok")}}
	c := newReplayCache(1)
	c.put(rec)
	for range 2 {
		got, _ := c.get(ID{}, time.Now())
		w := httptest.NewRecorder()
		writeStored(w, got.Response)
		w.Header().Add("Location", "/elsewhere")
		if w.Code != 201 || w.Body.String() != "ok" || w.Header().Get(ReplayedHeader) != "true" {
			t.Fatalf("replay %d %q %v", w.Code, w.Body, w.Header())
		}
	}
	if got, _ := c.get(ID{}, time.Now()); len(got.Response.Header["Location"]) != 1 {
		t.Errorf("the cached headers changed: %v", got.Response.Header)
	}
}

// TestReplayNeverSharesSpareCapacity: a stored header decoded with spare
// capacity (encoding/json's fallback gives a one-value list room for four)
// is handed to each replay capped, so a middleware's Add on one answer
// copies instead of writing into the cached record, which the next
// replay, on another goroutine, reads.
func TestReplayNeverSharesSpareCapacity(t *testing.T) {
	vals := make([]string, 1, 4)
	vals[0] = "a"
	resp := Response{Status: 201, Header: http.Header{"X-Tag": vals}}
	w := httptest.NewRecorder()
	writeStored(w, resp)
	w.Header().Add("X-Tag", "b")
	if spare := vals[:2][1]; spare != "" {
		t.Fatalf("an Add on one replay wrote %q into the stored record's header", spare)
	}
}
