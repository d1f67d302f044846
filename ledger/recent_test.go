package ledger

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unsafe"
)

// TestRequestDigestCoversEveryInput: changing any one input of a
// fingerprint (the route, method, target, content type, an identity field
// or a byte of the body), or moving bytes between two inputs, changes the
// digest, so a remembered fingerprint is reused only for the same request.
func TestRequestDigestCoversEveryInput(t *testing.T) {
	c := newRecentKeys()
	type in struct {
		route                       uint64
		method, target, contentType string
		fields                      []string
		body                        string
	}
	base := in{1, "POST", "/orders?a=1", "application/json", []string{"X-Account: 1"}, `{"qty":1}`}
	digest := func(i in) [2]uint64 {
		return c.requestDigest(i.route, i.method, i.target, i.contentType, i.fields, []byte(i.body))
	}
	want := digest(base)
	if digest(base) != want {
		t.Fatal("the digest of one request is not stable")
	}
	for name, change := range map[string]func(*in){
		"route":        func(i *in) { i.route = 2 },
		"method":       func(i *in) { i.method = "PUT" },
		"target":       func(i *in) { i.target = "/orders?a=2" },
		"content type": func(i *in) { i.contentType = "text/plain" },
		"field":        func(i *in) { i.fields = []string{"X-Account: 2"} },
		"no field":     func(i *in) { i.fields = nil },
		"body":         func(i *in) { i.body = `{"qty":2}` },
		"shifted":      func(i *in) { i.method, i.target = "POST/", "orders?a=1" },
	} {
		i := base
		i.fields = append([]string(nil), base.fields...)
		change(&i)
		if digest(i) == want {
			t.Errorf("changing the %s left the digest as it was", name)
		}
	}
	if other := newRecentKeys(); other.requestDigest(1, "POST", "/", "", nil, nil) == c.requestDigest(1, "POST", "/", "", nil, nil) {
		t.Error("two processes' digests agree: the seeds are not drawn per table")
	}
}

// TestRecentKeysBoundKeepsRunning: the table holds at most recentKeysMax
// keys, the oldest going first, except one whose execution runs, which
// must answer a concurrent repeat until it ends.
func TestRecentKeysBoundKeepsRunning(t *testing.T) {
	c := newRecentKeys()
	id := func(i int) ID { return ID{Caller: "c", Operation: "op", Key: fmt.Sprint(i)} }
	c.start(id(0), "fp0")
	for i := 1; i <= recentKeysMax; i++ {
		c.remember(id(i), [2]uint64{uint64(i)}, "fp")
	}
	if len(c.rows) != recentKeysMax {
		t.Fatalf("%d keys, want the bound %d", len(c.rows), recentKeysMax)
	}
	if k, ok := c.get(id(0)); !ok || k.running != 1 || k.runningFP != "fp0" {
		t.Fatalf("the running key was evicted: %+v %v", k, ok)
	}
	if _, ok := c.get(id(1)); ok {
		t.Error("the oldest key that was not running is still there")
	}
	c.stop(id(0))
	for i := recentKeysMax + 1; i <= 2*recentKeysMax; i++ {
		c.remember(id(i), [2]uint64{}, "fp")
	}
	if _, ok := c.get(id(0)); ok || len(c.rows) != recentKeysMax {
		t.Errorf("a key whose execution ended is never evicted (%d keys)", len(c.rows))
	}
}

// TestRepeatWithSameBytesReusesTheFingerprint: a repeat sent with the
// request's exact bytes reuses its fingerprint; one whose body means the
// same but is written differently computes it again and agrees; and one
// with another meaning is a 422.
func TestRepeatWithSameBytesReusesTheFingerprint(t *testing.T) {
	st := &settlerStore{}
	st.db = sql.OpenDB(commitDriver{onCommit: func() error { st.apply(); return nil }})
	defer st.db.Close()
	l, err := New(Config{Store: st, Caller: func(*http.Request) (string, error) { return "alice", nil }})
	if err != nil {
		t.Fatal(err)
	}
	h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	id := ID{Caller: "alice", Operation: "createOrder", Key: "k1"}
	send := func(body string) int {
		r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", "k1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if code := send(`{"a":1,"b":2}`); code != http.StatusCreated {
		t.Fatalf("first: %d", code)
	}
	first, _ := l.recent.get(id)
	// Poisoning the remembered fingerprint shows whether it is reused.
	l.recent.remember(id, first.digest, "remembered")
	if code := send(`{"a":1,"b":2}`); code != http.StatusUnprocessableEntity {
		t.Errorf("the same bytes: %d, want the remembered fingerprint (poisoned: 422)", code)
	}
	if code := send(`{"b":2, "a":1}`); code != http.StatusCreated {
		t.Errorf("the same members written otherwise: %d, want the replay", code)
	}
	if k, _ := l.recent.get(id); k.fp != first.fp {
		t.Errorf("the recomputed fingerprint %q is not the first %q", k.fp, first.fp)
	}
	if code := send(`{"a":1,"b":3}`); code != http.StatusUnprocessableEntity {
		t.Errorf("another body: %d, want 422", code)
	}
}

// TestCachesKeepNoRequestMemory: a key padded with 64 KiB of spaces, which
// ParseKey trims to a slice of that header value, is kept by the recent
// keys and the replay cache as a copy: an entry held for minutes must not
// keep its request's header alive (16,384 of them, a megabyte each).
func TestCachesKeepNoRequestMemory(t *testing.T) {
	st := &settlerStore{}
	st.db = sql.OpenDB(commitDriver{onCommit: func() error { st.apply(); return nil }})
	defer st.db.Close()
	l, err := New(Config{Store: st, Caller: func(*http.Request) (string, error) { return "alice", nil }})
	if err != nil {
		t.Fatal(err)
	}
	h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	padded := strings.Repeat(" ", 64<<10) + "k1"
	inside := func(s string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(padded)))
		return p >= lo && p < lo+uintptr(len(padded))
	}
	for range 2 { // the second is a replay, read and cached
		r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{}`))
		r.Header.Set("Idempotency-Key", padded)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	for k := range l.recent.rows {
		if inside(k.Key) {
			t.Errorf("the recent keys keep the request's header value alive through key %q", k.Key)
		}
	}
	for k, rec := range l.replays.rows {
		if inside(k.Key) || inside(rec.ID.Key) {
			t.Errorf("the replay cache keeps the request's header value alive through key %q", k.Key)
		}
	}
	if len(l.recent.rows) != 1 || len(l.replays.rows) != 1 {
		t.Fatalf("%d recent keys and %d cached replays, want 1 of each", len(l.recent.rows), len(l.replays.rows))
	}
}
