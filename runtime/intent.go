package runtime

import (
	"context"
	"errors"
)

// LookupResult is what an operation's x-lookup found for one intent: whether
// the intent was executed and, when it was, the value the lookup returned.
type LookupResult struct {
	// Found reports that the server holds a result for the intent.
	Found bool
	// Status is the lookup's HTTP status.
	Status int
	// Body is the found value: the JSON at x-lookup's found pointer, or the
	// whole response body when the extension names no pointer.
	Body []byte
}

// IntentLooker is implemented by generated clients: it runs the x-lookup of
// the operation with the given operationId for an intent's key or client
// reference. A reconciler uses it to learn whether an unsafe call whose
// outcome is unknown was executed, without ever resending it.
type IntentLooker interface {
	LookupIntent(ctx context.Context, operation, key string) (LookupResult, error)
}

// ErrNoLookup is returned by LookupIntent for an operation that declares no
// x-lookup.
var ErrNoLookup = errors.New("idemrt: the operation declares no x-lookup")
