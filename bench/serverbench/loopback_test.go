package serverbench

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/idemgen/idemgen/bench/internal/cpuclock"
)

// loopback calls srv over 127.0.0.1 with one keep-alive connection of a
// plain net/http client, b.N times, and reports the process's CPU time per
// request (client and server; the client's share is the same for every
// server). newReq makes request n.
func loopback(b *testing.B, h http.Handler, want int, newReq func(base string, n int) *http.Request) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer c.CloseIdleConnections()
	b.ReportAllocs()
	cpu0 := cpuclock.Used()
	n := 0
	for b.Loop() {
		resp, err := c.Do(newReq(srv.URL, n))
		n++
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			b.Fatalf("status %d, want %d", resp.StatusCode, want)
		}
	}
	b.ReportMetric(float64(cpuclock.Used()-cpu0)/float64(b.N), "cpu-ns/op")
}

func loopbackGet(base string, _ int) *http.Request {
	r, _ := http.NewRequest(http.MethodGet, base+"/orders/"+orderID, nil)
	return r
}

func loopbackPost(base string, n int) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, base+"/orders", bytes.NewReader([]byte(newOrderJSON)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", "k-"+strconv.Itoa(n))
	return r
}

// BenchmarkLoopbackGet is BenchmarkServeGet over a real connection.
func BenchmarkLoopbackGet(b *testing.B) {
	for _, srv := range newServers(b) {
		b.Run(srv.name, func(b *testing.B) { loopback(b, srv.h, http.StatusOK, loopbackGet) })
	}
}

// BenchmarkLoopbackPost is BenchmarkServePost over a real connection
// (without the ledger; a fresh key per request).
func BenchmarkLoopbackPost(b *testing.B) {
	for _, srv := range newServers(b) {
		b.Run(srv.name, func(b *testing.B) { loopback(b, srv.h, http.StatusCreated, loopbackPost) })
	}
}
