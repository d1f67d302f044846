package media_test

// Operation servers: an operation (or path item) that declares its own
// server is sent there by default, and Client.WithServerURL redirects it.

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// hostRecorder is a loopback server that answers every request with a
// Document and records the Host and path each request was sent to.
type hostRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (h *hostRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Host+r.URL.Path)
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"id":"x1"}`))
}

func (h *hostRecorder) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.seen
	h.seen = nil
	return out
}

// dialAll is an HTTP client that connects to addr whatever the URL's host
// says, so that a request for https://files.media.example.com reaches a
// loopback server, which sees the Host it was meant for.
func dialAll(addr string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func TestOperationServersAreUsedAndRedirected(t *testing.T) {
	rec := &hostRecorder{}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	loop := ts.Listener.Addr().String()
	// Plain HTTP on the loopback for the document's https URLs: the
	// scheme is rewritten by a request editor so no TLS is needed.
	toHTTP := idemrt.WithRequestEditor(func(_ context.Context, r *http.Request) error {
		r.URL.Scheme = "http"
		return nil
	})
	c, err := media.NewClient(media.DefaultServerURL, idemrt.WithHTTPClient(dialAll(loop)), toHTTP)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	calls := func(c *media.Client) []string {
		if _, err := c.GetExport(ctx, media.GetExportParams{ID: "e1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateExport(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.CancelSearch(ctx, nil, media.CancelSearchParams{ID: "s1"}); err != nil {
			t.Log(err) // the answer does not matter, only where it went
		}
		return rec.take()
	}
	same := func(got, want []string) bool {
		return strings.Join(got, " ") == strings.Join(want, " ")
	}
	// The document's server: the exports go to the files server.
	want := []string{"files.media.example.com/exports/e1", "files.media.example.com/exports", "media.example.com/searches/s1/cancel"}
	if got := calls(c); !same(got, want) {
		t.Fatalf("with DefaultServerURL, requests went to %q, want %q", got, want)
	}
	// WithServerURL moves the files server of a copy only.
	moved, err := c.WithServerURL(media.ServerFilesMediaExampleCom, ts.URL+"/files")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{loop + "/files/exports/e1", loop + "/files/exports", "media.example.com/searches/s1/cancel"}
	if got := calls(moved); !same(got, want) {
		t.Fatalf("after WithServerURL, requests went to %q, want %q", got, want)
	}
	want = []string{"files.media.example.com/exports/e1", "files.media.example.com/exports", "media.example.com/searches/s1/cancel"}
	if got := calls(c); !same(got, want) {
		t.Fatalf("the original client moved too: %q", got)
	}
	// A client pointed at another server (a mock) sends every operation there.
	local, err := media.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{loop + "/exports/e1", loop + "/exports", loop + "/searches/s1/cancel"}
	if got := calls(local); !same(got, want) {
		t.Fatalf("with NewClient(loopback), requests went to %q, want %q", got, want)
	}
	if _, err := c.WithServerURL("https://elsewhere.example.com", ts.URL); err == nil {
		t.Fatal("WithServerURL accepted a server no operation declares")
	}
}
