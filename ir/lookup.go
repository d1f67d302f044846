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
	Found string
	// Member is the name of the member of the operation's required JSON
	// or form body that carries the key: a scalar member named exactly like
	// Key. An unsafe operation's call takes its value as the call's key;
	// "" when the body has no such member (an unsafe call then gets a fresh
	// key, which the lookup cannot find).
	Member string
	// Match is an RFC 6901 JSON pointer into the found value to where it
	// carries the key ("/reference"): a found value that holds another
	// value there is another intent's, and is not found. It is x-lookup's
	// match, else "/"+Member when the found value's schema declares that
	// member; "" when neither (nothing is checked, and lint warns).
	Match  string
	Source Source
}
