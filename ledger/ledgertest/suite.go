package ledgertest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ledger"
)

const body1 = `{"item":"book","qty":1}`

// Run runs the whole suite against stores made by open.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"AbsentReservesAndExecutesOnce", testAbsent},
		{"CompletedSameFingerprintReplaysByteForByte", testReplay},
		{"DifferentFingerprintIs422AndChangesNothing", testMismatch},
		{"SameKeyOtherTargetIs422", testOtherTarget},
		{"QueryIsFingerprintedAsSent", testQueryAsSent},
		{"FingerprintCookiesSeparateRequests", testFingerprintCookies},
		{"MultipartBoundaryInContentIs422", testMultipartBoundaryInContent},
		{"AmbiguousJSONBodyIs400", testAmbiguousBody},
		{"BodyOverMaxBodyIs413", testBodyTooBig},
		{"FingerprintHeadersSeparateRequests", testFingerprintHeaders},
		{"RouteOverridesConfig", testRoute},
		{"RouteCredentialsLeaveTheFingerprint", testRouteCredentials},
		{"RouteStoredHeadersAreReplayed", testRouteStoredHeaders},
		{"InProgressIs409", testBusy},
		{"InProgressBoundedWaitThenReplay", testBusyWait},
		{"RepeatWhileRunningIs409Or422", testRepeatWhileRunning},
		{"RepeatInAnotherProcessExecutesOnce", testRepeatInAnotherProcess},
		{"RepeatAsTheAnswerArrivesReplays", testRepeatAsTheAnswerArrives},
		{"StuckHandlerFreesTheKeyAtItsLease", testStuckHandlerFreesTheKey},
		{"MissingOrInvalidKeyIs400", testMissingKey},
		{"OptionalKeyRunsInTransaction", testOptionalKey},
		{"UnknownCallerIs401", testNoCaller},
		{"UnstorableCallerIs401", testPoisonCaller},
		{"OversizedResponseGivenOnceThenClearError", testOversizedResponse},
		{"KeysAreScopedPerCaller", testPerCaller},
		{"ExpiredLeaseIsReclaimed", testLeaseReclaim},
		{"LostLeaseCannotComplete", testLeaseLost},
		{"ServerErrorRollsBackAndFreesKey", testServerError},
		{"PanicRollsBackAndFreesKey", testPanic},
		{"LateErrorStatusRollsBack", testLateError},
		{"InformationalStatusIsNeverStored", testInformational},
		{"LeaseBoundsTheHandler", testLeaseTimeout},
		{"LeaseFreesTheWriter", testLeaseFreesTheWriter},
		{"SweeperReportsAndReleasesStuckRows", testSweeper},
		{"TTLPurgeThenKeyExecutesAgain", testPurge},
		{"ForeverTTLKeepsTheKey", testForeverTTL},
		{"StoreSaturatesTimesPast2262", testStoreSaturatesFarTimes},
		{"ConcurrentSameKeyExecutesOnce", testConcurrent},
		{"ConcurrentReclaimHasOneWinner", testConcurrentReclaim},
		{"OutboxAtLeastOnceConsumerExactlyOnce", testOutbox},
		{"OutboxConcurrentRelaysApplyOnce", testConcurrentRelays},
		{"OutboxMigratesOldSchema", testOutboxMigratesOldSchema},
		{"OutboxParksPermanentFailure", testOutboxParksPermanentFailure},
		{"ConsumerParkAndRetry", testConsumerParkAndRetry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func testAbsent(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	w := f.do("alice", "k1", body1)
	wantStatus(t, w, http.StatusCreated)
	f.wantCounts(1, 1)
	rec, ok := f.row("alice", "k1")
	if !ok || rec.State != ledger.StateCompleted || rec.Response.Status != http.StatusCreated {
		t.Fatalf("ledger row = %+v (found %v), want completed 201", rec, ok)
	}
	if !bytes.Equal(rec.Response.Body, w.Body.Bytes()) {
		t.Errorf("stored body %q != sent body %q", rec.Response.Body, w.Body.Bytes())
	}
	if got := rec.ExpiresAt.Sub(rec.CreatedAt); got != ttl {
		t.Errorf("row TTL = %v, want %v", got, ttl)
	}
	wantKeyEchoed(t, w, "k1")
}

func testReplay(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	first := f.do("alice", "k1", body1)
	wantStatus(t, first, http.StatusCreated)
	// Same JSON, other key order and spacing: the same fingerprint.
	again := f.do("alice", "k1", `{ "qty": 1, "item": "book" }`)
	wantStatus(t, again, http.StatusCreated)
	if !bytes.Equal(first.Body.Bytes(), again.Body.Bytes()) {
		t.Fatalf("replayed body %q, want byte-identical %q", again.Body.Bytes(), first.Body.Bytes())
	}
	if again.Header().Get(ledger.ReplayedHeader) != "true" {
		t.Errorf("replay lacks %s: true", ledger.ReplayedHeader)
	}
	for _, h := range []string{"Content-Type", "Location"} {
		if got, want := again.Header().Get(h), first.Header().Get(h); got != want {
			t.Errorf("replayed %s = %q, want %q", h, got, want)
		}
	}
	if again.Header().Get("X-Not-Stored") != "" {
		t.Errorf("a header outside StoredHeaders was replayed")
	}
	wantKeyEchoed(t, again, "k1")
	if f.calls.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", f.calls.Load())
	}
	f.wantCounts(1, 1)
}

func testMismatch(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	first := f.do("alice", "k1", body1)
	before, _ := f.row("alice", "k1")
	w := f.do("alice", "k1", `{"item":"book","qty":2}`)
	wantStatus(t, w, http.StatusUnprocessableEntity)
	if bytes.Contains(w.Body.Bytes(), first.Body.Bytes()) {
		t.Errorf("422 body carries the old result: %s", w.Body.Bytes())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("422 Content-Type = %q, want application/problem+json", ct)
	}
	wantKeyEchoed(t, w, "k1")
	after, _ := f.row("alice", "k1")
	if after.Fingerprint != before.Fingerprint || !bytes.Equal(after.Response.Body, before.Response.Body) {
		t.Errorf("the 422 changed the ledger row")
	}
	f.wantCounts(1, 1)
}

// testOtherTarget: one operation serves many resources; the same key and
// body sent to another path or query is another request, never the first
// one's stored result.
func testOtherTarget(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	first := f.doAt("/orders?shop=A", "alice", "k1", body1)
	wantStatus(t, first, http.StatusCreated)
	for _, target := range []string{"/orders?shop=B", "/orders"} {
		w := f.doAt(target, "alice", "k1", body1)
		wantStatus(t, w, http.StatusUnprocessableEntity)
		if bytes.Contains(w.Body.Bytes(), first.Body.Bytes()) {
			t.Errorf("%s got the stored result of /orders?shop=A: %s", target, w.Body.Bytes())
		}
	}
	f.wantCounts(1, 1)
}

func testBusy(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) { c.BusyRetryAfter = 1500 * time.Millisecond })
	if dec := f.reserveAs("other-process", "alice", "k1", body1); dec.Outcome != ledger.Reserved {
		t.Fatalf("reserve = %v", dec.Outcome)
	}
	w := f.do("alice", "k1", body1)
	wantStatus(t, w, http.StatusConflict)
	if got := w.Header().Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2 (1.5s rounded up)", got)
	}
	wantKeyEchoed(t, w, "k1")
	f.wantCounts(0, 0)
	if rec, _ := f.row("alice", "k1"); rec.LeaseOwner != "other-process" {
		t.Errorf("the 409 took the lease: owner %q", rec.LeaseOwner)
	}
}

func testBusyWait(t *testing.T, open Opener) {
	var f *fixture
	sleeps := 0
	f = newFixture(t, open, func(c *ledger.Config) {
		c.InProgressWait, c.PollInterval = time.Second, 100*time.Millisecond
		// The fake sleep lets the other execution finish during the second
		// wait, then lets time pass.
		c.Sleep = func(ctx context.Context, d time.Duration) error {
			sleeps++
			if sleeps == 2 {
				if err := f.completeAs("other-process", "alice", "k1", `{"id":"from-other"}`); err != nil {
					return err
				}
			}
			f.clock.Advance(d)
			return nil
		}
	})
	f.reserveAs("other-process", "alice", "k1", body1)
	w := f.do("alice", "k1", body1)
	wantStatus(t, w, http.StatusCreated)
	if w.Body.String() != `{"id":"from-other"}` || sleeps != 2 {
		t.Fatalf("after %d waits got %q, want the other execution's stored result after 2", sleeps, w.Body.String())
	}
	// Nobody completes the next key: the wait is bounded, then 409.
	sleeps = 10
	f.reserveAs("other-process", "alice", "k2", body1)
	start := f.clock.Now()
	wantStatus(t, f.do("alice", "k2", body1), http.StatusConflict)
	if waited := f.clock.Now().Sub(start); waited < time.Second || waited > 1100*time.Millisecond {
		t.Errorf("waited %v, want the bounded wait of 1s", waited)
	}
}

func testMissingKey(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	wantStatus(t, f.do("alice", "", body1), http.StatusBadRequest)
	r := httptest.NewRequest(http.MethodPost, "/orders", bytes.NewReader([]byte(body1)))
	r.Header.Set("X-Caller", "alice")
	r.Header.Add("Idempotency-Key", "a")
	r.Header.Add("Idempotency-Key", "b")
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	wantStatus(t, w, http.StatusBadRequest)
	wantStatus(t, f.do("alice", "has space", body1), http.StatusBadRequest)
	// A key the ledger refuses is never echoed: a hostile one would
	// otherwise reach the answer's headers.
	for _, hostile := range []string{"k\u0085x", "k\"x", "k\\x"} {
		w := f.do("alice", hostile, body1)
		wantStatus(t, w, http.StatusBadRequest)
		if got := w.Header().Values("Idempotency-Key"); len(got) != 0 {
			t.Errorf("the refused key %q was echoed as %q", hostile, got)
		}
	}
	f.wantCounts(0, 0)
	// The draft's structured-field form "..." names the same key as the bare one.
	quoted := f.do("alice", `"k1"`, body1)
	wantStatus(t, quoted, http.StatusCreated)
	wantKeyEchoed(t, quoted, "k1")
	again := f.do("alice", "k1", body1)
	if again.Header().Get(ledger.ReplayedHeader) != "true" {
		t.Errorf(`"k1" and k1 were treated as two keys`)
	}
	f.wantCounts(1, 1)
}

func testOptionalKey(t *testing.T, open Opener) {
	f := newFixture(t, open, func(c *ledger.Config) { c.Optional = true })
	wantStatus(t, f.do("alice", "", body1), http.StatusCreated)
	wantStatus(t, f.do("alice", "", body1), http.StatusCreated)
	f.wantCounts(2, 2)
	if f.count("idem_ledger") != 0 {
		t.Errorf("an unkeyed request left a ledger row")
	}
}

func testNoCaller(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	wantStatus(t, f.do("", "k1", body1), http.StatusUnauthorized)
	f.wantCounts(0, 0)
}

func testPerCaller(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	a := f.do("alice", "shared-key", body1)
	b := f.do("bob", "shared-key", body1)
	wantStatus(t, a, http.StatusCreated)
	wantStatus(t, b, http.StatusCreated)
	if bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || b.Header().Get(ledger.ReplayedHeader) != "" {
		t.Fatalf("bob received alice's stored response %s", b.Body.Bytes())
	}
	// Bob reusing the key with another body is judged against bob's row only.
	wantStatus(t, f.do("bob", "shared-key", `{"item":"pen","qty":9}`), http.StatusUnprocessableEntity)
	f.wantCounts(2, 2)
	var n int
	f.store.DB().QueryRow(`SELECT COUNT(*) FROM orders WHERE caller = 'bob'`).Scan(&n)
	if n != 1 {
		t.Errorf("bob has %d orders, want 1", n)
	}
}

func testLeaseReclaim(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.reserveAs("crashed-process", "alice", "k1", body1)
	f.clock.Advance(lease - time.Millisecond)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusConflict)
	f.clock.Advance(time.Millisecond)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	if f.calls.Load() != 1 {
		t.Errorf("handler ran %d times after reclaim, want 1", f.calls.Load())
	}
	f.wantCounts(1, 1)
	if rec, _ := f.row("alice", "k1"); rec.ExpiresAt.Sub(rec.CreatedAt) != ttl {
		t.Errorf("reclaim changed the key's life span")
	}
}

func testLeaseLost(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.reserveAs("slow", "alice", "k1", body1)
	f.clock.Advance(lease)
	if dec := f.reserveAs("retry", "alice", "k1", body1); dec.Outcome != ledger.Reserved || !dec.Reclaimed {
		t.Fatalf("reclaim = %+v", dec)
	}
	if err := f.completeAs("slow", "alice", "k1", "{}"); !errors.Is(err, ledger.ErrLeaseLost) {
		t.Fatalf("slow execution completed after losing its lease: %v", err)
	}
	if err := f.completeAs("retry", "alice", "k1", "{}"); err != nil {
		t.Fatal(err)
	}
	if dec := f.reserveAs("third", "alice", "k1", body1); dec.Outcome != ledger.Replay {
		t.Fatalf("after completion reserve = %v, want Replay", dec.Outcome)
	}
}

func testServerError(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	f.fail.Store(http.StatusServiceUnavailable)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusServiceUnavailable)
	f.wantCounts(0, 0)
	if _, ok := f.row("alice", "k1"); ok {
		t.Fatalf("a 5xx left the key reserved")
	}
	f.fail.Store(0)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	f.wantCounts(1, 1)
}

func testPanic(t *testing.T, open Opener) {
	var reported []error
	f := newFixture(t, open, func(c *ledger.Config) {
		c.OnError = func(_ *http.Request, err error) { reported = append(reported, err) }
	})
	f.fail.Store(-1)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusInternalServerError)
	f.wantCounts(0, 0)
	if _, ok := f.row("alice", "k1"); ok || len(reported) != 1 {
		t.Fatalf("after a panic: row kept %v, %d errors reported", ok, len(reported))
	}
	f.fail.Store(0)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	f.wantCounts(1, 1)
}

func testSweeper(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	wantStatus(t, f.do("alice", "done", body1), http.StatusCreated)
	f.reserveAs("crashed-1", "alice", "k1", body1)
	f.reserveAs("crashed-2", "bob", "k2", body1)
	sw := &ledger.Sweeper{Store: f.store, Now: f.clock.Now}
	rep, err := sw.Sweep(context.Background())
	if err != nil || len(rep.Stuck) != 0 {
		t.Fatalf("live leases reported as stuck: %+v %v", rep, err)
	}
	f.clock.Advance(lease)
	sw.ReportOnly = true
	rep, err = sw.Sweep(context.Background())
	if err != nil || len(rep.Stuck) != 2 || rep.Released != 0 {
		t.Fatalf("report-only sweep = %+v, %v; want 2 stuck, 0 released", rep, err)
	}
	sw.ReportOnly = false
	rep, err = sw.Sweep(context.Background())
	if err != nil || len(rep.Stuck) != 2 || rep.Released != 2 {
		t.Fatalf("sweep = %+v, %v; want 2 stuck, 2 released", rep, err)
	}
	if _, ok := f.row("alice", "k1"); ok {
		t.Errorf("released row still present")
	}
	if rec, ok := f.row("alice", "done"); !ok || rec.State != ledger.StateCompleted {
		t.Errorf("the sweeper touched a completed row")
	}
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	f.wantCounts(2, 2)
}

func testPurge(t *testing.T, open Opener) {
	f := newFixture(t, open, nil)
	wantStatus(t, f.do("alice", "k1", body1), http.StatusCreated)
	wantStatus(t, f.do("alice", "k2", body1), http.StatusCreated)
	f.clock.Advance(ttl)
	// Expired but not yet purged: the key counts as absent (documented).
	wantStatus(t, f.do("alice", "k1", `{"item":"other","qty":3}`), http.StatusCreated)
	f.wantCounts(3, 3)
	report := &ledger.Sweeper{Store: f.store, Now: f.clock.Now, ReportOnly: true}
	if rep, err := report.Sweep(context.Background()); err != nil || rep.Purged != 0 {
		t.Fatalf("report-only sweep = %+v, %v; want nothing purged", rep, err)
	}
	if _, ok := f.row("alice", "k2"); !ok {
		t.Fatalf("a report-only sweep deleted the expired k2")
	}
	n, err := f.store.Purge(context.Background(), f.clock.Now())
	if err != nil || n != 1 {
		t.Fatalf("purge = %d, %v; want 1 (k2; k1 was renewed)", n, err)
	}
	if _, ok := f.row("alice", "k2"); ok {
		t.Errorf("k2 survived the purge")
	}
	if _, ok := f.row("alice", "k1"); !ok {
		t.Errorf("renewed k1 was purged")
	}
}

// testLeaseTimeout: a handler that outlives its lease has its context
// cancelled; its writes roll back, the key is freed and the client is told
// to retry (503), which then executes once.
func testLeaseTimeout(t *testing.T, open Opener) {
	var cfg ledger.Config
	f := newFixture(t, open, func(c *ledger.Config) { c.Lease = 20 * time.Millisecond; cfg = *c })
	stuck := f.l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Stuck downstream: only the lease's cancellation ends it.
		<-r.Context().Done()
		f.createOrder(w, r)
	}))
	// The retry runs under the normal lease on the same store: a 20 ms lease
	// would also bound a healthy handler, which a loaded machine can exceed.
	cfg.Lease = lease
	healthy, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := stuck
	do := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/orders", bytes.NewReader([]byte(body1)))
		r.Header.Set("X-Caller", "alice")
		r.Header.Set("Idempotency-Key", "k1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := do()
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("status = %d (Retry-After %q), want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	f.wantCounts(0, 0)
	if _, ok := f.row("alice", "k1"); ok {
		t.Fatalf("the timed-out execution kept the key")
	}
	h = healthy.Handle("createOrder", http.HandlerFunc(f.createOrder))
	wantStatus(t, do(), http.StatusCreated)
	f.wantCounts(1, 1)
}
