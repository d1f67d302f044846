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
package idemsrv
