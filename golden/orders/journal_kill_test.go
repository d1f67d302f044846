package orders_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/golden/orders"
	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

// TestJournalProcessKilledMidCall kills a real client process (this test
// binary, run as a child) after its keyed create reached the server and
// executed, while it waits for the answer; a reconciler in this process
// then settles the entry from the SQLite journal the child wrote: executed
// with the original order, and the handler ran once.
func TestJournalProcessKilledMidCall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	h := &echo{order: sampleOrder(), block: make(chan struct{}), entered: make(chan struct{}, 1)}
	url, _ := serveOrders(t, h, nil, idemsrv.WithLedger(sqliteLedger(t)), idemsrv.WithSecurity(tokens{}))
	path := filepath.Join(t.TempDir(), "journal.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalChildProcess$")
	cmd.Env = append(os.Environ(), "IDEMGEN_JOURNAL_CHILD="+url+"|"+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.entered: // executed; the answer is held until the child is gone
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the child's call never reached the handler")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	close(h.block)

	j, err := sqlitestore.OpenJournal(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	c, err := orders.NewClient(url, orders.WithBearerAuth("secret"))
	if err != nil {
		t.Fatal(err)
	}
	var got []journal.Outcome
	rec := &journal.Reconciler{Journal: j, Client: c, Now: func() time.Time { return time.Now().Add(time.Hour) },
		OnResolved: func(_ journal.Entry, o journal.Outcome) { got = append(got, o) }}
	if p := rec.Pass(context.Background()); p.Executed != 1 || p.Err != nil {
		t.Fatalf("pass %+v", p)
	}
	if len(got) != 1 || got[0].Status != 201 || h.executions.Load() != 1 {
		t.Fatalf("outcomes %+v, %d executions", got, h.executions.Load())
	}
}

// TestJournalChildProcess is the client process of
// TestJournalProcessKilledMidCall; it does nothing unless run as its child.
func TestJournalChildProcess(t *testing.T) {
	env := os.Getenv("IDEMGEN_JOURNAL_CHILD")
	if env == "" {
		t.Skip("run by TestJournalProcessKilledMidCall")
	}
	url, path, _ := strings.Cut(env, "|")
	j, err := sqlitestore.OpenJournal(context.Background(), path, sqlitestore.WithSynchronous("NORMAL"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := orders.NewClient(url, idemrt.WithJournal(j), orders.WithBearerAuth("secret"))
	if err != nil {
		t.Fatal(err)
	}
	// Killed while this call waits for its answer.
	_, _ = c.CreateOrder(context.Background(), orderBody, orders.CreateOrderParams{IdempotencyKey: "k-killed"})
	t.Fatal("the call returned: the parent should have killed this process")
}
