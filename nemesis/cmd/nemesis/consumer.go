package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemnats "github.com/idemgen/idemgen/nats"
)

// consumerMain applies the shop's events to its own SQLite database: one
// row in "applied" per application, deduped by idemnats.Consumer's
// idem_consumed. The applied table has no unique index, so a second
// application would show as a second row.
func consumerMain(args []string) error {
	fs := flag.NewFlagSet("consumer", flag.ExitOnError)
	urls := fs.String("nats", "", "NATS URLs")
	dbPath := fs.String("db", "", "the consumer's SQLite database")
	fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := sqlitestore.Open(ctx, *dbPath, sqlitestore.WithSynchronous("NORMAL"))
	if err != nil {
		return err
	}
	defer store.Close()
	if _, err := store.DB().ExecContext(ctx, `CREATE TABLE IF NOT EXISTS applied (event_id TEXT NOT NULL, topic TEXT NOT NULL)`); err != nil {
		return err
	}
	nc, err := nats.Connect(*urls, nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond), nats.RetryOnFailedConnect(true))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	c := &idemnats.Consumer{Outbox: outbox.New(store.DB(), store.Dialect(), nil), Name: "applier",
		Apply: func(ctx context.Context, tx *sql.Tx, e outbox.Event) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO applied (event_id, topic) VALUES (?, ?)`, e.ID, e.Topic)
			return err
		}}
	fmt.Println("consumer running")
	for ctx.Err() == nil {
		cons, err := js.CreateOrUpdateConsumer(ctx, streamName, jetstream.ConsumerConfig{Durable: "applier", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 5 * time.Second})
		if err == nil {
			err = c.Run(ctx, cons, func(err error) { log.Printf("consumer: %v", err) })
		}
		if ctx.Err() == nil {
			log.Printf("consumer: %v; again", err)
			time.Sleep(300 * time.Millisecond)
		}
	}
	return nil
}
