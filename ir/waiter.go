package ir

import "time"

// Waiter is one named wait of a safe operation (x-waiters): the client
// polls the operation until its result matches Until (success), matches
// FailOn (failure) or the time runs out.
type Waiter struct {
	// Name is the name as written ("PaymentSucceeded"); GoName its Go form,
	// which the client's Wait<GoName> method carries.
	Name   string
	GoName string
	// Until is the success condition; FailOn the failure one, nil for none.
	Until  WaitMatch
	FailOn *WaitMatch
	// PendingStatus lists the statuses of a poll that mean "not there yet"
	// (404): the wait goes on.
	PendingStatus []int
	// Delay, MaxDelay and Timeout pace the polls; zero leaves the runtime's
	// default.
	Delay, MaxDelay, Timeout time.Duration
	Source                   Source
}

// WaitMatch is a condition on the operation's JSON result: the value at
// Pointer, in its string form, is one of In.
type WaitMatch struct {
	// Pointer is an RFC 6901 JSON pointer into the result ("/status"); a
	// bare member name in the document is normalised to one.
	Pointer string
	// In are the values' string forms: a string as it is, true and false,
	// null, and a number in the runtime's canonical text (idemrt.NumberText).
	In []string
}
