package idemsrv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// refusal is one precomputed 503: its problem body and the header values
// that depend only on the wait in whole seconds.
type refusal struct {
	body       []byte
	length     []string
	retryAfter []string
}

// Header values every refusal shares. net/http only reads a response's
// header slices, and these have no spare capacity, so an Add by a wrapping
// middleware copies rather than writes into them.
var (
	problemContentType = []string{"application/problem+json"}
	noSniff            = []string{"nosniff"}
)

// refusals are the answers for a wait of 1 to maxShedWait seconds, made
// once per server: under overload a refusal is what the server writes
// most, so it must cost no encoding (the same bytes WriteProblem makes).
func refusals(slots int) []refusal {
	out := make([]refusal, maxShedWait/time.Second+1)
	for secs := 1; secs < len(out); secs++ {
		b, _ := json.Marshal(problem{Type: ProblemOverloaded, Title: http.StatusText(http.StatusServiceUnavailable),
			Status: http.StatusServiceUnavailable,
			Detail: fmt.Sprintf("the server is at its limit of %d requests in progress; retry after %d seconds", slots, secs)})
		out[secs] = refusal{body: b, length: []string{strconv.Itoa(len(b))}, retryAfter: []string{strconv.Itoa(secs)}}
	}
	return out
}

// refuse answers 503 for a request that should come back after wait.
// Retry-After counts whole seconds, too coarse for a queue that drains in
// milliseconds; Retry-After-Ms, which generated clients read first, keeps
// the place to the millisecond.
func (s *shedder) refuse(w http.ResponseWriter, wait time.Duration) {
	secs := min(max(ceilDiv(wait, time.Second), 1), int64(len(s.refusals)-1))
	a := s.refusals[secs]
	h := w.Header()
	h["Content-Type"] = problemContentType
	h["Content-Length"] = a.length
	h["X-Content-Type-Options"] = noSniff
	h["Retry-After"] = a.retryAfter
	h["Retry-After-Ms"] = []string{strconv.FormatInt(max(ceilDiv(wait, time.Millisecond), 1), 10)}
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(a.body)
}

// ceilDiv is d in whole units, rounded up.
func ceilDiv(d, unit time.Duration) int64 { return int64((d + unit - 1) / unit) }
