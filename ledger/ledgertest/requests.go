package ledgertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/runtime/problem"
)

// testAmbiguousBody: a JSON body that two decoders could read differently
// is refused with a 400 problem before the ledger or the handler sees it;
// otherwise {"qty":1,"QTY":1000} and {"QTY":1000,"qty":1} would share one
// fingerprint and a replay could answer a request for 1000 with the result
// for 1.
func testAmbiguousBody(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	bad := map[string]string{
		"names equal up to case":        `{"item":"book","qty":1,"QTY":1000}`,
		"the same, other order":         `{"QTY":1000,"item":"book","qty":1}`,
		"duplicate name":                `{"item":"book","qty":1,"qty":2}`,
		"escaped duplicate name":        `{"item":"book","qty":1,"q\u0074y":2}`,
		"case variants nested in array": `{"item":"book","qty":1,"tags":[{"a":1},{"a":1,"A":2}]}`,
		"invalid UTF-8 \\xff":           "{\"item\":\"b\xffk\",\"qty\":1}",
		"invalid UTF-8 \\xfe":           "{\"item\":\"b\xfek\",\"qty\":1}",
		"lone surrogate escape":         `{"item":"b\ud800k","qty":1}`,
	}
	i := 0
	for name, body := range bad {
		i++
		w := f.do("alice", fmt.Sprintf("k%d", i), body)
		if w.Code != http.StatusBadRequest || w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: status %d (%s), want a 400 problem", name, w.Code, w.Header().Get("Content-Type"))
			continue
		}
		var p struct{ Type string }
		if json.Unmarshal(w.Body.Bytes(), &p); p.Type != problem.AmbiguousBody {
			t.Errorf("%s: problem type %q, want %q", name, p.Type, problem.AmbiguousBody)
		}
	}
	if f.calls.Load() != 0 || f.count("idem_ledger") != 0 {
		t.Errorf("refused bodies reached the handler (%d calls) or the ledger (%d rows)", f.calls.Load(), f.count("idem_ledger"))
	}
	f.wantCounts(0, 0)
	// What is not ambiguous still runs: a surrogate pair, distinct names.
	wantStatus(t, f.do("alice", "k-ok", `{"item":"\ud83d\udc4d","qty":1,"Item2":"x"}`), http.StatusCreated)
	f.wantCounts(1, 1)
}

// testFingerprintHeaders: a header named in FingerprintHeaders is part of
// the request: the same key and body for another account is a 422, never
// the first account's result.
func testFingerprintHeaders(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) { c.FingerprintHeaders = []string{"x-account"} })
	acct := func(v ...string) http.Header { return http.Header{"X-Account": v} }
	first := f.doWith("/orders", "alice", "k1", body1, acct("A"))
	wantStatus(t, first, http.StatusCreated)
	for name, h := range map[string]http.Header{
		"account B": acct("B"), "no account": nil, "empty account": acct(""), "A and B": acct("A", "B"),
	} {
		w := f.doWith("/orders", "alice", "k1", body1, h)
		if w.Code != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422; body %s", name, w.Code, w.Body.String())
		}
	}
	again := f.doWith("/orders", "alice", "k1", body1, http.Header{"X-Account": {"A"}, "X-Other": {"z"}})
	if again.Code != http.StatusCreated || again.Body.String() != first.Body.String() {
		t.Errorf("account A again: %d %s, want the replay of %s", again.Code, again.Body.String(), first.Body.String())
	}
	f.wantCounts(1, 1)
}

// testBodyTooBig: a body above MaxBody is a 413, before anything is stored.
func testBodyTooBig(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) { c.MaxBody = 64 })
	w := f.do("alice", "k1", `{"item":"`+strings.Repeat("x", 64)+`","qty":1}`)
	wantStatus(t, w, http.StatusRequestEntityTooLarge)
	if f.calls.Load() != 0 || f.count("idem_ledger") != 0 {
		t.Errorf("a refused body reached the handler (%d calls) or the ledger (%d rows)", f.calls.Load(), f.count("idem_ledger"))
	}
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	f.wantCounts(1, 1)
}
