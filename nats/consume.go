package idemnats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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

// ApplyError reports an event whose apply (or its transaction) failed; the
// message was Nak'd so the stream redelivers it.
type ApplyError struct {
	EventID string
	Err     error
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("idemnats: apply %s: %v", e.EventID, e.Err)
}

func (e *ApplyError) Unwrap() error { return e.Err }

// Consumer applies JetStream messages published by Publisher exactly once
// each, in the consumer's own database.
type Consumer struct {
	// Outbox is on the consumer's database; its idem_consumed table holds
	// the ids already applied.
	Outbox *outbox.Outbox
	// Name scopes the dedupe: each consumer name applies an event once.
	Name string
	// Apply writes the effect of one event through tx, the transaction that
	// also records the event id.
	Apply func(ctx context.Context, tx *sql.Tx, e outbox.Event) error
}

// EventOf rebuilds the outbox event a message carries, or returns an error
// wrapping ErrForeign.
func EventOf(m jetstream.Msg) (outbox.Event, error) {
	h := m.Headers()
	id, topic := h.Get(jetstream.MsgIDHeader), h.Get(TopicHeader)
	if id == "" || topic == "" || len(id) > maxEventID {
		return outbox.Event{}, fmt.Errorf("%w (subject %.128q)", ErrForeign, m.Subject())
	}
	return outbox.Event{ID: id, Topic: topic, Payload: m.Data()}, nil
}

// Handle applies m once and reports whether this call applied it. The order
// is what makes it exactly once:
//
//   - the effect and the event id commit in one transaction (outbox.Consume);
//   - only then is the message acked, so a crash before the ack leaves it to
//     be redelivered, and the redelivery finds the id and is acked unapplied;
//   - an apply or commit that fails is Nak'd: nothing was recorded, and the
//     redelivery runs it again.
func (c *Consumer) Handle(ctx context.Context, m jetstream.Msg) (bool, error) {
	e, err := EventOf(m)
	if err != nil {
		return false, errors.Join(err, m.Term())
	}
	applied, err := c.Outbox.Consume(ctx, c.Name, e, c.Apply)
	if err != nil {
		return false, errors.Join(&ApplyError{EventID: e.ID, Err: err}, m.Nak())
	}
	if err := m.Ack(); err != nil {
		// Committed but not acked: the redelivery is a duplicate, absorbed
		// by the id recorded above.
		return applied, fmt.Errorf("idemnats: ack %s: %w", e.ID, err)
	}
	return applied, nil
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
