package oauth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeClock is a settable clock for the cache.
type fakeClock struct{ t atomic.Int64 }

func (c *fakeClock) now() time.Time      { return time.Unix(0, c.t.Load()) }
func (c *fakeClock) add(d time.Duration) { c.t.Add(int64(d)) }
func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.t.Store(time.Unix(1_700_000_000, 0).UnixNano())
	return c
}
func bearer(v string, exp time.Time) *oauth2.Token {
	return &oauth2.Token{AccessToken: v, TokenType: "Bearer", Expiry: exp}
}

// TestCacheReusesUntilTheMargin: a token is reused until ExpiryMargin
// before its expiry, then fetched anew, once.
func TestCacheReusesUntilTheMargin(t *testing.T) {
	clk := newFakeClock()
	var fetches atomic.Int32
	c := &cache{now: clk.now, fetch: func(context.Context) (*oauth2.Token, error) {
		n := fetches.Add(1)
		return bearer(string(rune('a'+n-1)), clk.now().Add(time.Minute)), nil
	}}
	ctx := context.Background()
	for range 3 {
		if tok, err := c.token(ctx, ""); err != nil || tok.AccessToken != "a" {
			t.Fatalf("token %v, %v", tok, err)
		}
	}
	clk.add(time.Minute - ExpiryMargin)
	if tok, _ := c.token(ctx, ""); tok.AccessToken != "b" || fetches.Load() != 2 {
		t.Fatalf("at the margin: token %q after %d fetches, want b after 2", tok.AccessToken, fetches.Load())
	}
}

// TestCacheDropsOnlyTheRefusedToken: a refresh drops the token the server
// refused; a second call refused with that same token finds the new one
// and fetches nothing.
func TestCacheDropsOnlyTheRefusedToken(t *testing.T) {
	var fetches atomic.Int32
	c := &cache{now: time.Now, fetch: func(context.Context) (*oauth2.Token, error) {
		return bearer(string(rune('a'+fetches.Add(1)-1)), time.Time{}), nil
	}}
	ctx := context.Background()
	old, _ := c.token(ctx, "")
	for range 3 {
		if tok, _ := c.token(ctx, header(old)); tok.AccessToken != "b" {
			t.Fatalf("after the refusal of a: %q", tok.AccessToken)
		}
	}
	if n := fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2 (the first token, one refresh)", n)
	}
}

// TestCacheOneFetchForConcurrentCallers: callers that need a token while
// one is being fetched wait for it.
func TestCacheOneFetchForConcurrentCallers(t *testing.T) {
	release := make(chan struct{})
	var fetches atomic.Int32
	c := &cache{now: time.Now, fetch: func(context.Context) (*oauth2.Token, error) {
		fetches.Add(1)
		<-release
		return bearer("t", time.Time{}), nil
	}}
	var wg sync.WaitGroup
	var started sync.WaitGroup
	for range 50 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			if tok, err := c.token(context.Background(), ""); err != nil || tok.AccessToken != "t" {
				t.Errorf("token %v, %v", tok, err)
			}
		}()
	}
	started.Wait()
	close(release)
	wg.Wait()
	if n := fetches.Load(); n != 1 {
		t.Fatalf("%d fetches for 50 concurrent callers, want 1", n)
	}
}

// TestCacheWaiterOutlivesTheLeader: when the call whose context a fetch
// runs under gives up, a caller waiting for that fetch starts its own
// instead of failing with the other call's cancellation.
func TestCacheWaiterOutlivesTheLeader(t *testing.T) {
	leaderIn := make(chan struct{})
	var fetches atomic.Int32
	c := &cache{now: time.Now, fetch: func(ctx context.Context) (*oauth2.Token, error) {
		if fetches.Add(1) == 1 {
			close(leaderIn)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return bearer("t", time.Time{}), nil
	}}
	lctx, cancel := context.WithCancel(context.Background())
	leaderDone := make(chan error)
	go func() {
		_, err := c.token(lctx, "")
		leaderDone <- err
	}()
	<-leaderIn
	waiter := make(chan *oauth2.Token)
	go func() {
		tok, _ := c.token(context.Background(), "")
		waiter <- tok
	}()
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	if tok := <-waiter; tok == nil || tok.AccessToken != "t" {
		t.Fatalf("waiter got %v", tok)
	}
}

// TestCacheRefusesAnUnsendableToken: a token endpoint's token that cannot
// travel in a header (a CR LF, a space) is an error, not a header.
func TestCacheRefusesAnUnsendableToken(t *testing.T) {
	for _, v := range []string{"", "a b", "a\r\nX-Evil: 1", "é"} {
		c := &cache{now: time.Now, fetch: func(context.Context) (*oauth2.Token, error) { return bearer(v, time.Time{}), nil }}
		if _, err := c.token(context.Background(), ""); !errors.Is(err, errBadToken) {
			t.Errorf("token %q: err %v, want errBadToken", v, err)
		}
	}
}
