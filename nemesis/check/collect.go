package check

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
)

// Intents joins the clients' histories with their journals: an intent is
// what a history's invoke record names, and what its client believes is
// its journal entry's final state (the journal is written before the first
// send, so an intent without an entry was never sent).
func Intents(records []Record, entries []journal.Entry) ([]Intent, []time.Duration) {
	byRef := map[string]*Intent{}
	var order []string
	var lat []time.Duration
	for _, r := range records {
		switch r.Type {
		case RecInvoke:
			if _, ok := byRef[r.Ref]; !ok {
				byRef[r.Ref] = &Intent{Client: r.Client, Op: r.Op, Ref: r.Ref, Belief: NeverSent}
				order = append(order, r.Ref)
			}
		case RecOK:
			lat = append(lat, time.Duration(r.Micros)*time.Microsecond)
		}
	}
	for _, e := range entries {
		it, ok := byRef[e.Key]
		if !ok {
			it = &Intent{Op: e.Operation, Ref: e.Key}
			byRef[e.Key] = it
			order = append(order, e.Key)
		}
		it.Belief, it.Why = beliefOf(e)
	}
	out := make([]Intent, 0, len(order))
	for _, ref := range order {
		out = append(out, *byRef[ref])
	}
	return out, lat
}

func beliefOf(e journal.Entry) (Belief, string) {
	switch e.State {
	case journal.StateUnresolved:
		return Unknown, e.LastError
	case journal.StateNeedsPerson:
		return NeedsPerson, e.Note
	}
	switch e.Resolution {
	case "success":
		return SawOK, ""
	case "executed":
		return SettledExecuted, e.Note
	case "not-executed":
		return SettledNotExecuted, e.Note
	case "not-sent":
		return NeverSent, ""
	}
	return Refused, fmt.Sprintf("%s %d", e.Resolution, e.LastStatus)
}

// JournalEntry is a journal entry as the checker reads it.
type JournalEntry = journal.Entry

// ReadJournal reads every entry of a client's SQLite journal.
func ReadJournal(ctx context.Context, path string) ([]journal.Entry, error) {
	j, err := sqlitestore.OpenJournalReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	var all []journal.Entry
	for _, st := range []journal.State{journal.StateUnresolved, journal.StateResolved, journal.StateNeedsPerson} {
		es, err := j.List(ctx, st, 1<<30)
		if err != nil {
			return nil, err
		}
		all = append(all, es...)
	}
	return all, nil
}

// ReadShop fills in's executions, update chains, versions and the ledger
// rows still in progress from the shop's PostgreSQL database.
func ReadShop(ctx context.Context, db *sql.DB, in *Input) error {
	in.Executions = map[string]int{}
	for _, table := range []string{"orders", "order_updates", "refunds"} {
		if err := scanCounts(ctx, db, `SELECT reference, count(*) FROM `+table+` GROUP BY reference`, in.Executions); err != nil {
			return err
		}
	}
	in.UpdateFrom = map[string][]int64{}
	rows, err := db.QueryContext(ctx, `SELECT order_id, from_version FROM order_updates`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var o string
		var v int64
		if err := rows.Scan(&o, &v); err != nil {
			rows.Close()
			return err
		}
		in.UpdateFrom[o] = append(in.UpdateFrom[o], v)
	}
	rows.Close()
	in.Version = map[string]int64{}
	rows, err = db.QueryContext(ctx, `SELECT id, version FROM orders`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var o string
		var v int64
		if err := rows.Scan(&o, &v); err != nil {
			return err
		}
		in.Version[o] = v
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return db.QueryRowContext(ctx, `SELECT count(*) FROM idem_ledger WHERE state = 'in_progress'`).Scan(&in.StuckLedgerRows)
}

// ReadEvents counts, for every event in the shop's outbox, the rows the
// consumer applied for it (its effects table, which has no unique index:
// the dedupe under test is the consumer's idem_consumed).
func ReadEvents(ctx context.Context, shop, consumer *sql.DB) (map[string]int, error) {
	events := map[string]int{}
	rows, err := shop.QueryContext(ctx, `SELECT event_id FROM idem_outbox`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		events[id] = 0
	}
	rows.Close()
	applied := map[string]int{}
	if err := scanCounts(ctx, consumer, `SELECT event_id, count(*) FROM applied GROUP BY event_id`, applied); err != nil {
		return nil, err
	}
	for id := range events {
		events[id] = applied[id]
	}
	return events, nil
}

func scanCounts(ctx context.Context, db *sql.DB, q string, into map[string]int) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		into[k] += n
	}
	return rows.Err()
}
