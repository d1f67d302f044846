package ir

// ClientMethods are the methods a generated Client may have besides its
// operations' own: the reconciler's ResendIntent and LookupIntent, and
// WithServerURL. The parser names no operation with one of them (an
// operation "resendIntent" gets the method ResendIntent2), so a document
// never takes one away from the client.
var ClientMethods = []string{"LookupIntent", "ResendIntent", "WithServerURL"}
