package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/idemgen/idemgen/runtime/problem"
)

// MaxKeyLen bounds an idempotency key in bytes (a UUID is 36), and the
// operation names Handle takes.
const MaxKeyLen = 255

// Handle wraps h as the keyed operation named operation. The operation name
// is part of both the row's identity and the fingerprint, so one key used on
// two operations names two intents. Like http.ServeMux with a bad pattern,
// Handle panics on a name that no store can keep as a key (empty, longer
// than 255 bytes, not UTF-8, or holding a NUL): every request would fail,
// and when Config.Caller is nil (HandleRoute then needs a Route.Caller).
func (l *Ledger) Handle(operation string, h http.Handler) http.Handler {
	return l.HandleRoute(Route{Operation: operation}, h)
}

func (l *Ledger) serve(w http.ResponseWriter, r *http.Request, rt *route, h http.Handler) {
	caller, err := rt.caller(r)
	if err == nil {
		err = checkCaller(caller)
	}
	if err != nil {
		problem.Write(w, http.StatusUnauthorized, problem.CallerUnknown, err.Error())
		return
	}
	key, ok := ParseKey(r.Header[rt.keyHeader])
	if !ok {
		problem.Write(w, http.StatusBadRequest, problem.KeyInvalid,
			fmt.Sprintf("%s must be one non-empty string of at most %d printable characters", rt.keyHeader, MaxKeyLen))
		return
	}
	id := ID{Caller: caller, Operation: rt.operation, Key: key}
	if key == "" {
		l.serveUnkeyed(w, r, rt, id, h)
		return
	}
	// Every answer names its key, as Stripe's do, so the caller's logs tie
	// each response (a replay, a 409, a 422) to its intent.
	w.Header()[rt.keyHeader] = []string{key}
	body, ok := l.readBody(w, r)
	if !ok {
		return
	}
	r.Body = newReplayBody(body)
	fp, seen, ok := l.fingerprintOf(w, r, rt, id, body)
	if !ok {
		return
	}
	l.serveKeyed(w, r, rt, id, fp, seen, h)
}

// fingerprintOf returns the request's fingerprint and whether its key was
// seen lately (recentKeys): the one remembered when the request's bytes are
// those it was computed from, else computed afresh (and remembered). A JSON
// body that is ambiguous is answered 400 and ok is false.
func (l *Ledger) fingerprintOf(w http.ResponseWriter, r *http.Request, rt *route, id ID, body []byte) (fp string, seen, ok bool) {
	ct := r.Header.Get("Content-Type")
	target, fields := requestTarget(r.URL, rt.credQuery), identityFields(r, rt)
	digest := l.recent.requestDigest(rt.seq, r.Method, target, ct, fields, body)
	known, seen := l.recent.get(id)
	if seen && known.digest == digest && known.fp != "" {
		return known.fp, true, true
	}
	var canon []byte
	if isJSON(ct) {
		// One parse both checks the body and gives its canonical form.
		doc, err := checkJSONDoc(body)
		if err != nil {
			problem.Write(w, http.StatusBadRequest, problem.AmbiguousBody, err.Error())
			return "", seen, false
		}
		if doc != nil {
			canon = doc.canonical()
		} else {
			canon, _ = CanonicalJSON(body)
		}
	}
	fp = fingerprint(r.Method, rt.operation, target, ct, body, canon, fields)
	l.recent.remember(id, digest, fp)
	return fp, seen, true
}

// identityFields are the request's headers and cookies that belong to its
// fingerprint (none unless configured: the cookies are not parsed then).
func identityFields(r *http.Request, rt *route) []string {
	fields := HeaderFields(r.Header, rt.fpHeaders)
	if len(rt.fpCookies) > 0 {
		fields = append(fields, CookieFields(r.Cookies(), rt.fpCookies)...)
	}
	return fields
}

// maxCallerLen keeps (caller, operation, key) well inside PostgreSQL's
// B-tree entry limit (about 2700 bytes).
const maxCallerLen = 1024

// checkCaller refuses identities the ledger cannot store as text on every
// database. PostgreSQL rejects NUL and invalid UTF-8 and refuses index
// entries above its limit: without this check such a caller got 503
// "retry" on every attempt, forever.
func checkCaller(caller string) error {
	switch {
	case caller == "":
		// An empty identity would put every anonymous caller in one key
		// scope, where they could read each other's stored results.
		return errors.New("the caller identity is empty")
	case len(caller) > maxCallerLen:
		return fmt.Errorf("the caller identity is longer than %d bytes", maxCallerLen)
	case !utf8.ValidString(caller) || strings.IndexByte(caller, 0) >= 0:
		return errors.New("the caller identity is not valid UTF-8 text without NUL")
	}
	return nil
}

// ParseKey reads the values of an idempotency key header as the ledger
// does: one value, bare or as a structured-field string ("..."), as the
// draft writes it, of 1 to 255 printable ASCII characters without '"' or
// '\'. An absent header yields "", true. A key it returns is safe to echo
// in a response header.
func ParseKey(values []string) (string, bool) {
	if len(values) == 0 {
		return "", true
	}
	if len(values) > 1 {
		return "", false
	}
	k := strings.TrimSpace(values[0])
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	if k == "" || len(k) > MaxKeyLen {
		return "", false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e || k[i] == '"' || k[i] == '\\' {
			return "", false
		}
	}
	return k, true
}

func (l *Ledger) serveUnkeyed(w http.ResponseWriter, r *http.Request, rt *route, id ID, h http.Handler) {
	if !l.cfg.Optional {
		problem.Write(w, http.StatusBadRequest, problem.KeyMissing,
			fmt.Sprintf("operation %s requires an %s header", id.Operation, rt.keyHeader))
		return
	}
	l.execute(w, r, rt, id, "", h)
}

// serveKeyed runs the state machine: reserve, then execute, replay, reject
// or wait. A key seen lately is read first: a plain read settles most
// repeats (replay, 422, busy) without a write, so retries do not queue
// behind writers. Any other key goes straight to the reservation, unless
// the store's reservation cannot settle a repeat itself (readUnseen).
func (l *Ledger) serveKeyed(w http.ResponseWriter, r *http.Request, rt *route, id ID, fp string, seen bool, h http.Handler) {
	var waitUntil time.Time
	for {
		now := l.cfg.Now()
		out, rec := l.peek(r.Context(), id, fp, now, seen || l.readUnseen)
		seen = true
		if out == 0 {
			var done bool
			if out, rec, done = l.reserve(w, r, rt, id, fp, now, h); done {
				return
			}
		}
		switch out {
		case Replay:
			writeStored(w, rec.Response)
		case Mismatch:
			problem.Write(w, http.StatusUnprocessableEntity, problem.KeyReused,
				"this idempotency key was already used with a different request payload")
		case Busy:
			if waitUntil.IsZero() {
				// Read the first time a wait may start, not on every request.
				waitUntil = now.Add(l.cfg.InProgressWait)
			}
			if now.Before(waitUntil) && l.cfg.Sleep(r.Context(), l.cfg.PollInterval) == nil {
				continue
			}
			writeBusy(w, rt.busyRetryAfter)
		}
		return
	}
}

// reserve reserves id and, when this execution holds it, executes h (done
// is then true, as it is when the store failed and that was answered);
// otherwise it returns the outcome the store decided.
func (l *Ledger) reserve(w http.ResponseWriter, r *http.Request, rt *route, id ID, fp string, now time.Time, h http.Handler) (out Outcome, rec Record, done bool) {
	// The owner names this execution, if the key turns out to be free.
	owner := l.cfg.Owner()
	if l.inTx != nil {
		return l.reserveAndExecute(w, r, rt, id, fp, owner, h)
	}
	dec, err := l.cfg.Store.Reserve(r.Context(), Reservation{
		ID: id, Fingerprint: fp, Owner: owner, Now: now, Lease: l.cfg.Lease, TTL: l.cfg.TTL,
	})
	switch {
	case err != nil:
		l.report(w, r, rt, err, http.StatusServiceUnavailable)
		return 0, Record{}, true
	case dec.Outcome == Reserved:
		l.execute(w, r, rt, id, owner, h)
		return Reserved, dec.Record, true
	case dec.Outcome == Replay:
		l.replays.put(dec.Record)
	}
	return dec.Outcome, dec.Record, false
}

// peek decides from what the process knows, or a plain read when read is
// true, when that settles the answer exactly as a reservation would; it
// returns 0 when the reservation must decide (no row, an expired key, a
// dead lease, a read error, or a key it was not to read).
func (l *Ledger) peek(ctx context.Context, id ID, fp string, now time.Time, read bool) (Outcome, Record) {
	rec, ok := l.replays.get(id, now)
	if !ok {
		if !read {
			return 0, rec
		}
		if k, ok := l.recent.get(id); ok && k.running > 0 {
			// Reserved inside a transaction of this process that has not
			// committed: no read would find it.
			if k.runningFP != fp {
				return Mismatch, rec
			}
			return Busy, rec
		}
		var err error
		if rec, ok, err = l.cfg.Store.Get(ctx, id); err != nil || !ok || !now.Before(rec.ExpiresAt) {
			return 0, rec
		}
		l.replays.put(rec)
	}
	switch {
	case rec.Fingerprint != fp:
		return Mismatch, rec
	case rec.State == StateCompleted:
		return Replay, rec
	case now.Before(rec.LeaseExpires):
		return Busy, rec
	}
	return 0, rec
}

// execute runs h inside a business transaction and commits the key's
// completion with it. owner is "" for an unkeyed request (no ledger row).
// The transaction is detached from the client's connection: a client that
// hangs up does not roll back work the server has started, so the retry that
// follows finds the stored result. The lease bounds it instead.
func (l *Ledger) execute(w http.ResponseWriter, r *http.Request, rt *route, id ID, owner string, h http.Handler) {
	ctx, tx, end, err := l.beginLeased(r)
	if err != nil {
		l.fail(w, r, rt, id, owner, err, http.StatusServiceUnavailable)
		return
	}
	defer end()
	l.run(ctx, tx, w, r, rt, id, owner, h)
}

// beginLeased starts the business transaction under the lease: ctx ends
// with it (a real-time timeout, not Config.Now: the lease must bound real
// work), and when it runs out the transaction rolls back at once, freeing
// its locks (SQLite's one writer) even while a stuck handler runs on: a
// store may begin it on a context the lease does not cancel (sqlstore on
// SQLite). end releases both, the rollback's watch first.
func (l *Ledger) beginLeased(r *http.Request) (ctx context.Context, tx *sql.Tx, end func(), err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), l.cfg.Lease)
	if tx, err = l.begin(ctx); err != nil {
		cancel()
		return nil, nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { tx.Rollback() })
	return ctx, tx, func() { stop(); cancel() }, nil
}

// reserveAndExecute reserves id inside the business transaction (a
// TxReserver store) and, when it is reserved, runs h in that transaction,
// which then commits once; done is false when the store decided another
// outcome (the transaction rolled back).
func (l *Ledger) reserveAndExecute(w http.ResponseWriter, r *http.Request, rt *route, id ID, fp, owner string, h http.Handler) (Outcome, Record, bool) {
	ctx, tx, end, err := l.beginLeased(r)
	if err != nil {
		l.report(w, r, rt, err, http.StatusServiceUnavailable)
		return 0, Record{}, true
	}
	defer end()
	// The time is taken with the writer held: the wait for it is not part
	// of the lease the row records.
	dec, err := l.inTx.ReserveTx(ctx, tx, Reservation{
		ID: id, Fingerprint: fp, Owner: owner, Now: l.cfg.Now(), Lease: l.cfg.Lease, TTL: l.cfg.TTL,
	})
	if err != nil || dec.Outcome != Reserved {
		tx.Rollback()
		if err != nil {
			l.report(w, r, rt, err, http.StatusServiceUnavailable)
			return 0, Record{}, true
		}
		if dec.Outcome == Replay {
			l.replays.put(dec.Record)
		}
		return dec.Outcome, dec.Record, false
	}
	l.recent.start(id, fp)
	aw := &answerWriter{ResponseWriter: w, ended: func() { l.recent.stop(id) }}
	defer aw.end()
	// The lease's end ends it too: the transaction is rolled back then,
	// and a handler that never returns must not hold the key in this
	// process for ever.
	defer context.AfterFunc(ctx, aw.end)()
	l.run(ctx, tx, aw, r, rt, id, owner, h)
	return Reserved, dec.Record, true
}

// answerWriter ends the process's record of a running execution (the
// transaction it reserved in has ended) just before the answer starts, so
// that a repeat sent the moment the caller reads it is not told the key is
// still in progress. A 1xx passes through without ending it.
type answerWriter struct {
	http.ResponseWriter
	ended func()
	once  sync.Once
}

func (a *answerWriter) end() { a.once.Do(a.ended) }

func (a *answerWriter) WriteHeader(status int) {
	if status >= 200 {
		a.end()
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *answerWriter) Write(p []byte) (int, error) {
	a.end()
	return a.ResponseWriter.Write(p)
}

// Unwrap gives http.ResponseController the writer underneath.
func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// run runs h in tx and commits the key's completion with it, or rolls it
// back and answers why.
func (l *Ledger) run(ctx context.Context, tx *sql.Tx, w http.ResponseWriter, r *http.Request, rt *route, id ID, owner string, h http.Handler) {
	rec := newRecorder(w)
	err := runHandler(h, rec, r.WithContext(withExecution(ctx, &execution{tx: tx, id: id})))
	if err == nil {
		err = rec.failed
	}
	if err != nil {
		tx.Rollback()
		l.fail(w, r, rt, id, owner, err, http.StatusInternalServerError)
		return
	}
	if rec.statusCode() >= 500 {
		// A 5xx means "not done": undo the business writes and free the key
		// so that a retry executes afresh.
		tx.Rollback()
		if ctx.Err() != nil {
			// The handler failed because its lease ran out: say so, as a
			// retryable 503, rather than pass on its own error.
			l.fail(w, r, rt, id, owner, fmt.Errorf("ledger: lease of %v ran out: %w", l.cfg.Lease, ctx.Err()), http.StatusServiceUnavailable)
			return
		}
		l.release(r, rt, id, owner)
		rec.flush(w)
		return
	}
	if err := l.commit(ctx, tx, id, owner, rt.stored, rec); err != nil {
		var lost errCommit
		switch {
		case errors.Is(err, ErrLeaseLost):
			writeBusy(w, rt.busyRetryAfter)
		case errors.As(err, &lost):
			// The COMMIT itself failed: find out what happened before
			// answering anything that claims an outcome.
			l.answerFailedCommit(w, r, rt, id, owner, lost.err, rec)
		default:
			// The store failed (or the lease ran out) before the commit:
			// nothing was executed, and a retry with the same key is safe.
			l.fail(w, r, rt, id, owner, err, http.StatusServiceUnavailable)
		}
		return
	}
	rec.flush(w)
}

// begin starts the business transaction, unless the lease ran out while it
// waited for a connection.
func (l *Ledger) begin(ctx context.Context) (*sql.Tx, error) {
	tx, err := l.cfg.Store.Begin(ctx)
	if err == nil && ctx.Err() != nil {
		tx.Rollback()
		err = fmt.Errorf("ledger: lease of %v ran out before the transaction began: %w", l.cfg.Lease, ctx.Err())
	}
	return tx, err
}

// commit completes the key inside tx and commits both. A failed Commit may
// still have committed on a networked database: it returns errCommit, which
// answerFailedCommit settles.
func (l *Ledger) commit(ctx context.Context, tx *sql.Tx, id ID, owner string, stored []string, rec *recorder) error {
	if err := ctx.Err(); err != nil {
		// Checked here, not left to Complete: a store may run it on a
		// context the lease does not cancel (sqlstore on SQLite).
		tx.Rollback()
		return fmt.Errorf("ledger: lease of %v ran out before the commit: %w", l.cfg.Lease, err)
	}
	if owner != "" {
		resp := rec.stored(stored)
		if size(resp) > l.cfg.MaxStoredResponse {
			resp = notStored(resp, l.cfg.MaxStoredResponse)
		}
		if err := l.cfg.Store.Complete(ctx, tx, id, owner, resp); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return errCommit{err}
	}
	return nil
}

// PanicError is a handler's panic, the one type for it on the server side:
// Config.OnError (and Route.OnError) receives it for a keyed handler that
// panicked (the transaction was rolled back, the key released), Deliver and
// DeliverAny return it for a delivery handler that panicked, and idemsrv's
// WithOnError and webhook.WithOnError receive it for any handler or
// SecurityHandler that panicked.
// The client was answered a 500 problem that says nothing of it. It lives
// here, the lowest package that recovers panics, so that idemsrv, which
// imports the ledger, reports the same type.
type PanicError struct {
	// Value is what the handler panicked with; Stack is where.
	Value any
	Stack []byte
}

// Error says what the handler panicked with.
func (e *PanicError) Error() string { return fmt.Sprintf("handler panicked: %v", e.Value) }

// Unwrap returns Value when it is an error, so that errors.Is and
// errors.As see what the handler panicked with.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// runHandler calls h and turns a panic into a *PanicError, so that the
// transaction is rolled back and the key released instead of held until its
// lease expires.
func runHandler(h http.Handler, w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	h.ServeHTTP(w, r)
	return nil
}

// release frees owner's reservation on a context of its own: the lease's
// may be what ran out.
func (l *Ledger) release(r *http.Request, rt *route, id ID, owner string) {
	if owner == "" || l.inTx != nil {
		// Unkeyed, or reserved inside the transaction that rolled back.
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), releaseTimeout)
	defer cancel()
	if err := l.cfg.Store.Release(ctx, id, owner); err != nil {
		// The lease will expire and the sweeper will find the row.
		l.onError(r, rt, err)
	}
}

// onError hands err to Config.OnError and to the route's own.
func (l *Ledger) onError(r *http.Request, rt *route, err error) {
	if l.cfg.OnError != nil {
		l.cfg.OnError(r, err)
	}
	if rt.onError != nil {
		rt.onError(r, err)
	}
}

const releaseTimeout = 10 * time.Second

// writeUnavailable answers the retryable 503 of a request that was not
// executed.
func writeUnavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	problem.Write(w, http.StatusServiceUnavailable, problem.StoreUnavailable, "the request was not executed; retry with the same key")
}

// fail releases the key and answers status: 500 for a handler that
// panicked or failed after it had chosen its status (a bug: clients do not
// retry it by default), 503 for a store
// failure (transient: the request was not executed, a retry is safe).
func (l *Ledger) fail(w http.ResponseWriter, r *http.Request, rt *route, id ID, owner string, err error, status int) {
	l.release(r, rt, id, owner)
	l.report(w, r, rt, err, status)
}

func (l *Ledger) report(w http.ResponseWriter, r *http.Request, rt *route, err error, status int) {
	l.onError(r, rt, err)
	var lost errCommit
	switch {
	case status == http.StatusServiceUnavailable && errors.As(err, &lost):
		w.Header().Set("Retry-After", "1")
		problem.Write(w, status, problem.OutcomeUnknown,
			"the commit failed and may or may not have taken effect; retry with the same key: if it did, the retry replays its result")
		return
	case status == http.StatusServiceUnavailable:
		writeUnavailable(w)
		return
	}
	problem.Write(w, status, problem.Internal, "the handler failed and the request was rolled back; the key is free again")
}
