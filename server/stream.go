package idemsrv

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// StreamFormat is how an operation's answer is streamed: the framing the
// generated client parses and the media type the spec declares.
type StreamFormat struct {
	Framing   idemrt.Framing
	MediaType string
	// Switch is the request body's top-level boolean member that asks for
	// the stream when true, beside Accept (WithStreamSwitch); "" for none.
	Switch string
}

// EventFields are the Server-Sent Events fields of one event besides its
// data. They exist only in text/event-stream; JSON Lines and JSON text
// sequences carry data alone.
type EventFields struct {
	// ID is the event's id. A client whose connection drops reconnects
	// sending the last id it received as Last-Event-ID; "" sends none (the
	// client keeps the one before).
	ID string
	// Type is the event type ("event:"); "" leaves it "message".
	Type string
	// Retry asks the client to wait this long before reconnecting (sent in
	// whole milliseconds); 0 sends none.
	Retry time.Duration
}

var (
	// ErrBadEventField is returned by Send for an id or type holding CR,
	// LF or NUL: written out, it would end the field early and let the
	// rest pose as other fields or events. Nothing is written.
	ErrBadEventField = errors.New("idemsrv: an event id or type holds CR, LF or NUL")
	// ErrNotEventStream is returned by Send for event fields on a stream
	// that is not text/event-stream, which cannot carry them.
	ErrNotEventStream = errors.New("idemsrv: event ids, types and retry need a text/event-stream answer")
	// ErrUnframable is returned by Send for a raw (string or []byte)
	// event of a JSON Lines stream holding LF, or of a JSON text sequence
	// holding the RS byte: the client would read it as two events.
	ErrUnframable = errors.New("idemsrv: a raw event holds its stream's delimiter")
)

// defaultStreamWrite is the default WithStreamWriteTimeout.
const defaultStreamWrite = 30 * time.Second

// WithStreamWriteTimeout bounds the writing of one streamed event (default
// 30s): a client that stops reading makes Send fail after d instead of
// holding the handler forever. It also replaces http.Server.WriteTimeout
// for the stream, which would cut a long healthy stream.
func WithStreamWriteTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.streamWrite = d
		}
	}
}

// Stream is the server side of an operation whose answer is a stream of
// events of type T: the mirror of the client's *idemrt.Stream[T]. The
// handler calls Send for each event (each is flushed to the client at
// once) and returns when the stream is over:
//
//	func (h *handler) WatchEvents(ctx context.Context, params WatchEventsParams, stream *idemsrv.Stream[Event]) error {
//		for ev := range h.feed.Since(ctx, stream.LastEventID()) {
//			if err := stream.SendEvent(idemsrv.EventFields{ID: ev.ID}, ev); err != nil {
//				return err // the client went away, or stopped reading
//			}
//		}
//		return nil
//	}
//
// The status and headers go out with the first event (or Start), so an
// error returned before it is answered as for any operation (a declared
// *idemrt.StatusError is that status). An error returned after it aborts
// the connection: the client sees the stream cut, not ended, and a safe
// operation's client reconnects with Last-Event-ID. A Stream is not safe
// for concurrent use by handlers; the server's keep-alive
// (WithStreamKeepAlive) writes between their events safely.
type Stream[T any] struct {
	// mu orders the handler's writes and the keep-alive's.
	mu      sync.Mutex
	now     func() time.Time
	w       http.ResponseWriter
	rc      *http.ResponseController
	ctx     context.Context
	format  StreamFormat
	status  int
	lastID  string
	timeout time.Duration
	started bool
	// lastWrite is when the last frame (or the headers) went out.
	lastWrite time.Time
	// onStart gives back the request's WithMaxInFlight slot, if it holds
	// one, when the headers go out.
	onStart func()
	// err is the write error that broke the stream: every later Send
	// returns it.
	err error
	buf []byte
}

// Context is the request's context, also cancelled (with ErrDraining as
// its cause) when the server drains its streams (WithStreamDrain). The
// generated server hands it to the handler.
func (s *Stream[T]) Context() context.Context { return s.ctx }

// LastEventID is the request's Last-Event-ID header: the id of the last
// event a reconnecting client received ("" on a first connection). Send
// the events after it. It is the client's text: parse it, do not trust it.
func (s *Stream[T]) LastEventID() string { return s.lastID }

// Send writes v as the next event and flushes it. It returns the cause of
// the stream's Context once it ended (context.Canceled when the client went
// away, ErrDraining when the server drains), and the write error when the
// client does not take the event within the stream write timeout; the
// handler should then return.
func (s *Stream[T]) Send(v T) error { return s.SendEvent(EventFields{}, v) }

// SendEvent is Send with the event's id, type and retry (text/event-stream
// only).
func (s *Stream[T]) SendEvent(f EventFields, v T) error {
	if s.ctx.Err() != nil {
		return context.Cause(s.ctx)
	}
	frame, err := appendEvent(s.buf[:0], s.format.Framing, f, v)
	if err != nil {
		return err
	}
	s.buf = frame
	return s.write(frame)
}

// Start sends the status and headers now, before any event, for a handler
// that may wait a while for its first one (a client waits for the headers
// only as long as its call deadline). After it, an error can no longer be
// answered as a status.
func (s *Stream[T]) Start() error { return s.write(nil) }

// write sends the headers when they have not gone yet, then frame, and
// flushes, all under the write deadline; after a write error it returns
// that error and writes nothing.
func (s *Stream[T]) write(frame []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(frame)
}

// writeLocked is write with s.mu held.
func (s *Stream[T]) writeLocked(frame []byte) error {
	if s.err != nil {
		return s.err
	}
	s.lastWrite = s.now()
	// ErrNotSupported (a writer that takes no deadline) leaves the write
	// unbounded, as it would be anyway.
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if !s.started {
		s.started = true
		if s.onStart != nil {
			s.onStart()
		}
		h := s.w.Header()
		h.Set("Content-Type", s.format.MediaType)
		h.Set("Cache-Control", "no-cache")
		h.Del("Content-Length")
		s.w.WriteHeader(s.status)
	}
	if len(frame) > 0 {
		if _, err := s.w.Write(frame); err != nil {
			s.err = err
			return err
		}
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
	}
	return s.err
}

// ServeStream runs serve, the call of a stream operation's handler, on a
// new Stream answering rt.Stream's format with status, then ends the
// answer by what serve returned. Generated code calls it.
func ServeStream[T any](e *Engine, w http.ResponseWriter, r *http.Request, rt *Route, status int, serve func(*Stream[T]) error) {
	ctx, release := drainable(e.cfg.drain, r.Context())
	defer release()
	if draining(ctx) {
		writeDraining(w)
		return
	}
	s := &Stream[T]{w: w, rc: http.NewResponseController(w), ctx: ctx, format: *rt.Stream, status: status,
		lastID: r.Header.Get("Last-Event-ID"), timeout: e.cfg.streamWrite, now: e.cfg.now}
	if e.shed != nil {
		s.onStart = func() { e.shed.Release(w) }
	}
	stopKeepAlive := s.startKeepAlive(&e.cfg)
	err := serve(s)
	stopKeepAlive()
	if s.started {
		// The connection may serve another request after this one.
		defer s.rc.SetWriteDeadline(time.Time{})
	}
	s.end(e, r, rt, err)
}

// end finishes the answer by what the handler returned.
func (s *Stream[T]) end(e *Engine, r *http.Request, rt *Route, err error) {
	switch {
	case r.Context().Err() != nil, s.err != nil:
		// The client went away, or stopped reading: there is no one to
		// answer, and the stream is broken already.
	case draining(s.ctx) && !s.started:
		writeDraining(s.w)
	case draining(s.ctx):
		// Cut, so that the client resumes on another instance.
		panic(http.ErrAbortHandler)
	case err == nil && !s.started:
		_ = s.Start()
	case err == nil:
	case !s.started:
		e.WriteError(s.w, r, rt, err)
	default:
		if e.cfg.onError != nil {
			e.cfg.onError(r, err)
		}
		// The status is sent, and a clean end would tell the client the
		// stream is complete: cut it instead, as a failure would.
		panic(http.ErrAbortHandler)
	}
}
