package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// Framing is how a stream's body is cut into events.
type Framing int

const (
	// FramingSSE is text/event-stream (server-sent events).
	FramingSSE Framing = iota
	// FramingJSONLines is one JSON value per line (application/jsonl,
	// application/x-ndjson).
	FramingJSONLines
	// FramingJSONSeq is a JSON text sequence (application/json-seq, RFC
	// 7464).
	FramingJSONSeq
)

// Event is one event as the server sent it. For JSON lines and sequences
// only Data is set.
type Event struct {
	// ID is the last event id the server set (it carries over from an
	// earlier event when this one sets none); Type the event type
	// ("message" when the server named none).
	ID, Type string
	// Data is the event's data lines joined with LF.
	Data []byte
	// Retry is the reconnection wait the event's retry: field set (0 when
	// it set none).
	Retry time.Duration
}

// doneData is the data of the OpenAI-style event that ends a stream.
var doneData = []byte("[DONE]")

// eventSource is a parser of one connection's body.
type eventSource interface {
	next() (Event, error)
}

// Stream is the response of an operation that answers with a stream of
// events of type T: iterate with Next and Current, then check Err, and
// Close it (closing early is fine).
//
//	for s.Next() {
//		use(s.Current())
//	}
//	if err := s.Err(); err != nil { ... }
//
// The call's deadline covers getting the response headers; after that, each
// read must make progress within the idle timeout (Policy.IdleTimeout,
// WithIdleTimeout), so a long healthy stream is never cut. A safe
// operation's stream that is cut reconnects with Last-Event-ID and the same
// key (see resumer for the limits); an unsafe one ends with a
// *StreamCutError. A Stream is not safe for concurrent use.
type Stream[T any] struct {
	g       resumer
	framing Framing
	body    io.ReadCloser
	events  eventSource
	// sse is events when the framing is SSE: its last id and retry carry
	// over to the next connection.
	sse *sseParser

	cur   T
	ev    Event
	count int
	err   error
	done  bool
}

// OpenStream runs the call of op like Runner.Do up to the response headers,
// then returns its events as a Stream, parsed with framing f; T is the
// declared schema of the events (string or []byte take the data raw,
// anything else decodes it as JSON). An error status or a call that failed
// before the headers returns the same errors as Do.
func OpenStream[T any](ctx context.Context, r *Runner, op *Operation, req *Request, f Framing, opts ...CallOption) (*Stream[T], error) {
	s := &Stream[T]{g: resumer{ctx: ctx, r: r, op: op, opts: opts}, framing: f}
	if req != nil {
		s.g.req = *req
	}
	var start openStart
	if f == FramingSSE && s.g.req.Header.Get("Accept") == "" {
		start.header = http.Header{"Accept": {"text/event-stream"}}
	}
	resp, c, err := r.open(ctx, op, &s.g.req, opts, start)
	if err != nil {
		return nil, err
	}
	s.g.started(c)
	s.attach(resp)
	return s, nil
}

// attach starts reading a connection's body.
func (s *Stream[T]) attach(resp *http.Response) {
	s.body = resp.Body
	limit := int(min(s.g.c.maxBody(), int64(^uint(0)>>1)))
	if s.framing != FramingSSE {
		s.events = newLineParser(s.body, s.framing, limit)
		return
	}
	p := newSSEParser(s.body, limit)
	if s.sse != nil {
		// The last event id and the reconnection time outlive a
		// connection.
		p.lastID, p.retry = s.sse.lastID, s.sse.retry
	}
	s.sse, s.events = p, p
}

// Next advances to the next event; it returns false at the end of the
// stream (a clean end of the body, or a [DONE] event) or on an error
// (Err).
func (s *Stream[T]) Next() bool {
	for !s.done {
		ev, err := s.events.next()
		switch {
		case err == nil && s.framing == FramingSSE && bytes.Equal(ev.Data, doneData):
			s.end(nil)
		case err == nil:
			return s.deliver(ev)
		case err == io.EOF:
			s.end(nil)
		case errors.Is(err, ErrEventTooLarge):
			s.end(s.callError(nil, err))
		default:
			s.resume(err)
		}
	}
	return false
}

// deliver decodes ev into Current.
func (s *Stream[T]) deliver(ev Event) bool {
	var zero T
	s.cur = zero
	switch p := any(&s.cur).(type) {
	case *string:
		*p = string(ev.Data)
	case *[]byte:
		*p = ev.Data
	default:
		if err := jsoncodec.Unmarshal(ev.Data, &s.cur); err != nil {
			s.end(s.callError(ErrDecode, fmt.Errorf("event %d: %w", s.count+1, err)))
			return false
		}
	}
	s.ev = ev
	s.count++
	s.g.progress()
	return true
}

// resume reconnects after the read error cause, or ends the stream with a
// *StreamCutError when it may not or cannot.
func (s *Stream[T]) resume(cause error) {
	_ = s.body.Close()
	var header http.Header
	hint := time.Duration(0)
	if s.sse != nil {
		hint = s.sse.retry
		if s.sse.lastID != "" {
			header = http.Header{"Last-Event-ID": {s.sse.lastID}}
		}
	}
	reason := error(nil)
	if s.count > 0 && header == nil && s.g.op.safe() {
		// Resending would deliver the events already received again.
		reason = errNoResumePoint
	}
	wait, src := time.Duration(0), WaitNone
	if reason == nil {
		wait, src, reason = s.g.gate(hint, isTimeout(cause))
	}
	if reason == nil {
		resp, err := s.g.reopen(wait, src, header)
		if err == nil {
			s.attach(resp)
			return
		}
		reason = err
	}
	s.end(s.cutError(reason, cause))
}

// cutError is the error of a stream cut by cause and not resumed because
// of reason.
func (s *Stream[T]) cutError(reason, cause error) error {
	e := &StreamCutError{Operation: s.g.op.ID, Events: s.count, Reason: reason, Err: cause, Attempts: slices.Clone(s.g.recs),
		resend: resendClass(s.g.op)}
	if s.count > 0 {
		e.LastEventID = s.ev.ID
	}
	e.Key, e.keyUnsent = s.key()
	return e
}

// callError ends the stream with a *CallError carrying the key.
func (s *Stream[T]) callError(reason, err error) error {
	e := &CallError{Operation: s.g.op.ID, Reason: reason, Err: err, Attempts: slices.Clone(s.g.recs), resend: resendClass(s.g.op)}
	e.Key, e.keyUnsent = s.key()
	return e
}

// key is the stream's intent key, and whether its requests never sent it.
func (s *Stream[T]) key() (string, bool) { return s.g.req.Key, s.g.keyUnsent }

// end stops the stream with err (nil: a clean end).
func (s *Stream[T]) end(err error) {
	s.done, s.err = true, err
	_ = s.body.Close()
}

// Current is the event Next advanced to.
func (s *Stream[T]) Current() T { return s.cur }

// Event is the raw event of Current: its id, type, data and retry.
func (s *Stream[T]) Event() Event { return s.ev }

// Err is the error that ended the stream, nil after a clean end: a
// *StreamCutError (the connection was lost and not resumed), or a
// *CallError (an event that does not decode as T, Reason ErrDecode; one
// larger than the limit, ErrEventTooLarge). Both carry the key (KeyOf).
func (s *Stream[T]) Err() error { return s.err }

// Close ends the stream and releases its connection; Err keeps what it
// was. It may be called more than once.
func (s *Stream[T]) Close() error {
	if !s.done {
		s.done = true
		return s.body.Close()
	}
	return nil
}
