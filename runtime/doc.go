// Package runtime is the retry engine every idemgen-generated client shares:
// it runs the attempts of one call of an operation according to the
// operation's retry contract (Operation), and records each of them.
//
// Generated code imports it as idemrt and calls Runner.Do with a prepared
// Request: the body is encoded once, and every attempt sends the same bytes
// and, for keyed operations, the same idempotency key.
//
// The request itself is built by the codec, package runtime/wire (URL,
// parameter styles, form, multipart and union codecs), which generated code
// imports beside this one. Neither package imports the other; what both name
// (Request, ErrInvalidParam, ErrNoVariant) is defined once in
// runtime/internal/shared. Everything a user of a generated SDK writes is
// here: options, errors, keys, and Date, the type of a `format: date` model
// field.
//
// # What one attempt's outcome leads to
//
// Each attempt is classified with net/http/httptrace events, never by
// matching error text: no request write means the request never left
// (dial, DNS, TLS handshake, refused connection); a write followed by a
// failure means the outcome is unknown (timeout, reset, EOF before a
// response); otherwise a response arrived. A success body is read whole
// within the attempt, so a body cut mid-way (ErrResponseLost) is a lost
// response, an unknown outcome like the others.
//
//	outcome of an attempt              | safe op (idempotent or keyed) | unsafe op
//	-----------------------------------+-------------------------------+-------------------------------
//	request never written              | retry                         | retry
//	written, then timeout/reset/EOF    | retry                         | stop: ErrOutcomeUnknown
//	403 or 429 with a rate-limit       | wait for the reset, retry;    | same (the server refused
//	  signal (Retry-After,             | if it cannot wait:            |   before executing)
//	  x-ratelimit-remaining: 0,        |   ErrRateLimited              |
//	  RateLimit r=0)                   |                               |
//	401, 407; 403 without that signal  | fail fast: ErrUnauthorized    | fail fast: ErrUnauthorized
//	412                                | ErrPreconditionFailed         | ErrPreconditionFailed
//	keyed op: 409 (in progress)        | wait, retry with the same key | -
//	keyed op: 422 (key reused)         | fail fast: ErrKeyReuse        | -
//	keyed op: 409 or 422 with another  |                               |
//	  problem type, or on the first    | return it (business answer)   | -
//	  send of the engine's key         |                               |
//	status in the op's retryable set   | retry                         | retry only if 429
//	anything else                      | return it                     | return it
//	Stripe-Should-Retry/x-should-retry | false: no retry; true: retry  | false: no retry; true: ignored
//	  (after the rows above)           |   what would be returned      |   (never made resendable)
//
// A keyed operation's 409 or 422 that carries ReplayedHeader
// (Idempotent-Replayed: true) is the stored business answer of the key's
// first execution, not the idempotency layer speaking: it is returned as is.
// So is the 409 or 422 answering the first send of a key the engine made
// (the caller gave none): nobody sent that key before. Otherwise an
// application/problem+json answer's type decides: one ending in
// /idempotency-key-reused is ErrKeyReuse, /request-in-progress is "in
// progress", any other type is the operation's own answer; only an answer
// without a problem type is read by its status alone.
//
// Before each retry the limits are checked in this order, and the first that
// fails stops the call at once, without sleeping, naming itself in the error:
// the attempts left (ErrAttemptsExhausted), the server's hint against
// Policy.MaxRetryAfter (ErrRetryAfterTooLong), the wait plus
// Policy.MinAttempt against the time left before the deadline (ErrDeadline,
// or ErrRetryAfterTooLong when the wait is the server's hint), and the retry
// budget (ErrBudgetExhausted). A keyed call that ran out while the server
// still answered 409 wraps both ErrInProgress and the limit. A call that
// ends with an unknown outcome (an attempt written and lost, no later
// answer settling it) always matches ErrOutcomeUnknown too, whatever limit
// stopped it. The final record's Outcome is success, rejected (the server
// said no), unknown, or not-sent (nothing reached the server).
//
// When a doer gives no trace information (a custom Doer that does not go
// through net/http's Transport), every failure counts as an unknown outcome:
// the safe reading.
//
// # Hostile servers
//
// Success bodies are read up to Policy.MaxBody (32 MiB; WithMaxBody) into
// one buffer sized by Content-Length (*BodyTooLargeError beyond); error
// bodies up to MaxErrorBody within Policy.ErrorBodyTimeout (1s). A Policy's
// zero fields keep the class defaults, so the Retry-After ceiling is always
// on. Redirect hops are recorded (OutcomeRedirected, then ReasonRedirect),
// never charged or counted as attempts, and on a redirect to another
// host:port nothing a request editor added (API keys in headers, query or
// cookies, Authorization) nor the Referer is sent. Decode errors are
// *CallError values matching ErrDecode, with the key and the attempts.
//
// # Waits
//
// The wait before a retry is the server's hint when it gives one
// (retry-after-ms, else Retry-After as delta-seconds or an HTTP-date in any of
// the three forms of http.ParseTime); negative, garbage or overflowing values
// and dates not in the future are ignored. Otherwise it is full-jitter
// exponential backoff: a uniform random time in
// [0, min(MaxDelay, BaseDelay * 2^n)) before retry n, with the jitter kept at
// the cap so that clients failing together do not retry together.
//
// # Default policies
//
// Interactive (the default class; a person is waiting): 3 attempts, backoff
// 100ms doubling to 1s, 10s total deadline, server hints honoured up to 3s,
// 100ms minimal attempt; budget of 10 tokens refilled by 0.5 per healthy
// answer. A fast failure that says why beats a slow success.
//
// Background (WithClass(Background); queues and batch jobs): 8 attempts,
// backoff 1s doubling to 1min, 10min total, 1min per attempt, hints honoured
// up to 5min, 1s minimal attempt; budget of 50 tokens refilled by 0.5. Nobody
// is waiting, so the call rides out short outages itself rather than handing
// the retry to another layer.
//
// The deadline is the context's when it has one, else Policy.Timeout; it also
// covers reading the successful response's body, which the engine does
// before Do returns (so does Policy.AttemptTimeout). Calls whose
// context can never be cancelled (context.Background) and that start within
// the same 10ms share one deadline timer, so their deadline may fall up to
// 10ms after Policy.Timeout; this keeps the happy path free of a timer, a
// context and a cancel wrapper per call. A shared deadline that a newer one
// replaced is cancelled when its last call ends, so a context kept from a
// finished call ends then, as a call's own timeout context does.
//
// # Event streams and downloads
//
// OpenStream (text/event-stream, JSON lines, JSON text sequences) and
// Download (binary or unknown-size bodies) run the call like Do up to the
// response headers, then hand the body over live: the deadline covers the
// headers only, and each read must then make progress within
// Policy.IdleTimeout (WithIdleTimeout). A cut stream of a safe operation
// reconnects with Last-Event-ID and the same key, a cut download with Range
// and If-Range, under the limits of a retry (MaxAttempts in a row, the
// server's retry: up to MaxRetryAfter, the context's deadline, the budget);
// an unsafe operation's stream is never re-sent and ends with a
// *StreamCutError that matches ErrOutcomeUnknown.
//
// # Retry budget
//
// Each Runner holds one token bucket per class. First attempts are free;
// each retry takes Budget.RetryCost tokens, or Budget.TimeoutCost after an
// attempt that timed out (an overloaded server is the worst one to hammer).
// Healthy answers (anything but a retried status or a transport failure)
// refill Budget.SuccessRefill. Under a total outage nothing refills, so once
// the bucket is empty each call makes one attempt: the outage costs at most
// Capacity extra requests per Runner and class, however many calls fail.
//
// # Hedged calls
//
// WithHedging sends an idempotent operation's request again when no answer
// came within HedgePolicy.After (0: the operation's recent p95), up to
// HedgePolicy.MaxAttempts sends in flight, and takes the first answer that
// settles the call; the others are cancelled (OutcomeCancelled). Each hedge
// passes the adaptive throttle and pays the retry budget like a retry, and
// counts against Policy.MaxAttempts. Unsafe and keyed operations are never
// hedged. A round whose sends all failed goes back to the gate above.
//
// # One layer retries
//
// While it runs attempts, the engine marks the context it passes down. A call
// made under that context (a generated client used from inside another's
// request editor or doer in the same process) makes one attempt only. The
// NoRetry option does the same for a whole Runner or one call, for callers
// that own retries themselves (a queue that redelivers).
//
// # The Transport's hidden replays
//
// net/http's Transport silently resends a request when a reused keep-alive
// connection turns out to be dead, if the method is idempotent or the request
// carries an Idempotency-Key (or X-Idempotency-Key) header. The first send may
// have reached the server. An unsafe operation's request is made one the
// Transport cannot replay (a body without GetBody), so it is sent once. For
// safe operations the engine sees each write through httptrace and
// records every extra one as an attempt (Err ErrTransportReplay on the lost
// send, Reason ReasonTransportReplay on the resend), counts it against
// Policy.MaxAttempts and charges it to the budget, so no send goes uncounted.
//
// # Attempt records
//
// An Observer (WithObserver, WithSlog) receives one Attempt per send, with
// the call's context; a CallObserver also hears of the call's start (and
// can add to its context, e.g. a trace span) and end. WithAttemptLog
// returns the list to the caller; errors carry it too
// (AttemptsOf). Records hold no headers, so Authorization and Cookie values
// never reach an observer or a log.
//
// # Errors
//
// A final status of 400 or more is a *StatusError (status, headers, body up
// to MaxErrorBody, key, attempts); a call without a usable response is a
// *CallError (key, attempts, cause). Both wrap the sentinel of the rule or
// limit that ended the call, for errors.Is, and KeyOf returns the key to
// reconcile or retry the intent later.
//
// Every failed call has a key, whatever the operation's safety: Keyed
// operations send it in their key header; other operations do not send it
// (their contract has no key header), but the error and the attempt records
// still name the call's intent with it (Request.Key, or a fresh NewKey), so an
// unsafe POST that ends in ErrOutcomeUnknown leaves one identifier to log and
// reconcile by.
//
// # Files
//
// One package holds the engine and the SDK surface built on it (why:
// docs/runtime.md, "Why pagination, streams and downloads are not
// sub-packages"). Its files, in the order a call passes through them:
//
//   - options.go, calloptions.go: Option and CallOption; the options of a
//     Runner (WithHTTPClient, WithPolicy, WithObserver, NoRetry...) and of a
//     call (WithTimeout, WithBaseURL, WithResponse...), and
//     how a call's options are applied to its state.
//   - runner.go: Runner, NewRunner, Doer, Runner.Do (where every call
//     starts), NewKey and BuildFailed. operation.go: Operation, Safety,
//     StatusSet, the contract a generated method passes. policy.go: Class,
//     Policy, Budget and their defaults. clock.go: the injectable Clock.
//   - call.go: one call's state (its key, policy, deadline, request and
//     records); callctx.go: the context its attempts run under, which also
//     marks nested calls (one layer retries); deadline.go: the deadline
//     windows shared by calls without a cancellable context.
//   - attempt_loop.go: the attempt loop (run), judging each attempt and
//     gating the next; attempt.go: sending one attempt, and keeping
//     net/http's hidden replays counted; trace.go: the httptrace hooks that
//     tell a request never written from one that may have arrived.
//   - hedge.go: WithHedging, and the hedged round that takes the place of
//     one send (its sends on goroutines, the winner, the losers cancelled);
//     hedge_sketch.go: the per-operation latency ring behind After 0.
//   - decide.go: the decision table above (decideStatus, decideError) and
//     the limit errors.
//   - backoff.go: full-jitter backoff and the wait before a retry;
//     retryafter.go: Retry-After and retry-after-ms; ratelimit.go,
//     ratelimit_field.go: the rate-limit and should-retry headers of real
//     APIs (the RateLimit field's parser in the second); budget.go: the
//     retry budget's token bucket. The deadline is checked in
//     attempt_loop.go.
//   - redirect.go: redirect hops, recorded and stripped of credentials on
//     another host; credentials.go: WithCredentialSource and the refresh
//     after a 401.
//   - body.go: reading the success body within its attempt (MaxBody,
//     ErrResponseLost); result.go: handing the response or a StatusError
//     back; decode.go, decode_media.go: DecodeJSON, DecodeMedia, ErrorModel
//     and the other readers generated methods call.
//   - record.go: Attempt, Reason, Outcome, WaitSource, Observer; slog.go:
//     the log/slog observer.
//   - pager.go, pager_cursor.go, pager_link.go, pager_errors.go: pagination
//     (Pager, cursors, the Link header and next URLs, PageError).
//   - open.go: calls whose success body is handed over live (streams and
//     downloads): the deadline covers the headers only; idle.go: the idle
//     timeout of each read after that.
//   - stream_events.go: OpenStream, Stream and Event; sse.go: the
//     text/event-stream, JSON lines and JSON text sequence parsers;
//     resume.go: reconnecting a cut stream, StreamCutError.
//   - download.go: Download and Body, resumed with Range and If-Range.
//   - stream.go: request bodies that stream (File, readers), replayed or
//     made single-attempt.
//   - errors.go: the sentinels, StatusError, CallError, KeyOf, AttemptsOf;
//     wire_errors.go: the codec's errors, named here.
//   - nullable.go, date.go: Nullable and Date, types of generated models.
package runtime
