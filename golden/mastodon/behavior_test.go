package mastodon_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/mastodon"
)

// TestQuoteFallsBackToShallowQuote: a loopback server answers GetStatus
// with a status whose quote is {"state":"accepted","quoted_status":{"id":1}}.
// The value fits Quote best by its members but is valid only as
// ShallowQuote (Quote's quoted_status is a Status, whose id is a string;
// ShallowQuote allows members it does not declare): the call succeeds in
// one request and the quote is the ShallowQuote variant.
func TestQuoteFallsBackToShallowQuote(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"2","uri":"https://mastodon.example/2","created_at":"2025-08-11T10:00:00Z",` +
			`"content":"<p>quoting</p>","sensitive":false,"account":{"id":"1","username":"a","acct":"a"},` +
			`"quote":{"state":"accepted","quoted_status":{"id":1}}}`))
	}))
	defer srv.Close()
	c, err := mastodon.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.GetStatus(context.Background(), mastodon.GetStatusParams{ID: "2"})
	if err != nil {
		t.Fatalf("GetStatus: %v", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	q, ok := st.Quote.Get()
	if !ok || q.ShallowQuote == nil || q.Quote != nil {
		t.Fatalf("quote: %+v", q)
	}
	if q.ShallowQuote.State != mastodon.QuoteStateEnumAccepted || q.ShallowQuote.QuotedStatusID.IsSet() {
		t.Errorf("ShallowQuote: %+v", *q.ShallowQuote)
	}
}
