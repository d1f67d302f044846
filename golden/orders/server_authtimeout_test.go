package orders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/runtime/problem"
	idemsrv "github.com/idemgen/idemgen/server"
)

// hangingIdP is tokens with an identity provider that never answers for
// the token "hang": its method waits for its context to end, then says
// so on cancelled (or for the test's end, so a server that never cancels
// it can still close).
type hangingIdP struct {
	tokens
	entered   chan struct{}
	cancelled chan struct{}
	testEnded chan struct{}
	once      sync.Once
}

func (h *hangingIdP) BearerAuth(ctx context.Context, op string, c idemsrv.BearerCredential) (string, error) {
	if c.Token != "hang" {
		return h.tokens.BearerAuth(ctx, op, c)
	}
	h.entered <- struct{}{}
	select {
	case <-ctx.Done():
	case <-h.testEnded:
		return "", context.Canceled
	}
	h.once.Do(func() { close(h.cancelled) })
	return "", ctx.Err()
}

var _ orders.SecurityHandler = (*hangingIdP)(nil)

// sendHanging writes a keyed create with its whole body and the token
// "hang" on a connection of its own, and returns the connection.
func sendHanging(t *testing.T, url string) net.Conn {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/v1"), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/orders HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer hang\r\nIdempotency-Key: k-hang\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", host, len(rawOrder), rawOrder)
	return conn
}

// TestServerHangingSecurityHandlerFreesItsSlot is issue 42's scenario: one
// slot (WithMaxInFlight(1)), a SecurityHandler whose identity provider
// hangs until its context ends, a keyed create with a body whose client
// leaves while it hangs. Authentication runs before the body is read, so
// only its deadline (WithAuthTimeout, 1 s here) ends it: the method's
// context is cancelled, the slot is freed, and a later create is served
// and executes once. A client that waits gets 503 authentication-timeout
// with Retry-After, and nothing executed.
func TestServerHangingSecurityHandlerFreesItsSlot(t *testing.T) {
	h := &echo{order: sampleOrder()}
	idp := &hangingIdP{entered: make(chan struct{}, 2), cancelled: make(chan struct{}), testEnded: make(chan struct{})}
	url, _ := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(idp),
		idemsrv.WithMaxInFlight(1), idemsrv.WithMaxQueued(0), idemsrv.WithAuthTimeout(time.Second))
	t.Cleanup(func() { close(idp.testEnded) })

	conn := sendHanging(t, url)
	<-idp.entered
	time.Sleep(500 * time.Millisecond)
	conn.Close() // the client is gone; the server cannot see it before it reads the body
	select {
	case <-idp.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the SecurityHandler's context is still not cancelled 5 s after the client left")
	}
	served := false
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp := post(t, url, "k-later", rawOrder); resp.StatusCode != http.StatusServiceUnavailable {
			served = resp.StatusCode == http.StatusCreated
			break
		}
	}
	if !served {
		t.Fatal("a create after the hanging one was never served: its slot is still held")
	}
	if n := h.executions.Load(); n != 1 {
		t.Errorf("executions %d, want 1 (the later create only)", n)
	}

	// A client that waits is told, and may come back.
	req, _ := http.NewRequest("POST", url+"/orders", strings.NewReader(rawOrder))
	req.Header.Set("Authorization", "Bearer hang")
	req.Header.Set("Idempotency-Key", "k-wait")
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("a client that waits got no answer: %v", err)
	}
	defer resp.Body.Close()
	var p struct{ Type string }
	json.NewDecoder(resp.Body).Decode(&p)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		p.Type != problem.AuthTimeout {
		t.Errorf("a client that waits: %d, Retry-After %q, problem %q; want 503 %s with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"), p.Type, problem.AuthTimeout)
	}
	if n := h.executions.Load(); n != 1 {
		t.Errorf("executions %d after the timed-out create, want 1", n)
	}
}
