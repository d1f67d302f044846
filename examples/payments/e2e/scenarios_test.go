package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemgen/idemgen/examples/payments/client"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// Scenario 1: the server commits, then the connection drops before the
// response. The client retries with the same key, under a refreshed token,
// and gets the same order; the database holds one order, one charge, one
// event.
func TestScenario1CommitThenConnectionDrops(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		p := startServer(t, b, []string{"PAYMENTS_TEST_DROP_AFTER_COMMIT=1"})
		var log []idemrt.Attempt
		// alice's token is refreshed for every attempt ("alice.1", then
		// "alice.2"): the server's SecurityHandler names the same tenant.
		var session atomic.Int64
		c := newClient(t, p, "", client.WithBearerAuthSource(func(context.Context) (string, error) {
			return fmt.Sprintf("alice.%d", session.Add(1)), nil
		}))
		o, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s1-key"}, idemrt.WithAttemptLog(&log))
		if err != nil {
			t.Fatalf("CreateOrder: %v", err)
		}
		if len(log) != 2 || log[1].Reason != idemrt.ReasonUnknownOutcome || log[0].Key != log[1].Key || session.Load() != 2 {
			t.Fatalf("attempts = %+v, want a lost first response then one retry with the same key", log)
		}
		b.wantRows(t, "alice", 1, 1, 1)
		if n := b.count(t, `SELECT COUNT(*) FROM orders WHERE id = ? AND charge_id = ?`, o.ID, o.ChargeID); n != 1 {
			t.Fatalf("the client got order %s / charge %s, which is not the stored one", o.ID, o.ChargeID)
		}
		again, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s1-key"})
		if err != nil || again.ID != o.ID {
			t.Fatalf("repeat returned %+v, %v; want order %s", again, err, o.ID)
		}
		b.waitNotified(t, "alice", 1)
		b.wantRows(t, "alice", 1, 1, 1)
	})
}

// Scenario 2: 50 concurrent calls with one key make one order; every caller
// ends with that order's id or a clear in-progress error. The execution is
// slowed down (200ms) and the server does not wait for busy keys, so callers
// really meet the key in progress (409) and the client waits them out.
func TestScenario2FiftyConcurrentSameKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		p := startServer(t, b, []string{"PAYMENTS_TEST_PAUSE_AFTER_RESERVE=200ms"}, "-in-progress-wait", "0")
		const n = 50
		ids, errs, logs := make([]string, n), make([]error, n), make([][]idemrt.Attempt, n)
		var wg sync.WaitGroup
		for i := range n {
			// Fifty independent clients (own runner, own budget, own pool).
			c := newClient(t, p, "alice")
			wg.Go(func() {
				o, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s2-key"}, idemrt.WithAttemptLog(&logs[i]))
				if err == nil {
					ids[i] = o.ID
				}
				errs[i] = err
			})
		}
		wg.Wait()
		b.wantRows(t, "alice", 1, 1, 1)
		stored, ok, busy := oneOrderOutcomes(t, b, "alice", ids, errs)
		saw409 := 0
		for i := range n {
			if len(logs[i]) > 0 && logs[i][0].StatusCode == 409 {
				saw409++
			}
		}
		t.Logf("%s: %d callers got order %s, %d got in-progress; %d met a 409 first", b.name, ok, stored, busy, saw409)
		b.waitNotified(t, "alice", 1)
	})
}

// Scenario 3: the same key with a different body is a 422 key-reuse error;
// nothing changes and the old result is never returned.
func TestScenario3SameKeyDifferentBody(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		p := startServer(t, b, nil)
		c := newClient(t, p, "alice")
		first, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s3-key"})
		if err != nil {
			t.Fatal(err)
		}
		var fp string
		b.db.QueryRow(`SELECT fingerprint FROM idem_ledger WHERE idem_key = 's3-key'`).Scan(&fp)
		var log []idemrt.Attempt
		other := client.NewOrder{Item: "book", AmountCents: 9999, Currency: "EUR"}
		o, err := c.CreateOrder(bg(), other, client.CreateOrderParams{IdempotencyKey: "s3-key"}, idemrt.WithAttemptLog(&log))
		var se *idemrt.StatusError
		if !errors.Is(err, idemrt.ErrKeyReuse) || !errors.As(err, &se) || se.StatusCode != 422 || o != nil {
			t.Fatalf("got %+v, %v; want a 422 key-reuse error", o, err)
		}
		if len(log) != 1 {
			t.Errorf("a key-reuse error was retried: %d attempts", len(log))
		}
		if bytes.Contains(se.Body, []byte(first.ID)) {
			t.Errorf("the 422 carries the old result: %s", se.Body)
		}
		b.wantRows(t, "alice", 1, 1, 1)
		var fpAfter string
		b.db.QueryRow(`SELECT fingerprint FROM idem_ledger WHERE idem_key = 's3-key'`).Scan(&fpAfter)
		if n := b.count(t, `SELECT COUNT(*) FROM charges WHERE amount_cents = 9999`); n != 0 || fpAfter != fp {
			t.Fatalf("the rejected request changed the database (charges %d, fingerprint %q -> %q)", n, fp, fpAfter)
		}
	})
}

// Scenario 4: the server is SIGKILLed after reserving the key and before
// committing. On PostgreSQL the reservation committed on its own: after the
// lease expires, the sweeper reports the stuck row and a retry with the same
// key executes exactly once. On SQLite the key is reserved inside the
// business transaction, which the kill rolls back: no row is left, and the
// retry executes exactly once at once.
func TestScenario4KilledAfterReserve(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		// The lease must outlast the time from reservation to SIGKILL (the
		// paused handler gives up when its lease ends), and the test waits
		// for it to expire: 3s covers a loaded CI machine.
		const lease = 3 * time.Second
		p := startServer(t, b, []string{"PAYMENTS_TEST_PAUSE_AFTER_RESERVE=1m"}, "-lease", lease.String())
		c := newClient(t, p, "alice.session-1")
		done := make(chan error, 1)
		go func() {
			_, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s4-key"}, idemrt.NoRetry())
			done <- err
		}()
		if b.name == "sqlite" {
			// The paused execution holds SQLite's one writer.
			waitFor(t, func() bool { return writerHeld(t, b) })
		} else {
			waitFor(t, func() bool {
				return b.count(t, `SELECT COUNT(*) FROM idem_ledger WHERE idem_key = 's4-key' AND state = 'in_progress'`) == 1
			})
		}
		p.kill(syscall.SIGKILL)
		if err := <-done; err == nil || idemrt.KeyOf(err) != "s4-key" {
			t.Fatalf("the killed call returned %v; want an error carrying the key", err)
		}
		b.wantRows(t, "alice", 0, 0, 0)
		if b.name == "sqlite" {
			if n := b.count(t, `SELECT COUNT(*) FROM idem_ledger WHERE idem_key = 's4-key'`); n != 0 {
				t.Fatalf("the killed execution left %d ledger rows, want none (its transaction never committed)", n)
			}
		}
		// No background sweeper on the restarted server: the test runs the
		// sweeper itself, to see the stuck row before anything releases it.
		p2 := startServer(t, b, nil, "-lease", lease.String(), "-sweep-every", "0")
		c2 := newClient(t, p2, "alice.session-2") // alice's token, refreshed
		if b.name != "sqlite" {
			waitOutStuckLease(t, b, c2)
		}
		o, err := c2.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s4-key"})
		if err != nil {
			t.Fatalf("retry after the kill: %v", err)
		}
		again, err := c2.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s4-key"})
		if err != nil || again.ID != o.ID {
			t.Fatalf("second retry = %+v, %v; want order %s", again, err, o.ID)
		}
		b.wantRows(t, "alice", 1, 1, 1)
		if rep := sweep(t, b, "-report-only"); len(rep.Stuck) != 0 {
			t.Errorf("after the retry the sweeper still reports %+v", rep.Stuck)
		}
		b.waitNotified(t, "alice", 1)
	})
}

// waitOutStuckLease checks, on a store whose reservation commits on its
// own, that the killed execution's row answers "in progress" while its
// lease lasts, waits the lease out, and checks the sweeper reports it.
func waitOutStuckLease(t *testing.T, b *backend, c *client.Client) {
	t.Helper()
	var leaseEnd int64
	b.db.QueryRow(`SELECT lease_expires FROM idem_ledger WHERE idem_key = 's4-key'`).Scan(&leaseEnd)
	if time.Until(time.Unix(0, leaseEnd)) > 500*time.Millisecond {
		// Still leased: the retry is told "in progress" and executes nothing.
		_, err := c.CreateOrder(bg(), book, client.CreateOrderParams{IdempotencyKey: "s4-key"}, idemrt.NoRetry())
		if !errors.Is(err, idemrt.ErrInProgress) {
			t.Errorf("retry within the lease: %v, want in-progress", err)
		}
		b.wantRows(t, "alice", 0, 0, 0)
	}
	time.Sleep(time.Until(time.Unix(0, leaseEnd)) + 50*time.Millisecond)
	rep := sweep(t, b, "-report-only")
	// The ledger scopes keys by the principal the server's
	// SecurityHandler named and never stores the token (docs/server.md).
	if len(rep.Stuck) != 1 || rep.Stuck[0].Key != "s4-key" || rep.Stuck[0].Caller != "principal:alice" {
		t.Fatalf("sweeper report = %+v, want the one stuck s4-key row of principal alice", rep)
	}
}

// writerHeld reports whether another connection holds the SQLite database's
// write lock: a write transaction that does not wait cannot begin.
func writerHeld(t *testing.T, b *backend) bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+b.args[1]+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return true
	}
	tx.Rollback()
	return false
}

type sweepReport struct {
	Stuck []struct {
		Caller, Operation, Key string
	} `json:"stuck"`
	Released int `json:"released"`
}

// sweep runs the server binary's one-shot sweeper on b.
func sweep(t *testing.T, b *backend, args ...string) sweepReport {
	t.Helper()
	out, err := exec.Command(serverBin, append(append([]string{"-sweep"}, b.args...), args...)...).Output()
	if err != nil {
		t.Fatalf("payments-server -sweep: %v", err)
	}
	var rep sweepReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("sweep report %q: %v", out, err)
	}
	return rep
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 30s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
