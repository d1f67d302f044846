package media_test

// Operation servers: an operation (or path item) that declares its own
// server is sent there by default, and Client.WithServerURL redirects it.

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
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
	// Plain HTTP on the loopback, for the files server's URL too: the
	// scheme is rewritten by a request editor so no TLS is needed.
	toHTTP := idemrt.WithRequestEditor(func(_ context.Context, r *http.Request) error {
		r.URL.Scheme = "http"
		return nil
	})
	c, err := media.NewClient(ts.URL, idemrt.WithHTTPClient(dialAll(ts.Listener.Addr().String())), toHTTP)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.GetExport(ctx, media.GetExportParams{ID: "e1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateExport(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelSearch(ctx, nil, media.CancelSearchParams{ID: "s1"}); err != nil {
		t.Log(err) // the answer does not matter, only where it went
	}
	want := []string{"files.media.example.com/exports/e1", "files.media.example.com/exports", ts.Listener.Addr().String() + "/searches/s1/cancel"}
	if got := rec.take(); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("requests went to %q, want %q", got, want)
	}

	moved, err := c.WithServerURL(media.ServerFilesMediaExampleCom, ts.URL+"/files")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := moved.GetExport(ctx, media.GetExportParams{ID: "e2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetExport(ctx, media.GetExportParams{ID: "e3"}); err != nil {
		t.Fatal(err)
	}
	want = []string{ts.Listener.Addr().String() + "/files/exports/e2", "files.media.example.com/exports/e3"}
	if got := rec.take(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("requests went to %q, want %q (the copy moved, the original did not)", got, want)
	}
	if _, err := c.WithServerURL("https://elsewhere.example.com", ts.URL); err == nil {
		t.Fatal("WithServerURL accepted a server no operation declares")
	}
}
