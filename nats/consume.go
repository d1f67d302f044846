package idemnats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// ErrForeign is wrapped by the error for a message the outbox did not
// publish: no event id or no topic header, or an id longer than maxEventID.
// Such a message cannot be deduped, so it is terminated (never redelivered)
// rather than applied.
var ErrForeign = errors.New("idemnats: message carries no usable event id")

// maxEventID bounds the id a message may carry into idem_consumed.
const maxEventID = 256

// ApplyError reports an event whose apply (or its transaction) failed on
// its Deliveries-th delivery. The message was Nak'd with a delay, so the
// stream redelivers it, or, once Parked, recorded in idem_parked and
// terminated; errors.Is(err, outbox.ErrParked) then holds.
type ApplyError struct {
	EventID    string
	Deliveries int
	Parked     bool
	Err        error
}

func (e *ApplyError) Error() string {
	if e.Parked {
		return fmt.Sprintf("idemnats: apply %s failed %d times, parked: %v", e.EventID, e.Deliveries, e.Err)
	}
	return fmt.Sprintf("idemnats: apply %s (delivery %d): %v", e.EventID, e.Deliveries, e.Err)
}

// Unwrap returns the cause, and outbox.ErrParked once parked.
func (e *ApplyError) Unwrap() []error {
	if e.Parked {
		return []error{e.Err, outbox.ErrParked}
	}
	return []error{e.Err}
}

// DefaultMaxDeliveries is how many times a Consumer tries an event whose
// apply fails before it parks it, when MaxDeliveries is zero.
const DefaultMaxDeliveries = 10

// DefaultBackoff is the Nak delay after the n-th failed delivery: 1s,
// doubling, at most 30s; ten deliveries span about two minutes.
func DefaultBackoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > 6 {
		return 30 * time.Second
	}
	return min(time.Second<<(n-1), 30*time.Second)
}

// Consumer applies JetStream messages published by Publisher exactly once
// each, in the consumer's own database.
type Consumer struct {
	// Outbox is on the consumer's database; its idem_consumed table holds
	// the ids already applied, its idem_parked table the events given up on.
	Outbox *outbox.Outbox
	// Name scopes the dedupe: each consumer name applies an event once.
	// Keep it free of '@' (see outbox.Consume).
	Name string
	// Apply writes the effect of one event through tx, the transaction that
	// also records the event id.
	Apply func(ctx context.Context, tx *sql.Tx, e outbox.Event) error
	// MaxDeliveries bounds the deliveries of an event whose apply fails: on
	// the last one it is parked (outbox.Park) and terminated, so the
	// messages after it flow. DefaultMaxDeliveries when zero or less. Keep
	// the JetStream consumer's own MaxDeliver unset or above it, or the
	// server stops redelivering before the event is parked.
	MaxDeliveries int
	// Backoff is the Nak delay after the n-th failed delivery (n from 1);
	// DefaultBackoff when nil.
	Backoff func(n int) time.Duration
}

// EventOf rebuilds the outbox event a message carries, or returns an error
// wrapping ErrForeign: no id or topic, an id longer than maxEventID, or an
// Idem-Source that is invalid or does not prefix the message id.
func EventOf(m jetstream.Msg) (outbox.Event, error) {
	h := m.Headers()
	id, topic, source := h.Get(jetstream.MsgIDHeader), h.Get(TopicHeader), h.Get(SourceHeader)
	if source != "" {
		var ok bool
		id, ok = strings.CutPrefix(id, source+":")
		if !ok || checkSource(source) != nil {
			id = ""
		}
	}
	if id == "" || topic == "" || len(id) > maxEventID {
		return outbox.Event{}, fmt.Errorf("%w (subject %.128q)", ErrForeign, m.Subject())
	}
	return outbox.Event{ID: id, Topic: topic, Payload: m.Data(), Source: source}, nil
}

// Handle applies m once and reports whether this call applied it. The order
// is what makes it exactly once:
//
//   - the effect and the event id commit in one transaction (outbox.Consume);
//   - only then is the message acked, so a crash before the ack leaves it to
//     be redelivered, and the redelivery finds the id and is acked unapplied;
//   - an apply or commit that fails is Nak'd with a growing delay (Backoff):
//     nothing was recorded, and the redelivery runs it again;
//   - on the MaxDeliveries-th failure the event is parked (recorded in
//     idem_parked, in a transaction of its own) and the message terminated,
//     so with MaxAckPending 1 the messages after it are not held for ever.
//     If the park cannot be written (the database is down), the message is
//     Nak'd instead and the next delivery tries again.
func (c *Consumer) Handle(ctx context.Context, m jetstream.Msg) (bool, error) {
	e, err := EventOf(m)
	if err != nil {
		return false, errors.Join(err, m.Term())
	}
	applied, err := c.Outbox.Consume(ctx, c.Name, e, c.Apply)
	if err != nil {
		return false, c.failed(ctx, m, e, err)
	}
	if err := m.Ack(); err != nil {
		// Committed but not acked: the redelivery is a duplicate, absorbed
		// by the id recorded above.
		return applied, fmt.Errorf("idemnats: ack %s: %w", e.ID, err)
	}
	return applied, nil
}

// failed parks or Naks m after its apply failed with cause.
func (c *Consumer) failed(ctx context.Context, m jetstream.Msg, e outbox.Event, cause error) error {
	n := 1
	if meta, err := m.Metadata(); err == nil {
		n = int(min(meta.NumDelivered, 1<<30))
	}
	ae := &ApplyError{EventID: e.ID, Deliveries: n, Err: cause}
	limit := c.MaxDeliveries
	if limit <= 0 {
		limit = DefaultMaxDeliveries
	}
	if n >= limit {
		perr := c.Outbox.Park(ctx, c.Name, e, n, cause)
		if perr == nil {
			ae.Parked = true
			return errors.Join(ae, m.TermWithReason(fmt.Sprintf("idemnats: parked after %d deliveries", n)))
		}
		ae.Err = errors.Join(cause, perr)
	}
	backoff := c.Backoff
	if backoff == nil {
		backoff = DefaultBackoff
	}
	return errors.Join(ae, m.NakWithDelay(backoff(n)))
}

// Retry applies a parked event of this consumer now, from its idem_parked
// row, and deletes the row in the same transaction (outbox.RetryParked):
// the operator's way back for an event whose cause is fixed. source is the
// event's Idem-Source ("" for a Publisher without Source), as `idemgen
// ledger` lists it. It reports whether Apply ran; an event applied
// meanwhile is not applied again.
func (c *Consumer) Retry(ctx context.Context, source, eventID string) (bool, error) {
	return c.Outbox.RetryParked(ctx, c.Name, source, eventID, c.Apply)
}

// Run handles the messages of cons (a durable consumer) one at a time, in
// delivery order, until ctx ends; it then returns ctx's error. onErr, when
// not nil, receives every error of Handle and of the message iterator
// (missed heartbeats while the server restarts, say); Run goes on after them
// and returns early only when the iterator closes for good (the consumer was
// deleted or the connection closed). A message being handled when ctx ends
// is finished first (committed and acked), so a shutdown does not throw away
// an apply that was about to commit. opts tune the pull (batch size,
// heartbeat).
func (c *Consumer) Run(ctx context.Context, cons jetstream.Consumer, onErr func(error), opts ...jetstream.PullMessagesOpt) error {
	it, err := cons.Messages(opts...)
	if err != nil {
		return fmt.Errorf("idemnats: messages: %w", err)
	}
	defer it.Stop()
	hctx := context.WithoutCancel(ctx)
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return fmt.Errorf("idemnats: consumer %s: %w", c.Name, err)
		}
		if err == nil {
			_, err = c.Handle(hctx, m)
		}
		if err != nil && onErr != nil {
			onErr(err)
		}
	}
}
