package mock

import (
	"net/http/httptest"
	"testing"
)

// TestServer is a running mock on a loopback port, closed by the test's
// cleanup. URL is its base URL; the methods of Server (Executions, Stats,
// Requests) report what it saw.
type TestServer struct {
	*Server
	HTTP *httptest.Server
	URL  string
}

// Start serves the document at path on 127.0.0.1 for the duration of the
// test, with the given faults; every request is logged with t.Log.
func Start(t testing.TB, path string, faults ...Fault) *TestServer {
	t.Helper()
	return StartWith(t, path, Options{Faults: faults})
}

// StartWith is Start with full options. A nil opts.Log logs with t.Log.
func StartWith(t testing.TB, path string, opts Options) *TestServer {
	t.Helper()
	if opts.Log == nil {
		opts.Log = testLog{t}
	}
	s, err := New(path, opts)
	if err != nil {
		t.Fatalf("idemgen mock: %v", err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return &TestServer{Server: s, HTTP: hs, URL: hs.URL}
}

type testLog struct{ t testing.TB }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log("idemgen mock: " + string(trimNL(b)))
	return len(b), nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}
