package webhook

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// trickle sends a POST to addr whose body of size bytes comes one byte
// every 100 ms, until the server answers (or the test ends), and returns
// the answer.
func trickle(t *testing.T, addr, path string, size int) <-chan *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", path, size)
	answered := make(chan struct{})
	go func() {
		for {
			select {
			case <-answered:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	out := make(chan *http.Response, 1)
	go func() {
		defer close(answered)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			out <- nil
			return
		}
		resp.Body.Close()
		out <- resp
	}()
	return out
}
