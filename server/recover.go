package idemsrv

import (
	"errors"
	"io"
	"log"
	"net/http"
	"runtime/debug"

	"github.com/idemgen/idemgen/ledger"
)

// recovered answers a panic of h as a 500 problem without detail and
// reports it, instead of letting net/http cut the connection: a client
// that sees a cut connection cannot know whether the request ran, and
// retries a safe call; a 500 is a definite answer it does not retry by
// default. http.ErrAbortHandler still aborts, as net/http means it to,
// and so does any panic once the response has started: a 500 cannot
// follow it, and a cut connection is the only way to tell the client the
// answer is incomplete.
func (e *Engine) recovered(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pw := &panicWriter{ResponseWriter: w}
		defer e.recoverPanic(pw, r)
		h.ServeHTTP(pw, r)
	})
}

// recoverPanic is recovered's deferred call.
func (e *Engine) recoverPanic(pw *panicWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	err, ok := p.(*ledger.PanicError)
	if !ok {
		err = &ledger.PanicError{Value: p, Stack: debug.Stack()}
	}
	if e.cfg.onError != nil {
		e.cfg.onError(r, err)
	} else {
		// What net/http would have logged had the panic reached it.
		log.Printf("idemsrv: panic serving %s %s: %v\n%s", r.Method, r.URL.Path, err.Value, err.Stack)
	}
	if pw.started {
		panic(http.ErrAbortHandler)
	}
	writeInternal(pw.ResponseWriter)
}

// panicWriter notes whether the response has started, so that a panic is
// answered 500 only while it can be. http.ResponseController reaches the
// connection's own methods (deadlines, hijacking) through Unwrap.
type panicWriter struct {
	http.ResponseWriter
	started bool
}

func (p *panicWriter) WriteHeader(code int) {
	// An informational status (103 Early Hints) does not start the answer.
	if code >= 200 || code == http.StatusSwitchingProtocols {
		p.started = true
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *panicWriter) Write(b []byte) (int, error) {
	p.started = true
	return p.ResponseWriter.Write(b)
}

// ReadFrom keeps net/http's sendfile path for downloads.
func (p *panicWriter) ReadFrom(src io.Reader) (int64, error) {
	p.started = true
	return io.Copy(p.ResponseWriter, src)
}

// FlushError flushes, which sends the status and headers.
func (p *panicWriter) FlushError() error {
	p.started = true
	return http.NewResponseController(p.ResponseWriter).Flush()
}

// Flush is FlushError for callers that look for http.Flusher.
func (p *panicWriter) Flush() { _ = p.FlushError() }

// Unwrap returns the wrapped writer, for http.ResponseController.
func (p *panicWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// ledgerError is the ledger's Route.OnError for this server: WithOnError
// receives what the ledger answered with a 5xx, a keyed handler's panic as
// the *ledger.PanicError itself, like any other handler's; nil without
// WithOnError (the ledger's Config.OnError still hears them).
func (e *Engine) ledgerError() func(*http.Request, error) {
	if e.cfg.onError == nil {
		return nil
	}
	return func(r *http.Request, err error) {
		if p, ok := errors.AsType[*ledger.PanicError](err); ok {
			err = p
		}
		e.cfg.onError(r, err)
	}
}
