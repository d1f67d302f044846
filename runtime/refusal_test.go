package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
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
	r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(d))
	u := mustURL(b, "http://api.test/health")
	op := &Operation{ID: "getHealth", Method: "GET", Safety: Idempotent, Retryable: DefaultRetryable}
	for b.Loop() {
		_, err := r.Do(context.Background(), op, &Request{Method: "GET", URL: u})
		if !errors.Is(err, ErrRetryAfterTooLong) {
			b.Fatal(err)
		}
	}
}

// TestRefusalReadsItsBodyOnce: a call refused with a wait past its ceiling
// reads the problem body into the StatusError and drains the rest under
// one timer, into a buffer sized by Content-Length, and drains nothing
// once the body has ended: it costs no more allocations than its records
// and error need (21, of which the fake doer's response is 8).
func TestRefusalReadsItsBodyOnce(t *testing.T) {
	body := `{"type":"https://idemgen.dev/problems/overloaded","status":503}`
	r := NewRunner(WithoutAdaptiveThrottle(), WithHTTPClient(&refusingDoer{body: []byte(body)}))
	u := mustURL(t, "http://api.test/health")
	op := &Operation{ID: "getHealth", Method: "GET", Safety: Idempotent, Retryable: DefaultRetryable}
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		_, err = r.Do(context.Background(), op, &Request{Method: "GET", URL: u})
	})
	var se *StatusError
	if !errors.As(err, &se) || !errors.Is(err, ErrRetryAfterTooLong) || string(se.Body) != body {
		t.Fatalf("err = %v, want a StatusError with the body, ErrRetryAfterTooLong", err)
	}
	if allocs > 21 {
		t.Errorf("a refused call allocates %v times, want at most 21", allocs)
	}
}

// TestReadAtMostN: Content-Length only sizes the buffer; a body longer or
// shorter than it, or longer than the bound, is read as it is.
func TestReadAtMostN(t *testing.T) {
	for _, tc := range []struct {
		body  string
		n     int
		hint  int64
		want  string
		ended bool
	}{
		{"hello", 10, 5, "hello", true},
		{"hello", 10, -1, "hello", true},
		{"hello", 10, 0, "hello", true},                                      // a Doer that left Content-Length 0
		{"hello", 10, 2, "hello", true},                                      // longer than it says
		{"hi", 10, 9, "hi", true},                                            // shorter than it says
		{"hello world", 5, 11, "hello", false},                               // cut at the bound
		{strings.Repeat("x", 700), 1000, -1, strings.Repeat("x", 700), true}, // grows past 512
		{"", 10, 0, "", true},
	} {
		b, ended := readAtMostN(strings.NewReader(tc.body), tc.n, tc.hint)
		if string(b) != tc.want || ended != tc.ended {
			t.Errorf("readAtMostN(%q, %d, %d) = %q, %v; want %q, %v", tc.body, tc.n, tc.hint, b, ended, tc.want, tc.ended)
		}
	}
}
