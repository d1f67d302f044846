package pgstore_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// cutMode is where pgProxy cuts the connection that sends the next COMMIT.
type cutMode int

const (
	// cutNone forwards everything.
	cutNone cutMode = iota
	// cutBeforeServer drops the COMMIT and closes both sides: the server
	// never sees it and rolls the transaction back when it reads the end
	// of the stream.
	cutBeforeServer
	// cutAfterServer forwards the COMMIT, half-closes the server side and
	// closes the client's: the server commits, and its answer is lost.
	cutAfterServer
	// cutAfterServerThenDown is cutAfterServer, and then the database is
	// unreachable: every other connection closes and new ones are refused
	// until up is called.
	cutAfterServerThenDown
)

// pgProxy is a loopback TCP proxy in front of a PostgreSQL server that
// reads the frontend's messages, so that it can cut one connection exactly
// at its COMMIT (pgx sends it as a simple 'Q' query "commit").
type pgProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	mode   cutMode
	down   bool
	conns  map[net.Conn]bool
	// served is closed once the server has answered, or closed, the
	// connection whose COMMIT was forwarded: the commit is done.
	served chan struct{}
}

func newPGProxy(t *testing.T, target string) *pgProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{ln: ln, target: target, conns: map[net.Conn]bool{}, served: make(chan struct{})}
	t.Cleanup(func() {
		ln.Close()
		p.closeAll()
	})
	go p.accept()
	return p
}

// addr is the proxy's host:port.
func (p *pgProxy) addr() string { return p.ln.Addr().String() }

// arm makes the next COMMIT, on any connection, be cut as mode says.
func (p *pgProxy) arm(mode cutMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = mode
}

// up accepts connections again after cutAfterServerThenDown.
func (p *pgProxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func (p *pgProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(c)
	}
}

func (p *pgProxy) serve(client net.Conn) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		client.Close()
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, server) {
		// The database went down while this connection was being made.
		client.Close()
		server.Close()
		return
	}
	done := make(chan struct{})
	go func() {
		io.Copy(client, server)
		client.Close()
		server.Close()
		close(done)
	}()
	if p.forward(client, server) {
		<-done
		close(p.served)
	}
}

// track records cs for closeAll, unless the database is down: under the
// same lock as take sets down, so no connection escapes closeAll.
func (p *pgProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range cs {
		p.conns[c] = true
	}
	return true
}

// closeAll closes every connection but keep's.
func (p *pgProxy) closeAll(keep ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if len(keep) == 0 || (c != keep[0] && c != keep[1]) {
			c.Close()
		}
	}
}

// forward copies the client's messages to the server until either side
// closes or a COMMIT is cut; it reports whether it forwarded a COMMIT it cut
// after.
func (p *pgProxy) forward(client, server net.Conn) bool {
	defer client.Close()
	br := bufio.NewReader(client)
	startup := true
	for {
		var typ byte
		if !startup {
			t, err := br.ReadByte()
			if err != nil {
				server.Close()
				return false
			}
			typ = t
		}
		body, err := readMessage(br)
		if err != nil {
			server.Close()
			return false
		}
		if startup {
			// SSLRequest and GSSENCRequest come before the startup
			// message proper; the server answers them with one byte.
			code := binary.BigEndian.Uint32(body[4:])
			startup = len(body) == 8 && (code == 80877103 || code == 80877104)
		}
		if typ == 'Q' && isCommit(body[4:]) {
			if mode := p.take(); mode != cutNone {
				return p.cut(mode, client, server, body)
			}
		}
		var msg []byte
		if typ != 0 {
			msg = append(msg, typ)
		}
		if _, err := server.Write(append(msg, body...)); err != nil {
			return false
		}
	}
}

// take disarms the proxy and returns the mode it was armed with.
func (p *pgProxy) take() cutMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	mode := p.mode
	p.mode = cutNone
	if mode == cutAfterServerThenDown {
		p.down = true
	}
	return mode
}

// cut ends the connection at its COMMIT message (body, without the type).
func (p *pgProxy) cut(mode cutMode, client, server net.Conn, body []byte) bool {
	if mode == cutBeforeServer {
		server.Close()
		return false
	}
	// The client is cut before the COMMIT goes on: the server answers it
	// within microseconds on loopback, and that answer must never reach
	// the client (it would learn that the COMMIT took).
	client.Close()
	if mode == cutAfterServerThenDown {
		// Before the COMMIT goes on, too: a read-back must not find another
		// connection of its pool still open to the dead primary.
		p.closeAll(client, server)
	}
	server.Write(append([]byte{'Q'}, body...))
	// Half-close: the server reads the COMMIT, then the end of the stream,
	// and its answer goes nowhere.
	server.(*net.TCPConn).CloseWrite()
	return true
}

// readMessage reads a length-prefixed message (the length included).
func readMessage(br *bufio.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size < 4 || size > 1<<24 {
		return nil, io.ErrUnexpectedEOF
	}
	body := make([]byte, size)
	copy(body, n[:])
	_, err := io.ReadFull(br, body[4:])
	return body, err
}

// isCommit reports whether a 'Q' message's text is COMMIT.
func isCommit(text []byte) bool {
	q := strings.TrimSpace(strings.TrimRight(string(text), "\x00"))
	q = strings.TrimSuffix(q, ";")
	return strings.EqualFold(q, "commit") || strings.EqualFold(q, "end")
}
