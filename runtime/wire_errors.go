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
	// ErrNoVariant is returned when no variant of a union decodes the data;
	// a success body that matches none is a *CallError matching ErrDecode
	// and ErrNoVariant.
	ErrNoVariant = shared.ErrNoVariant
)
