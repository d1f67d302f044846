package idemnats

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

const (
	testStream = "EVENTS"
	testPrefix = "events"
	testDurabl = "mailer"
)

// broker is an embedded nats-server with JetStream on a file store, on
// 127.0.0.1; restart stops it and starts it again on the same port and
// store, as an operator restarting the process would.
type broker struct {
	t    testing.TB
	dir  string
	port int
	srv  *server.Server
	// maxPayload is the server's max_payload; 0 keeps its default (1 MiB).
	maxPayload int32
}

func startBroker(t testing.TB) *broker { return startBrokerMax(t, 0) }

// startBrokerMax starts a broker whose max_payload is maxPayload bytes.
func startBrokerMax(t testing.TB, maxPayload int32) *broker {
	t.Helper()
	b := &broker{t: t, dir: t.TempDir(), port: -1, maxPayload: maxPayload}
	b.start()
	b.port = b.srv.Addr().(*net.TCPAddr).Port
	t.Cleanup(b.stop)
	return b
}

func (b *broker) start() {
	b.t.Helper()
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: b.port, JetStream: true, StoreDir: b.dir,
		NoLog: true, NoSigs: true, MaxPayload: b.maxPayload,
	})
	if err != nil {
		b.t.Fatal(err)
	}
	srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		b.t.Fatal("nats-server did not become ready")
	}
	b.srv = srv
}

func (b *broker) stop() {
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
}

func (b *broker) restart() {
	b.stop()
	b.start()
}

func (b *broker) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", b.port) }

// connect opens a client that reconnects for ever, quickly, so a broker
// restart is a pause and not an error.
func (b *broker) connect() (*nats.Conn, jetstream.JetStream) {
	b.t.Helper()
	nc, err := nats.Connect(b.url(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		b.t.Fatal(err)
	}
	return nc, js
}

// setup creates the stream and the durable consumer; ackWait is how long
// the broker waits for an ack before redelivering.
func setup(t testing.TB, js jetstream.JetStream, ackWait time.Duration) jetstream.Consumer {
	t.Helper()
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, StreamConfig(testStream, testPrefix, 0)); err != nil {
		t.Fatal(err)
	}
	return durable(t, js, ackWait)
}

func durable(t testing.TB, js jetstream.JetStream, ackWait time.Duration) jetstream.Consumer {
	t.Helper()
	cons, err := js.CreateOrUpdateConsumer(context.Background(), testStream, jetstream.ConsumerConfig{
		Durable: testDurabl, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cons
}

// side is one database: the producer's (the business rows and the outbox)
// or the consumer's (the effects table and idem_consumed).
type side struct {
	db *sql.DB
	d  sqlstore.Dialect
	ob *outbox.Outbox
}

func openSQLite(t testing.TB, name string) *side {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), name+".db"), sqlitestore.WithSynchronous("NORMAL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newSide(t, st.DB(), st.Dialect())
}

// newSide adds the effects table: one row per applied event, never unique,
// so an event applied twice shows as two rows.
func newSide(t testing.TB, db *sql.DB, d sqlstore.Dialect) *side {
	t.Helper()
	serial := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if d.Name == "postgres" {
		serial = "BIGSERIAL PRIMARY KEY"
	}
	_, err := db.Exec(`CREATE TABLE effects (n ` + serial + `, event_id TEXT NOT NULL, topic TEXT NOT NULL, payload TEXT NOT NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	return &side{db: db, d: d, ob: outbox.New(db, d, nil)}
}

// write commits one business transaction holding one outbox event.
func (s *side) write(t testing.TB, id, topic, payload string) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := s.ob.Add(ctx, tx, outbox.Event{ID: id, Topic: topic, Payload: []byte(payload)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// apply is the consumer's effect; it signals each applied event on applied
// (buffered by the caller for every event the test writes).
func (s *side) apply(applied chan<- string) func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
	return func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
		_, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO effects (event_id, topic, payload) VALUES (?, ?, ?)`), e.ID, e.Topic, string(e.Payload))
		if err == nil && applied != nil {
			applied <- e.ID
		}
		return err
	}
}

// effects returns the rows of the effects table and the distinct event ids.
func (s *side) effects(t testing.TB) (rows, distinct int) {
	t.Helper()
	err := s.db.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT event_id) FROM effects`).Scan(&rows, &distinct)
	if err != nil {
		t.Fatal(err)
	}
	return rows, distinct
}

// waitApplied waits until n more events were applied, bounded so a lost
// event fails the test instead of hanging it.
func waitApplied(t testing.TB, applied <-chan string, n int) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for i := 0; i < n; i++ {
		select {
		case <-applied:
		case <-deadline.C:
			t.Fatalf("only %d of %d events applied within 60s", i, n)
		}
	}
}

func wantExactlyOnce(t testing.TB, s *side, events int) {
	t.Helper()
	rows, distinct := s.effects(t)
	if rows != events || distinct != events {
		t.Fatalf("effects: %d rows for %d distinct events; want exactly one row for each of %d events", rows, distinct, events)
	}
}
