package journaltest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// Operations of the Shop.
var (
	Payments  = idemrt.Operation{ID: "createPayment", Method: "POST", Path: "/payments", Safety: idemrt.Keyed, KeyHeader: "Idempotency-Key", Retryable: idemrt.DefaultRetryable}
	Transfers = idemrt.Operation{ID: "createTransfer", Method: "POST", Path: "/transfers", Safety: idemrt.Unsafe, Retryable: idemrt.DefaultRetryable}
)

// Looker is the transfers' x-lookup written by hand: a real GET
// /transfers?ref=<key>; 200 is found, 404 not found.
type Looker struct{ Base string }

// LookupIntent implements idemrt.IntentLooker.
func (l Looker) LookupIntent(ctx context.Context, operation, key string) (idemrt.LookupResult, error) {
	if operation != Transfers.ID {
		return idemrt.LookupResult{}, idemrt.ErrNoLookup
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.Base+"/transfers?ref="+url.QueryEscape(key), nil)
	if err != nil {
		return idemrt.LookupResult{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return idemrt.LookupResult{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return idemrt.LookupResult{}, err
	case resp.StatusCode == http.StatusNotFound:
		return idemrt.LookupResult{Status: resp.StatusCode}, nil
	case resp.StatusCode >= 300:
		return idemrt.LookupResult{}, errors.New(resp.Status)
	}
	return idemrt.LookupResult{Found: true, Status: resp.StatusCode, Body: body}, nil
}

// Env is one test's journal, shop, runner and reconciler.
type Env struct {
	J     *journal.SQL
	Shop  *Shop
	R     *idemrt.Runner
	Rec   *journal.Reconciler
	Shift time.Duration
	mu    sync.Mutex
	Got   []Resolved
}

// Resolved is one OnResolved call.
type Resolved struct {
	Entry   journal.Entry
	Outcome journal.Outcome
}

// NewEnv wires a runner with the journal (one attempt per call, so a lost
// response ends the call unknown) and a reconciler whose clock runs Shift
// ahead of the runner's.
func NewEnv(t testing.TB, j *journal.SQL, opts ...idemrt.Option) *Env {
	e := &Env{J: j, Shop: NewShop(t)}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	base := []idemrt.Option{idemrt.WithJournal(j), idemrt.WithHTTPClient(&http.Client{Transport: tr}), idemrt.WithMaxAttempts(1)}
	e.R = idemrt.NewRunner(append(base, opts...)...)
	e.Rec = e.NewReconciler(e.R)
	return e
}

// NewReconciler is a reconciler on the env's journal sending with r.
func (e *Env) NewReconciler(r *idemrt.Runner) *journal.Reconciler {
	server, err := url.Parse(e.Shop.URL)
	if err != nil {
		panic(err)
	}
	return &journal.Reconciler{
		Journal: e.J,
		Client: journal.RunnerClient{Runner: r, Server: server, Operations: []*idemrt.Operation{&Payments, &Transfers},
			Looker: Looker{Base: e.Shop.URL}},
		Grace:    time.Minute,
		Interval: time.Minute,
		Now:      func() time.Time { return time.Now().Add(e.Shift) },
		OnResolved: func(en journal.Entry, o journal.Outcome) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.Got = append(e.Got, Resolved{en, o})
		},
	}
}

// Call makes one call of op with key, the body {"ref": ref} and opts.
func (e *Env) Call(t testing.TB, op *idemrt.Operation, key, ref string, opts ...idemrt.CallOption) (string, error) {
	t.Helper()
	u, err := url.Parse(e.Shop.URL + op.Path)
	if err != nil {
		t.Fatal(err)
	}
	req := &idemrt.Request{Method: op.Method, URL: u, Key: key, Body: []byte(`{"ref":"` + ref + `"}`),
		Header: http.Header{"Content-Type": {"application/json"}}}
	resp, err := e.R.Do(context.Background(), op, req, opts...)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Entry builds the entry a runner records for a call of op, as a process
// that died right after recording it would leave it.
func (e *Env) Entry(t testing.TB, op *idemrt.Operation, key, ref string) *idemrt.JournalEntry {
	t.Helper()
	u, err := url.Parse(e.Shop.URL + op.Path)
	if err != nil {
		t.Fatal(err)
	}
	en := idemrt.NewJournalEntry(op, &idemrt.Request{Method: op.Method, URL: u, Key: key, Body: []byte(`{"ref":"` + ref + `"}`),
		Header: http.Header{"Content-Type": {"application/json"}}}, time.Now())
	en.Queued = false
	return en
}

// Pass runs one reconciliation pass after the grace.
func (e *Env) Pass(t testing.TB) journal.Pass {
	t.Helper()
	e.Shift = 2 * time.Minute
	p := e.Rec.Pass(context.Background())
	if p.Err != nil {
		t.Fatalf("pass: %v", p.Err)
	}
	return p
}

// Resolutions returns the OnResolved calls so far.
func (e *Env) Resolutions() []Resolved {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Resolved(nil), e.Got...)
}
