package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrJournalHold is joined to the error of a call without a deadline that
// the Runner stopped because its Journal could not renew the call's hold
// (JournalHolder) before it ran out: past it, a reconciler could settle an
// intent the call was still sending. The entry stays unresolved.
var ErrJournalHold = errors.New("idemrt: the journal could not renew the call's hold; the call was stopped")

// journalHold renews a running call's hold on its journal entry
// (JournalHolder) every journalHoldBeat on the Runner's clock, until the
// call ends.
type journalHold struct {
	// mu serialises the renewals and the end, so that no renewal lands
	// after the hold's final end.
	mu    sync.Mutex
	j     JournalHolder
	clock Clock
	id    string
	// base is when the entry settles without the hold: its deadline, else
	// its creation. The hold never ends before it.
	base time.Time
	// held is the end of the latest hold the journal stored.
	held  time.Time
	ctx   context.Context
	stop  func() bool
	ended bool
	// stopCall cancels a call without a deadline (nil for the others:
	// their entry never settles before their deadline); lost is set once
	// it did.
	stopCall context.CancelCauseFunc
	lost     atomic.Bool
}

// startHold starts renewing the hold of c's entry id, recorded held until
// held. A call without a deadline gets a context the hold can cancel.
func startHold(c *call, j JournalHolder, id string, base, held time.Time) *journalHold {
	h := &journalHold{j: j, clock: c.r.clock, id: id, base: base, held: held, ctx: context.WithoutCancel(&c.ctx)}
	if c.deadline.IsZero() {
		// Such a call has no shared deadline window: its context is its own.
		ctx, cancel := context.WithCancelCause(c.ctx.Context)
		c.ctx.Context, h.stopCall = ctx, cancel
		prev := c.cancel
		c.cancel = func() {
			cancel(nil)
			if prev != nil {
				prev()
			}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stop = afterFunc(h.clock, journalHoldBeat, h.renew)
	return h
}

// renew extends the hold to JournalHold from now and sets the next beat. A
// renewal that fails is tried again at the next beat, unless the hold would
// run out before it: a call without a deadline is then stopped, so that it
// is no longer sending when a reconciler may work its entry.
func (h *journalHold) renew() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return
	}
	now := h.clock.Now()
	ctx, cancel := context.WithTimeout(h.ctx, journalWriteTimeout)
	err := h.j.Hold(ctx, h.id, now.Add(JournalHold))
	cancel()
	switch {
	case err == nil:
		h.held = now.Add(JournalHold)
	case h.stopCall != nil && !now.Add(journalHoldBeat).Before(h.held):
		h.lost.Store(true)
		h.stopCall(fmt.Errorf("%w: entry %s: %w", ErrJournalHold, h.id, err))
		return
	}
	h.stop = afterFunc(h.clock, journalHoldBeat, h.renew)
}

// holdErr is err, with ErrJournalHold when the call's hold stopped it.
func (c *call) holdErr(err error) error {
	if m := c.first.more; m == nil || m.hold == nil || !m.hold.lost.Load() || errors.Is(err, ErrJournalHold) {
		// net/http reports the cancellation's cause itself.
		return err
	}
	return fmt.Errorf("%w: %w", ErrJournalHold, err)
}

// end stops the renewals; when the call leaves its entry unresolved, the
// hold ends now (or at the entry's deadline, when later): a reconciler
// then waits a grace from the call's end, not from a renewal.
func (h *journalHold) end(ctx context.Context, unresolved bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = true
	h.stop()
	if unresolved {
		_ = h.j.Hold(ctx, h.id, latest(h.base, h.clock.Now()))
	}
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
