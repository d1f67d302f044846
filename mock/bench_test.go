package mock_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	idemgenmock "github.com/idemgen/idemgen/mock"
)

// BenchmarkLoopback measures requests per second of the mock over loopback
// HTTP/1.1 with keep-alive, GOMAXPROCS concurrent clients: a cheap operation
// (getHealth, no credentials), a validated one with query parameters
// (listOrders) and a keyed create through the SQLite ledger (createPayment,
// a fresh key per request).
func BenchmarkLoopback(b *testing.B) {
	for _, bc := range []struct {
		name, method, path, body string
		keyed                    bool
	}{
		{"getHealth", "GET", "/health", "", false},
		{"listOrders", "GET", "/orders?limit=5&status=paid&ids=3fa85f64-5717-4562-b3fc-2c963f66afa6", "", false},
		{"createPayment", "POST", "/payments", payment, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m, err := idemgenmock.New(ordersSpec, idemgenmock.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			srv := httptest.NewServer(m)
			defer srv.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 8}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			b.SetParallelism(1) // GOMAXPROCS goroutines
			start := time.Now()
			var seq atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					var body io.Reader
					if bc.body != "" {
						body = strings.NewReader(bc.body)
					}
					req, _ := http.NewRequest(bc.method, srv.URL+bc.path, body)
					req.Header.Set("Authorization", "Bearer t")
					if bc.body != "" {
						req.Header.Set("Content-Type", "application/json")
					}
					if bc.keyed {
						req.Header.Set("Idempotency-Key", "bench-"+strconv.FormatInt(seq.Add(1), 10))
					}
					resp, err := hc.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode >= 300 {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
