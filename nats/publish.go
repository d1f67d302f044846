package idemnats

import (
	"bytes"
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
// jetstream.MsgIDHeader (Nats-Msg-Id), which is also the stream's dedupe key:
// the id itself, or "source:id" when the Publisher has a Source.
const TopicHeader = "Idem-Topic"

// SourceHeader carries Publisher.Source, the outbox the event came from.
const SourceHeader = "Idem-Source"

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
	// Source names the outbox this Publisher relays: 1 to 64 ASCII letters,
	// digits, '-', '_' or '.', unique among the outboxes that publish into
	// one stream, and never changed once it published. The message id is
	// then "Source:id", so two outboxes whose event ids collide are two
	// messages, not a Duplicate that marks the second delivered unapplied;
	// the consumer dedupes on the source and the id (outbox.Consume). Empty:
	// the message id is the event id alone, which is right only while one
	// outbox publishes into the stream; another outbox's event of the same
	// id is then caught only while the stream still holds the first message
	// (ErrMsgIDCollision).
	Source string
}

// ErrMsgIDCollision is wrapped, as a permanent failure (outbox.Permanent),
// by the error for an event whose message id the stream already holds for
// another message: another outbox (one without a Source, or with the same
// one) published an event of the same id. The relay parks the event instead
// of marking it delivered, where it would have been lost.
var ErrMsgIDCollision = errors.New("idemnats: the stream holds another message under this event's message id")

// ErrSource is wrapped by the error for a Publisher.Source, or an
// Idem-Source header, that is not 1 to 64 of [A-Za-z0-9_.-].
var ErrSource = errors.New("idemnats: invalid source name")

const maxSource = 64

func checkSource(s string) error {
	if s == "" || len(s) > maxSource {
		return fmt.Errorf("%w: %d bytes", ErrSource, len(s))
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return fmt.Errorf("%w: %.64q", ErrSource, s)
		}
	}
	return nil
}

// msgID is the Nats-Msg-Id of an event of source.
func msgID(source, id string) string {
	if source == "" {
		return id
	}
	return source + ":" + id
}

// Publish publishes e and waits for its PubAck; see PublishAck.
func (p *Publisher) Publish(ctx context.Context, e outbox.Event) error {
	_, err := p.PublishAck(ctx, e)
	return err
}

// PublishAck publishes e to Subject(p.Prefix, e) with the message id
// msgID(p.Source, e.ID) in the Nats-Msg-Id header and returns the stream's
// PubAck. A republish of an id the stream still remembers (inside its
// Duplicates window) is not stored again: the PubAck then has Duplicate
// set, and the call still succeeds once the message the stream holds
// under the id is found to be this event (checkDuplicate); another event
// under that id is ErrMsgIDCollision.
//
// Failures no retry can cure are wrapped with outbox.Permanent, so the
// relay parks the event and goes on: no event id (ErrNoEventID), a topic
// that is no subject (*TopicError), a message over the server's
// max_payload (nats.ErrMaxPayload) or the stream's MaxMsgSize
// (jetstream.ErrStreamMessageExceedsMaximum). An invalid Source is the
// Publisher's fault, not the event's: it fails every publish unparked.
func (p *Publisher) PublishAck(ctx context.Context, e outbox.Event) (*jetstream.PubAck, error) {
	if p.Source != "" {
		if err := checkSource(p.Source); err != nil {
			return nil, err
		}
	}
	if e.ID == "" {
		return nil, outbox.Permanent(ErrNoEventID)
	}
	subject, err := Subject(p.Prefix, e)
	if err != nil {
		return nil, outbox.Permanent(err)
	}
	msg := &nats.Msg{Subject: subject, Data: e.Payload, Header: nats.Header{}}
	msg.Header.Set(TopicHeader, e.Topic)
	if p.Source != "" {
		msg.Header.Set(SourceHeader, p.Source)
	}
	opts := []jetstream.PublishOpt{jetstream.WithMsgID(msgID(p.Source, e.ID))}
	if p.Stream != "" {
		opts = append(opts, jetstream.WithExpectStream(p.Stream))
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(p.Timeout))
	defer cancel()
	ack, err := p.JS.PublishMsg(ctx, msg, opts...)
	if err != nil {
		err = fmt.Errorf("idemnats: publish %s to %s: %w", e.ID, subject, err)
		if errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum) {
			err = outbox.Permanent(err)
		}
		return nil, err
	}
	if ack.Duplicate {
		if err := checkDuplicate(ctx, p.JS, ack, msg, e.ID); err != nil {
			return nil, err
		}
	}
	return ack, nil
}

// checkDuplicate compares, for a Duplicate PubAck, the message the stream
// stored under the id with msg: the subject, the payload, the topic and the
// source must be equal. They are for a republish of the same event (a
// relay that died before its mark), and then nil is returned. Another
// event under the same id (two outboxes without a Source) is
// ErrMsgIDCollision, permanent: marked delivered, it would be lost. A
// stream whose retention already removed the first message (a work queue)
// leaves nothing to compare with: the event is taken as delivered, which is
// why outboxes that share a stream need a Source each. A failure to read
// the message is an ordinary error: the relay tries again later.
func checkDuplicate(ctx context.Context, js jetstream.JetStream, ack *jetstream.PubAck, msg *nats.Msg, id string) error {
	s, err := js.Stream(ctx, ack.Stream)
	if err != nil {
		return fmt.Errorf("idemnats: reading the stream %s to compare the Duplicate of %s: %w", ack.Stream, id, err)
	}
	stored, err := s.GetMsg(ctx, ack.Sequence)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("idemnats: reading message %d of %s to compare the Duplicate of %s: %w", ack.Sequence, ack.Stream, id, err)
	}
	if stored.Subject == msg.Subject && bytes.Equal(stored.Data, msg.Data) &&
		stored.Header.Get(TopicHeader) == msg.Header.Get(TopicHeader) &&
		stored.Header.Get(SourceHeader) == msg.Header.Get(SourceHeader) {
		return nil
	}
	return outbox.Permanent(fmt.Errorf("%w: event %s is not message %d of %s, stored under the same id (set Publisher.Source)",
		ErrMsgIDCollision, id, ack.Sequence, ack.Stream))
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
