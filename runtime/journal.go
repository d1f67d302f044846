package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"time"
)

// DefaultKeyTTL is how long a server keeps an idempotency key when the
// operation declares no TTL (Operation.KeyTTL): the generated server's
// ledger default, 24 hours.
const DefaultKeyTTL = 24 * time.Hour

// JournalEntry is one outgoing intent as a Journal keeps it: enough to
// resend it (a keyed operation) or to look it up (an unsafe one with
// x-lookup) after the process that made it is gone. It never holds
// credentials: see WithJournal.
type JournalEntry struct {
	// ID names the entry (a random UUID, not the key: one key may serve
	// several operations).
	ID string
	// Operation is the operation's identity (Operation.ID: unique within
	// the client that recorded it); Safety its safety when recorded.
	Operation string
	Safety    Safety
	// Method and URL are the request's, URL absolute, its query as sent
	// but for the values of the parameters the operation does not declare
	// (their names are kept alone, see WithJournal).
	Method string
	URL    string
	// Header is the frozen request header (the key header included), with
	// the values of the declared and protocol headers only: any other
	// header is kept by name, with no value (a Journal must store such a
	// name: it is what keeps the entry from being resent without it).
	Header http.Header
	// Body is the request body, nil when there is none or when it was not
	// kept (Partial).
	Body []byte
	// Partial reports a body the journal could not keep whole (a stream, or
	// a body above the buffering limit): such an entry is never resent.
	Partial bool
	// Key is the call's idempotency key (the intent's name).
	Key string
	// Fingerprint is "sha256:" and the hex SHA-256 of the body bytes.
	Fingerprint string
	// Created is when the entry was recorded; Deadline the call's deadline
	// (zero when it had none), both in the Runner clock's time.
	Created  time.Time
	Deadline time.Time
	// TTL is how long the server keeps the key (Operation.KeyTTL, else
	// DefaultKeyTTL): a keyed entry is resent only within Created+TTL.
	TTL time.Duration
	// Queued marks an entry an application recorded without sending it
	// (NewJournalEntry, a SQL journal's RecordTx): the reconciler makes its
	// first send. The runner never sets it.
	Queued bool
	// HeldUntil is until when the process that made the entry holds it:
	// its call may still be in flight until then (zero: not held). A
	// Runner whose Journal is a JournalHolder sets it to JournalHold after
	// the record and renews it while the call runs, so a call without a
	// deadline is never settled by a reconciler while it runs; a process
	// that dies stops renewing, and its entries settle when the hold ends.
	HeldUntil time.Time
}

// Settles reports when an entry's call can no longer be in flight: the
// latest of its deadline, the end of its hold and its creation. A
// reconciler waits a grace beyond it.
func (e *JournalEntry) Settles() time.Time {
	t := e.Created
	if e.Deadline.After(t) {
		t = e.Deadline
	}
	if e.HeldUntil.After(t) {
		t = e.HeldUntil
	}
	return t
}

// Journal keeps the intents a Runner sends (WithJournal). Implementations
// must be safe for concurrent use. The runtime has an in-memory one for
// tests (MemoryJournal); the durable ones (SQLite, PostgreSQL) live beside
// the ledger's store drivers, with the reconciler that reads them.
type Journal interface {
	// Record stores a new, unresolved entry before the call's first send.
	// An error stops the call with nothing sent (ErrJournal).
	Record(ctx context.Context, e *JournalEntry) error
	// Attempted stores the record of one attempt of entry id that did not
	// settle the call: a retried attempt, or the final attempt of a call
	// whose outcome stays unknown.
	Attempted(ctx context.Context, id string, a Attempt) error
	// Resolve stores the final attempt of a call that ended definitively
	// (a.Outcome is OutcomeSuccess, OutcomeRejected or OutcomeNotSent) and
	// marks entry id resolved.
	Resolve(ctx context.Context, id string, a Attempt) error
}

// JournalHold is how long a running call's hold on its entry lasts unless
// it is renewed (JournalEntry.HeldUntil): a Runner renews it every third of
// that while the call runs. A process that dies leaves its entries held
// for at most this long.
const JournalHold = time.Minute

// journalHoldBeat is how often a running call renews its hold.
const journalHoldBeat = JournalHold / 3

// JournalHolder is a Journal that lets a running call hold its entry, so
// that no reconciler settles an intent while the process that owns it may
// still be sending it. A Runner whose Journal implements it records each
// entry held for JournalHold, renews the hold every JournalHold/3 while the
// call runs (on the Runner's clock), and, when the call ends and leaves the
// entry unresolved, sets the hold's end to the call's end. The SQL journals
// and MemoryJournal implement it.
type JournalHolder interface {
	Journal
	// Hold sets entry id's HeldUntil to until, which may be earlier than
	// the hold it replaces: the entry's call may be in flight until then,
	// and a reconciler waits a grace beyond it (JournalEntry.Settles). An
	// entry that is no longer unresolved is left as it is.
	Hold(ctx context.Context, id string, until time.Time) error
}

// ErrJournal is the Reason of a call that was not sent because its
// Journal could not record it.
var ErrJournal = errors.New("idemrt: the journal could not record the call; nothing was sent")

// WithJournal makes the Runner record every keyed or unsafe call in j
// before its first send, record each attempt, and mark the entry resolved
// when the call ends definitively. A call that ends with ErrOutcomeUnknown,
// or whose process dies mid-call, leaves its entry unresolved for a
// reconciler. Idempotent operations are not recorded: they can simply be
// repeated.
//
// The entry's header and URL are taken before the request editors run, so
// what an editor adds (With<Scheme>Auth, credential sources, trace headers)
// is never in it. Of what the caller puts on the request itself, the entry
// keeps the values of the parameters the operation declares
// (Operation.HeaderParams, QueryParams, CookieParams), of its key header
// and of Accept, Content-Type, Content-Encoding and the If-* precondition
// headers; of any other header, query or cookie parameter (a query the
// server URL carries included), the name alone, and such an entry is not
// resent (Runner.Resend). A reconciler resends with the client's own
// credentials.
func WithJournal(j Journal) Option {
	return runnerFunc(func(r *Runner) { r.journal = j })
}

// journalWriteTimeout bounds one journal write made after the call's own
// context ended (a deadline that expired is the case the journal is for).
const journalWriteTimeout = 10 * time.Second

// journaled reports whether the call is recorded: the Runner has a journal
// and the operation is keyed or unsafe.
func (c *call) journaled() bool {
	return c.r.journal != nil && c.op.Safety != Idempotent
}

// journalStart records the call's entry before its first send, unless the
// call resends an entry already recorded (Runner.Resend).
func (c *call) journalStart(ctx context.Context) error {
	m := c.first.moreState()
	if m.journal != "" {
		return nil
	}
	e := c.journalEntry()
	holder, holds := c.r.journal.(JournalHolder)
	base := e.Settles()
	if holds {
		e.HeldUntil = e.Created.Add(JournalHold)
	}
	if err := c.r.journal.Record(ctx, e); err != nil {
		return &CallError{Operation: c.op.ID, Key: c.key, Reason: ErrJournal, Err: err}
	}
	m.journal = e.ID
	if holds {
		m.hold = startHold(c, holder, e.ID, base, e.HeldUntil)
	}
	return nil
}

// journalEntry builds the call's entry from its frozen request.
func (c *call) journalEntry() *JournalEntry {
	e := newEntry(c.op, c.req, c.header, c.key, c.r.clock.Now())
	e.Deadline = c.deadline
	if int64(len(e.Body)) > c.bufferLimit() {
		e.Body, e.Partial = nil, true
	}
	e.fingerprint()
	return e
}

// NewJournalEntry returns a queued entry for a call of op that an
// application records in its own transaction (the outbox: a SQL journal's
// RecordTx) instead of sending it: a reconciler makes the first send, with
// the client's credentials. req is what the generated request builder
// returns (wire.Builder.Build); its Key names the intent (a fresh key when
// empty; ledger.KeyOf inside a handler gives a stable one). A keyed
// operation's key header is set here. now is the record time.
func NewJournalEntry(op *Operation, req *Request, now time.Time) *JournalEntry {
	key := req.Key
	if key == "" {
		key = NewKey()
	}
	h := req.Header.Clone()
	if h == nil {
		h = make(http.Header)
	}
	if op.Safety == Keyed && op.KeyHeader != "" {
		h.Set(op.KeyHeader, key)
	}
	e := newEntry(op, req, h, key, now)
	e.Queued = true
	e.fingerprint()
	return e
}

// newEntry is the entry of a call of op with header h and key.
func newEntry(op *Operation, req *Request, h http.Header, key string, now time.Time) *JournalEntry {
	e := &JournalEntry{
		ID: NewKey(), Operation: op.ID, Safety: op.Safety, Method: req.Method,
		URL: journalURL(op, req.URL), Header: journalHeader(op, h), Key: key, Created: now, TTL: op.KeyTTL,
		Body: req.Body, Partial: req.Stream != nil,
	}
	if e.TTL <= 0 {
		e.TTL = DefaultKeyTTL
	}
	if e.Partial {
		e.Body = nil
	}
	return e
}

// fingerprint sets the entry's Fingerprint from its body.
func (e *JournalEntry) fingerprint() {
	sum := sha256.Sum256(e.Body)
	e.Fingerprint = "sha256:" + hex.EncodeToString(sum[:])
}

// journalID is the call's entry id, "" when the call is not recorded.
func (c *call) journalID() string {
	if c.r.journal == nil || c.first.more == nil {
		return ""
	}
	return c.first.more.journal
}

// journalAttempt stores a record that does not settle the call.
func (c *call) journalAttempt(a Attempt) {
	if id := c.journalID(); id != "" {
		ctx, cancel := c.journalContext()
		defer cancel()
		// A write that fails leaves the entry as it was: unresolved, which
		// a reconciler settles; the call goes on.
		_ = c.r.journal.Attempted(ctx, id, a)
	}
}

// journalEnd stores the final record: the entry is resolved when the call
// ended definitively, and stays unresolved when its outcome is unknown or
// the server was still executing it (409 in progress until a limit).
func (c *call) journalEnd(a Attempt, inProgress bool) {
	id := c.journalID()
	if id == "" {
		return
	}
	ctx, cancel := c.journalContext()
	defer cancel()
	unresolved := a.Outcome == OutcomeUnknown || inProgress || c.first.more.resend
	if h := c.first.more.hold; h != nil {
		h.end(ctx, unresolved)
	}
	if unresolved {
		_ = c.r.journal.Attempted(ctx, id, a)
		return
	}
	_ = c.r.journal.Resolve(ctx, id, a)
}

// refuse ends a call that journalStart stopped before its first send.
func (c *call) refuse(err error) {
	c.active.Store(false)
	c.release()
	c.endCall(OutcomeNotSent, err)
	c.ctx.leaveShared()
}

// journalContext is the call's context without its cancellation, bounded:
// the writes that record how a call ended must happen after its deadline.
func (c *call) journalContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(&c.ctx), journalWriteTimeout)
}
