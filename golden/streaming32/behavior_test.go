package streaming32_test

// Behaviour tests of the client of an OpenAPI 3.2 document: an itemSchema
// that describes a whole Server-Sent Event yields its data's schema, or
// plain strings; a JSON Lines itemSchema types each line.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemgen/idemgen/golden/streaming32"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

func client(t *testing.T, contentType, body string) *streaming32.Client {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	c, err := streaming32.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func collect[T any](t *testing.T, s *idemrt.Stream[T], err error) []T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []T
	for s.Next() {
		out = append(out, s.Current())
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	return out
}

func TestEventDataIsTheContentSchema(t *testing.T) {
	c := client(t, "text/event-stream", "event: price\nid: 1\ndata: {\"symbol\":\"ACME\",\"price\":12.5}\n\ndata: {\"symbol\":\"ACME\",\"price\":13}\n\n")
	s, err := c.WatchPrices(context.Background())
	got := collect(t, s, err)
	if len(got) != 2 || got[0].Symbol != "ACME" || got[0].Price != 12.5 || got[1].Price != 13 {
		t.Fatalf("prices %+v", got)
	}
}

func TestEventWithStringDataIsAString(t *testing.T) {
	c := client(t, "text/event-stream", "data: line one\n\ndata: line two\n\n")
	s, err := c.TailLogs(context.Background())
	if got := collect(t, s, err); len(got) != 2 || got[0] != "line one" || got[1] != "line two" {
		t.Fatalf("lines %q", got)
	}
}

func TestJSONLinesItemSchema(t *testing.T) {
	c := client(t, "application/jsonl", "{\"id\":\"t1\",\"quantity\":5}\n{\"id\":\"t2\",\"quantity\":7}\n")
	s, err := c.ExportTrades(context.Background())
	if got := collect(t, s, err); len(got) != 2 || got[0].ID != "t1" || got[1].Quantity != 7 {
		t.Fatalf("trades %+v", got)
	}
}
