package ledger

import (
	"context"
	"time"
)

// Sweeper finds executions that reserved a key and never completed it (the
// process crashed, or the lease ran out), releases them so that a retry can
// execute, and purges keys past their TTL. Releasing is safe because a
// completion commits in the same transaction as the business rows: a row
// still in progress after its lease means no business rows were committed.
type Sweeper struct {
	Store Store
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Limit bounds the rows handled per sweep; default 1000.
	Limit int
	// ReportOnly lists stuck rows and changes nothing: no release, no purge.
	ReportOnly bool
}

// SweepReport says what one sweep found and did.
type SweepReport struct {
	// Stuck are the in-progress rows whose lease had expired.
	Stuck []Record
	// Released counts the stuck rows handed to Store.Release (0 with
	// ReportOnly); a row reclaimed meanwhile by a retry is left alone.
	Released int
	// Purged counts rows deleted for an expired TTL (0 with ReportOnly).
	Purged int64
}

// Sweep runs once.
func (s *Sweeper) Sweep(ctx context.Context) (SweepReport, error) {
	now, limit := time.Now, s.Limit
	if s.Now != nil {
		now = s.Now
	}
	if limit <= 0 {
		limit = 1000
	}
	t := now()
	var rep SweepReport
	stuck, err := s.Store.Stuck(ctx, t, limit)
	if err != nil {
		return rep, err
	}
	rep.Stuck = stuck
	if s.ReportOnly {
		return rep, nil
	}
	for _, rec := range stuck {
		// Guarded by owner: a retry that reclaimed the row meanwhile keeps it.
		if err := s.Store.Release(ctx, rec.ID, rec.LeaseOwner); err != nil {
			return rep, err
		}
		rep.Released++
	}
	rep.Purged, err = s.Store.Purge(ctx, t)
	return rep, err
}

// Run sweeps every interval until ctx ends, passing each report to report.
func (s *Sweeper) Run(ctx context.Context, interval time.Duration, report func(SweepReport, error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, err := s.Sweep(ctx)
		if ctx.Err() != nil {
			// Stopping: a pass cut short by the cancellation is not news.
			return
		}
		if report != nil {
			report(rep, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
