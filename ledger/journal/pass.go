package journal

import (
	"context"
	"time"
)

// Pass is what one reconciliation pass did.
type Pass struct {
	Owner      string
	Start, End time.Time
	// Claimed entries were due; each was then settled as Executed,
	// NotExecuted or NeedsPerson, or left for a later pass (Later).
	Claimed, Executed, NotExecuted, NeedsPerson, Later int
	// Err is the error that ended the pass early (claiming or settling).
	Err error
}

// Observer hears of every pass; the otel module adapts it to a span
// (idemotel.ReconcilerObserver).
type Observer interface {
	ObservePass(ctx context.Context, p Pass)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(context.Context, Pass)

// ObservePass calls f(ctx, p).
func (f ObserverFunc) ObservePass(ctx context.Context, p Pass) { f(ctx, p) }

// Pass claims the due entries once and settles what it can; Run calls it
// every Interval, and a test or a cron job may call it directly.
func (r *Reconciler) Pass(ctx context.Context) Pass {
	p := Pass{Owner: r.owner(), Start: r.now()}
	defer func() {
		p.End = r.now()
		if r.Observer != nil {
			r.Observer.ObservePass(ctx, p)
		}
	}()
	if r.Journal == nil || r.Client == nil {
		p.Err = ErrNoClient
		return p
	}
	es, err := r.Journal.Claim(ctx, p.Owner, p.Start, r.grace(), r.lease(), r.batch())
	if err != nil {
		p.Err = err
		return p
	}
	p.Claimed = len(es)
	for i := range es {
		if err := r.reconcile(ctx, &es[i], &p); err != nil {
			p.Err = err
			return p
		}
	}
	return p
}

func (r *Reconciler) batch() int {
	if r.Batch > 0 {
		return r.Batch
	}
	return 100
}

// reconcile settles one claimed entry, or leaves it for later.
func (r *Reconciler) reconcile(ctx context.Context, e *Entry, p *Pass) error {
	o, ok := r.decide(ctx, e)
	if !ok {
		p.Later++
		return nil
	}
	state := StateResolved
	if o.Kind == NeedsPerson {
		state = StateNeedsPerson
	}
	note := ""
	if o.Kind == NeedsPerson {
		note = o.Why
	}
	switch err := r.Journal.Settle(ctx, e.ID, p.Owner, state, o.Kind.String(), o.Status, note); {
	case err == ErrLeaseLost:
		// Another reconciler holds it now and will report it.
		p.Later++
		return nil
	case err != nil:
		return err
	}
	switch o.Kind {
	case Executed:
		p.Executed++
	case NotExecuted:
		p.NotExecuted++
	default:
		p.NeedsPerson++
	}
	if r.OnResolved != nil {
		e.State, e.Resolution, e.Note = state, o.Kind.String(), note
		r.OnResolved(*e, o)
	}
	return nil
}
