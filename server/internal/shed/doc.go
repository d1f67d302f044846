// Package shed is the load shedding of idemsrv's engine (WithMaxInFlight,
// WithMaxQueued): a Shedder admits at most a number of requests at once,
// queues a few for a slot, and refuses the rest with a 503 problem whose
// Retry-After spreads the refused clients over the time the server needs
// for them. The engine alone uses it, hence internal.
//
// Files: shed.go, the Shedder, admission and the virtual queue's pace;
// queue.go, the requests waiting for a slot; answer.go, the precomputed
// 503s.
package shed
