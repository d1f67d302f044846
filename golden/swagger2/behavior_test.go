package swagger2_test

// The Swagger 2.0 golden against a loopback server mounted at its basePath
// (/v1): NewClient with the bare host URL adds the basePath, and
// DefaultServerURL ({scheme}://{host}{basePath}) reaches it as written.

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemgen/idemgen/golden/swagger2"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// inventory serves GET /v1/items/{item_id} only, over TLS, and records the
// Host each request named.
func inventory(t *testing.T, hosts *[]string) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/items/{item_id}", func(w http.ResponseWriter, r *http.Request) {
		*hosts = append(*hosts, r.Host)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + r.PathValue("item_id") + `","name":"n"}`))
	})
	ts := httptest.NewTLSServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func TestServedUnderBasePath(t *testing.T) {
	var hosts []string
	ts := inventory(t, &hosts)
	addr := ts.Listener.Addr().String()
	// Every connection goes to the loopback server, whatever host the URL
	// names, so DefaultServerURL's host reaches it too.
	tr := ts.Client().Transport.(*http.Transport).Clone()
	tr.DialTLSContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}}
		return d.DialContext(ctx, network, addr)
	}
	hc := &http.Client{Transport: tr}
	for _, base := range []string{ts.URL, swagger2.DefaultServerURL} {
		c, err := swagger2.NewClient(base, idemrt.WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		item, err := c.GetItem(context.Background(), swagger2.GetItemParams{ItemID: "i1"})
		if err != nil || item.ID != "i1" {
			t.Fatalf("NewClient(%q): %+v, %v", base, item, err)
		}
	}
	if len(hosts) != 2 || hosts[0] != addr || hosts[1] != "inventory.example.com" {
		t.Fatalf("hosts %q, want %s then inventory.example.com", hosts, addr)
	}
}
