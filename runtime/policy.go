package runtime

import "time"

// Class separates interactive calls (a person is waiting) from background
// work (queues, batch jobs). Each class has its own default Policy and its own
// retry budget in every Runner, so a background storm cannot spend the
// retries that interactive calls need.
type Class int

const (
	// Interactive is the default class: short deadline, few attempts.
	Interactive Class = iota
	// Background tolerates long waits and more attempts.
	Background
)

// String names the class.
func (c Class) String() string {
	if c == Background {
		return "background"
	}
	return "interactive"
}

// valid maps out-of-range classes to Interactive so that a bad value never
// indexes out of the Runner's per-class arrays.
func (c Class) valid() Class {
	if c == Background {
		return Background
	}
	return Interactive
}

// Policy bounds the attempts of one call.
//
// A zero field takes the class's default (DefaultPolicy), so a policy that
// sets only some fields (Policy{MaxAttempts: 2}) keeps every other bound,
// the Retry-After ceiling and the body limits included. Timeout and
// AttemptTimeout take a negative value for "none"; the other bounds cannot
// be switched off.
type Policy struct {
	// MaxAttempts is the most sends of one call, the first included
	// (values below 1 take the default). Transport replays count; redirect
	// hops do not.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the full-jitter backoff: before retry n
	// (n = 0 for the first retry) the engine waits a uniformly random time in
	// [0, min(MaxDelay, BaseDelay * 2^n)).
	BaseDelay, MaxDelay time.Duration
	// Timeout is the total deadline of a call whose context has none
	// (negative: no deadline besides the context's). It covers waits,
	// attempts and reading the successful response's body.
	Timeout time.Duration
	// AttemptTimeout bounds one attempt, reading a success body included
	// (negative: only the total deadline). An attempt that runs out of it
	// has an unknown outcome, and its retry costs Budget.TimeoutCost.
	AttemptTimeout time.Duration
	// MaxRetryAfter is the longest server hint the engine honours
	// (Retry-After, retry-after-ms, or a rate limit's reset:
	// x-ratelimit-reset, RateLimit, RateLimit-Reset); a longer hint stops
	// the call at once with ErrRetryAfterTooLong (and ErrRateLimited for a
	// rate limit).
	MaxRetryAfter time.Duration
	// MinAttempt is the least time an attempt needs: a retry is made only when
	// its wait plus MinAttempt fits before the deadline.
	MinAttempt time.Duration
	// MaxBody is the largest success body the engine reads (default 32 MiB);
	// a larger one ends the call with a *BodyTooLargeError.
	MaxBody int64
	// ErrorBodyTimeout bounds reading the body of an error status (kept up
	// to MaxErrorBody) or of a response the engine discards (default 1s), so
	// a body that never finishes cannot spend the call's deadline.
	ErrorBodyTimeout time.Duration
	// MaxBuffer is the most of a plain io.Reader request body (a File's
	// content, an octet-stream body) the engine buffers so it can resend it
	// (default 8 MiB); a longer one is sent once (ErrBodyNotReplayable).
	MaxBuffer int64
	// IdleTimeout bounds the wait for data of a live response (an event
	// stream, a download) once its headers are in: the call's deadline
	// covers the headers only, and from then on each read of the body must
	// make progress within IdleTimeout (default 30s interactive, 2min
	// background; negative: none), so a long healthy stream is never cut.
	IdleTimeout time.Duration
}

// DefaultMaxBody is the default Policy.MaxBody: 32 MiB.
const DefaultMaxBody = 32 << 20

// withDefaults returns p with every zero field taken from d, and negative
// timeouts turned into "none" (0).
func (p Policy) withDefaults(d Policy) Policy {
	if p.MaxAttempts < 1 {
		p.MaxAttempts = d.MaxAttempts
	}
	fill := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&p.BaseDelay, d.BaseDelay)
	fill(&p.MaxDelay, d.MaxDelay)
	fill(&p.Timeout, d.Timeout)
	fill(&p.AttemptTimeout, d.AttemptTimeout)
	fill(&p.MinAttempt, d.MinAttempt)
	fill(&p.ErrorBodyTimeout, d.ErrorBodyTimeout)
	fill(&p.IdleTimeout, d.IdleTimeout)
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	if p.MaxBody <= 0 {
		p.MaxBody = d.MaxBody
	}
	if p.MaxBuffer <= 0 {
		p.MaxBuffer = d.MaxBuffer
	}
	p.Timeout, p.AttemptTimeout = max(p.Timeout, 0), max(p.AttemptTimeout, 0)
	p.IdleTimeout = max(p.IdleTimeout, 0)
	return p
}

// DefaultPolicy returns the policy a Runner uses for c unless WithPolicy
// replaces it.
//
// Interactive: 3 attempts, backoff 100ms doubling up to 1s, 10s total,
// Retry-After honoured up to 3s, 100ms minimal attempt, success bodies up to
// 32 MiB, error bodies read for at most 1s (both classes), 30s of silence
// allowed on a live response (an event stream, a download). A person is waiting:
// a fast, explained failure beats a slow success.
//
// Background: 8 attempts, backoff 1s doubling up to 1min, 10min total, 1min
// per attempt, Retry-After honoured up to 5min, 1s minimal attempt, 2min of
// silence allowed on a live response. Nobody is
// waiting, so the call rides out short outages instead of pushing the retry
// to yet another layer (a queue that redelivers multiplies attempts).
func DefaultPolicy(c Class) Policy {
	if c.valid() == Background {
		return Policy{
			MaxAttempts:      8,
			BaseDelay:        time.Second,
			MaxDelay:         time.Minute,
			Timeout:          10 * time.Minute,
			AttemptTimeout:   time.Minute,
			MaxRetryAfter:    5 * time.Minute,
			MinAttempt:       time.Second,
			MaxBody:          DefaultMaxBody,
			MaxBuffer:        DefaultMaxBuffer,
			ErrorBodyTimeout: time.Second,
			IdleTimeout:      2 * time.Minute,
		}
	}
	return Policy{
		MaxAttempts:      3,
		BaseDelay:        100 * time.Millisecond,
		MaxDelay:         time.Second,
		Timeout:          10 * time.Second,
		MaxRetryAfter:    3 * time.Second,
		MinAttempt:       100 * time.Millisecond,
		MaxBody:          DefaultMaxBody,
		MaxBuffer:        DefaultMaxBuffer,
		ErrorBodyTimeout: time.Second,
		IdleTimeout:      30 * time.Second,
	}
}

// Budget is a token bucket that limits retries across all the calls of one
// Runner and one Class. First attempts are free; every retry takes tokens,
// and when the bucket cannot pay the call stops with ErrBudgetExhausted.
// Answers that show a healthy server put tokens back. Under a total outage no
// tokens come back, so once the bucket is empty every call makes one attempt:
// the outage costs at most Capacity extra requests, however many calls fail.
type Budget struct {
	// Capacity is the number of tokens the bucket holds; it starts full.
	Capacity float64
	// RetryCost is what one retry takes.
	RetryCost float64
	// TimeoutCost is what a retry after a timeout takes: a timed-out server is
	// likely overloaded, and retrying it costs the most.
	TimeoutCost float64
	// SuccessRefill is what one healthy answer (a success or any status that
	// is not retried) puts back.
	SuccessRefill float64
	// Unlimited disables the budget.
	Unlimited bool
}

// DefaultBudget returns the budget a Runner uses for c unless WithBudget
// replaces it. Interactive: 10 tokens, a retry costs 1, a retry after a
// timeout 2, each healthy answer refills 0.5. Background: 50 tokens, same
// costs and refill.
//
// The refill sets what retries may add to a server that still answers: at
// most one retry per two healthy answers (+50% load), enough to absorb a 30%
// transient failure rate (about 0.43 retries per call). Under a total outage
// nothing refills, so the capacity alone bounds amplification.
func DefaultBudget(c Class) Budget {
	if c.valid() == Background {
		return Budget{Capacity: 50, RetryCost: 1, TimeoutCost: 2, SuccessRefill: 0.5}
	}
	return Budget{Capacity: 10, RetryCost: 1, TimeoutCost: 2, SuccessRefill: 0.5}
}
