package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/idemgen/idemgen/ledger/journal"
)

// The JSON shapes of `idemgen journal`; scripts read them, so a name never
// changes meaning.

type journalListReport struct {
	Database string             `json:"database"`
	Now      time.Time          `json:"now"`
	Counts   map[string]int64   `json:"counts"`
	Entries  []journalEntryView `json:"entries"`
}

type journalEntryView struct {
	ID          string               `json:"id"`
	Operation   string               `json:"operation"`
	Safety      string               `json:"safety"`
	Method      string               `json:"method"`
	URL         string               `json:"url"`
	Key         string               `json:"key"`
	Fingerprint string               `json:"fingerprint"`
	State       string               `json:"state"`
	Queued      bool                 `json:"queued"`
	Partial     bool                 `json:"partial"`
	CreatedAt   time.Time            `json:"created_at"`
	Deadline    *time.Time           `json:"deadline,omitempty"`
	HeldUntil   *time.Time           `json:"held_until,omitempty"`
	TTLSeconds  int64                `json:"ttl_seconds"`
	Attempts    int                  `json:"attempts"`
	LastStatus  int                  `json:"last_status"`
	LastOutcome string               `json:"last_outcome"`
	LastError   string               `json:"last_error"`
	Resolution  string               `json:"resolution"`
	Note        string               `json:"note"`
	Headers     map[string][]string  `json:"headers,omitempty"`
	BodyBytes   int                  `json:"body_bytes"`
	BodyBase64  *string              `json:"body_base64,omitempty"`
	AttemptList []journal.AttemptRow `json:"attempt_list,omitempty"`
	body        []byte
	truncated   bool
}

func newJournalEntryView(e journal.Entry) journalEntryView {
	v := journalEntryView{ID: e.ID, Operation: e.Operation, Safety: e.Safety.String(), Method: e.Method, URL: e.URL,
		Key: e.Key, Fingerprint: e.Fingerprint, State: string(e.State), Queued: e.Queued, Partial: e.Partial,
		CreatedAt: e.Created.UTC(), TTLSeconds: seconds(e.TTL), Attempts: e.Attempts, LastStatus: e.LastStatus,
		LastOutcome: e.LastOutcome, LastError: e.LastError, Resolution: e.Resolution, Note: e.Note, BodyBytes: len(e.Body)}
	if !e.Deadline.IsZero() {
		d := e.Deadline.UTC()
		v.Deadline = &d
	}
	if !e.HeldUntil.IsZero() {
		h := e.HeldUntil.UTC()
		v.HeldUntil = &h
	}
	return v
}

func journalList(ctx context.Context, j *journal.SQL, flags journalFlags, db string, now time.Time, w io.Writer) error {
	counts, err := j.Counts(ctx)
	if err != nil {
		return problemf("reading %s: %v", escapeText(db), err)
	}
	es, err := j.List(ctx, journal.State(flags.state), flags.limit)
	if err != nil {
		return problemf("reading %s: %v", escapeText(db), err)
	}
	r := journalListReport{Database: db, Now: now.UTC(), Counts: map[string]int64{}, Entries: []journalEntryView{}}
	for st, n := range counts {
		r.Counts[string(st)] = n
	}
	for _, e := range es {
		r.Entries = append(r.Entries, newJournalEntryView(e))
	}
	return writeJournal(w, flags.format, r, func() error { return writeJournalListText(w, r) })
}

func writeJournalListText(w io.Writer, r journalListReport) error {
	fmt.Fprintf(w, "journal %s at %s\n\n", escapeText(r.Database), stamp(r.Now))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "unresolved\t%d\tin flight, unknown or queued: the reconciler's work\n", r.Counts[string(journal.StateUnresolved)])
	fmt.Fprintf(tw, "resolved\t%d\t\n", r.Counts[string(journal.StateResolved)])
	fmt.Fprintf(tw, "needs-person\t%d\tthe reconciler will not settle them alone (idemgen journal show ID says why)\n", r.Counts[string(journal.StateNeedsPerson)])
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Entries) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nlatest entries: %d (newest first)\n", len(r.Entries))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tOPERATION\tSAFETY\tKEY\tSTATE\tAGE\tATTEMPTS\tLAST\tNOTE")
	for _, e := range r.Entries {
		last := e.LastOutcome
		if e.LastStatus != 0 {
			last = fmt.Sprintf("%d %s", e.LastStatus, e.LastOutcome)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", cell(e.ID), cellEnds(e.Operation), e.Safety, cell(e.Key),
			cell(e.State+resolutionSuffix(e)), formatAge(r.Now.Sub(e.CreatedAt)), e.Attempts, cell(orDash(last)), cell(orDash(e.Note)))
	}
	return tw.Flush()
}

func resolutionSuffix(e journalEntryView) string {
	if e.Resolution == "" || e.Resolution == e.State {
		return ""
	}
	return " (" + e.Resolution + ")"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func journalShow(ctx context.Context, j *journal.SQL, flags journalFlags, id, db string, now time.Time, w io.Writer) error {
	e, attempts, found, err := j.Get(ctx, id)
	if err != nil {
		return problemf("reading %s: %v", escapeText(db), err)
	}
	if !found {
		return problemf("no entry %s in %s", quoteText(id), escapeText(db))
	}
	v := newJournalEntryView(e)
	v.Headers, v.AttemptList = e.Header, attempts
	if flags.showBody {
		v.body, v.truncated = e.Body, len(e.Body) > flags.bodyLimit
		if v.truncated {
			v.body = v.body[:flags.bodyLimit]
		}
		b64 := base64.StdEncoding.EncodeToString(v.body)
		v.BodyBase64 = &b64
	}
	return writeJournal(w, flags.format, v, func() error { return writeJournalEntryText(w, v, db, now) })
}

func writeJournalEntryText(w io.Writer, v journalEntryView, db string, now time.Time) error {
	fmt.Fprintf(w, "journal %s at %s\n\n", escapeText(db), stamp(now))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "id\t%s\n", escapeText(v.ID))
	fmt.Fprintf(tw, "operation\t%s (%s)\n", escapeText(v.Operation), v.Safety)
	fmt.Fprintf(tw, "request\t%s %s\n", escapeText(v.Method), escapeText(v.URL))
	fmt.Fprintf(tw, "key\t%s\n", escapeText(v.Key))
	fmt.Fprintf(tw, "fingerprint\t%s\n", escapeText(v.Fingerprint))
	fmt.Fprintf(tw, "state\t%s%s\n", escapeText(v.State), escapeText(resolutionSuffix(v)))
	if v.Note != "" {
		fmt.Fprintf(tw, "why\t%s\n", escapeText(v.Note))
	}
	fmt.Fprintf(tw, "created\t%s (%s)\n", relative(v.CreatedAt, now), stamp(v.CreatedAt))
	if v.Deadline != nil {
		fmt.Fprintf(tw, "deadline\t%s (%s)\n", relative(*v.Deadline, now), stamp(*v.Deadline))
	}
	if v.HeldUntil != nil {
		who := "ended: no process holds it"
		if v.HeldUntil.After(now) {
			who = "the process that made the call still holds it"
		}
		fmt.Fprintf(tw, "held until\t%s (%s): %s\n", relative(*v.HeldUntil, now), stamp(*v.HeldUntil), who)
	}
	fmt.Fprintf(tw, "key TTL\t%s, ends %s\n", formatAge(time.Duration(v.TTLSeconds)*time.Second), relative(v.CreatedAt.Add(time.Duration(v.TTLSeconds)*time.Second), now))
	writeHeaderLines(tw, v.Headers)
	for _, a := range v.AttemptList {
		fmt.Fprintf(tw, "attempt %d\t%s, status %d, %s%s\n", a.Number, escapeText(a.Reason), a.Status, escapeText(a.Outcome), errSuffix(a.Error))
	}
	writeJournalBody(tw, v)
	return tw.Flush()
}

func errSuffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + escapeText(s)
}

func writeJournalBody(w io.Writer, v journalEntryView) {
	switch {
	case v.Partial:
		fmt.Fprintf(w, "body\tnot kept (a stream, or above the buffering limit): the entry is never resent\n")
	case v.BodyBase64 == nil && v.BodyBytes > 0:
		fmt.Fprintf(w, "body\t%d bytes, hidden (--show-body prints it)\n", v.BodyBytes)
	case v.BodyBase64 != nil:
		cut := ""
		if v.truncated {
			cut = fmt.Sprintf(" (first %d of %d bytes)", len(v.body), v.BodyBytes)
		}
		fmt.Fprintf(w, "body\t%s%s\n", quoteText(string(v.body)), cut)
	}
}
