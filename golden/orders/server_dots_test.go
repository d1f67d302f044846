package orders_test

import (
	"net/http"
	"testing"

	idemsrv "github.com/idemgen/idemgen/server"
)

// TestServerPathParameterIsNeverADotSegment: an order id sent as an
// escaped dot-segment (%2e%2e, %2E, .%2e) is a 404 problem from the
// generated server, and no handler runs; net/http resolves none of them.
func TestServerPathParameterIsNeverADotSegment(t *testing.T) {
	h := &echo{order: sampleOrder()}
	url, _ := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	for _, id := range []string{"%2e%2e", "%2E%2E", "%2e", "%2E", ".%2e", "%2e.", ".%2E"} {
		for _, method := range []string{"GET", "DELETE"} {
			req, _ := http.NewRequest(method, url+"/orders/"+id, nil)
			req.Header.Set("Authorization", "Bearer secret")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s /orders/%s: %d %q, want a 404 problem", method, id, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) != 0 {
		t.Errorf("handlers ran with %v", h.got)
	}
}
