package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemgen/idemgen/examples/payments/client"
	"github.com/idemgen/idemgen/examples/payments/server"
	"github.com/idemgen/idemgen/ledger/sqlstore"
	idemrt "github.com/idemgen/idemgen/runtime"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// backend is one database a scenario runs on.
type backend struct {
	name string
	// args select the database on the server's command line.
	args []string
	// db is the test's own connection, for assertions.
	db *sql.DB
	d  sqlstore.Dialect
}

// forEachBackend runs fn on SQLite, then on PostgreSQL (skipped without the
// binaries, failed under CI=true).
func forEachBackend(t *testing.T, fn func(t *testing.T, b *backend)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "payments.db")
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, &backend{name: "sqlite", args: []string{"-db", path, "-sqlite-sync", "NORMAL"}, db: db, d: sqlstore.SQLite})
	})
	t.Run("postgres", func(t *testing.T) { fn(t, postgresBackend(t)) })
}

// postgresBackend is a fresh database on the shared cluster (skipped
// without the binaries, failed under CI=true).
func postgresBackend(t *testing.T) *backend {
	t.Helper()
	if cluster == nil {
		pgtestUnavailable(t)
	}
	dsn := cluster.NewDatabase(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &backend{name: "postgres", args: []string{"-pg", dsn}, db: db, d: sqlstore.Postgres}
}

// count runs a COUNT query written with '?' placeholders.
func (b *backend) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := b.db.QueryRow(b.d.Rebind(q), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// rows asserts the business state of one caller: orders, charges and
// outbox events.
func (b *backend) wantRows(t *testing.T, caller string, orders, charges, events int) {
	t.Helper()
	got := [3]int{
		b.count(t, `SELECT COUNT(*) FROM orders WHERE caller = ?`, caller),
		b.count(t, `SELECT COUNT(*) FROM charges WHERE caller = ?`, caller),
		b.count(t, `SELECT COUNT(*) FROM idem_outbox o JOIN orders r ON o.event_id = 'evt_' || r.id WHERE r.caller = ?`, caller),
	}
	if want := [3]int{orders, charges, events}; got != want {
		t.Fatalf("caller %s: (orders, charges, events) = %v, want %v", caller, got, want)
	}
}

// waitNotified waits until the relay delivered n notifications for caller's
// orders; the relay is asynchronous, so this polls.
func (b *backend) waitNotified(t *testing.T, caller string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := b.count(t, `SELECT COUNT(*) FROM notifications n JOIN orders o ON n.subject = o.id WHERE o.caller = ?`, caller)
		if got == n {
			return
		}
		if got > n || time.Now().After(deadline) {
			t.Fatalf("caller %s: %d notifications, want exactly %d", caller, got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// oneOrderOutcomes checks the callers of one key against caller's one stored
// order: each got its id or an in-progress error. It returns the id and how
// many callers got each.
func oneOrderOutcomes(t *testing.T, b *backend, caller string, ids []string, errs []error) (stored string, ok, busy int) {
	t.Helper()
	b.db.QueryRow(b.d.Rebind(`SELECT id FROM orders WHERE caller = ?`), caller).Scan(&stored)
	for i := range ids {
		switch {
		case errs[i] == nil && ids[i] == stored:
			ok++
		case errors.Is(errs[i], idemrt.ErrInProgress):
			busy++
		default:
			t.Errorf("caller %d: id %q, err %v; want %s or an in-progress error", i, ids[i], errs[i], stored)
		}
	}
	return stored, ok, busy
}

// proc is a running payments server.
type proc struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
	log  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

// startServer starts the server on a free loopback port with the test hooks
// on; env adds PAYMENTS_TEST_* settings. It is killed when t ends.
func startServer(t *testing.T, b *backend, env []string, args ...string) *proc {
	t.Helper()
	argv := append([]string{"-addr", "127.0.0.1:0", "-relay-every", "20ms", "-in-progress-wait", "500ms"}, b.args...)
	cmd := exec.Command(serverBin, append(argv, args...)...)
	cmd.Env = append(append(os.Environ(), "PAYMENTS_TEST_HOOKS=1"), env...)
	p := &proc{cmd: cmd, done: make(chan struct{}), log: &lockedBuffer{}}
	cmd.Stderr = p.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.kill(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("server log:\n%s", p.log.String())
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok || !strings.HasPrefix(l, "listening on ") {
			t.Fatalf("server did not start: %q\n%s", l, p.log.String())
		}
		p.url = strings.TrimPrefix(l, "listening on ")
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not start in time\n%s", p.log.String())
	}
	return p
}

// alive reports whether the process is still running.
func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill sends sig and waits for the process to exit.
func (p *proc) kill(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// unavailable makes the server answer 503 for d (Retry-After: retryAfter
// seconds when not "") and resets its arrival log.
func (p *proc) unavailable(t *testing.T, d time.Duration, retryAfter string) {
	t.Helper()
	u := fmt.Sprintf("%s/_test/unavailable?for=%s&retry_after=%s", p.url, d, retryAfter)
	resp, err := http.Post(u, "", nil)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /_test/unavailable: %v %v", resp, err)
	}
	resp.Body.Close()
}

// arrivals returns the arrival times of the API requests since the last
// unavailable call.
func (p *proc) arrivals(t *testing.T) []time.Time {
	t.Helper()
	resp, err := http.Get(p.url + "/_test/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st server.Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	out := make([]time.Time, len(st.Arrivals))
	for i, n := range st.Arrivals {
		out[i] = time.Unix(0, n)
	}
	return out
}

// newClient returns a generated client acting for caller (its bearer
// token; "" for none, when opts bring the credentials), on its own
// connection pool so that scenarios never share connections.
func newClient(t *testing.T, p *proc, caller string, opts ...idemrt.Option) *client.Client {
	t.Helper()
	return newClientAt(t, p.url, caller, opts...)
}

// newClientAt is newClient for a server at url (a proxy, say).
func newClientAt(t *testing.T, url, caller string, opts ...idemrt.Option) *client.Client {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 1000, MaxConnsPerHost: 0}
	t.Cleanup(tr.CloseIdleConnections)
	base := []idemrt.Option{idemrt.WithHTTPClient(&http.Client{Transport: tr})}
	if caller != "" {
		base = append(base, client.WithBearerAuth(caller))
	}
	c, err := client.NewClient(url, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var book = client.NewOrder{Item: "book", AmountCents: 1250, Currency: "EUR"}

func bg() context.Context { return context.Background() }
