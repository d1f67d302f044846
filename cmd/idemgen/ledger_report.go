package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/outbox"
	"github.com/idemgen/idemgen/ledger/sqlstore"
)

// The JSON shapes of `idemgen ledger`. docs/cli.md lists the field names;
// scripts read them, so a name never changes meaning.

// overviewReport is the default view.
type overviewReport struct {
	Database string       `json:"database"`
	Now      time.Time    `json:"now"`
	Keys     keyCounts    `json:"keys"`
	Stuck    []recordView `json:"stuck"`
	Outbox   outboxView   `json:"outbox"`
	// Consumers are the events consumers parked in this database.
	Consumers consumersView `json:"consumers"`
}

type keyCounts struct {
	Total int64 `json:"total"`
	// States counts rows per stored state (in_progress, completed).
	States map[string]int64 `json:"states"`
	// Stuck and Expired count what a sweep now would release and purge.
	Stuck   int64 `json:"stuck"`
	Expired int64 `json:"expired"`
}

type outboxView struct {
	Undelivered int64       `json:"undelivered"`
	Failing     int64       `json:"failing"`
	Oldest      []eventView `json:"oldest"`
	// Parked counts the events the relay parked after a permanent publish
	// failure; ParkedEvents lists them in seq order.
	Parked       int64       `json:"parked"`
	ParkedEvents []eventView `json:"parked_events"`
}

type eventView struct {
	Seq        int64      `json:"seq"`
	EventID    string     `json:"event_id"`
	Topic      string     `json:"topic"`
	CreatedAt  time.Time  `json:"created_at"`
	AgeSeconds int64      `json:"age_seconds"`
	Attempts   int        `json:"attempts"`
	LastError  string     `json:"last_error"`
	ParkedAt   *time.Time `json:"parked_at,omitempty"`
}

type consumersView struct {
	Parked       int64               `json:"parked"`
	ParkedEvents []consumedEventView `json:"parked_events"`
}

// consumedEventView is an event a consumer parked (outbox.ParkedEvent).
type consumedEventView struct {
	Consumer      string    `json:"consumer"`
	Source        string    `json:"source"`
	EventID       string    `json:"event_id"`
	Topic         string    `json:"topic"`
	PayloadBytes  int       `json:"payload_bytes"`
	Deliveries    int       `json:"deliveries"`
	LastError     string    `json:"last_error"`
	ParkedAt      time.Time `json:"parked_at"`
	ParkedSeconds int64     `json:"parked_seconds"`
}

// keyReport is the --key view.
type keyReport struct {
	Database string       `json:"database"`
	Now      time.Time    `json:"now"`
	Records  []recordView `json:"records"`
}

// recordView is one ledger row. Durations are whole seconds from now:
// negative when the instant has passed.
type recordView struct {
	Caller                string              `json:"caller"`
	Operation             string              `json:"operation"`
	Key                   string              `json:"key"`
	Fingerprint           string              `json:"fingerprint"`
	State                 string              `json:"state"`
	Stuck                 bool                `json:"stuck"`
	Expired               bool                `json:"expired"`
	Status                int                 `json:"status"`
	CreatedAt             time.Time           `json:"created_at"`
	AgeSeconds            int64               `json:"age_seconds"`
	ExpiresAt             time.Time           `json:"expires_at"`
	ExpiresInSeconds      int64               `json:"expires_in_seconds"`
	LeaseOwner            string              `json:"lease_owner"`
	LeaseExpiresAt        time.Time           `json:"lease_expires_at"`
	LeaseExpiresInSeconds int64               `json:"lease_expires_in_seconds"`
	BodyBytes             int                 `json:"body_bytes"`
	Headers               map[string][]string `json:"headers,omitempty"`
	BodyBase64            *string             `json:"body_base64,omitempty"`
	BodyTruncated         bool                `json:"body_truncated,omitempty"`

	// body is the shown part of the body for the text view.
	body []byte
}

// newRecordView describes rec at now; the stored headers and at most
// bodyLimit bytes of the body are included when bodyLimit >= 0.
func newRecordView(rec ledger.Record, now time.Time, bodyLimit int) recordView {
	v := recordView{
		Caller: rec.Caller, Operation: rec.Operation, Key: rec.Key, Fingerprint: rec.Fingerprint,
		State: string(rec.State), Stuck: rec.Stuck(now), Expired: rec.Expired(now), Status: rec.Response.Status,
		CreatedAt: rec.CreatedAt.UTC(), AgeSeconds: seconds(now.Sub(rec.CreatedAt)),
		ExpiresAt: rec.ExpiresAt.UTC(), ExpiresInSeconds: seconds(rec.ExpiresAt.Sub(now)),
		LeaseOwner: rec.LeaseOwner, LeaseExpiresAt: rec.LeaseExpires.UTC(),
		LeaseExpiresInSeconds: seconds(rec.LeaseExpires.Sub(now)), BodyBytes: len(rec.Response.Body),
	}
	if bodyLimit < 0 {
		return v
	}
	v.Headers = rec.Response.Header
	if v.Headers == nil {
		v.Headers = map[string][]string{}
	}
	v.body = rec.Response.Body
	if len(v.body) > bodyLimit {
		v.body, v.BodyTruncated = v.body[:bodyLimit], true
	}
	enc := base64.StdEncoding.EncodeToString(v.body)
	v.BodyBase64 = &enc
	return v
}

func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// readOverview reads the counts, the stuck rows (through Store.Stuck, the
// sweeper's own query), the outbox backlog and the parked events.
func readOverview(ctx context.Context, s *sqlstore.Store, ob *outbox.Outbox, now time.Time, limit int) (overviewReport, error) {
	ov := overviewReport{Now: now.UTC(), Stuck: []recordView{}}
	st, err := s.Stats(ctx, now)
	if err != nil {
		return ov, err
	}
	ov.Keys = keyCounts{States: map[string]int64{}, Stuck: st.Stuck, Expired: st.Expired}
	for state, n := range st.States {
		ov.Keys.States[string(state)] = n
		ov.Keys.Total += n
	}
	stuck, err := s.Stuck(ctx, now, limit)
	if err != nil {
		return ov, err
	}
	for _, rec := range stuck {
		ov.Stuck = append(ov.Stuck, newRecordView(rec, now, -1))
	}
	return ov, readOutbox(ctx, &ov, ob, now, limit)
}

// readOutbox reads the relay's backlog and parked events, and the events
// consumers parked.
func readOutbox(ctx context.Context, ov *overviewReport, ob *outbox.Outbox, now time.Time, limit int) error {
	bl, err := ob.Backlog(ctx, limit)
	if err != nil {
		return err
	}
	ov.Outbox.Undelivered, ov.Outbox.Failing, ov.Outbox.Parked = bl.Undelivered, bl.Failing, bl.Parked
	ov.Outbox.Oldest = newEventViews(bl.Oldest, now)
	ov.Outbox.ParkedEvents = newEventViews(bl.ParkedEvents, now)
	n, parked, err := ob.Parked(ctx, limit)
	if err != nil {
		return err
	}
	ov.Consumers = consumersView{Parked: n, ParkedEvents: []consumedEventView{}}
	for _, p := range parked {
		ov.Consumers.ParkedEvents = append(ov.Consumers.ParkedEvents, consumedEventView{Consumer: p.Consumer,
			Source: p.Event.Source, EventID: p.Event.ID, Topic: p.Event.Topic, PayloadBytes: p.PayloadBytes,
			Deliveries: p.Deliveries, LastError: p.LastError, ParkedAt: p.ParkedAt.UTC(), ParkedSeconds: seconds(now.Sub(p.ParkedAt))})
	}
	return nil
}

func newEventViews(events []outbox.Undelivered, now time.Time) []eventView {
	out := []eventView{}
	for _, e := range events {
		v := eventView{Seq: e.Seq, EventID: e.ID, Topic: e.Topic, CreatedAt: e.CreatedAt.UTC(),
			AgeSeconds: seconds(now.Sub(e.CreatedAt)), Attempts: e.Attempts, LastError: e.LastError}
		if !e.ParkedAt.IsZero() {
			at := e.ParkedAt.UTC()
			v.ParkedAt = &at
		}
		out = append(out, v)
	}
	return out
}

// writeLedgerJSON writes v indented. encoding/json escapes the C0 controls;
// every other rune that is not printable (DEL, the C1 controls among them
// the one-byte CSI, bidi overrides, zero-width characters) is escaped here,
// so the raw JSON is safe to print and the values stay exact.
func writeLedgerJSON(w io.Writer, v any) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, escapeJSONRunes(b.String()))
	return err
}

// escapeJSONRunes rewrites the non-printable runes above ASCII of encoded
// JSON as \u escapes (a surrogate pair above U+FFFF). Outside strings JSON
// holds only ASCII, so every such rune is inside a string, where the escape
// stands for the same rune.
func escapeJSONRunes(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x7f || unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}
