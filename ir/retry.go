package ir

import "time"

// Safety is the resolved answer to "may the client resend this operation after
// an unknown outcome?".
type Safety int

const (
	// Unsafe operations are never resent once the request may have reached the
	// server.
	Unsafe Safety = iota
	// Idempotent operations repeat with the same intended effect.
	Idempotent
	// Keyed operations are made safe by an idempotency key sent in a header;
	// every attempt of one call carries the same key.
	Keyed
)

// String returns the lower-case name of the safety level.
func (s Safety) String() string {
	switch s {
	case Idempotent:
		return "idempotent"
	case Keyed:
		return "keyed"
	default:
		return "unsafe"
	}
}

// IdempotencyKind records how the document stated an operation's safety.
type IdempotencyKind int

const (
	// IdempotencyInferred means x-idempotent is absent: safety follows the
	// method (RFC 9110), unless a key header parameter makes it keyed.
	IdempotencyInferred IdempotencyKind = iota
	// IdempotencyTrue is `x-idempotent: true`.
	IdempotencyTrue
	// IdempotencyFalse is `x-idempotent: false`.
	IdempotencyFalse
	// IdempotencyKeyed is the object form `x-idempotent: {key: {...}}`, or an
	// inferred operation that declares an Idempotency-Key header parameter.
	IdempotencyKeyed
)

// String returns the kind as the docs name it.
func (k IdempotencyKind) String() string {
	switch k {
	case IdempotencyTrue:
		return "true"
	case IdempotencyFalse:
		return "false"
	case IdempotencyKeyed:
		return "keyed"
	default:
		return "inferred"
	}
}

// Level is where a setting came from; the nearest level wins.
type Level int

const (
	// LevelDefault means no document level set it: the built-in default holds.
	LevelDefault Level = iota
	// LevelRoot is the document root.
	LevelRoot
	// LevelPathItem is the path item holding the operation.
	LevelPathItem
	// LevelOperation is the operation itself.
	LevelOperation
	// LevelParameter is a declared key header parameter (keyed inference).
	LevelParameter
	// LevelInferred is a setting idemgen inferred from the operation's
	// parameters and responses (an unannotated paginated operation).
	LevelInferred
)

// String names the level.
func (l Level) String() string {
	switch l {
	case LevelRoot:
		return "root"
	case LevelPathItem:
		return "path item"
	case LevelOperation:
		return "operation"
	case LevelParameter:
		return "parameter"
	case LevelInferred:
		return "inferred"
	default:
		return "default"
	}
}

// RetryContract is everything the client needs to decide whether an attempt
// may be repeated.
type RetryContract struct {
	// Safety is the resolved decision the generated client follows.
	Safety Safety
	// Kind records how the document expressed it.
	Kind IdempotencyKind
	// KeyIn and KeyName locate the idempotency key of a Keyed operation
	// (KeyIn is always "header" today).
	KeyIn   string
	KeyName string
	// KeyTTL is how long the server keeps a key (x-idempotent's ttl); 0 when
	// the document does not say (clients then assume 24 hours).
	KeyTTL time.Duration
	// IdempotencyLevel is where Kind came from.
	IdempotencyLevel  Level
	IdempotencySource Source
	// Retryable is the set of statuses worth retrying.
	Retryable StatusSet
	// RetryableLevel is where Retryable came from (LevelDefault: 408, 429,
	// 502, 503, 504).
	RetryableLevel  Level
	RetryableSource Source
	// Summary states the contract in one sentence, naming the operation by its
	// Go name ("CreateOrder is keyed: every attempt sends one Idempotency-Key;
	// retried on 408, 429, 502, 503, 504 and on unknown outcomes."). The
	// generated method's doc comment opens with it.
	Summary string
}

// StatusSet is a set of HTTP statuses: exact codes plus whole classes.
type StatusSet struct {
	// Codes are exact statuses, sorted and unique.
	Codes []int
	// Classes are leading digits, sorted and unique: 5 means "5XX".
	Classes []int
}

// Contains reports whether status is in the set.
func (s StatusSet) Contains(status int) bool {
	for _, c := range s.Codes {
		if c == status {
			return true
		}
	}
	for _, c := range s.Classes {
		if status/100 == c {
			return true
		}
	}
	return false
}

// DefaultRetryable returns the set used when no level sets x-retryable-status.
func DefaultRetryable() StatusSet {
	return StatusSet{Codes: []int{408, 429, 502, 503, 504}}
}
