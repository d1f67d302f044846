package runtime

import "github.com/idemgen/idemgen/runtime/internal/shared"

// Errors of the codec (package runtime/wire) that users match: the same
// values wire returns, defined in runtime/internal/shared so that neither
// package imports the other, and named here so that a user of a generated
// SDK matches every error through idemrt.
var (
	// ErrInvalidParam is wrapped by every error about a parameter value: a
	// path value that is "", "." or "..", a value of a type no style can
	// express. Such a call sends nothing (BuildFailed).
	ErrInvalidParam = shared.ErrInvalidParam
	// ErrEmptyLookupKey is wrapped by the error of an unsafe call whose key
	// is the client reference its x-lookup finds it by, when that
	// reference is empty (or absent): such a call sends nothing, is not
	// journaled, and fails with BuildFailed's *CallError, since a call
	// whose answer is lost could never be looked up. A lookup for the key
	// "" (Lookup, LookupIntent) is refused with it too, before it is sent.
	ErrEmptyLookupKey = shared.ErrEmptyLookupKey
	// ErrNoVariant is returned when no variant of a union decodes the data;
	// a success body that matches none is a *CallError matching ErrDecode
	// and ErrNoVariant.
	ErrNoVariant = shared.ErrNoVariant
	// ErrTooDeep is returned when a JSON body nests objects and arrays
	// deeper than MaxJSONDepth; a success body that does is a *CallError
	// matching ErrDecode and ErrTooDeep. The check is one pass over the
	// bytes before anything is decoded.
	ErrTooDeep = shared.ErrTooDeep
)

// MaxJSONDepth is how deep the runtime's JSON decoders let objects and
// arrays nest (encoding/json allows 10,000). A recursive schema costs one
// decode of its subtree per level, so the limit also bounds that cost.
const MaxJSONDepth = shared.MaxDepth
