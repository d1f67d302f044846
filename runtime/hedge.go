package runtime

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// HedgePolicy is when and how much a call of a safe operation is hedged
// (WithHedging): when a send has no answer after After, the same request
// is sent again, up to MaxAttempts sends in flight, and the first answer
// that settles the call wins.
type HedgePolicy struct {
	// After is the delay before each hedge, counted from the send before
	// it. Zero means the operation's recent p95: the 95th percentile of
	// its last 128 answered sends through this Runner; until 100 have been
	// seen, calls are not hedged. A negative After turns hedging off.
	After time.Duration
	// MaxAttempts is the most sends of one round in flight at once, the
	// first included (2: one hedge). Below 2, hedging is off. Every send,
	// hedge or not, still counts against Policy.MaxAttempts.
	MaxAttempts int
}

// ErrHedgeLost is the Err of the record of a hedged round's loser
// (OutcomeCancelled): another send of the round settled the call first.
var ErrHedgeLost = errors.New("idemrt: hedged send cancelled: another send of its round settled the call first")

// WithHedging hedges the calls of idempotent operations (Safety
// Idempotent, as safe methods are) by p: given to the client it hedges
// every such call, given to a call it sets that call's policy
// (WithHedging(HedgePolicy{}) turns hedging off for it). Unsafe and keyed
// operations are never hedged: an unsafe send may execute twice, and a
// keyed hedge would meet its own first send at the server's ledger as a
// 409 "in progress". Streams, downloads and streamed request bodies are
// not hedged either, nor calls that make one attempt (NoRetry, nested
// calls). Each hedge is a send like a retry: it passes the adaptive
// throttle and pays the retry budget's RetryCost, so hedging stops when
// the host is overloaded or the budget is spent.
func WithHedging(p HedgePolicy) ClientCallOption {
	hp := &p
	if p.MaxAttempts < 2 || p.After < 0 {
		hp = nil
	}
	return both(func(c *callConfig) { c.hedge = hp })
}

// sendRound makes the sends of one round of the attempt loop: one send, or
// a hedged round when the call is hedged.
func (c *call) sendRound(why Reason, wait time.Duration, src WaitSource) sent {
	if !c.hedged() {
		return c.send(why, wait, src)
	}
	k := c.r.sketches.of(c.op)
	delay := c.cfg.hedge.After
	if delay == 0 && k != nil {
		delay = k.quantile()
	}
	if delay <= 0 {
		// No p95 yet: a plain send, whose duration teaches the sketch.
		start := c.r.clock.Now()
		s := c.send(why, wait, src)
		if k != nil && s.err == nil {
			k.add(c.r.clock.Now().Sub(start))
		}
		return s
	}
	// No round has more sends than the call may make in all.
	r := hedgeRound{c: c, sketch: k, delay: delay, max: min(c.cfg.hedge.MaxAttempts, c.pol.MaxAttempts)}
	return r.run(why, wait, src)
}

// hedged reports whether the call's sends are hedged: it may make more
// than one.
func (c *call) hedged() bool {
	return c.cfg.hedge != nil && c.op.Safety == Idempotent && !c.single && c.pol.MaxAttempts > 1 &&
		c.live == nil && c.req.Stream == nil
}

// cancelBoth returns a context of ctx that a cancel ends, and a cancel
// that ends it and calls inner (when not nil) too.
func cancelBoth(ctx context.Context, inner context.CancelFunc) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if inner == nil {
		return ctx, cancel
	}
	return ctx, func() {
		cancel()
		inner()
	}
}

// hedgeRound is one round of a hedged call: its first send and the hedges
// made while no answer settled the call. It runs on the call's goroutine;
// only the sends themselves (Doer.Do) run on goroutines of their own, which
// hand their results back on results.
type hedgeRound struct {
	c      *call
	sketch *latencySketch
	delay  time.Duration
	max    int
	// results has room for every send of the round, so a send that ends
	// after the round does not block its goroutine.
	results chan flightResult
	// fire receives the hedge timer's tick: the channel of timer on the
	// system clock, else one that the clock's AfterFunc (stopped by stop)
	// sends to.
	fire   <-chan time.Time
	timer  *time.Timer
	stop   func() bool
	flying []*flight
	// launched counts the round's sends so far.
	launched int
}

// flight is one send of a round, in flight. number is its record's
// Number: sends are numbered in the order they leave, and recorded in the
// order they end.
type flight struct {
	s       sent
	tr      *attemptTrace
	started time.Time
	number  int
}

// flightResult is what Doer.Do returned for a flight.
type flightResult struct {
	f       *flight
	resp    *http.Response
	reached bool
	err     error
}

// run makes the round's first send, then hedges until an answer settles
// the call or every send of the round failed; it returns that send.
func (r *hedgeRound) run(why Reason, wait time.Duration, src WaitSource) sent {
	c := r.c
	s, hr, tr := c.prepare(why, wait, src, sendRoundFirst)
	if s.unsent || c.throttledFirst(&s) {
		return s
	}
	r.results = make(chan flightResult, r.max)
	r.launch(s, hr, tr)
	defer r.disarm()
	for {
		select {
		case <-r.fire:
			r.hedge()
		case res := <-r.results:
			if s, done := r.land(res); done {
				return s
			}
		}
	}
}

// launch starts a flight and arms the timer of the next hedge.
func (r *hedgeRound) launch(s sent, hr *http.Request, tr *attemptTrace) {
	// The call's sends so far, those in flight, and this one.
	n := int(r.c.sends) + len(r.flying) + 1
	f := &flight{s: s, tr: tr, started: r.c.r.clock.Now(), number: n}
	r.flying = append(r.flying, f)
	r.launched++
	c, results := r.c, r.results
	go func() {
		resp, reached, err := c.do(hr)
		results <- flightResult{f: f, resp: resp, reached: reached, err: err}
	}()
	if r.launched < r.max {
		r.arm()
	}
}

// arm starts the timer of the next hedge: a time.Timer on the system clock
// (its channel is fire), else the clock's AfterFunc, so that a test's fake
// clock decides when a hedge is due.
func (r *hedgeRound) arm() {
	if _, ok := r.c.r.clock.(systemClock); ok {
		if r.timer == nil {
			r.timer = time.NewTimer(r.delay)
			r.fire = r.timer.C
		} else {
			r.timer.Reset(r.delay)
		}
		return
	}
	fire := make(chan time.Time, 1)
	r.fire = fire
	r.stop = afterFunc(r.c.r.clock, r.delay, func() { fire <- time.Time{} })
}

// disarm stops the timer of a hedge not yet made.
func (r *hedgeRound) disarm() {
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.stop != nil {
		r.stop()
	}
}

// hedge makes one more send of the round, when the limits allow it.
func (r *hedgeRound) hedge() {
	ok := r.tryHedge()
	if r.c.r.hedgeTick != nil {
		r.c.r.hedgeTick(ok)
	}
}

// tryHedge sends a hedge and reports whether it did.
func (r *hedgeRound) tryHedge() bool {
	if len(r.flying) == 0 || !r.allowed() {
		return false
	}
	c := r.c
	s, hr, tr := c.prepare(ReasonHedge, r.delay, WaitNone, sendHedge)
	if s.unsent {
		// An editor failed, or the call is ending: the sends in flight
		// carry on alone, and the hedge's token goes back.
		c.budget().refund()
		return false
	}
	s.rec.TimeLeft = c.timeLeft()
	r.launch(s, hr, tr)
	return true
}

// allowed applies the limits before a hedge, as gate does before a retry:
// the call's attempts (a hedge is a send like any other), the time left,
// the adaptive throttle and the retry budget (last, so a hedge refused
// anyway spends no token).
func (r *hedgeRound) allowed() bool {
	c := r.c
	if int(c.sends)+len(r.flying) >= c.pol.MaxAttempts {
		return false
	}
	if !c.deadline.IsZero() && c.timeLeft() < c.pol.MinAttempt {
		return false
	}
	return c.throttleAllows() && c.budget().take(false)
}

// land takes one send's result. It returns the round's send when the round
// is over: an answer that settles the call (the others are cancelled), or
// the last send in flight ending in a way the attempt loop judges (a
// retryable failure goes back to its gate, as a lone send's would).
func (r *hedgeRound) land(res flightResult) (sent, bool) {
	c, f := r.c, res.f
	r.remove(f)
	s := f.s
	s.resp, s.reached, s.err = res.resp, res.reached, res.err
	c.afterSend(&s, s.ctx, f.tr)
	s.rec.Number = f.number
	if s.err == nil && r.sketch != nil {
		r.sketch.add(c.r.clock.Now().Sub(f.started))
	}
	if len(r.flying) == 0 {
		return s, true
	}
	v := c.judge(&s)
	if v.act != actRetry {
		r.cancelLosers()
		return s, true
	}
	// A failure worth a retry while other sends are still in flight: it
	// is recorded, and the round waits for them.
	c.unknown = c.unknown || v.unknown
	c.reached = c.reached || s.written || s.err == nil
	discard(s.resp, c.pol.ErrorBodyTimeout)
	s.releaseAttempt()
	c.emit(s.rec)
	return sent{}, false
}

// remove takes f off the flights in the air.
func (r *hedgeRound) remove(f *flight) {
	for i, g := range r.flying {
		if g == f {
			r.flying = append(r.flying[:i], r.flying[i+1:]...)
			return
		}
	}
}

// cancelLosers ends the round's other sends: each is cancelled and
// recorded now (OutcomeCancelled, ErrHedgeLost), and its answer, should one
// still come, is drained and closed off the call's path: the winner waits
// for none of them, and no connection is left holding an unread body. A
// loser says nothing of the host's health, so the adaptive throttle does
// not count it; the sketch takes its time so far, a lower bound.
func (r *hedgeRound) cancelLosers() {
	c := r.c
	now := c.r.clock.Now()
	for _, f := range r.flying {
		f.s.releaseAttempt()
		if r.sketch != nil {
			r.sketch.add(now.Sub(f.started))
		}
		c.sends++
		rec := f.s.rec
		rec.Number, rec.Outcome, rec.Err = f.number, OutcomeCancelled, ErrHedgeLost
		c.emit(rec)
	}
	n, results, d := len(r.flying), r.results, c.pol.ErrorBodyTimeout
	r.flying = nil
	go func() {
		for range n {
			res := <-results
			discard(res.resp, d)
		}
	}()
}
