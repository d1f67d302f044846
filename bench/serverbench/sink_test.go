package serverbench

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// sink is the ResponseWriter of the benchmarks: it keeps the last answer's
// status, headers and body in storage it reuses, so that the only
// allocations measured are the server's.
type sink struct {
	header http.Header
	status int
	body   []byte
}

func newSink() *sink { return &sink{header: http.Header{}} }

func (s *sink) Header() http.Header { return s.header }

func (s *sink) WriteHeader(status int) {
	if s.status == 0 {
		s.status = status
	}
}

func (s *sink) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	s.body = append(s.body, p...)
	return len(p), nil
}

// SetReadDeadline is what http.ResponseController finds on a real
// connection's writer; idemgen's server sets a deadline before it reads a
// body. Here there is no connection: it costs nothing (the loopback
// benchmarks carry the real cost).
func (*sink) SetReadDeadline(time.Time) error { return nil }

func (s *sink) reset() {
	clear(s.header)
	s.status = 0
	s.body = s.body[:0]
}

// rewindBody is a request body that can be read again, so one request
// serves every iteration without allocating.
type rewindBody struct{ bytes.Reader }

func (*rewindBody) Close() error { return nil }

// request is a prepared request: the same *http.Request is served in every
// iteration after rewind.
type request struct {
	r    *http.Request
	body *rewindBody
	data []byte
	key  []string
}

// getRequest is GET /orders/{orderId}.
func getRequest() *request {
	return &request{r: httptest.NewRequest(http.MethodGet, "/orders/"+orderID, nil)}
}

// postRequest is the keyed POST /orders with key as its Idempotency-Key.
func postRequest(key string) *request {
	q := &request{body: &rewindBody{}, data: []byte(newOrderJSON), key: []string{key}}
	q.r = httptest.NewRequest(http.MethodPost, "/orders", nil)
	q.r.Header.Set("Content-Type", "application/json")
	q.r.Header["Idempotency-Key"] = q.key
	q.r.ContentLength = int64(len(q.data))
	return q
}

// rewind readies the request for one more serving. A server may have
// replaced the body (the ledger does), so it is set again every time.
func (q *request) rewind() *http.Request {
	if q.body != nil {
		q.body.Reset(q.data)
		q.r.Body = q.body
	}
	return q.r
}

// setKey gives the next serving the key "k-<n>" (a fresh key per request
// for the ledger); it allocates the key's string, as a real request would.
func (q *request) setKey(n int) {
	q.key[0] = "k-" + strconv.Itoa(n)
}
