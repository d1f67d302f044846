package idemsrv

import (
	"bytes"
	"fmt"
	"net/http"
)

// Problem types of requests no operation matches.
const (
	ProblemNotFound         = "https://idemgen.dev/problems/not-found"
	ProblemMethodNotAllowed = "https://idemgen.dev/problems/method-not-allowed"
)

// unrouted answers a request no pattern matches. The mux decides what it
// is (404, 405 with Allow, or a redirect to the clean path); its 404 and
// 405 are rewritten as problems, anything else is passed on as it wrote it.
func unrouted(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) {
	rec := &recorder{header: http.Header{}}
	mux.ServeHTTP(rec, r)
	switch rec.status {
	case http.StatusNotFound:
		WriteProblem(w, http.StatusNotFound, ProblemNotFound, "no operation of this API has this path")
	case http.StatusMethodNotAllowed:
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		WriteProblem(w, http.StatusMethodNotAllowed, ProblemMethodNotAllowed,
			fmt.Sprintf("this path takes %s, not %s", allow, r.Method))
	default:
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		w.Write(rec.body.Bytes())
	}
}

// recorder keeps what the mux's own handler writes.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *recorder) Header() http.Header { return c.header }

func (c *recorder) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *recorder) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}
