package stripemocktest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// exchange is one request through the proxy and stripe-mock's answer.
type exchange struct {
	method, call, key string
	status            int
	body              []byte
}

// recorder is a reverse proxy on 127.0.0.1 in front of stripe-mock that
// records every exchange and, once, forwards the request of the call drop
// and then closes the connection instead of answering: the response is
// lost after the server acted, which a keyed call must retry with its key.
type recorder struct {
	url, target, drop string
	mu                sync.Mutex
	dropped           bool
	log               []exchange
}

func newRecorder(t *testing.T, target, drop string) *recorder {
	r := &recorder{target: target, drop: drop}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	out, _ := http.NewRequestWithContext(req.Context(), req.Method, r.target+req.URL.RequestURI(), bytes.NewReader(body))
	out.Header = req.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	call := req.Header.Get("X-Call")
	r.mu.Lock()
	r.log = append(r.log, exchange{req.Method, call, req.Header.Get("Idempotency-Key"), resp.StatusCode, answer})
	drop := call == r.drop && !r.dropped
	r.dropped = r.dropped || drop
	r.mu.Unlock()
	if drop {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// refusal is stripe-mock's message of the call's last 4xx, or "".
func (r *recorder) refusal(call string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.log) - 1; i >= 0; i-- {
		if e := r.log[i]; e.call == call && e.status/100 == 4 {
			var v struct {
				Error struct{ Message string } `json:"error"`
			}
			_ = json.Unmarshal(e.body, &v)
			return v.Error.Message
		}
	}
	return ""
}

// answer is the last 2xx body stripe-mock gave the call.
func (r *recorder) answer(call string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.log) - 1; i >= 0; i-- {
		if e := r.log[i]; e.call == call && e.status/100 == 2 {
			return e.body
		}
	}
	return nil
}

// check fails on a POST sent without an Idempotency-Key and on a dropped
// response that was not retried with the key of its first attempt.
func (r *recorder) check(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	posts, unkeyed := 0, 0
	var dropKeys []string
	for _, e := range r.log {
		if e.method == http.MethodPost {
			posts++
			if e.key == "" {
				unkeyed++
				if unkeyed <= 5 {
					t.Errorf("POST without Idempotency-Key: %s", e.call)
				}
			}
		}
		if e.call == r.drop {
			dropKeys = append(dropKeys, e.key)
		}
	}
	t.Logf("POSTs: %d, without Idempotency-Key: %d", posts, unkeyed)
	if len(dropKeys) != 2 || dropKeys[0] == "" || dropKeys[0] != dropKeys[1] {
		t.Errorf("the dropped %s was sent with keys %q; want a retry with the first attempt's key", r.drop, dropKeys)
	} else {
		t.Logf("dropped response of %s retried with the same key", r.drop)
	}
}

// lostMembers lists the members of stripe-mock's answer that the client's
// re-encoded result no longer has (null, [] and {} aside: omitempty drops
// them without losing anything), split by whether the operation's success
// schema declares them.
func lostMembers(op *ir.Operation, answer, result []byte) (declared, undeclared []string) {
	var a, b any
	if json.Unmarshal(answer, &a) != nil || json.Unmarshal(result, &b) != nil {
		return nil, nil
	}
	var walk func(s *ir.Schema, a, b any, path string, known bool)
	walk = func(s *ir.Schema, a, b any, path string, known bool) {
		switch av := a.(type) {
		case map[string]any:
			bv, _ := b.(map[string]any)
			for k, v := range av {
				ms, mk := schemaMember(s, k)
				w, ok := bv[k]
				switch {
				case ok:
					walk(ms, v, w, path+"."+k, known && mk)
				case empty(v):
				case known && mk:
					declared = append(declared, path+"."+k)
				default:
					undeclared = append(undeclared, path+"."+k)
				}
			}
		case []any:
			bv, _ := b.([]any)
			for i := range av {
				if i < len(bv) {
					walk(items(s), av[i], bv[i], path+"[]", known)
				}
			}
		}
	}
	walk(successSchema(op), a, b, "", true)
	return declared, undeclared
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// schemaMember is the schema of member k of s (any union variant's, a
// map's values); ok is false when s does not declare it.
func schemaMember(s *ir.Schema, k string) (*ir.Schema, bool) {
	s = deref(s)
	if s == nil {
		return nil, false
	}
	if m := member(s, k); m != nil {
		return m, true
	}
	if s.Kind == ir.KindMap || s.Kind == ir.KindAny {
		return s.AdditionalProperties, true
	}
	for _, v := range s.Variants {
		if m, ok := schemaMember(v, k); ok {
			return m, true
		}
	}
	return nil, false
}

func items(s *ir.Schema) *ir.Schema {
	s = deref(s)
	if s == nil {
		return nil
	}
	if s.Kind == ir.KindArray {
		return s.Items
	}
	for _, v := range s.Variants {
		if it := items(v); it != nil {
			return it
		}
	}
	return nil
}
