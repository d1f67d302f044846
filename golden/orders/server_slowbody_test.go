package orders_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	idemsrv "github.com/idemgen/idemgen/server"
)

// trickleKeyed opens a connection to the server at url and sends a keyed
// create whose 1000-byte body comes one byte every 100 ms, for as long as
// the server lets it; the channel gives the answer, or nil for none.
func trickleKeyed(t *testing.T, url, key string) <-chan *http.Response {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/v1"), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/orders HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer secret\r\nIdempotency-Key: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", host, key)
	out, answered := make(chan *http.Response, 1), make(chan struct{})
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-answered:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	go func() {
		defer close(answered)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err == nil {
			resp.Body.Close()
		}
		out <- resp
	}()
	return out
}

// TestServerSlowKeyedBodiesFreeTheirSlots: two clients trickle keyed
// bodies into a server with two slots. The ledger reads them under the
// body timeout (1 s here): each is a 408 problem with nothing executed and
// nothing reserved, so a GET 3 s later is served and a retry with the same
// key executes once.
func TestServerSlowKeyedBodiesFreeTheirSlots(t *testing.T) {
	h := &echo{order: sampleOrder()}
	url, _ := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}), idemsrv.WithMaxInFlight(2),
		idemsrv.WithBodyLimits(0, time.Second))
	start := time.Now()
	slow := []<-chan *http.Response{trickleKeyed(t, url, "k1"), trickleKeyed(t, url, "k2")}
	for i, answer := range slow {
		select {
		case resp := <-answer:
			if resp == nil || resp.StatusCode != http.StatusRequestTimeout || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("trickled body %d: answer %+v, want a 408 problem", i, resp)
			}
		case <-time.After(3*time.Second - time.Since(start)):
			t.Errorf("trickled body %d: no answer within 3 s, with a body timeout of 1 s", i)
		}
	}
	time.Sleep(3*time.Second - time.Since(start))
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health 3 s after two trickled bodies: %d, want 200", resp.StatusCode)
	}
	if n := h.executions.Load(); n != 0 {
		t.Errorf("the trickled creates executed %d times", n)
	}
	if resp := post(t, url, "k1", rawOrder); resp.StatusCode != http.StatusCreated || h.executions.Load() != 1 {
		t.Errorf("retry of k1: %d, executions %d; want 201 and 1", resp.StatusCode, h.executions.Load())
	}
}
