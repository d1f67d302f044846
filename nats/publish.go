package idemnats

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
)

// TopicHeader carries the event's topic beside the payload, so a consumer
// rebuilds the outbox.Event from the headers alone. The event id travels in
// jetstream.MsgIDHeader (Nats-Msg-Id), which is also the stream's dedupe key.
const TopicHeader = "Idem-Topic"

// ErrNoEventID is returned for an event without an id: it could be deduped
// neither by JetStream nor by the consumer. outbox.Add always sets one.
var ErrNoEventID = errors.New("idemnats: event has no id")

// DefaultTimeout bounds the wait for a PubAck, or for an ack to be sent,
// when the Publisher's or the Consumer's own Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Publisher publishes outbox events to JetStream. Its Publish method is
// outbox.Relay's Publish hook:
//
//	relay := &outbox.Relay{Outbox: ob, Publish: (&idemnats.Publisher{JS: js, Prefix: "events"}).Publish}
//
// Publish returns nil only once the stream has stored the message (its
// PubAck came back), and the relay marks an event delivered only when
// Publish returned nil, so an event is never marked before it is safe in the
// stream.
type Publisher struct {
	// JS is the JetStream context to publish on.
	JS jetstream.JetStream
	// Prefix is the first subject token(s); the subject is Prefix + "." +
	// the event's topic (see Subject). A stream must capture Prefix + ".>".
	Prefix string
	// Stream, when set, is the stream the PubAck must come from: a message
	// that another stream captured is refused instead of marked delivered.
	Stream string
	// Timeout bounds the wait for the PubAck; DefaultTimeout when zero.
	Timeout time.Duration
}

// Publish publishes e and waits for its PubAck; see PublishAck.
func (p *Publisher) Publish(ctx context.Context, e outbox.Event) error {
	_, err := p.PublishAck(ctx, e)
	return err
}

// PublishAck publishes e to Subject(p.Prefix, e) with the event id as the
// Nats-Msg-Id header and returns the stream's PubAck. A republish of an id
// the stream still remembers (inside its Duplicates window) is not stored
// again: the PubAck then has Duplicate set, and the call still succeeds,
// since the event is in the stream.
func (p *Publisher) PublishAck(ctx context.Context, e outbox.Event) (*jetstream.PubAck, error) {
	if e.ID == "" {
		return nil, ErrNoEventID
	}
	subject, err := Subject(p.Prefix, e)
	if err != nil {
		return nil, err
	}
	msg := &nats.Msg{Subject: subject, Data: e.Payload, Header: nats.Header{}}
	msg.Header.Set(TopicHeader, e.Topic)
	opts := []jetstream.PublishOpt{jetstream.WithMsgID(e.ID)}
	if p.Stream != "" {
		opts = append(opts, jetstream.WithExpectStream(p.Stream))
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(p.Timeout))
	defer cancel()
	ack, err := p.JS.PublishMsg(ctx, msg, opts...)
	if err != nil {
		return nil, fmt.Errorf("idemnats: publish %s to %s: %w", e.ID, subject, err)
	}
	return ack, nil
}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}

// StreamConfig returns a file-backed stream named name that captures every
// subject under prefix and remembers event ids for dupWindow (the server's
// default of two minutes when zero). A relay down for longer than dupWindow
// republishes ids the stream has forgotten; the consumer's dedupe still
// absorbs them, so the window only saves work.
func StreamConfig(name, prefix string, dupWindow time.Duration) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:       name,
		Subjects:   []string{prefix + ".>"},
		Storage:    jetstream.FileStorage,
		Duplicates: dupWindow,
	}
}
