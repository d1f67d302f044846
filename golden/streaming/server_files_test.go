package streaming_test

// The generated streaming client against the generated streaming server:
// a download cut mid-body (the server's connection drops) resumes with a
// Range request and delivers the content exactly once; a representation
// that changed between the attempts (another ETag) makes the resumption
// refuse rather than splice two versions.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/streaming"
	"github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// filesEcho serves DownloadFile from content; the first answer's content
// fails after cutAt bytes, which drops the connection mid-body. The
// embedded Handler stands for the methods these tests do not call.
type filesEcho struct {
	streaming.Handler
	content  []byte
	cutAt    int
	etags    []string
	seekable bool

	mu    sync.Mutex
	calls []streaming.DownloadFileParams
}

func (e *filesEcho) DownloadFile(_ context.Context, p streaming.DownloadFileParams) (*idemsrv.Download, error) {
	e.mu.Lock()
	n := len(e.calls)
	e.calls = append(e.calls, p)
	e.mu.Unlock()
	var r io.Reader = bytes.NewReader(e.content)
	if n == 0 && e.cutAt > 0 {
		r = &cutReader{ReadSeeker: bytes.NewReader(e.content), left: e.cutAt}
	}
	if !e.seekable {
		r = io.MultiReader(r) // hides Seek
	}
	return &idemsrv.Download{Content: r, Size: int64(len(e.content)), ETag: e.etags[min(n, len(e.etags)-1)]}, nil
}

// cutReader fails once left bytes were read.
type cutReader struct {
	io.ReadSeeker
	left int
}

var errCut = errors.New("disk gone")

func (c *cutReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errCut
	}
	n, err := c.ReadSeeker.Read(p[:min(len(p), c.left)])
	c.left -= n
	return n, err
}

// serveFiles runs the generated server for h on 127.0.0.1 and returns a
// client with a fake clock and the Range and If-Range of each request.
func serveFiles(t *testing.T, h streaming.Handler) (*streaming.Client, func() [][2]string) {
	t.Helper()
	srv, err := streaming.NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen [][2]string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, [2]string{r.Header.Get("Range"), r.Header.Get("If-Range")})
		mu.Unlock()
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := streaming.NewClient(ts.URL, idemrt.WithClock(testutil.NewFakeClock()))
	if err != nil {
		t.Fatal(err)
	}
	return c, func() [][2]string {
		mu.Lock()
		defer mu.Unlock()
		return append([][2]string(nil), seen...)
	}
}

func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func TestServerDownloadResumesAfterCut(t *testing.T) {
	h := &filesEcho{content: content(200_000), cutAt: 70_000, etags: []string{"v1"}, seekable: true}
	c, seen := serveFiles(t, h)
	body, err := c.DownloadFile(context.Background(), streaming.DownloadFileParams{FileID: "f/1 ü"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || !bytes.Equal(got, h.content) {
		t.Fatalf("read %d bytes (%v), want the %d of the content exactly once", len(got), err, len(h.content))
	}
	reqs := seen()
	if len(reqs) != 2 || reqs[0] != [2]string{} || reqs[1][1] != `"v1"` || reqs[1][0] == "" || reqs[1][0] == "bytes=0-" {
		t.Errorf("requests (Range, If-Range) = %q, want a whole one then a resumption from the cut", reqs)
	}
	for _, p := range h.calls {
		if p.FileID != "f/1 ü" {
			t.Errorf("handler received %+v", p)
		}
	}
}

func TestServerDownloadChangedRefusesResume(t *testing.T) {
	h := &filesEcho{content: content(200_000), cutAt: 70_000, etags: []string{"v1", "v2"}, seekable: true}
	c, seen := serveFiles(t, h)
	body, err := c.DownloadFile(context.Background(), streaming.DownloadFileParams{FileID: "f1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if !errors.Is(err, idemrt.ErrResumeRefused) {
		t.Fatalf("read error %v, want ErrResumeRefused", err)
	}
	if len(got) >= len(h.content) || !bytes.Equal(got, h.content[:len(got)]) {
		t.Errorf("read %d bytes, want a prefix of the first version only", len(got))
	}
	if reqs := seen(); len(reqs) != 2 || reqs[1][1] != `"v1"` {
		t.Errorf("requests (Range, If-Range) = %q", reqs)
	}
}

// TestServerDownloadPlainReader: a content that cannot seek is served
// whole without Accept-Ranges, so a cut is not resumed.
func TestServerDownloadPlainReader(t *testing.T) {
	h := &filesEcho{content: content(200_000), cutAt: 70_000, etags: []string{"v1"}}
	c, seen := serveFiles(t, h)
	body, err := c.DownloadFile(context.Background(), streaming.DownloadFileParams{FileID: "f1"})
	if err != nil {
		t.Fatal(err)
	}
	if body.Header.Get("Accept-Ranges") != "" {
		t.Errorf("Accept-Ranges %q for a plain reader", body.Header.Get("Accept-Ranges"))
	}
	_, err = io.ReadAll(body)
	body.Close()
	if err == nil || len(seen()) != 1 {
		t.Errorf("read error %v after %d requests, want the cut reported and no resumption", err, len(seen()))
	}
	whole := &filesEcho{content: content(5000), etags: []string{"v1"}}
	c, _ = serveFiles(t, whole)
	body, err = c.DownloadFile(context.Background(), streaming.DownloadFileParams{FileID: "f1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || !bytes.Equal(got, whole.content) || body.Size != 5000 {
		t.Errorf("whole plain download: %d bytes of %d, %v", len(got), body.Size, err)
	}
}
