package shed

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/idemgen/idemgen/runtime/problem"
)

// refusal is one precomputed 503: its problem body and the header values
// that depend only on the wait in whole seconds.
type refusal struct {
	body       []byte
	length     []string
	retryAfter []string
}

// refusals are the answers for a wait of 1 to maxShedWait seconds, made
// once per server: under overload a refusal is what the server writes
// most, so it must cost no encoding (the same bytes problem.Write makes).
func refusals(slots int) []refusal {
	out := make([]refusal, maxShedWait/time.Second+1)
	for secs := 1; secs < len(out); secs++ {
		b := problem.New(http.StatusServiceUnavailable, problem.Overloaded,
			fmt.Sprintf("the server is at its limit of %d requests in progress; retry after %d seconds", slots, secs)).Encode()
		out[secs] = refusal{body: b, length: []string{strconv.Itoa(len(b))}, retryAfter: []string{strconv.Itoa(secs)}}
	}
	return out
}

// refuse answers 503 for a request that should come back after wait.
// Retry-After counts whole seconds, too coarse for a queue that drains in
// milliseconds; Retry-After-Ms, which generated clients read first, keeps
// the place to the millisecond.
func (s *Shedder) refuse(w http.ResponseWriter, wait time.Duration) {
	secs := min(max(ceilDiv(wait, time.Second), 1), int64(len(s.refusals)-1))
	a := s.refusals[secs]
	h := w.Header()
	problem.SetHeaders(h, a.length)
	h["Retry-After"] = a.retryAfter
	h["Retry-After-Ms"] = []string{strconv.FormatInt(max(ceilDiv(wait, time.Millisecond), 1), 10)}
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(a.body)
}

// ceilDiv is d in whole units, rounded up.
func ceilDiv(d, unit time.Duration) int64 { return int64((d + unit - 1) / unit) }
