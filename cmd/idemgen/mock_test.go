package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var servingRE = regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)

// TestMockCommandServesValidatesAndStops runs `idemgen mock` on a free
// loopback port, sends a valid and an invalid request, reads the stats, and
// stops it by cancelling its context.
func TestMockCommandServesValidatesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, stderr, done := startMockCommand(t, ctx, "../../testdata/specs/orders.yaml", "--addr", "127.0.0.1:0",
		"--fault", "503:1@sendReceipt", "--dynamic", "--seed", "9")
	get := func(method, path, body string) int {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get("GET", "/orders?limit=5", ""); s != 200 {
		t.Errorf("listOrders: %d", s)
	}
	if s := get("POST", "/payments", `{"amount":"x"}`); s != 400 {
		t.Errorf("bad payment: %d, want 400", s)
	}
	if s := get("POST", "/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6/receipt", ""); s != 503 {
		t.Errorf("storm on sendReceipt: %d, want 503", s)
	}
	stopMockCommand(t, cancel, done)
	log := stderr.String()
	for _, want := range []string{`op="listOrders" status=200 validation="ok"`, `op="createPayment" status=400 validation="body /amount`,
		`op="sendReceipt" status=503 validation="ok" fault=503:1@sendReceipt`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// startMockCommand runs `idemgen mock ARGS...` until ctx is cancelled and
// returns the base URL it serves on once it says so, its standard error and
// the channel its exit arrives on.
func startMockCommand(t *testing.T, ctx context.Context, args ...string) (string, *lockedBuffer, chan error) {
	t.Helper()
	stderr := &lockedBuffer{}
	root := newRootCmd((&fake{}).toolchain())
	root.SetArgs(append([]string{"mock"}, args...))
	root.SetOut(io.Discard)
	root.SetErr(stderr)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	for range 500 {
		if m := servingRE.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stderr, done
		}
		select {
		case err := <-done:
			t.Fatalf("mock exited: %v\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("never served:\n%s", stderr.String())
	return "", nil, nil
}

// stopMockCommand cancels a command startMockCommand started and waits for
// it to exit cleanly.
func stopMockCommand(t *testing.T, cancel context.CancelFunc, done chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop on cancel")
	}
}

func TestMockCommandRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"mock", "x.yaml", "--fault", "explode"},
		{"mock", "x.yaml", "--proxy", "ftp://example.com"},
		{"mock"},
	} {
		var stderr bytes.Buffer
		if code := runWith((&fake{}).toolchain(), args, io.Discard, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := runWith((&fake{}).toolchain(), []string{"mock", "does-not-exist.yaml"}, io.Discard, &stderr); code != exitProblem ||
		!strings.Contains(stderr.String(), "does-not-exist.yaml") {
		t.Errorf("missing spec: exit %d %s", code, stderr.String())
	}
}

// TestMockCommandCutsASlowBody: a client that stops sending its body
// midway loses its connection at --read-timeout.
func TestMockCommandCutsASlowBody(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, _, done := startMockCommand(t, ctx, "../../testdata/specs/orders.yaml", "--addr", "127.0.0.1:0",
		"--read-timeout", "200ms", "--quiet")
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"amount\":")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	_, err = io.ReadAll(conn)
	if err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("the stalled request held its connection for %v (%v)", time.Since(start), err)
	}
	stopMockCommand(t, cancel, done)
}
