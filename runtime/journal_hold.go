package runtime

import (
	"context"
	"sync"
	"time"
)

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
	base  time.Time
	ctx   context.Context
	stop  func() bool
	ended bool
}

// startHold starts renewing the hold of c's entry id, recorded held for
// JournalHold.
func startHold(c *call, j JournalHolder, id string, base time.Time) *journalHold {
	h := &journalHold{j: j, clock: c.r.clock, id: id, base: base, ctx: context.WithoutCancel(&c.ctx)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stop = afterFunc(h.clock, journalHoldBeat, h.renew)
	return h
}

// renew extends the hold to JournalHold from now and sets the next beat. A
// renewal that fails is tried again at the next beat; the call goes on (a
// journal its process cannot reach is, most often, one that no reconciler
// can reach either).
func (h *journalHold) renew() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, journalWriteTimeout)
	_ = h.j.Hold(ctx, h.id, h.clock.Now().Add(JournalHold))
	cancel()
	h.stop = afterFunc(h.clock, journalHoldBeat, h.renew)
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
