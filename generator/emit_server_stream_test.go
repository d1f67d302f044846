package generator

import (
	"strings"
	"testing"
)

// TestServerStreamsMirrorTheClient: an operation that only streams is a
// Handler method taking the client's arguments and an *idemsrv.Stream of
// the client's event type; its route carries the framing and media type
// the client parses; a keyed one is not among the operations that need a
// ledger (a stream never runs through it).
func TestServerStreamsMirrorTheClient(t *testing.T) {
	src := serverFiles(t, "streaming.yaml")["server_gen.go"]
	for _, want := range []string{
		"WatchEvents(ctx context.Context, params WatchEventsParams, stream *idemsrv.Stream[Event]) error",
		"RunJob(ctx context.Context, body JobRequest, params RunJobParams, stream *idemsrv.Stream[JobProgress]) error",
		"WatchTicker(ctx context.Context, stream *idemsrv.Stream[string]) error",
		`Stream:    &idemsrv.StreamFormat{Framing: idemrt.FramingJSONSeq, MediaType: "application/json-seq"}`,
		`Stream:    &idemsrv.StreamFormat{Framing: idemrt.FramingSSE, MediaType: "text/event-stream"}`,
		"idemsrv.ServeStream(s.engine, w, r, &runJobRoute, 200, func(stream *idemsrv.Stream[JobProgress]) error {",
		"idemsrv.New(nil, opts...)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("server_gen.go lacks %q", want)
		}
	}
	if strings.Contains(src, "(it streams") {
		t.Error("a stream is still reported as unserved")
	}
}

// TestServerServesTheStreamForm: an operation answering JSON or a stream
// has both client methods mirrored in the Handler, and one route whose
// form Accept picks.
func TestServerServesTheStreamForm(t *testing.T) {
	src := serverFiles(t, "streaming.yaml")["server_gen.go"]
	for _, want := range []string{
		"CreateCompletion(ctx context.Context, body CompletionRequest) (*Completion, error)",
		"CreateCompletionStream(ctx context.Context, body CompletionRequest, stream *idemsrv.Stream[CompletionChunk]) error",
		`var createCompletionStreamRoute = createCompletionRoute.WithStream(idemrt.FramingSSE, "text/event-stream")`,
		`e.HandleEither(createCompletionRoute, s.serveCreateCompletion, createCompletionStreamRoute, s.serveCreateCompletionStream)`,
		"idemsrv.ServeStream(s.engine, w, r, &createCompletionStreamRoute, 200, func(stream *idemsrv.Stream[CompletionChunk]) error {",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("server_gen.go lacks %q", want)
		}
	}
}
