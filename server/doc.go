// Package idemsrv is what a generated server calls: it decodes parameters
// and bodies the way a generated client encodes them, runs keyed operations
// through the ledger (package ledger), checks required preconditions before
// the handler runs, sheds load with a spread Retry-After, and answers every
// refusal as application/problem+json (RFC 9457).
//
// Generated code calls it; a server author meets only the options:
//
//	srv, err := orders.NewServer(handler, idemsrv.WithLedger(l), idemsrv.WithMaxInFlight(64))
//
// A spec whose operations are keyed does not start without WithLedger, or
// WithoutLedger to say on purpose that the handler keeps the key contract
// itself; with a ledger, keyed operations under a security requirement
// need WithSecurity (the generated SecurityHandler names the principal that
// scopes their keys) or WithCredentialScopedKeys. See docs/server.md for
// the contract every generated server keeps.
//
// # Where the neighbours live
//
// Every refusal is written by package runtime/problem (problem.Write), the
// one writer of idemgen's application/problem+json vocabulary, shared with
// the ledger, the webhook receiver, the mock and the client that reads
// these answers; it lives in the runtime module because that is the lowest
// module all of them import. Webhook receivers are package server/webhook,
// a product of their own (their own options, errors and callers), and load
// shedding is server/internal/shed, used by the Engine alone. The router
// stays here: it is the Engine's, and nothing else routes.
//
// # Files
//
// One package holds the engine and what it calls, each file one concern.
// In the order a request passes through them:
//
//   - doc.go: this map. options.go: Option and the options of an Engine
//     (WithLedger, WithMaxInFlight, WithBodyLimits, WithOnError...).
//   - engine.go: Engine, New, Route, Engine.Handle and Root: the chain a
//     request passes (panic recovery, shedding, the router, then per route
//     the body deadline, the credentials, the preconditions and the key);
//     NotImplemented.
//   - router.go: the router generated servers mount (a tree of template
//     segments, HEAD beside GET, query-pair variants); router_template.go:
//     compiling a path template, RouteError; router_dotsegment.go: the
//     escaped dot-segments (%2e%2e) a path never matches; unrouted.go: 404,
//     405 and OPTIONS for what no route takes.
//   - body_deadline.go: the body's read deadline (WithBodyLimits' timeout),
//     set before the ledger or a decoder reads it.
//   - security.go: WithSecurity, the credential types, Principal;
//     security_scheme.go: Scheme, Check and the constructors of each
//     OpenAPI scheme; security_guard.go: Engine.Secure, running the
//     SecurityHandler under WithAuthTimeout; credentials.go: Credential, the
//     caller that scopes a key without a SecurityHandler.
//   - stream_key.go: the key check of keyed operations served outside the
//     ledger (streams).
//   - decode.go: Request, Engine.Decode, ParamError, reading path, query,
//     header and cookie parameters; query.go: query pairs, deepObject and
//     form objects; styles.go: the parameter styles (simple, label, matrix,
//     form, spaceDelimited, pipeDelimited); formobject.go: an exploded form
//     object's left-over pairs; value.go: the value read from the wire,
//     valueKind (scalar, list, object) and assigning it to the Go field;
//     union.go: oneOf and anyOf parameters.
//   - body.go: Request.JSON, Text and Bytes, the body read once and
//     bounded; form.go: Request.Form (application/x-www-form-urlencoded);
//     multipart.go: Request.Multipart, PartError.
//   - precondition.go: PreconditionFailed, the 412 of a required If-Match.
//   - negotiate.go: Negotiate, NotAcceptable, Media and Engine.WriteMedia,
//     answering in the media type the Accept header chose.
//   - respond.go: WriteJSON, WriteText, WriteEmpty, SetHeader, Status and
//     Engine.WriteError, where a handler's error becomes a status.
//   - download.go: Download and Engine.WriteDownload, with Range and
//     If-Range.
//   - stream.go: Stream, ServeStream, StreamFormat, EventFields;
//     stream_frame.go: framing an event (text/event-stream, JSON Lines,
//     JSON text sequences); stream_keepalive.go: WithStreamKeepAlive;
//     stream_drain.go: WithStreamDrain, ending streams on shutdown;
//     stream_negotiate.go: Route.WithStream and Engine.HandleEither, one
//     path answering a stream or a plain body; stream_switch.go:
//     Route.WithStreamSwitch, a body member choosing the stream.
//   - recover.go: a handler's panic answered 500 and reported to
//     WithOnError as a *ledger.PanicError.
package idemsrv
