package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// hitCountingJournal checks, as each entry is recorded, that the server has
// not been reached yet.
type hitCountingJournal struct {
	*MemoryJournal
	hits     *atomic.Int32
	atRecord int32
	fail     error
}

func (j *hitCountingJournal) Record(ctx context.Context, e *JournalEntry) error {
	j.atRecord = j.hits.Load()
	if j.fail != nil {
		return j.fail
	}
	return j.MemoryJournal.Record(ctx, e)
}

// TestJournalRecordsBeforeFirstSend: a keyed call is recorded before its
// first send (the server was not reached yet), with method, URL, frozen
// header, body, key and fingerprint, but without any credential: neither the
// ones a request editor adds, nor an Authorization header or api_key query
// parameter the caller put on the request. Each attempt is stored and the
// entry is resolved when the call succeeds.
func TestJournalRecordsBeforeFirstSend(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	j := &hitCountingJournal{MemoryJournal: NewMemoryJournal(), hits: &s.hits, atRecord: -1}
	r, _ := loopRunner(t, quickPolicy(), WithJournal(j), WithRequestEditor(func(_ context.Context, req *http.Request) error {
		req.Header.Set("X-Secret-Token", "editor-secret")
		return nil
	}))
	req := &Request{Method: "POST", URL: mustURL(t, srv.URL+keyedOp.Path+"?api_key=query-secret&ref=r1"), Body: []byte(`{"amount":100}`),
		Key: "intent-1", Header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer caller-secret"}}}
	resp, err := r.Do(context.Background(), &keyedOp, req, WithHeader("Cookie", "session=cookie-secret"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if j.atRecord != 0 || s.executions.Load() != 1 {
		t.Fatalf("recorded after %d hits, %d executions; want before any send, one execution", j.atRecord, s.executions.Load())
	}
	es := j.Entries()
	if len(es) != 1 {
		t.Fatalf("%d entries", len(es))
	}
	e := es[0]
	if e.Operation != "createPayment" || e.Method != "POST" || e.Key != "intent-1" || string(e.Body) != `{"amount":100}` ||
		e.Header.Get("Idempotency-Key") != "intent-1" || !strings.HasPrefix(e.Fingerprint, "sha256:") || e.TTL != DefaultKeyTTL ||
		!strings.Contains(e.URL, "ref=r1") {
		t.Fatalf("entry %+v", e)
	}
	dump := e.URL + " " + strings.Join(headerValues(e.Header), " ")
	for _, secret := range []string{"editor-secret", "caller-secret", "query-secret", "cookie-secret"} {
		if strings.Contains(dump, secret) {
			t.Fatalf("the journal holds credential %q: %s", secret, dump)
		}
	}
	attempts, resolved := j.Attempts(e.ID)
	if !resolved || len(attempts) != 2 || attempts[1].Outcome != OutcomeSuccess {
		t.Fatalf("resolved %v, attempts %+v", resolved, attempts)
	}
}

func headerValues(h http.Header) []string {
	var out []string
	for k, v := range h {
		out = append(out, k+":"+strings.Join(v, ","))
	}
	return out
}

// TestJournalUnknownStaysUnresolved: an unsafe call whose response is lost
// after the server committed ends with ErrOutcomeUnknown, and its entry
// stays unresolved, with the attempt stored.
func TestJournalUnknownStaysUnresolved(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	j := NewMemoryJournal()
	r, _ := loopRunner(t, quickPolicy(), WithJournal(j))
	_, err, _ := post(t, r, &unsafeOp, srv.URL, "intent-2")
	if !errors.Is(err, ErrOutcomeUnknown) || s.executions.Load() != 1 {
		t.Fatalf("err %v, %d executions", err, s.executions.Load())
	}
	un := j.Unresolved()
	if len(un) != 1 || un[0].Key != "intent-2" || un[0].Safety != Unsafe {
		t.Fatalf("unresolved %+v", un)
	}
	if attempts, _ := j.Attempts(un[0].ID); len(attempts) != 1 || attempts[0].Outcome != OutcomeUnknown {
		t.Fatalf("attempts %+v", attempts)
	}
}

// TestJournalRefusalSendsNothing: a journal that cannot record the call
// stops it before the first send: ErrJournal, no hit on the server.
func TestJournalRefusalSendsNothing(t *testing.T) {
	s, srv := newShop(t, dropFirst(""))
	j := &hitCountingJournal{MemoryJournal: NewMemoryJournal(), hits: &s.hits, fail: errors.New("disk full")}
	r, _ := loopRunner(t, quickPolicy(), WithJournal(j))
	_, err, _ := post(t, r, &keyedOp, srv.URL, "intent-3")
	if !errors.Is(err, ErrJournal) || KeyOf(err) != "intent-3" || s.hits.Load() != 0 {
		t.Fatalf("err %v, key %q, %d hits; want ErrJournal and nothing sent", err, KeyOf(err), s.hits.Load())
	}
}

// TestJournalSkipsIdempotent: an idempotent operation can be repeated by
// anyone, so it is not recorded.
func TestJournalSkipsIdempotent(t *testing.T) {
	_, srv := newShop(t, dropFirst(""))
	j := NewMemoryJournal()
	r, _ := loopRunner(t, quickPolicy(), WithJournal(j))
	if _, err, _ := post(t, r, &idempotentOp, srv.URL, ""); err != nil {
		t.Fatal(err)
	}
	if n := len(j.Entries()); n != 0 {
		t.Fatalf("%d entries for an idempotent call", n)
	}
}

// TestResendAfterLostProcess: a keyed call's response is lost and its only
// attempt ends the call unknown; a new Runner (the process restarted)
// resends the entry: the server replays its stored result, the business
// action ran once, and the resend's attempt is stored under the entry,
// which stays for the reconciler to settle (Resend never resolves).
func TestResendAfterLostProcess(t *testing.T) {
	s, srv := newShop(t, dropFirst("hijack"))
	j := NewMemoryJournal()
	first, _ := loopRunner(t, quickPolicy(), WithJournal(j), WithMaxAttempts(1))
	if _, err, _ := post(t, first, &keyedOp, srv.URL, ""); !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("first call: %v", err)
	}
	un := j.Unresolved()
	if len(un) != 1 {
		t.Fatalf("unresolved %+v", un)
	}
	restarted, _ := loopRunner(t, quickPolicy(), WithJournal(j))
	resp, err := restarted.Resend(context.Background(), &keyedOp, mustURL(t, srv.URL), &un[0])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	attempts, resolved := j.Attempts(un[0].ID)
	if string(b) != "order-1" || s.executions.Load() != 1 || resolved || len(j.Entries()) != 1 ||
		len(attempts) != 2 || attempts[1].Outcome != OutcomeSuccess {
		t.Fatalf("got %q, %d executions, resolved %v, %d entries, attempts %+v", b, s.executions.Load(), resolved, len(j.Entries()), attempts)
	}
}

// TestResendRefusesPartialBody: an entry whose body was not kept is never
// resent.
func TestResendRefusesPartialBody(t *testing.T) {
	s, srv := newShop(t, dropFirst(""))
	r, _ := loopRunner(t, quickPolicy())
	e := &JournalEntry{ID: "e1", Operation: keyedOp.ID, Method: "POST", URL: srv.URL + "/payments", Key: "k", Partial: true}
	if _, err := r.Resend(context.Background(), &keyedOp, mustURL(t, srv.URL), e); !errors.Is(err, ErrNotResendable) || s.hits.Load() != 0 {
		t.Fatalf("err %v, %d hits", err, s.hits.Load())
	}
}

// TestResendKeepsCredentialsOnTheServer: an entry whose URL is not under
// the client's server (another host, port or scheme, a path outside the
// server's base, user information in the URL) is refused before anything
// is sent: a journal row written from an application's input, or by
// someone else with access to the database, never takes the client's
// credentials elsewhere. An entry under the server is sent, with them.
func TestResendKeepsCredentialsOnTheServer(t *testing.T) {
	s, srv := newShop(t, dropFirst(""))
	other, otherSrv := newShop(t, dropFirst(""))
	var sent []string
	r, _ := loopRunner(t, quickPolicy(), WithRequestEditor(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer secret")
		sent = append(sent, req.URL.String())
		return nil
	}))
	server := mustURL(t, srv.URL+"/v1/")
	host := server.Host
	created := newFakeClock().Now()
	for _, u := range []string{
		otherSrv.URL + "/v1/payments",
		"https://" + host + "/v1/payments",
		"http://user:pw@" + host + "/v1/payments",
		"http://" + host + "/v2/payments",
		"http://" + host + "/v1x/payments",
		"http://" + strings.Replace(host, "127.0.0.1", "localhost", 1) + "/v1/payments",
	} {
		e := &JournalEntry{ID: "e1", Operation: keyedOp.ID, Method: "POST", URL: u, Key: "k", Body: []byte(`{}`), Created: created}
		if _, err := r.Resend(context.Background(), &keyedOp, server, e); !errors.Is(err, ErrNotResendable) {
			t.Errorf("%s: %v, want ErrNotResendable", u, err)
		}
	}
	under := &JournalEntry{ID: "e0", Operation: keyedOp.ID, Method: "POST", URL: srv.URL + "/v1/payments", Key: "k", Body: []byte(`{}`), Created: created}
	if _, err := r.Resend(context.Background(), &keyedOp, nil, under); !errors.Is(err, ErrNotResendable) {
		t.Errorf("no server: %v, want ErrNotResendable", err)
	}
	if len(sent) != 0 || s.hits.Load() != 0 || other.hits.Load() != 0 {
		t.Fatalf("sent %v (%d, %d hits), want nothing", sent, s.hits.Load(), other.hits.Load())
	}
	e := &JournalEntry{ID: "e2", Operation: keyedOp.ID, Method: "POST", URL: "HTTP://" + host + "/v1/payments", Key: "k2", Body: []byte(`{}`), Created: created}
	resp, err := r.Resend(context.Background(), &keyedOp, server, e)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s.hits.Load() != 1 || len(sent) != 1 {
		t.Errorf("an entry under the server: %d hits, sent %v; want one", s.hits.Load(), sent)
	}
}
