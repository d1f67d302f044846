package media_test

// Behaviour tests of file uploads (idemrt.File): a seekable file is rewound
// and resent byte for byte after a 503; a plain reader above the buffering
// limit is sent once and not retried.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/media"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// instantClock is a fake clock: waits take no time.
type instantClock struct{}

func (instantClock) Now() time.Time { return time.Unix(1e9, 0) }
func (instantClock) Sleep(ctx context.Context, _ time.Duration) error {
	return ctx.Err()
}

// filePart is the file part of one upload as the server read it.
type filePart struct {
	name, contentType string
	data              []byte
}

// uploadServer answers the first fail uploads 503, then 201; it records
// every attempt's "file" part and counts executions.
func uploadServer(t *testing.T, fail int, opts ...idemrt.Option) (*media.Client, func() []filePart) {
	t.Helper()
	var mu sync.Mutex
	var got []filePart
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			if p.FormName() == "file" {
				data, _ := io.ReadAll(p)
				mu.Lock()
				got = append(got, filePart{p.FileName(), p.Header.Get("Content-Type"), data})
				mu.Unlock()
			}
		}
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n <= fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"d1"}`)
	}))
	t.Cleanup(ts.Close)
	opts = append([]idemrt.Option{idemrt.WithClock(instantClock{}), idemrt.WithRandom(func() float64 { return 0 })}, opts...)
	c, err := media.NewClient(ts.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []filePart {
		mu.Lock()
		defer mu.Unlock()
		return append([]filePart(nil), got...)
	}
}

// TestUploadSeekerRetriedAfter503: a *bytes.Reader (an io.ReadSeeker, as an
// *os.File is) is rewound for the retry: both attempts' file parts carry
// the same bytes, file name and content type.
func TestUploadSeekerRetriedAfter503(t *testing.T) {
	c, got := uploadServer(t, 1)
	content := bytes.Repeat([]byte("\x89PNG-data-"), 10_000)
	var log []idemrt.Attempt
	doc, err := c.UploadDocument(context.Background(),
		media.DocumentUpload{File: idemrt.File{Name: "scan.png", ContentType: "image/png", Content: bytes.NewReader(content)}},
		media.UploadDocumentParams{}, idemrt.WithAttemptLog(&log))
	if err != nil || doc.ID != "d1" || len(log) != 2 {
		t.Fatalf("doc %v err %v attempts %d", doc, err, len(log))
	}
	parts := got()
	if len(parts) != 2 {
		t.Fatalf("%d executions", len(parts))
	}
	for i, p := range parts {
		if p.name != "scan.png" || p.contentType != "image/png" || !bytes.Equal(p.data, content) {
			t.Fatalf("attempt %d: file %q type %q, %d bytes", i+1, p.name, p.contentType, len(p.data))
		}
	}
	if !bytes.Equal(parts[0].data, parts[1].data) {
		t.Fatal("the attempts sent different bytes")
	}
}

// TestUploadPlainReaderAboveLimit: a plain io.Reader above the buffering
// limit cannot be resent: the 503 ends the call after one execution with
// ErrBodyNotReplayable, which the message explains.
func TestUploadPlainReaderAboveLimit(t *testing.T) {
	c, got := uploadServer(t, 1, idemrt.WithBufferLimit(1024))
	content := strings.Repeat("x", 4096)
	_, err := c.UploadDocument(context.Background(),
		media.DocumentUpload{File: idemrt.File{Name: "big.bin", Content: io.MultiReader(strings.NewReader(content))}},
		media.UploadDocumentParams{})
	var se *idemrt.StatusError
	if !errors.Is(err, idemrt.ErrBodyNotReplayable) || !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("err %v", err)
	}
	if parts := got(); len(parts) != 1 || string(parts[0].data) != content || parts[0].contentType != "image/png" {
		t.Fatalf("executions %d", len(parts))
	}
	if !strings.Contains(err.Error(), "cannot be resent") {
		t.Fatalf("message %q", err)
	}
}

// TestUploadPlainReaderWithinLimit: a plain reader within the limit is
// buffered once and resent whole.
func TestUploadPlainReaderWithinLimit(t *testing.T) {
	c, got := uploadServer(t, 1)
	_, err := c.UploadDocument(context.Background(),
		media.DocumentUpload{File: idemrt.File{Name: "a.txt", ContentType: "text/plain", Content: io.MultiReader(strings.NewReader("hello"))}},
		media.UploadDocumentParams{})
	if parts := got(); err != nil || len(parts) != 2 || string(parts[1].data) != "hello" || parts[1].contentType != "text/plain" {
		t.Fatalf("err %v parts %v", err, parts)
	}
}

// blobServer answers the first fail PUTs 503, then 204, and records every
// attempt's raw body and Content-Type.
func blobServer(t *testing.T, fail int, opts ...idemrt.Option) (*media.Client, func() []filePart) {
	t.Helper()
	var mu sync.Mutex
	var got []filePart
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, filePart{r.URL.Path, r.Header.Get("Content-Type"), data})
		n := len(got)
		mu.Unlock()
		if n <= fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(ts.Close)
	opts = append([]idemrt.Option{idemrt.WithClock(instantClock{}), idemrt.WithRandom(func() float64 { return 0 })}, opts...)
	c, err := media.NewClient(ts.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []filePart {
		mu.Lock()
		defer mu.Unlock()
		return append([]filePart(nil), got...)
	}
}

// TestOctetStreamUploadRetried: a raw application/octet-stream body follows
// the same rules as a file part: a seeker is rewound and resent byte for
// byte after a 503, a plain reader above the buffering limit is sent once.
func TestOctetStreamUploadRetried(t *testing.T) {
	content := bytes.Repeat([]byte{0, 1, 2, 0xff}, 50_000)
	c, got := blobServer(t, 1)
	if err := c.PutBlob(context.Background(), bytes.NewReader(content), media.PutBlobParams{Name: "b1"}); err != nil {
		t.Fatal(err)
	}
	bodies := got()
	if len(bodies) != 2 {
		t.Fatalf("%d executions, want 2", len(bodies))
	}
	for i, b := range bodies {
		if b.name != "/blobs/b1" || b.contentType != "application/octet-stream" || !bytes.Equal(b.data, content) {
			t.Fatalf("attempt %d: %s %q, %d bytes", i+1, b.name, b.contentType, len(b.data))
		}
	}

	c, got = blobServer(t, 1, idemrt.WithBufferLimit(1024))
	err := c.PutBlob(context.Background(), io.MultiReader(bytes.NewReader(content)), media.PutBlobParams{Name: "b2"})
	if !errors.Is(err, idemrt.ErrBodyNotReplayable) {
		t.Fatalf("plain reader above the limit: %v", err)
	}
	if bodies := got(); len(bodies) != 1 || !bytes.Equal(bodies[0].data, content) {
		t.Fatalf("plain reader above the limit: %d executions", len(bodies))
	}
}
