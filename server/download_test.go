package idemsrv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serveDownload answers one request with a Download of content.
func serveDownload(t *testing.T, d *Download, header http.Header) *http.Response {
	t.Helper()
	r := httptest.NewRequest("GET", "/f", nil)
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	writeDownload(w, r, 200, "application/pdf", d)
	return w.Result()
}

// TestDownloadRanges: a seekable download honours Range and If-Range with
// its ETag and Last-Modified (206, 416, 200 when the validator changed); a
// plain reader is served whole without Accept-Ranges.
func TestDownloadRanges(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	content := "0123456789"
	seek := func() *Download {
		return &Download{Content: strings.NewReader(content), ETag: "v1", LastModified: mod}
	}
	for _, c := range []struct {
		name   string
		d      *Download
		header http.Header
		status int
		body   string
		check  map[string]string
	}{
		{"whole", seek(), nil, 200, content, map[string]string{"Accept-Ranges": "bytes", "ETag": `"v1"`,
			"Last-Modified": mod.Format(http.TimeFormat), "Content-Type": "application/pdf", "Content-Length": "10"}},
		{"range", seek(), http.Header{"Range": {"bytes=4-"}, "If-Range": {`"v1"`}}, 206, "456789",
			map[string]string{"Content-Range": "bytes 4-9/10"}},
		{"changed", seek(), http.Header{"Range": {"bytes=4-"}, "If-Range": {`"v0"`}}, 200, content, nil},
		{"unsatisfiable", seek(), http.Header{"Range": {"bytes=20-"}}, 416, "", map[string]string{"Content-Range": "bytes */10"}},
		{"own type", &Download{Content: strings.NewReader("x"), ContentType: "image/png", ETag: `W/"w"`}, nil, 200, "x",
			map[string]string{"Content-Type": "image/png", "ETag": `W/"w"`}},
		{"plain reader", &Download{Content: io.MultiReader(strings.NewReader(content)), Size: 10, ETag: "v1"},
			http.Header{"Range": {"bytes=4-"}}, 200, content, map[string]string{"Accept-Ranges": "", "Content-Length": "10", "ETag": `"v1"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := serveDownload(t, c.d, c.header)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || (c.status != 416 && string(b) != c.body) {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, b, c.status, c.body)
			}
			for k, v := range c.check {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

type closeCounter struct {
	io.ReadSeeker
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestDownloadClosesContent: content that is an io.Closer is closed once
// served, and a nil download is a 500.
func TestDownloadClosesContent(t *testing.T) {
	c := &closeCounter{ReadSeeker: strings.NewReader("abc")}
	serveDownload(t, &Download{Content: c}, nil)
	if c.closed != 1 {
		t.Errorf("closed %d times, want 1", c.closed)
	}
	if resp := serveDownload(t, nil, nil); resp.StatusCode != 500 {
		t.Errorf("nil download: %d, want 500", resp.StatusCode)
	}
}
