package ir

import "strings"

// The pure contract rules of DESIGN.md section 3, shared by the parser (which
// resolves every operation's RetryContract) and `idemgen annotate` (which
// writes x-idempotent into documents that lack it). Both must read a document
// the same way, or annotate would write `x-idempotent: false` on an operation
// the parser calls keyed; they live here, with no dependency, so neither
// package restates them.

// IsKeyHeader reports whether a header parameter of this name declares an
// idempotency key: "Idempotency-Key", in any case. An operation that declares
// one and has no x-idempotent is keyed by it.
func IsKeyHeader(name string) bool {
	return strings.EqualFold(name, "Idempotency-Key")
}

// InferredSafety returns what RFC 9110 says about a method (any case): GET,
// HEAD, OPTIONS, TRACE, PUT, DELETE and QUERY are idempotent; POST, PATCH,
// CONNECT and anything else are not.
func InferredSafety(method string) Safety {
	switch strings.ToUpper(method) {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "QUERY":
		return Idempotent
	}
	return Unsafe
}

// OperationMethod returns the HTTP method of a path item member that holds an
// operation ("get" -> "GET"), the keys kin-openapi reads: the eight of
// OpenAPI 3.0/3.1, "query" (OpenAPI 3.2) and "connect". Keys are
// case-sensitive, as in OpenAPI; any other member is not an operation.
func OperationMethod(key string) (method string, ok bool) {
	switch key {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace", "query", "connect":
		return strings.ToUpper(key), true
	}
	return "", false
}
