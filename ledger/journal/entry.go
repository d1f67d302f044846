package journal

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// Entry is a journal entry with what happened to it so far.
type Entry struct {
	idemrt.JournalEntry
	State State
	// Attempts counts the attempts stored; LastStatus, LastOutcome and
	// LastError are the latest one's.
	Attempts    int
	LastStatus  int
	LastOutcome string
	LastError   string
	// Resolution says how the entry was resolved: the call's outcome
	// ("success", "rejected", "not-sent"), or a reconciler's Kind
	// ("executed", "not-executed", "needs-person"). Note is the
	// reconciler's reason for a person.
	Resolution string
	Note       string
	ResolvedAt time.Time
	// LeaseOwner holds the entry until LeaseUntil (a reconciler at work).
	LeaseOwner string
	LeaseUntil time.Time
}

// AttemptRow is one stored attempt (the JSON names are idemgen journal's).
type AttemptRow struct {
	Number  int           `json:"number"`
	Reason  string        `json:"reason"`
	Status  int           `json:"status"`
	Outcome string        `json:"outcome"`
	Error   string        `json:"error"`
	Wait    time.Duration `json:"wait_ns"`
	Final   bool          `json:"final"`
}

// stateColumns follow entryColumns in scanEntry's order.
const stateColumns = `state, attempts, last_status, last_outcome, last_error, resolution, note, resolved_at,
lease_owner, lease_until, settles_at`

// attemptColumns are idem_journal_attempt's, in insert order.
const attemptColumns = `entry_id, number, reason, status, outcome, error, wait_ns, final`

type scanner interface{ Scan(dest ...any) error }

// scanEntry reads the columns entryColumns, stateColumns.
func scanEntry(sc scanner) (Entry, error) {
	var (
		e                                           Entry
		safety, hdr, state                          string
		partial, queued                             int
		created, deadline, ttl, res, lease, settles int64
	)
	err := sc.Scan(&e.ID, &e.Operation, &safety, &e.Method, &e.URL, &hdr, &e.Body, &partial, &queued, &e.Key,
		&e.Fingerprint, &created, &deadline, &ttl,
		&state, &e.Attempts, &e.LastStatus, &e.LastOutcome, &e.LastError, &e.Resolution, &e.Note, &res,
		&e.LeaseOwner, &lease, &settles)
	if err != nil {
		return Entry{}, err
	}
	if err := json.Unmarshal([]byte(hdr), &e.Header); err != nil {
		return Entry{}, fmt.Errorf("journal: entry %s: header: %w", e.ID, err)
	}
	if len(e.Body) == 0 {
		e.Body = nil
	}
	e.Safety, e.State = parseSafety(safety), State(state)
	e.Partial, e.Queued = partial != 0, queued != 0
	e.Created, e.Deadline, e.TTL = fromNanos(created), fromNanos(deadline), time.Duration(ttl)
	e.ResolvedAt, e.LeaseUntil = fromNanos(res), fromNanos(lease)
	if held := fromNanos(settles); held.After(e.Settles()) {
		// Only a hold puts the settle time past the deadline and creation.
		e.HeldUntil = held
	}
	return e, nil
}

// parseSafety reads Safety.String back; anything else is Unsafe, the
// reading that never resends.
func parseSafety(s string) idemrt.Safety {
	switch s {
	case idemrt.Keyed.String():
		return idemrt.Keyed
	case idemrt.Idempotent.String():
		return idemrt.Idempotent
	}
	return idemrt.Unsafe
}

func scanEntries(rows *sql.Rows) ([]Entry, error) {
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
