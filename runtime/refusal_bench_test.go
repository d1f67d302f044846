package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"testing"
)

// refusingDoer answers every request with the 503 an overloaded idemsrv
// server sends: a problem body and a wait past the interactive ceiling.
type refusingDoer struct{ body []byte }

func (d *refusingDoer) Do(r *http.Request) (*http.Response, error) {
	if t := httptrace.ContextClientTrace(r.Context()); t != nil {
		t.GetConn(r.URL.Host)
		t.WroteRequest(httptrace.WroteRequestInfo{})
	}
	h := http.Header{"Content-Type": {"application/problem+json"}, "Retry-After": {"5"}, "Retry-After-Ms": {"4321"}}
	return &http.Response{StatusCode: 503, Header: h, Body: io.NopCloser(bytes.NewReader(d.body)),
		ContentLength: int64(len(d.body))}, nil
}

// BenchmarkRefusal is the engine's cost of a call the server refuses with
// a Retry-After longer than the call can wait (ErrRetryAfterTooLong after
// one attempt), the commonest answer a fleet gets from an overloaded
// server: go test -run '^$' -bench Refusal -benchmem
func BenchmarkRefusal(b *testing.B) {
	d := &refusingDoer{body: []byte(`{"type":"https://idemgen.dev/problems/overloaded","title":"Service Unavailable","status":503,` +
		`"detail":"the server is at its limit of 8 requests in progress; retry after 5 seconds"}`)}
	r := NewRunner(WithHTTPClient(d))
	u := mustURL(b, "http://api.test/health")
	op := &Operation{ID: "getHealth", Method: "GET", Safety: Idempotent, Retryable: DefaultRetryable}
	for b.Loop() {
		_, err := r.Do(context.Background(), op, &Request{Method: "GET", URL: u})
		if !errors.Is(err, ErrRetryAfterTooLong) {
			b.Fatal(err)
		}
	}
}
