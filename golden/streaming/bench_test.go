package streaming_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/golden/streaming"
)

// BenchmarkCompletionStream opens CreateCompletionStream against a loopback
// server and reads 1,000 typed chunks; the figure per op covers the request
// (with the stream member merged into the body), the connection and the
// decoding of every event.
func BenchmarkCompletionStream(b *testing.B) {
	var frames strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&frames, "data: {\"id\":\"c1\",\"delta\":\"token %d\"}\n\n", i)
	}
	frames.WriteString("data: [DONE]\n\n")
	body := frames.String()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	defer ts.Close()
	c, err := streaming.NewClient(ts.URL)
	if err != nil {
		b.Fatal(err)
	}
	req := streaming.CompletionRequest{Prompt: "hi"}
	b.ReportAllocs()
	for b.Loop() {
		s, err := c.CreateCompletionStream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for s.Next() {
			n++
		}
		if s.Err() != nil || n != 1000 {
			b.Fatalf("%d events: %v", n, s.Err())
		}
		s.Close()
	}
}
