package ir

// Framing is how a streamed response body is cut into events. The parser
// sets it on response media types whose body is a sequence of events rather
// than one document; the generator then returns an idemrt.Stream.
type Framing string

// The framings of streamed media types.
const (
	// FramingSSE is text/event-stream: Server-Sent Events, each event's data
	// one value.
	FramingSSE Framing = "sse"
	// FramingJSONLines is JSON Lines (application/jsonl, application/x-ndjson):
	// one JSON value per line.
	FramingJSONLines Framing = "jsonl"
	// FramingJSONSeq is RFC 7464 JSON text sequences (application/json-seq):
	// each value preceded by an ASCII record separator.
	FramingJSONSeq Framing = "json-seq"
)
