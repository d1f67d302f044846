package oauth

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// ExpiryMargin is how long before its expiry a cached token stops being
// used: golang.org/x/oauth2's own margin, so that a token does not expire
// on its way to the server. A token without an expiry is used until the
// server refuses it.
const ExpiryMargin = 10 * time.Second

// cache holds one token and makes sure that, however many calls need a new
// one at once, one fetch runs; the others wait for it.
type cache struct {
	// fetch asks for a new token; it runs on a goroutine of its own, under
	// the context of the call that started it.
	fetch func(ctx context.Context) (*oauth2.Token, error)
	now   func() time.Time

	mu     sync.Mutex
	tok    *oauth2.Token
	flight *flight
}

// flight is one fetch in progress; done is closed when tok or err is set.
type flight struct {
	done chan struct{}
	tok  *oauth2.Token
	err  error
}

// token returns a usable token: the cached one, unless it is refused (the
// token of a call's 401, which is dropped when it is still the cached one),
// or a new one. A call waits for the fetch in flight, within its own
// context; when that fetch ended because the call that started it gave up,
// it starts another.
func (c *cache) token(ctx context.Context, refused string) (*oauth2.Token, error) {
	for {
		f, tok := c.take(ctx, refused)
		if tok != nil {
			return tok, nil
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		switch {
		case f.err == nil:
			return f.tok, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !isContextError(f.err):
			return nil, f.err
		}
		// The fetch was cancelled with another call: fetch for this one.
		refused = ""
	}
}

// take returns the cached token when it is usable and not refused, else
// the fetch in flight, starting one when none is.
func (c *cache) take(ctx context.Context, refused string) (*flight, *oauth2.Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if refused != "" && c.tok != nil && header(c.tok) == refused {
		c.tok = nil
	}
	if c.usable(c.tok) {
		return nil, c.tok
	}
	if c.flight == nil {
		f := &flight{done: make(chan struct{})}
		c.flight = f
		go c.run(ctx, f)
	}
	return c.flight, nil
}

// run makes one fetch and hands its result to every waiting call.
func (c *cache) run(ctx context.Context, f *flight) {
	tok, err := c.fetch(ctx)
	if err == nil && !validToken(tok) {
		tok, err = nil, errBadToken
	}
	c.mu.Lock()
	c.flight = nil
	if err == nil {
		c.tok = tok
	}
	f.tok, f.err = tok, err
	c.mu.Unlock()
	close(f.done)
}

// usable reports whether tok may be sent now: it has a value and does not
// expire within ExpiryMargin.
func (c *cache) usable(tok *oauth2.Token) bool {
	return tok != nil && (tok.Expiry.IsZero() || c.now().Add(ExpiryMargin).Before(tok.Expiry))
}

// validToken reports whether tok's type and value can travel in an
// Authorization header: visible ASCII, no spaces in the value.
func validToken(tok *oauth2.Token) bool {
	if tok == nil || tok.AccessToken == "" {
		return false
	}
	for _, s := range []string{tok.Type(), tok.AccessToken} {
		for i := 0; i < len(s); i++ {
			if s[i] <= ' ' || s[i] > '~' {
				return false
			}
		}
	}
	return true
}

// header is the Authorization header value of tok.
func header(tok *oauth2.Token) string { return tok.Type() + " " + tok.AccessToken }

// isContextError reports a fetch ended by its context.
func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
