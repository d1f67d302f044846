package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// spliceServer serves data, cutting the first response after cut bytes
// (the connection is hijacked and closed), and answers every resume with a
// 206 from the byte asked for, of resumed, whatever If-Range says: a cache
// or a load balancer in front of two versions of the resource. first and
// again are the validators (ETag, Last-Modified, Date) of each answer.
type spliceServer struct {
	data, resumed []byte
	cut           int
	first, again  http.Header

	mu      sync.Mutex
	ranges  []string
	ifRange []string
}

func (s *spliceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.ifRange = append(s.ifRange, r.Header.Get("If-Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	h := w.Header()
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Type", "application/octet-stream")
	if first {
		for k, v := range s.first {
			h[k] = v
		}
		h.Set("Content-Length", strconv.Itoa(len(s.data)))
		_, _ = w.Write(s.data[:s.cut])
		_ = http.NewResponseController(w).Flush() // the cut comes after the bytes
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range s.again {
		h[k] = v
	}
	from, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.Header.Get("Range"), "bytes="), "-"))
	h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(s.resumed)-1, len(s.resumed)))
	h.Set("Content-Length", strconv.Itoa(len(s.resumed)-from))
	w.WriteHeader(http.StatusPartialContent)
	_, _ = w.Write(s.resumed[from:])
}

// version is n bytes of one version of a resource: every byte is v.
func version(v byte, n int) []byte { return bytes.Repeat([]byte{v}, n) }

// TestDownloadNeverSplices: a download cut at byte 500 resumes only from
// the same representation: the 206 must carry the first response's strong
// ETag (or, when it had none, the same strong Last-Modified) and the same
// total length. Anything else fails the read with ErrResumeRefused after
// the 500 bytes of the first version, never 3,000 bytes of two.
func TestDownloadNeverSplices(t *testing.T) {
	lm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	date := func(t time.Time) string { return t.Format(http.TimeFormat) }
	strongLM := http.Header{"Last-Modified": {date(lm)}, "Date": {date(lm.Add(time.Hour))}}
	cases := []struct {
		name         string
		first, again http.Header
		resumed      []byte
		want         error // nil: resumed, the bytes are the first version's
		ifRange      string
		reqs         int
	}{
		{"same strong ETag", http.Header{"Etag": {`"v1"`}}, http.Header{"Etag": {`"v1"`}}, version('1', 3000), nil, `"v1"`, 2},
		{"ETag changed", http.Header{"Etag": {`"v1"`}}, http.Header{"Etag": {`"v2"`}}, version('2', 3000), ErrResumeRefused, `"v1"`, 2},
		{"total changed", http.Header{"Etag": {`"v1"`}}, http.Header{"Etag": {`"v1"`}}, version('2', 4000), ErrResumeRefused, `"v1"`, 2},
		{"weak ETag on the 206", http.Header{"Etag": {`"v1"`}}, http.Header{"Etag": {`W/"v1"`}}, version('1', 3000), ErrResumeRefused, `"v1"`, 2},
		{"no ETag on the 206", http.Header{"Etag": {`"v1"`}}, http.Header{}, version('1', 3000), ErrResumeRefused, `"v1"`, 2},
		{"same strong Last-Modified", strongLM, strongLM, version('1', 3000), nil, date(lm), 2},
		{"Last-Modified changed", strongLM, http.Header{"Last-Modified": {date(lm.Add(time.Second))}}, version('2', 3000), ErrResumeRefused, date(lm), 2},
		{"an ETag appeared", strongLM, http.Header{"Last-Modified": {date(lm)}, "Etag": {`"v2"`}}, version('2', 3000), ErrResumeRefused, date(lm), 2},
		// RFC 9110 8.8.2.2: a Last-Modified less than 60 s before the Date
		// is weak, and 13.1.5: a weak ETag is never sent, nor is a date
		// when the response had an ETag at all. Neither is resumed.
		{"weak Last-Modified", http.Header{"Last-Modified": {date(lm)}, "Date": {date(lm.Add(59 * time.Second))}}, strongLM, version('2', 3000), io.ErrUnexpectedEOF, "", 1},
		{"weak ETag", http.Header{"Etag": {`W/"v1"`}, "Last-Modified": {date(lm)}, "Date": {date(lm.Add(time.Hour))}}, strongLM, version('2', 3000), io.ErrUnexpectedEOF, "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &spliceServer{data: version('1', 3000), resumed: c.resumed, cut: 500, first: c.first, again: c.again}
			srv := httptest.NewServer(s)
			defer srv.Close()
			got, err := download(t, &downloadOp, srv)
			if len(s.ranges) != c.reqs || c.reqs == 2 && (s.ranges[1] != "bytes=500-" || s.ifRange[1] != c.ifRange) {
				t.Fatalf("%d requests, Range %q, If-Range %q; want %d, If-Range %q", len(s.ranges), s.ranges, s.ifRange, c.reqs, c.ifRange)
			}
			if c.want == nil {
				if err != nil || !bytes.Equal(got, s.data) {
					t.Fatalf("read %d bytes: %v; want the 3000 bytes of version 1", len(got), err)
				}
				return
			}
			var lost *ResponseLostError
			if !errors.Is(err, c.want) || !errors.As(err, &lost) || lost.Read != 500 || !bytes.Equal(got, s.data[:500]) {
				t.Fatalf("read %d bytes (%d of version 1): %v; want 500 bytes of version 1, then %v", len(got), bytes.Count(got, []byte{'1'}), err, c.want)
			}
		})
	}
}
