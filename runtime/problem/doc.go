// Package problem is idemgen's application/problem+json (RFC 9457)
// vocabulary, the one place that says what a client of an idemgen server
// may read in a refusal: every problem type URI the runtime, the ledger,
// the server, the webhook receiver and the mock send or recognise is
// declared here once, Write is the one writer (one set of headers), and
// Is is the one way a client recognises a type.
//
// It lives in the runtime module, the lowest one that needs it: generated
// clients import only that module, and the ledger, the server and the
// webhook receiver import it already, so nothing gains a dependency.
//
// Files: types.go, the type URIs; write.go, Details, Encode, Write and
// the headers every problem answer carries; is.go, Is and Named, how a
// client reads a type.
package problem
