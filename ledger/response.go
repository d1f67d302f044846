package ledger

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/idemgen/idemgen/runtime/problem"
)

// recorder buffers the handler's response: nothing reaches the client before
// the business transaction has committed, so a stored response and the one
// sent first are the same bytes. Informational (1xx) responses are the
// exception: they promise nothing, so they go to the client at once and are
// never the stored status.
type recorder struct {
	client http.ResponseWriter
	header http.Header
	status int
	body   bytes.Buffer
	// failed is set when the handler signalled a failure after it had chosen
	// its final status (a superfluous 5xx, as http.Error after a partial
	// body writes), or wrote an invalid status: the ledger rolls back.
	failed error
}

func newRecorder(client http.ResponseWriter) *recorder {
	return &recorder{client: client, header: http.Header{}}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	switch {
	case status < 100 || status > 999 || status == http.StatusSwitchingProtocols:
		// net/http panics on the first; the ledger cannot hand over the
		// connection for the second.
		r.fail(fmt.Errorf("ledger: the handler wrote status %d, which the ledger cannot store", status))
	case status < 200:
		if r.status == 0 {
			r.informational(status)
		}
	case r.status == 0:
		r.status = status
	case status >= 500:
		r.fail(fmt.Errorf("ledger: the handler answered %d after it had started a %d response", status, r.status))
	}
}

func (r *recorder) fail(err error) {
	if r.failed == nil {
		r.failed = err
	}
}

// informational sends a 1xx with the headers set so far, as net/http does,
// without leaving them in the client's header map for the final response.
func (r *recorder) informational(status int) {
	if r.client == nil {
		return
	}
	h := r.client.Header()
	saved := h.Clone()
	for k, v := range r.header {
		h[k] = v
	}
	r.client.WriteHeader(status)
	clear(h)
	for k, v := range saved {
		h[k] = v
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

func (r *recorder) statusCode() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// stored keeps the selected headers and the body of the response.
func (r *recorder) stored(names []string) Response {
	h := http.Header{}
	for _, n := range names {
		if v, ok := r.header[n]; ok {
			h[n] = v
		}
	}
	// The values and the body are the recorder's own: nothing writes to
	// them once the handler returned, and the store has used them before
	// flush hands them to the client's writer.
	return Response{Status: r.statusCode(), Header: h, Body: r.body.Bytes()}
}

// size is what a stored response weighs against Config.MaxStoredResponse.
func size(resp Response) int64 {
	n := int64(len(resp.Body))
	for k, vs := range resp.Header {
		for _, v := range vs {
			n += int64(len(k) + len(v))
		}
	}
	return n
}

// notStored is what the ledger keeps instead of a response above the limit:
// a clear, final answer for every repeat, never a retryable one.
func notStored(resp Response, limit int64) Response {
	b := problem.New(http.StatusInternalServerError, problem.ResponseNotStored, fmt.Sprintf("the request with this idempotency key was executed and answered %d, but its response "+
		"(%d bytes) exceeded the ledger's limit of %d bytes and was not kept; read the resource instead of retrying",
		resp.Status, size(resp), limit)).Encode()
	h := http.Header{}
	problem.SetHeaders(h, []string{strconv.Itoa(len(b))})
	return Response{Status: http.StatusInternalServerError, Header: h, Body: b}
}

// flush sends the buffered response with every header the handler set.
func (r *recorder) flush(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.statusCode())
	w.Write(r.body.Bytes())
}

// ReplayedHeader marks a response replayed from the ledger.
const ReplayedHeader = "Idempotent-Replayed"

// replayedValue is ReplayedHeader's value on every replay. net/http only
// reads a response's header slices, and this one has no spare capacity, so
// an Add by a wrapping middleware copies rather than writes into it.
var replayedValue = []string{"true"}

func writeStored(w http.ResponseWriter, resp Response) {
	for k, v := range resp.Header {
		// Capped: the slices belong to the stored (maybe cached) answer,
		// and an Add by a wrapping middleware must copy, not write into it.
		w.Header()[k] = v[:len(v):len(v)]
	}
	w.Header()[ReplayedHeader] = replayedValue
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}

func writeBusy(w http.ResponseWriter, retryAfter time.Duration) {
	if retryAfter > 0 {
		// Rounded up without adding first: a "forever" wait would overflow.
		secs := int64(retryAfter / time.Second)
		if retryAfter%time.Second != 0 {
			secs++
		}
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	problem.Write(w, http.StatusConflict, problem.InProgress,
		"a request with this idempotency key is being processed; retry with the same key")
}
