package ir

// Lookup is where the result of a keyed or unsafe operation can be found
// (x-lookup): a safe operation that finds it by the call's key or a
// client reference. A reconciler runs it to learn whether a call whose
// outcome is unknown was executed, without sending the call again.
type Lookup struct {
	// Operation is the safe operation that finds the result.
	Operation *Operation
	// Key is Operation's parameter that carries the key or reference.
	Key *Parameter
	// Found is an RFC 6901 JSON pointer into Operation's answer to the
	// result ("/data/0"): a present, non-null value there means found. ""
	// means the whole answer: a 2xx is found, a 404 is not.
	Found  string
	Source Source
}
