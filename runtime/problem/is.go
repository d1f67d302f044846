package problem

import "strings"

// Named is a problem type's name: the last path segment of its URI
// ("idempotency-key-reused" for KeyReused).
func Named(typ string) string { return typ[strings.LastIndexByte(typ, '/')+1:] }

// Is reports whether a type a server sent is want, one of the types above.
// It compares names, not whole URIs: servers that follow
// draft-ietf-httpapi-idempotency-key-header's examples send the same names
// under their own host, and mean the same thing.
func Is(got, want string) bool { return got != "" && Named(got) == Named(want) }
