package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var downloadOp = Operation{ID: "getFile", Method: "GET", Path: "/file", Safety: Idempotent, Retryable: DefaultRetryable}

// patterned writes size bytes of a repeating pattern without holding them.
type patterned struct{ size int64 }

func (p patterned) WriteTo(w io.Writer) (int64, error) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4<<10)
	var n int64
	for n < p.size {
		k, err := w.Write(chunk[:min(int64(len(chunk)), p.size-n)])
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestDownloadConstantMemory: a 100 MB download is read in constant memory
// (the client allocates a small fraction of it) and is not limited by
// Policy.MaxBody.
func TestDownloadConstantMemory(t *testing.T) {
	const size = 100 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		_, _ = patterned{size}.WriteTo(w)
	}))
	defer srv.Close()
	r, _ := loopRunner(t, quickPolicy(), WithMaxBody(1<<20))
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	b, err := Download(context.Background(), r, &downloadOp, &Request{Method: "GET", URL: mustURL(t, srv.URL+"/file")})
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, b, make([]byte, 32<<10))
	_ = b.Close()
	goruntime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("100 MB download: %d KB allocated (client and server), heap in use %+d KB", alloc>>10, (int64(after.HeapInuse)-int64(before.HeapInuse))>>10)
	if err != nil || n != size || b.Size != size || b.ContentType != "application/octet-stream" {
		t.Fatalf("read %d of %d: %v", n, b.Size, err)
	}
	if alloc > 8<<20 {
		t.Fatalf("the download allocated %d bytes", alloc)
	}
}

// rangeServer serves data, cutting the first response after cut bytes.
// etag "" sends no ETag; ignoreRange answers every request with a 200.
type rangeServer struct {
	data        []byte
	cut         int
	etag        string
	ignoreRange bool
	// shiftRange answers a resume with a 206 of another range (from byte
	// 0): a hostile or broken server whose bytes must not be spliced in.
	shiftRange bool
	// stall keeps the first connection open and silent after cut bytes.
	stall bool

	mu      sync.Mutex
	ranges  []string
	ifRange []string
}

func (s *rangeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.ifRange = append(s.ifRange, r.Header.Get("If-Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	w.Header().Set("Accept-Ranges", "bytes")
	if s.etag != "" {
		w.Header().Set("ETag", s.etag)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if first {
		w.Header().Set("Content-Length", strconv.Itoa(len(s.data)))
		_, _ = w.Write(s.data[:s.cut])
		if s.stall {
			_ = http.NewResponseController(w).Flush()
			<-r.Context().Done()
			return
		}
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	if s.ignoreRange {
		r.Header.Del("Range")
	}
	if s.shiftRange {
		r.Header.Set("Range", "bytes=0-")
		r.Header.Del("If-Range")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.data))
}

// download reads a whole download of srv.
func download(t *testing.T, op *Operation, srv *httptest.Server, opts ...Option) ([]byte, error) {
	t.Helper()
	r, _ := loopRunner(t, quickPolicy(), opts...)
	b, err := Download(context.Background(), r, op, &Request{Method: op.Method, URL: mustURL(t, srv.URL+"/file")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	return io.ReadAll(b)
}

func testData() []byte {
	var buf bytes.Buffer
	_, _ = patterned{1 << 20}.WriteTo(&buf)
	data := buf.Bytes()
	for i := range data {
		data[i] ^= byte(i * 7)
	}
	return data
}

// TestDownloadResumes: a safe download cut at byte N, whose server sent
// Accept-Ranges and a strong ETag, resumes with Range and If-Range; the
// bytes are the resource's.
func TestDownloadResumes(t *testing.T) {
	s := &rangeServer{data: testData(), cut: 300_000, etag: `"v1"`}
	srv := httptest.NewServer(s)
	defer srv.Close()
	got, err := download(t, &downloadOp, srv)
	if err != nil || sha256.Sum256(got) != sha256.Sum256(s.data) {
		t.Fatalf("read %d bytes: %v", len(got), err)
	}
	if len(s.ranges) != 2 || s.ranges[1] != "bytes=300000-" || s.ifRange[1] != `"v1"` {
		t.Fatalf("Range %q, If-Range %q", s.ranges, s.ifRange)
	}
}

// TestDownloadNotResumed: without an ETag (or for an unsafe operation) a
// cut fails the read with a *ResponseLostError that says how many bytes
// arrived; a resume answered with a 200 is refused, never spliced.
func TestDownloadNotResumed(t *testing.T) {
	unsafeDownload := downloadOp
	unsafeDownload.Safety, unsafeDownload.Method = Unsafe, "POST"
	cases := []struct {
		name string
		s    *rangeServer
		op   *Operation
		want error
		reqs int
	}{
		{"no ETag", &rangeServer{cut: 300_000}, &downloadOp, io.ErrUnexpectedEOF, 1},
		{"weak ETag", &rangeServer{cut: 300_000, etag: `W/"v1"`}, &downloadOp, io.ErrUnexpectedEOF, 1},
		{"unsafe", &rangeServer{cut: 300_000, etag: `"v1"`}, &unsafeDownload, io.ErrUnexpectedEOF, 1},
		{"200 on resume", &rangeServer{cut: 300_000, etag: `"v1"`, ignoreRange: true}, &downloadOp, ErrResumeRefused, 2},
		{"206 of another range", &rangeServer{cut: 300_000, etag: `"v1"`, shiftRange: true}, &downloadOp, ErrResumeRefused, 2},
	}
	for _, c := range cases {
		c.s.data = testData()
		srv := httptest.NewServer(c.s)
		got, err := download(t, c.op, srv)
		srv.Close()
		var lost *ResponseLostError
		if !errors.As(err, &lost) || !errors.Is(err, ErrResponseLost) || !errors.Is(err, c.want) || len(c.s.ranges) != c.reqs {
			t.Fatalf("%s: %v after %d requests", c.name, err, len(c.s.ranges))
		}
		if lost.Read != 300_000 || len(got) != 300_000 || !strings.Contains(err.Error(), "300000 body bytes") {
			t.Fatalf("%s: read %d, error %q", c.name, len(got), err)
		}
	}
}

// TestDownloadIdleResumes: a download whose server falls silent past the
// idle timeout is cut, and resumed like any cut. (Real 50ms timers: the
// server stays silent until the client gives up.)
func TestDownloadIdleResumes(t *testing.T) {
	s := &rangeServer{data: testData(), cut: 300_000, etag: `"v1"`, stall: true}
	srv := httptest.NewServer(s)
	defer srv.Close()
	got, err := download(t, &downloadOp, srv, WithIdleTimeout(50*time.Millisecond))
	if err != nil || sha256.Sum256(got) != sha256.Sum256(s.data) || len(s.ranges) != 2 || s.ranges[1] != "bytes=300000-" {
		t.Fatalf("read %d bytes: %v; Range %q", len(got), err, s.ranges)
	}
}
